/**
 * `forgelet error-tracking …`: error tracking of a project on a running server.
 *   enable <project>       integrated tracking on; prints the DSN
 *   keys <project>         the client keys (DSNs)
 *   rotate-key <project>   create a key, confirm it is listed, delete the old one; prints the new DSN
 *   errors <project>       grouped errors (sort, status, search)
 */
import type { Command } from 'commander';
import type { ClientKeyEntity, ErrorTrackingErrorEntity } from '@forgelet/core';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}

interface RotateFlags extends Flags {
  keyId?: string;
}

interface ErrorsFlags extends Flags {
  sort?: string;
  status?: string;
  search?: string;
}

const SORTS = ['last_seen', 'first_seen', 'frequency'] as const;
const STATUSES = ['unresolved', 'resolved', 'ignored'] as const;

function remoteCommand(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an access token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON');
}

/** Plain columns, as wide as their widest cell. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 2))).join('').trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

export function registerErrorTrackingCommands(program: Command, io: CliIo): void {
  const et = program.command('error-tracking').description('error tracking of a project on a running server (Sentry-compatible DSNs)');
  remoteCommand(et.command('enable <project>'))
    .description('turn on integrated error tracking (Maintainer) and print the DSN')
    .action((project: string, flags: Flags) => enable(project, flags, io));
  remoteCommand(et.command('keys <project>'))
    .description("list a project's client keys and their DSNs")
    .action((project: string, flags: Flags) => listKeys(project, flags, io));
  remoteCommand(et.command('rotate-key <project>'))
    .description('rotate the client key: create a new one, confirm it is listed, delete the old one; prints the new DSN')
    .option('--key-id <id>', 'the key to replace (needed when the project has several)')
    .action((project: string, flags: RotateFlags) => rotateKey(project, flags, io));
  remoteCommand(et.command('errors <project>'))
    .description("list a project's grouped errors")
    .option('--sort <sort>', `one of ${SORTS.join(', ')}`, 'last_seen')
    .option('--status <status>', `one of ${STATUSES.join(', ')}`)
    .option('--search <text>', 'match title, message or culprit')
    .action((project: string, flags: ErrorsFlags) => listErrors(project, flags, io));
}

async function enable(project: string, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const settings = await call(remote, (api) => api.errorTrackingSettings.create(project, { active: true, integrated: true }));
  if (flags.json) return writeJson(io.stdout, settings);
  io.stdout.write(`Error tracking is on for ${project}.\nDSN: ${settings.gitlab_dsn ?? '(no active key)'}\n`);
}

async function listKeys(project: string, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const keys = await call(remote, (api) => api.errorTrackingClientKeys.all(project, { per_page: 100 }).toArray());
  if (flags.json) return writeJson(io.stdout, keys);
  if (keys.length === 0) return void io.stdout.write('No client keys.\n');
  io.stdout.write(table(['ID', 'ACTIVE', 'DSN'], keys.map((k) => [String(k.id), k.active ? 'yes' : 'no', k.sentry_dsn])));
}

/**
 * The spec's rotation: create a new key, list the keys to confirm it exists, delete the old
 * key by its id. The old key is `--key-id`, or the project's only other key; with several
 * and no `--key-id` nothing is changed.
 */
async function rotateKey(project: string, flags: RotateFlags, io: CliIo): Promise<void> {
  if (flags.keyId !== undefined && !/^\d+$/.test(flags.keyId)) throw new UsageError(`--key-id must be a key id, got "${flags.keyId}"`);
  const remote = resolveRemote(flags, io.env);
  const all = (): Promise<ClientKeyEntity[]> => call(remote, (api) => api.errorTrackingClientKeys.all(project, { per_page: 100 }).toArray());
  const before = await all();
  let old: ClientKeyEntity | undefined;
  if (flags.keyId !== undefined) {
    old = before.find((k) => k.id === Number(flags.keyId));
    if (!old) throw new CliError(`project ${project} has no client key ${flags.keyId}`);
  } else if (before.length > 1) {
    throw new UsageError(`project ${project} has ${before.length} client keys (${before.map((k) => k.id).join(', ')}): pass --key-id to name the one to replace`);
  } else {
    old = before[0];
  }
  const created = await call(remote, (api) => api.errorTrackingClientKeys.create(project));
  const listed = (await all()).find((k) => k.id === created.id);
  if (!listed || listed.public_key !== created.public_key || !listed.active) {
    throw new CliError(`the new client key ${created.id} is not listed as active; the old key was kept`);
  }
  if (old) await call(remote, (api) => api.errorTrackingClientKeys.remove(project, old.id));
  if (flags.json) return writeJson(io.stdout, { created, deleted: old ?? null });
  io.stdout.write(`${old ? `Deleted client key ${old.id}; ` : ''}new client key ${created.id}.\n${created.sentry_dsn}\n`);
}

async function listErrors(project: string, flags: ErrorsFlags, io: CliIo): Promise<void> {
  const sort = flags.sort ?? 'last_seen';
  if (!(SORTS as readonly string[]).includes(sort)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')}, got "${sort}"`);
  if (flags.status !== undefined && !(STATUSES as readonly string[]).includes(flags.status)) {
    throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${flags.status}"`);
  }
  const remote = resolveRemote(flags, io.env);
  const list: ErrorTrackingErrorEntity[] = await call(remote, (api) =>
    api.errorTrackingErrors
      .all(project, {
        sort: sort as (typeof SORTS)[number],
        ...(flags.status && { status: flags.status as (typeof STATUSES)[number] }),
        ...(flags.search !== undefined && { search: flags.search }),
        per_page: 100,
      })
      .toArray(),
  );
  if (flags.json) return writeJson(io.stdout, list);
  if (list.length === 0) return void io.stdout.write('No errors.\n');
  io.stdout.write(table(['ID', 'STATUS', 'EVENTS', 'USERS', 'LAST SEEN', 'TITLE'], list.map((e) => [String(e.id), e.status, String(e.count), String(e.user_count), e.last_seen, e.title])));
}
