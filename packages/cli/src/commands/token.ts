/**
 * `forgelet token create|list|revoke|rotate`: personal access tokens on a running server (admin
 * token), or with `--impersonation` a user's impersonation tokens; `rotate` also rotates project
 * and group access tokens (`--project`, `--group`).
 */
import type { Command } from 'commander';
import type { PersonalAccessTokenEntity } from '@forgelet/core';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { parseChoice, splitList } from '../options.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';
import { findUser } from './users.js';

interface CreateFlags extends RemoteFlags {
  user: string;
  scopes: string;
  name: string;
  expiresAt?: string;
  impersonation?: boolean;
  json?: boolean;
}

interface ListFlags extends RemoteFlags {
  user?: string;
  impersonation?: boolean;
  state?: string;
  json?: boolean;
}

interface RevokeFlags extends RemoteFlags {
  user?: string;
  impersonation?: boolean;
  json?: boolean;
}

const IMPERSONATION_STATES = ['all', 'active', 'inactive'] as const;

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
  const token = program.command('token').description('personal access tokens, and impersonation tokens (--impersonation), on a running server');
  remoteCommand(token.command('create'))
    .description('create a personal access token (or an impersonation token) for a user; prints the token')
    .requiredOption('--user <user>', 'the user the token is for (username or id)')
    .requiredOption('--scopes <scopes>', 'comma-separated scopes, e.g. api or read_api,read_repository')
    .option('--name <name>', 'token name', 'cli')
    .option('--expires-at <date>', 'expiry date, YYYY-MM-DD')
    .option('--impersonation', 'an impersonation token: it acts as the user (administrators)')
    .action((flags: CreateFlags) => createToken(flags, io));
  remoteCommand(token.command('list'))
    .description("list personal access tokens (all users, or one), or with --impersonation a user's impersonation tokens")
    .option('--user <user>', "only this user's tokens (username or id)")
    .option('--impersonation', "the user's impersonation tokens (needs --user)")
    .option('--state <state>', `impersonation tokens in this state: ${IMPERSONATION_STATES.join(', ')} (default all)`)
    .action((flags: ListFlags) => listTokens(flags, io));
  remoteCommand(token.command('revoke'))
    .description('revoke a personal access token (or, with --impersonation --user, an impersonation token)')
    .argument('<id>', 'token id')
    .option('--impersonation', "one of the user's impersonation tokens (needs --user)")
    .option('--user <user>', 'the user whose impersonation token it is (username or id)')
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

/** `--user` is what an impersonation token belongs to: required with `--impersonation`, else refused. */
function impersonatedUser(flags: { user?: string; impersonation?: boolean }, userFlagAllowed: boolean): string | undefined {
  if (flags.impersonation && flags.user === undefined) throw new UsageError('--impersonation needs --user');
  if (!flags.impersonation && !userFlagAllowed && flags.user !== undefined) throw new UsageError('--user is for impersonation tokens: add --impersonation');
  return flags.user;
}

async function createToken(flags: CreateFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const user = await findUser(remote, flags.user);
  const params = { name: flags.name, scopes: splitList(flags.scopes) as never, expires_at: flags.expiresAt };
  const body = await call(remote, (api) =>
    flags.impersonation ? api.userImpersonationTokens.create(user.id, params) : api.personalAccessTokens.createForUser(user.id, params),
  );
  if (flags.json) writeJson(io.stdout, body);
  else io.stdout.write(`${body.token}\n`);
}

async function listTokens(flags: ListFlags, io: CliIo): Promise<void> {
  impersonatedUser(flags, true);
  if (flags.state !== undefined && !flags.impersonation) throw new UsageError('--state is for impersonation tokens: add --impersonation');
  const state = flags.state === undefined ? undefined : parseChoice(flags.state, 'flag', '--state', IMPERSONATION_STATES);
  const remote = resolveRemote(flags, io.env);
  const user = flags.user === undefined ? undefined : await findUser(remote, flags.user);
  if (flags.impersonation) {
    const tokens = await call(remote, (api) => api.userImpersonationTokens.all(user!.id, { per_page: 100, ...(state !== undefined && { state }) }).toArray());
    if (flags.json) return writeJson(io.stdout, tokens);
    const { renderTokenTable } = await import('../ui/token-table.js');
    return void io.stdout.write(renderTokenTable(tokens, new Map([[user!.id, user!.username]]), io.stdout.columns, 'impersonation tokens'));
  }
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
  const ref = impersonatedUser(flags, false);
  const remote = resolveRemote(flags, io.env);
  if (!/^\d+$/.test(id)) throw new CliError(`token id must be a number, got "${id}"`);
  if (ref !== undefined) {
    const user = await findUser(remote, ref);
    await call(remote, (api) => api.userImpersonationTokens.revoke(user.id, Number(id)));
  } else {
    await call(remote, (api) => api.personalAccessTokens.revoke(Number(id)));
  }
  if (flags.json) writeJson(io.stdout, { id: Number(id), revoked: true });
  else io.stdout.write(`Revoked ${ref !== undefined ? 'impersonation' : 'personal access'} token ${id}.\n`);
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
