/** `forgelet users list|show|create`: user accounts on a running server (administrators for most). */
import type { Command } from 'commander';
import type { AnyUserEntity } from '@forgelet/client';
import { CliError } from '../errors.js';
import { formatFields, writeJson, type CliIo } from '../io.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type Remote, type RemoteFlags } from '../remote.js';
import { isLive, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  search?: string;
  admins?: boolean;
  blocked?: boolean;
}
interface CreateFlags extends Flags {
  username: string;
  email: string;
  name: string;
  password?: string;
  admin?: boolean;
  external?: boolean;
}

export function registerUserCommands(program: Command, io: CliIo): void {
  const users = program.command('users').description('user accounts on a running server');
  pagingOptions(remoteOptions(users.command('list')))
    .description('list users (newest first)')
    .option('--search <text>', 'match name, username or email')
    .option('--admins', 'only administrators')
    .option('--blocked', 'only blocked users')
    .action((flags: ListFlags) => list(flags, io));
  remoteOptions(users.command('show <user>'))
    .description('one user, by id or username')
    .action((user: string, flags: Flags) => show(user, flags, io));
  remoteOptions(users.command('create'), 'an administrator token')
    .description('create a user (administrators)')
    .requiredOption('--username <username>', 'username')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--name <name>', 'display name')
    .option('--password <password>', 'password (default: a random one, the user resets it)')
    .option('--admin', 'make the user an administrator')
    .option('--external', 'an external user')
    .action((flags: CreateFlags) => create(flags, io));
}

/** A user by numeric id or by username (`GET /users?username=`). */
export async function findUser(remote: Remote, ref: string): Promise<AnyUserEntity> {
  if (/^\d+$/.test(ref)) return call(remote, (api) => api.users.show(Number(ref)));
  const found = await call(remote, (api) => api.users.all({ username: ref }).page(1));
  const user = found.items.find((u) => u.username.toLowerCase() === ref.toLowerCase());
  if (!user) throw new CliError(`no user named "${ref}" on ${remote.url}`);
  return user;
}

function stateCell(u: AnyUserEntity) {
  return u.state === 'active' ? { text: 'active', color: 'green' } : { text: u.state, color: 'yellow' };
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading users', () =>
    call(remote, (api) =>
      fetchListing(
        api.users.all({
          per_page: paging.perPage,
          ...(flags.search !== undefined && { search: flags.search }),
          ...(flags.admins && { admins: true }),
          ...(flags.blocked && { blocked: true }),
        }),
        paging,
      ),
    ),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No users.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((u) => [String(u.id), u.username, u.name, stateCell(u), 'email' in u ? u.email : '', 'is_admin' in u && u.is_admin ? 'yes' : '']);
  io.stdout.write(renderTable(['ID', 'USERNAME', 'NAME', 'STATE', 'EMAIL', 'ADMIN'], rows, io.stdout.columns) + footer);
}

function describeUser(u: AnyUserEntity): string {
  const lines: [string, string][] = [
    ['ID', String(u.id)],
    ['Username', u.username],
    ['Name', u.name],
    ['State', u.state],
  ];
  if ('email' in u) lines.push(['Email', u.email]);
  if ('is_admin' in u && u.is_admin !== undefined) lines.push(['Administrator', u.is_admin ? 'yes' : 'no']);
  if ('external' in u) lines.push(['External', u.external ? 'yes' : 'no']);
  lines.push(['Created', u.created_at], ['Web URL', u.web_url]);
  return formatFields(lines);
}

async function show(ref: string, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const user = await findUser(remote, ref);
  if (flags.json) return writeJson(io.stdout, user);
  io.stdout.write(describeUser(user));
}

async function create(flags: CreateFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const user = await call(remote, (api) =>
    api.users.create({
      username: flags.username,
      email: flags.email,
      name: flags.name,
      ...(flags.password !== undefined ? { password: flags.password } : { force_random_password: true }),
      ...(flags.admin && { admin: true }),
      ...(flags.external && { external: true }),
      skip_confirmation: true,
    }),
  );
  if (flags.json) return writeJson(io.stdout, user);
  io.stdout.write(`Created user ${user.username} (id ${user.id}).\n`);
}
