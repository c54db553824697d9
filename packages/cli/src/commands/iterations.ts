/**
 * `forgelet iterations list` and `forgelet iterations cadences list|create`: group iterations
 * and iteration cadences on a running server (Premium and Ultimate).
 */
import type { Command } from 'commander';
import type { IterationCadenceEntity, IterationEntity } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface ListFlags extends RemoteFlags {
  group: string;
  state?: string;
  search?: string;
  json?: boolean;
}

interface CadenceListFlags extends RemoteFlags {
  group: string;
  json?: boolean;
}

interface CadenceCreateFlags extends RemoteFlags {
  group: string;
  title: string;
  description?: string;
  startDate?: string;
  durationInWeeks?: string;
  iterationsInAdvance?: string;
  manual?: boolean;
  rollOver?: boolean;
  json?: boolean;
}

const STATES = ['opened', 'upcoming', 'current', 'closed', 'all'] as const;
const STATE_NAMES: Record<number, string> = { 1: 'upcoming', 2: 'current', 3: 'closed' };

function remoteCommand(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an access token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON')
    .requiredOption('--group <id>', 'group id or full path');
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

/** Plain columns, as wide as their widest cell. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 2))).join('').trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

export function registerIterationCommands(program: Command, io: CliIo): void {
  const iterations = program.command('iterations').description('group iterations and iteration cadences on a running server');
  remoteCommand(iterations.command('list'))
    .description("list a group's iterations (with its ancestors')")
    .option('--state <state>', `one of ${STATES.join(', ')}`, 'all')
    .option('--search <text>', 'match iteration and cadence titles')
    .action((flags: ListFlags) => listIterations(flags, io));
  const cadences = iterations.command('cadences').description('iteration cadences of a group');
  remoteCommand(cadences.command('list'))
    .description("list a group's iteration cadences")
    .action((flags: CadenceListFlags) => listCadences(flags, io));
  remoteCommand(cadences.command('create'))
    .description('create an iteration cadence (automatic unless --manual)')
    .requiredOption('--title <title>', 'cadence title')
    .option('--description <text>', 'description')
    .option('--start-date <date>', 'first day of the first iteration, YYYY-MM-DD')
    .option('--duration-in-weeks <n>', 'weeks per iteration, 1 to 4')
    .option('--iterations-in-advance <n>', 'upcoming iterations to keep scheduled, 1 to 10')
    .option('--manual', 'iterations are added by hand, not scheduled')
    .option('--roll-over', 'mark the cadence to roll over open issues')
    .action((flags: CadenceCreateFlags) => createCadence(flags, io));
}

async function listIterations(flags: ListFlags, io: CliIo): Promise<void> {
  const state = flags.state ?? 'all';
  if (!(STATES as readonly string[]).includes(state)) throw new UsageError(`--state must be one of ${STATES.join(', ')}, got "${state}"`);
  const remote = resolveRemote(flags, io.env);
  const search = flags.search === undefined ? {} : { search: flags.search, in: ['title', 'cadence_title'] as ('title' | 'cadence_title')[] };
  const list: IterationEntity[] = await call(remote, (api) =>
    api.groupIterations.all(flags.group, { state: state as (typeof STATES)[number], ...search, per_page: 100 }).toArray(),
  );
  if (flags.json) return writeJson(io.stdout, list);
  if (list.length === 0) return void io.stdout.write('No iterations.\n');
  const rows = list.map((i) => [String(i.id), String(i.iid), String(i.sequence), STATE_NAMES[i.state] ?? String(i.state), i.start_date, i.due_date, i.title ?? '']);
  io.stdout.write(table(['ID', 'IID', 'SEQ', 'STATE', 'START', 'DUE', 'TITLE'], rows));
}

function cadenceRows(list: IterationCadenceEntity[]): string[][] {
  return list.map((c) => [
    String(c.id),
    c.title,
    c.automatic ? 'automatic' : 'manual',
    c.active ? 'yes' : 'no',
    c.start_date,
    c.duration_in_weeks === null ? '-' : `${c.duration_in_weeks}w`,
    c.iterations_in_advance === null ? '-' : String(c.iterations_in_advance),
  ]);
}
const CADENCE_HEADERS = ['ID', 'TITLE', 'SCHEDULING', 'ACTIVE', 'START', 'DURATION', 'IN ADVANCE'];

async function listCadences(flags: CadenceListFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const list = await call(remote, (api) => api.iterationCadences.all(flags.group, { per_page: 100 }).toArray());
  if (flags.json) return writeJson(io.stdout, list);
  if (list.length === 0) return void io.stdout.write('No iteration cadences.\n');
  io.stdout.write(table(CADENCE_HEADERS, cadenceRows(list)));
}

async function createCadence(flags: CadenceCreateFlags, io: CliIo): Promise<void> {
  const duration = positiveInt(flags.durationInWeeks, '--duration-in-weeks');
  const inAdvance = positiveInt(flags.iterationsInAdvance, '--iterations-in-advance');
  const remote = resolveRemote(flags, io.env);
  const cadence = await call(remote, (api) =>
    api.iterationCadences.create(flags.group, {
      title: flags.title,
      description: flags.description,
      start_date: flags.startDate,
      duration_in_weeks: duration,
      iterations_in_advance: inAdvance,
      automatic: !flags.manual,
      roll_over: flags.rollOver ?? false,
    }),
  );
  if (flags.json) return writeJson(io.stdout, cadence);
  io.stdout.write(`Created iteration cadence ${cadence.id} (${cadence.title}).\n`);
}
