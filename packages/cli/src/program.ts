/** The `forgelet` command line: commander program, exit codes and error printing. */
import { Command, CommanderError } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { registerInitCommand } from './commands/init.js';
import { registerServeCommand } from './commands/serve.js';
import { registerTokenCommands } from './commands/token.js';
import { registerIterationCommands } from './commands/iterations.js';
import { registerImportCommands } from './commands/imports.js';
import { registerErrorTrackingCommands } from './commands/error-tracking.js';
import { registerSeedCommand } from './commands/seed.js';
import { registerClockCommands } from './commands/clock.js';
import { registerSnapshotCommands } from './commands/snapshot.js';
import { registerRunnerCommand } from './commands/runner.js';
import { registerFlowExecutorCommand } from './commands/flow-executor.js';
import { registerConsoleCommand } from './console/command.js';
import { registerLoginCommands } from './commands/login.js';
import { registerUserCommands } from './commands/users.js';
import { registerGroupCommands } from './commands/groups.js';
import { registerScheduleCommands } from './commands/schedules.js';
import { registerArtifactCommands } from './commands/artifacts.js';
import { registerPackageCommands } from './commands/packages.js';
import { registerFlowCommands } from './commands/flows.js';
import { CliError } from './errors.js';
import { processIo, type CliIo } from './io.js';

/**
 * The program with every command. Parse errors throw CommanderError (exitOverride) instead
 * of exiting, so `run` and tests decide the exit code.
 */
export function buildProgram(io: CliIo = processIo()): Command {
  const program = new Command('forgelet')
    .description('Forgelet: a self-hostable, GitLab-compatible REST API')
    .version(pkg.version, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)');
  registerServeCommand(program, io);
  registerInitCommand(program, io);
  registerTokenCommands(program, io);
  registerIterationCommands(program, io);
  registerImportCommands(program, io);
  registerErrorTrackingCommands(program, io);
  registerSeedCommand(program, io);
  registerClockCommands(program, io);
  registerSnapshotCommands(program, io);
  registerRunnerCommand(program, io);
  registerFlowExecutorCommand(program, io);
  registerConsoleCommand(program, io);
  registerLoginCommands(program, io);
  registerUserCommands(program, io);
  registerGroupCommands(program, io);
  registerScheduleCommands(program, io);
  registerArtifactCommands(program, io);
  registerPackageCommands(program, io);
  registerFlowCommands(program, io);
  return program;
}

/**
 * Runs one command line (without `node` and the script) and resolves with its exit code:
 * 0 done, 1 failed (server error, unreachable server …), 2 bad usage.
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  try {
    await buildProgram(io).parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    // commander has printed its own message (or the help or version)
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      io.stderr.write(`error: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
