/**
 * `forgelet clock [show|set|freeze|unfreeze|advance]`: the clock of a running server in test
 * mode. `advance` runs every job that comes due on the way before it returns.
 */
import type { Command } from 'commander';
import type { ClockEntity } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface ClockFlags extends RemoteFlags {
  json?: boolean;
  freeze?: boolean;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `90`, `90s`, `15m`, `2h`, `1d`, `1w`, or a sum like `1d12h`, in seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+)([smhdw])/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== trimmed) {
    throw new UsageError(`the duration must be seconds or like 90s, 15m, 2h, 1d, 1w, 1d12h; got "${text}"`);
  }
  return parts.reduce((sum, m) => sum + Number(m[1]) * UNITS[m[2]!]!, 0);
}

function remote(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an admin token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON');
}

function show(io: CliIo, flags: ClockFlags, clock: ClockEntity & { jobs_run?: number }): void {
  if (flags.json) return writeJson(io.stdout, clock);
  const jobs = clock.jobs_run === undefined ? '' : ` (${clock.jobs_run} job${clock.jobs_run === 1 ? '' : 's'} run)`;
  io.stdout.write(`${clock.now} ${clock.frozen ? 'frozen' : 'running'}${jobs}\n`);
}

export function registerClockCommands(program: Command, io: CliIo): void {
  const clock = program.command('clock').description('read, set, freeze or advance the clock of a server in --test-mode');
  remote(clock.command('show', { isDefault: true }))
    .description('print the server time and whether it is frozen')
    .action(async (flags: ClockFlags) => show(io, flags, await call(resolveRemote(flags, io.env), (api) => api.harness.clock())));
  remote(clock.command('set'))
    .description('set the server time (ISO-8601)')
    .argument('<time>', 'e.g. 2024-06-01T09:00:00Z')
    .option('--freeze', 'and stop it there')
    .action(async (time: string, flags: ClockFlags) => {
      const at = new Date(time);
      if (Number.isNaN(at.getTime())) throw new UsageError(`<time> must be an ISO-8601 date and time, got "${time}"`);
      const r = resolveRemote(flags, io.env);
      show(io, flags, await call(r, (api) => api.harness.setClock({ now: at.toISOString(), ...(flags.freeze && { frozen: true }) })));
    });
  remote(clock.command('freeze'))
    .description('stop the clock')
    .action(async (flags: ClockFlags) => show(io, flags, await call(resolveRemote(flags, io.env), (api) => api.harness.setClock({ frozen: true }))));
  remote(clock.command('unfreeze'))
    .description('let the clock run again from where it stands')
    .action(async (flags: ClockFlags) => show(io, flags, await call(resolveRemote(flags, io.env), (api) => api.harness.setClock({ frozen: false }))));
  remote(clock.command('advance'))
    .description('move the time forward, running every job that comes due on the way')
    .argument('<duration>', 'seconds, or like 15m, 2h, 1d, 1w, 1d12h')
    .action(async (duration: string, flags: ClockFlags) => {
      const seconds = parseDuration(duration);
      const r = resolveRemote(flags, io.env);
      show(io, flags, await call(r, (api) => api.harness.advanceClock(seconds)));
    });
}
