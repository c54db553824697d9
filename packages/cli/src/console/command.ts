/** `forgelet console` (and `forgelet` alone in a terminal): the interactive console. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

/** True when both ends are a terminal: the console needs keys in and a screen out. */
export function interactive(io: CliIo, stdin: { isTTY?: boolean } = process.stdin): boolean {
  return Boolean(stdin.isTTY && io.stdout.isTTY);
}

export function registerConsoleCommand(program: Command, io: CliIo): void {
  program
    .command('console')
    .description('interactive console: browse projects, schedules, flows, errors and imports, and act on them')
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an access token (env FORGELET_TOKEN)')
    .action(async (flags: RemoteFlags) => {
      if (!interactive(io)) throw new UsageError('the console needs a terminal (stdin and stdout must be a TTY)');
      const remote = resolveRemote(flags, io.env);
      // Ink draws only the last frame when it thinks it runs in CI (CI or CONTINUOUS_INTEGRATION
      // set, read once when Ink loads). The console has just checked that a person's terminal is
      // on both ends, so it is interactive whatever the environment says.
      for (const name of ['CI', 'CONTINUOUS_INTEGRATION']) if (process.env[name] !== undefined) process.env[name] = '0';
      const { runConsole } = await import('./run.js');
      await runConsole(remote);
    });
}
