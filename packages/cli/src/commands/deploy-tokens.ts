/**
 * `forgelet deploy-tokens list|create|revoke`: deploy tokens of a project (`--project`) or a group
 * (`--group`), and every one of the instance (`list --instance`, administrators; GitLab has no
 * instance-level create). `create` prints the clear token, the only time the server gives it.
 */
import type { Command } from 'commander';
import type { Forgelet } from '@forgelet/client';
import type { DeployTokenEntity } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { splitList } from '../options.js';
import { ownerOf, ownerOptions, type OwnerFlags } from '../owner.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags, OwnerFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  active?: boolean;
}
interface CreateFlags extends Flags {
  name: string;
  scopes: string;
  username?: string;
  expiresAt?: string;
}

export function registerDeployTokenCommands(program: Command, io: CliIo): void {
  const tokens = program.command('deploy-tokens').description('deploy tokens of a project, a group or the instance on a running server');
  pagingOptions(ownerOptions(remoteOptions(tokens.command('list'))))
    .description('list deploy tokens (never their secrets)')
    .option('--active', 'only tokens neither revoked nor expired')
    .action((flags: ListFlags) => list(flags, io));
  ownerOptions(remoteOptions(tokens.command('create')), false)
    .description('create a deploy token for a project or a group; prints the token (shown only this once)')
    .requiredOption('--name <name>', 'token name')
    .requiredOption('--scopes <scopes>', 'comma-separated, e.g. read_package_registry,write_package_registry')
    .option('--username <username>', 'username for HTTP Basic (default gitlab+deploy-token-<id>)')
    .option('--expires-at <date>', 'expiry, YYYY-MM-DD or an ISO 8601 time (default: never)')
    .action((flags: CreateFlags) => create(flags, io));
  ownerOptions(remoteOptions(tokens.command('revoke <id>')), false)
    .description("revoke a project's or a group's deploy token (the server deletes it, as GitLab does)")
    .action((id: string, flags: Flags) => revoke(id, flags, io));
}

function resource(api: Forgelet, kind: 'project' | 'group') {
  return kind === 'project' ? api.projectDeployTokens : api.groupDeployTokens;
}

function stateCell(t: DeployTokenEntity) {
  if (t.revoked) return { text: 'revoked', color: 'red' };
  if (t.expired) return { text: 'expired', color: 'yellow' };
  return { text: 'active', color: 'green' };
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags);
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const query = { per_page: paging.perPage, ...(flags.active && { active: true }) };
  const { items, footer } = await call(remote, (api) =>
    fetchListing(owner.kind === 'instance' ? api.deployTokens.all(query) : resource(api, owner.kind).all(owner.id, query), paging),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No deploy tokens.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((t) => [String(t.id), t.name, t.username, stateCell(t), t.expires_at ?? 'never', t.scopes.join(',')]);
  io.stdout.write(renderTable(['ID', 'NAME', 'USERNAME', 'STATE', 'EXPIRES', 'SCOPES'], rows, io.stdout.columns) + footer);
}

async function create(flags: CreateFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags, false);
  const remote = resolveRemote(flags, io.env);
  const token = await call(remote, (api) =>
    resource(api, owner.kind).create(owner.id, {
      name: flags.name,
      scopes: splitList(flags.scopes) as never,
      ...(flags.username !== undefined && { username: flags.username }),
      ...(flags.expiresAt !== undefined && { expires_at: flags.expiresAt }),
    }),
  );
  if (flags.json) return writeJson(io.stdout, token);
  io.stdout.write(`${token.token}\n`);
}

async function revoke(id: string, flags: Flags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags, false);
  if (!/^\d+$/.test(id) || Number(id) < 1) throw new UsageError(`token id must be a positive integer, got "${id}"`);
  const remote = resolveRemote(flags, io.env);
  await call(remote, (api) => resource(api, owner.kind).remove(owner.id, Number(id)));
  if (flags.json) return writeJson(io.stdout, { id: Number(id), deleted: true });
  io.stdout.write(`Deleted deploy token ${id}.\n`);
}
