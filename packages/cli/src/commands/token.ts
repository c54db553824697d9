/**
 * `forgelet token create|list|revoke|rotate`: personal access tokens on a running server (admin
 * token); `rotate` also rotates project and group access tokens (`--project`, `--group`).
 */
import type { Command } from 'commander';
import type { PersonalAccessTokenEntity, UserBasicEntity } from '@forgelet/core';
import { CliError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type Remote, type RemoteFlags } from '../remote.js';

interface CreateFlags extends RemoteFlags {
  user: string;
  scopes: string;
  name: string;
  expiresAt?: string;
  json?: boolean;
}

interface ListFlags extends RemoteFlags {
  user?: string;
  json?: boolean;
}

interface RevokeFlags extends RemoteFlags {
  json?: boolean;
}

interface RotateFlags extends RemoteFlags {
  expiresAt?: string;
  keepLifetime?: boolean;
  project?: string;
  group?: string;
  json?: boolean;
}

function remoteCommand(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an administrator token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON');
}

export function registerTokenCommands(program: Command, io: CliIo): void {
  const token = program.command('token').description('manage personal access tokens on a running server');
  remoteCommand(token.command('create'))
    .description("create a personal access token for a user; prints the token")
    .requiredOption('--user <username>', 'the user the token is for')
    .requiredOption('--scopes <scopes>', 'comma-separated scopes, e.g. api or read_api,read_repository')
    .option('--name <name>', 'token name', 'cli')
    .option('--expires-at <date>', 'expiry date, YYYY-MM-DD')
    .action((flags: CreateFlags) => createToken(flags, io));
  remoteCommand(token.command('list'))
    .description('list personal access tokens (all users, or one)')
    .option('--user <username>', "only this user's tokens")
    .action((flags: ListFlags) => listTokens(flags, io));
  remoteCommand(token.command('revoke'))
    .description('revoke a personal access token')
    .argument('<id>', 'token id')
    .action((id: string, flags: RevokeFlags) => revokeToken(id, flags, io));
  remoteCommand(token.command('rotate'))
    .description('revoke a token and issue a new one like it; prints the new token')
    .argument('<id>', "token id, or `self` for the token in use (personal tokens)")
    .option('--expires-at <date>', 'expiry of the new token, YYYY-MM-DD (default: one week from now)')
    .option('--keep-lifetime', 'the new token lives as long as the old one did')
    .option('--project <id>', 'a project access token of this project (id or path)')
    .option('--group <id>', 'a group access token of this group (id or path)')
    .action((id: string, flags: RotateFlags) => rotateToken(id, flags, io));
}

async function findUser(remote: Remote, username: string): Promise<UserBasicEntity> {
  const users = await call(remote, (api) => api.users.all({ username }).toArray());
  const user = users.find((u) => u.username.toLowerCase() === username.toLowerCase());
  if (!user) throw new CliError(`no user named "${username}" on ${remote.url}`);
  return user;
}

async function createToken(flags: CreateFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const user = await findUser(remote, flags.user);
  const scopes = flags.scopes.split(',').map((s) => s.trim()).filter(Boolean);
  const body = await call(remote, (api) =>
    api.personalAccessTokens.createForUser(user.id, { name: flags.name, scopes: scopes as never, expires_at: flags.expiresAt }),
  );
  if (flags.json) writeJson(io.stdout, body);
  else io.stdout.write(`${body.token}\n`);
}

async function listTokens(flags: ListFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const user = flags.user === undefined ? undefined : await findUser(remote, flags.user);
  const tokens: PersonalAccessTokenEntity[] = await call(remote, (api) => api.personalAccessTokens.all({ user_id: user?.id, per_page: 100 }).toArray());
  if (flags.json) return writeJson(io.stdout, tokens);
  const usernames = new Map<number, string>(user ? [[user.id, user.username]] : []);
  const missing = [...new Set(tokens.map((t) => t.user_id))].filter((id) => !usernames.has(id));
  await Promise.all(
    missing.map(async (id) => {
      const found = await remote.api.users.show(id).catch(() => null);
      if (found) usernames.set(id, found.username);
    }),
  );
  const { renderTokenTable } = await import('../ui/token-table.js');
  io.stdout.write(renderTokenTable(tokens, usernames, io.stdout.columns));
}

async function revokeToken(id: string, flags: RevokeFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  if (!/^\d+$/.test(id)) throw new CliError(`token id must be a number, got "${id}"`);
  await call(remote, (api) => api.personalAccessTokens.revoke(Number(id)));
  if (flags.json) writeJson(io.stdout, { id: /^\d+$/.test(id) ? Number(id) : id, revoked: true });
  else io.stdout.write(`Revoked personal access token ${id}.\n`);
}

async function rotateToken(id: string, flags: RotateFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  if (flags.project !== undefined && flags.group !== undefined) throw new CliError('give --project or --group, not both');
  const resource = flags.project ?? flags.group;
  if (!/^\d+$/.test(id) && !(id === 'self' && resource === undefined)) {
    throw new CliError(`token id must be a number${resource === undefined ? ' or self' : ''}, got "${id}"`);
  }
  const params = { ...(flags.expiresAt !== undefined && { expires_at: flags.expiresAt }), ...(flags.keepLifetime && { keep_token_lifetime: true }) };
  const body = await call(remote, (api) => {
    if (flags.project !== undefined) return api.projectAccessTokens.rotate(flags.project, Number(id), params);
    if (flags.group !== undefined) return api.groupAccessTokens.rotate(flags.group, Number(id), params);
    return api.personalAccessTokens.rotate(id === 'self' ? 'self' : Number(id), params);
  });
  if (flags.json) writeJson(io.stdout, body);
  else io.stdout.write(`${body.token}\n`);
}
