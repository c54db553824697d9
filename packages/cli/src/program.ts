/** The `forgelet` command line: commander program, exit codes and error printing. */
import { Command, CommanderError } from 'commander';
import { registerServeCommand } from './commands/serve.js';
import pkg from '../package.json' with { type: 'json' };
import { CliError } from './errors.js';
import { processIo, type CliIo } from './io.js';

type Register = (program: Command, io: CliIo) => void;

/**
 * The other commands, loaded only when the command line is not `serve`: their modules pull in
 * the client and undici (~1 MB of code), which `forgelet serve` never uses, and it must answer
 * within 300 ms of process start.
 */
const OTHER_COMMANDS: (() => Promise<Register>)[] = [
  () => import('./commands/init.js').then((m) => m.registerInitCommand),
  () => import('./commands/secret-key.js').then((m) => m.registerSecretKeyCommands),
  () => import('./commands/token.js').then((m) => m.registerTokenCommands),
  () => import('./commands/deploy-tokens.js').then((m) => m.registerDeployTokenCommands),
  () => import('./commands/iterations.js').then((m) => m.registerIterationCommands),
  () => import('./commands/imports.js').then((m) => m.registerImportCommands),
  () => import('./commands/error-tracking.js').then((m) => m.registerErrorTrackingCommands),
  () => import('./commands/seed.js').then((m) => m.registerSeedCommand),
  () => import('./commands/clock.js').then((m) => m.registerClockCommands),
  () => import('./commands/snapshot.js').then((m) => m.registerSnapshotCommands),
  () => import('./commands/runner.js').then((m) => m.registerRunnerCommand),
  () => import('./commands/flow-executor.js').then((m) => m.registerFlowExecutorCommand),
  () => import('./console/command.js').then((m) => m.registerConsoleCommand),
  () => import('./commands/login.js').then((m) => m.registerLoginCommands),
  () => import('./commands/users.js').then((m) => m.registerUserCommands),
  () => import('./commands/groups.js').then((m) => m.registerGroupCommands),
  () => import('./commands/namespaces.js').then((m) => m.registerNamespaceCommands),
  () => import('./commands/schedules.js').then((m) => m.registerScheduleCommands),
  () => import('./commands/variables.js').then((m) => m.registerVariableCommands),
  () => import('./commands/artifacts.js').then((m) => m.registerArtifactCommands),
  () => import('./commands/packages.js').then((m) => m.registerPackageCommands),
  () => import('./commands/flows.js').then((m) => m.registerFlowCommands),
  () => import('./commands/catalog.js').then((m) => m.registerCatalogCommands),
  () => import('./commands/hooks.js').then((m) => m.registerHookCommands),
];

/**
 * The program with every command. Parse errors throw CommanderError (exitOverride) instead
 * of exiting, so `run` and tests decide the exit code.
 */
export async function buildProgram(io: CliIo = processIo()): Promise<Command> {
  return createProgram(io, await Promise.all(OTHER_COMMANDS.map((load) => load())));
}

/** `serve` and `others`; `forgelet serve` gets the same options, help and errors without the others. */
function createProgram(io: CliIo, others: readonly Register[]): Command {
  const program = new Command('forgelet')
    .description('Forgelet: a self-hostable, GitLab-compatible REST API')
    .version(pkg.version, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)');
  registerServeCommand(program, io);
  for (const register of others) register(program, io);
  return program;
}

/**
 * Runs one command line (without `node` and the script) and resolves with its exit code:
 * 0 done, 1 failed (server error, unreachable server …), 2 bad usage.
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  try {
    const program = args[0] === 'serve' ? createProgram(io, []) : await buildProgram(io);
    await program.parseAsync(args, { from: 'user' });
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
