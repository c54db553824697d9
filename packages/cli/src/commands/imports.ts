/**
 * `forgelet imports start|list|show|watch|cancel`: direct transfer migrations on a running
 * server (the destination). `watch` redraws one progress bar per entity and relation until
 * the migration ends.
 */
import type { Command } from 'commander';
import type { BulkImportEntity, BulkImportEntityEntity } from '@forgelet/core';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface StartFlags extends Flags {
  sourceUrl: string;
  sourceToken?: string;
  group?: string[];
  project?: string[];
  to: string;
  slug?: string;
  noProjects?: boolean;
  projects?: boolean;
  memberships?: boolean;
}
interface ListFlags extends Flags {
  status?: string;
  sort?: string;
}
interface WatchFlags extends Flags {
  interval?: string;
  timeout?: string;
}

const TERMINAL = ['finished', 'failed', 'canceled', 'timeout'];
const STATUSES = ['created', 'started', 'finished', 'failed'];

function remoteCommand(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an access token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON');
}

function idArg(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`migration id must be a positive integer, got "${value}"`);
  return Number(value);
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 2))).join('').trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

export function registerImportCommands(program: Command, io: CliIo): void {
  const imports = program.command('imports').description('migrations by direct transfer (bulk imports) on a running server');
  remoteCommand(imports.command('start'))
    .description('start a migration of groups and/or projects from a source instance')
    .requiredOption('--source-url <url>', 'base URL of the source instance')
    .option('--source-token <token>', 'access token of the source (api scope; env FORGELET_SOURCE_TOKEN)')
    .option('--group <path>', 'source group full path (repeatable)', collect)
    .option('--project <path>', 'source project full path (repeatable)', collect)
    .requiredOption('--to <namespace>', "destination group full path ('' for a new top-level group)")
    .option('--slug <slug>', 'destination path (default: the source path\'s last segment)')
    .option('--no-projects', 'do not import the projects of groups')
    .option('--no-memberships', 'do not import memberships')
    .action((flags: StartFlags) => start(flags, io));
  remoteCommand(imports.command('list'))
    .description('list your migrations')
    .option('--status <status>', `one of ${STATUSES.join(', ')}`)
    .option('--sort <order>', 'asc or desc by creation', 'desc')
    .action((flags: ListFlags) => list(flags, io));
  remoteCommand(imports.command('show <id>'))
    .description('a migration with its entities, stats and failures')
    .action((id: string, flags: Flags) => show(idArg(id), flags, io));
  remoteCommand(imports.command('watch <id>'))
    .description('progress bars per entity and relation until the migration ends')
    .option('--interval <ms>', 'poll interval in milliseconds', '1000')
    .option('--timeout <s>', 'give up after this many seconds', '3600')
    .action((id: string, flags: WatchFlags) => watch(idArg(id), flags, io));
  remoteCommand(imports.command('cancel <id>'))
    .description('cancel a migration')
    .action((id: string, flags: Flags) => cancel(idArg(id), flags, io));
}

async function start(flags: StartFlags, io: CliIo): Promise<void> {
  const sourceToken = flags.sourceToken ?? io.env.FORGELET_SOURCE_TOKEN;
  if (!sourceToken) throw new UsageError('a source token is needed: pass --source-token or set FORGELET_SOURCE_TOKEN');
  const groups = flags.group ?? [];
  const projects = flags.project ?? [];
  if (groups.length + projects.length === 0) throw new UsageError('name at least one --group or --project to import');
  if (flags.slug && groups.length + projects.length > 1) throw new UsageError('--slug applies to a single entity');
  const entity = (type: 'group_entity' | 'project_entity', path: string) => ({
    source_type: type,
    source_full_path: path,
    destination_slug: flags.slug ?? path.split('/').pop()!,
    destination_namespace: flags.to,
    migrate_projects: flags.projects !== false,
    migrate_memberships: flags.memberships !== false,
  });
  const remote = resolveRemote(flags, io.env);
  const migration = await call(remote, (api) =>
    api.bulkImports.create({ url: flags.sourceUrl, access_token: sourceToken }, [...groups.map((g) => entity('group_entity', g)), ...projects.map((p) => entity('project_entity', p))]),
  );
  if (flags.json) return writeJson(io.stdout, migration);
  io.stdout.write(`Started migration ${migration.id} from ${migration.source_url} (${migration.status}).\n`);
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  if (flags.status && !STATUSES.includes(flags.status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${flags.status}"`);
  if (flags.sort && !['asc', 'desc'].includes(flags.sort)) throw new UsageError(`--sort must be asc or desc, got "${flags.sort}"`);
  const remote = resolveRemote(flags, io.env);
  const rows = await call(remote, (api) =>
    api.bulkImports.all({ status: flags.status as 'created' | undefined, sort: flags.sort as 'asc' | 'desc', per_page: 100 }).toArray(),
  );
  if (flags.json) return writeJson(io.stdout, rows);
  if (rows.length === 0) return void io.stdout.write('No migrations.\n');
  io.stdout.write(table(['ID', 'STATUS', 'FAILURES', 'SOURCE', 'CREATED'], rows.map((m) => [String(m.id), m.status, m.has_failures ? 'yes' : 'no', m.source_url ?? '', m.created_at])));
}

async function load(flags: Flags, io: CliIo, id: number): Promise<{ migration: BulkImportEntity; entities: BulkImportEntityEntity[] }> {
  const remote = resolveRemote(flags, io.env);
  return call(remote, async (api) => {
    const migration = await api.bulkImports.show(id);
    const entities = await api.bulkImports.allEntities({ bulkImportId: id, sort: 'asc', per_page: 100 }).toArray();
    return { migration, entities };
  });
}

async function show(id: number, flags: Flags, io: CliIo): Promise<void> {
  const { migration, entities } = await load(flags, io, id);
  if (flags.json) return writeJson(io.stdout, { ...migration, entities });
  const { renderImportProgress } = await import('../ui/import-progress.js');
  io.stdout.write(renderImportProgress(migration, entities, io.stdout.columns));
}

async function watch(id: number, flags: WatchFlags, io: CliIo): Promise<void> {
  const interval = Number(flags.interval ?? 1000);
  const timeout = Number(flags.timeout ?? 3600);
  if (!Number.isFinite(interval) || interval < 10) throw new UsageError(`--interval must be at least 10 ms, got "${flags.interval}"`);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout must be a positive number of seconds, got "${flags.timeout}"`);
  const { renderImportProgress } = await import('../ui/import-progress.js');
  const until = Date.now() + timeout * 1000;
  let lastLines = 0;
  let last = '';
  for (;;) {
    const { migration, entities } = await load(flags, io, id);
    const ended = TERMINAL.includes(migration.status);
    if (flags.json) {
      if (ended) writeJson(io.stdout, { ...migration, entities });
    } else {
      const frame = renderImportProgress(migration, entities, io.stdout.columns);
      if (io.stdout.isTTY) {
        // Redraw in place.
        if (lastLines) io.stdout.write(`\x1b[${lastLines}A\x1b[0J`);
        io.stdout.write(frame);
        lastLines = frame.split('\n').length - 1;
      } else if (ended && frame !== last) io.stdout.write(frame);
      last = frame;
    }
    if (ended) {
      if (migration.status !== 'finished') throw new CliError(`migration ${id} ended ${migration.status}`);
      return;
    }
    if (Date.now() > until) throw new CliError(`migration ${id} still ${migration.status} after ${timeout}s`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

async function cancel(id: number, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const migration = await call(remote, (api) => api.bulkImports.cancel(id));
  if (flags.json) return writeJson(io.stdout, migration);
  io.stdout.write(`Migration ${migration.id} is ${migration.status}.\n`);
}
