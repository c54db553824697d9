/**
 * Deploy tokens of projects (`/projects/:id/deploy_tokens`) and groups (`/groups/:id/deploy_tokens`),
 * and the instance list (`/deploy_tokens`, administrators; GitLab has no instance-level create).
 * Stored as SHA-256 digests; the clear token (`gldt-…`) is shown once, at creation. They
 * authenticate on package routes (Basic: username and token) for the package registry scopes.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { MAX_DB_INTEGER, p, params, type InferShape } from '../../kernel/params.js';
import { authorize, requireAdmin, requireUser, type Subject } from '../../access/policy.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { DEPLOY_TOKEN_PREFIX, deployTokenUsername, type DeployTokenRow } from '../../access/deploy-token.table.js';

export const DEPLOY_TOKEN_SCOPES = ['read_repository', 'read_registry', 'write_registry', 'read_package_registry', 'write_package_registry'] as const;

/** GitLab's Entities::DeployToken (`token` only in the answer that creates it). */
export interface DeployTokenEntity {
  id: number;
  name: string;
  username: string;
  expires_at: string | null;
  scopes: string[];
  revoked: boolean;
  expired: boolean;
  token?: string;
}

const listFields = { active: p.boolean().optional().describe('true: only active (not revoked, not expired) tokens.'), ...paginationParams };
export const ListAllDeployTokensInput = params(listFields);
export const ListDeployTokensInput = params({ id: p.string(), ...listFields });
export type ListDeployTokensInput = InferShape<typeof ListDeployTokensInput.shape>;

export const CreateDeployTokenInput = params({
  id: p.string(),
  name: p.string().max(255).nonBlank().describe('Name of the deploy token.'),
  scopes: p.array(p.enum(DEPLOY_TOKEN_SCOPES)).commaSeparated().describe('At least one scope.'),
  expires_at: p.datetime().optional().describe('When the token expires (ISO 8601); none: never.'),
  username: p.string().max(255).optional().describe('Default `gitlab+deploy-token-<id>`.'),
});
export type CreateDeployTokenInput = InferShape<typeof CreateDeployTokenInput.shape>;

export const DeployTokenRefInput = params({ id: p.string(), token_id: p.id() });
export type DeployTokenRefInput = InferShape<typeof DeployTokenRefInput.shape>;

export type DeployTokenOwner = 'project' | 'group';

const USERNAME_RE = /^[a-zA-Z0-9.+_-]+$/;

function toDeployTokenEntity(row: DeployTokenRow, now: string, token?: string): DeployTokenEntity {
  const entity: DeployTokenEntity = {
    id: row.id,
    name: row.name,
    username: deployTokenUsername(row),
    expires_at: row.expires_at,
    scopes: JSON.parse(row.scopes) as string[],
    revoked: row.revoked === 1,
    expired: row.expires_at !== null && row.expires_at <= now,
  };
  if (token !== undefined) entity.token = token;
  return entity;
}

async function ownerOf(ctx: Ctx, kind: DeployTokenOwner, ref: string, ability: 'read_deploy_token' | 'create_deploy_token' | 'destroy_deploy_token') {
  const subject: Subject = kind === 'project' ? { kind: 'project', project: await findProject(ctx, ref) } : { kind: 'group', group: await findGroup(ctx, ref) };
  await authorize(ctx, ability, subject);
  return { column: kind === 'project' ? ('project_id' as const) : ('group_id' as const), id: subject.kind === 'project' ? subject.project.id : subject.group.id };
}

function listQuery(ctx: Ctx, active: boolean | undefined) {
  let q = ctx.db.selectFrom('deploy_tokens').selectAll();
  const now = nowIso(ctx);
  if (active) q = q.where('revoked', '=', 0).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  return q;
}

/** GET /deploy_tokens (administrators): every project and group deploy token. */
export async function listAllDeployTokens(ctx: Ctx, input: InferShape<typeof ListAllDeployTokensInput.shape>): Promise<Page<DeployTokenEntity>> {
  requireAdmin(ctx);
  const now = nowIso(ctx);
  return paginate(ctx.db, listQuery(ctx, input.active).orderBy('id', 'asc'), input, (rows) => rows.map((r) => toDeployTokenEntity(r, now)));
}

/** GET /projects/:id/deploy_tokens, GET /groups/:id/deploy_tokens (Maintainer). */
export async function listDeployTokens(ctx: Ctx, kind: DeployTokenOwner, input: ListDeployTokensInput): Promise<Page<DeployTokenEntity>> {
  const owner = await ownerOf(ctx, kind, input.id, 'read_deploy_token');
  const now = nowIso(ctx);
  const q = listQuery(ctx, input.active).where(owner.column, '=', owner.id).orderBy('id', 'asc');
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => toDeployTokenEntity(r, now)));
}

async function findDeployToken(ctx: Ctx, kind: DeployTokenOwner, input: DeployTokenRefInput, ability: 'read_deploy_token' | 'destroy_deploy_token') {
  const owner = await ownerOf(ctx, kind, input.id, ability);
  const row =
    input.token_id > MAX_DB_INTEGER
      ? undefined
      : await ctx.db.selectFrom('deploy_tokens').selectAll().where('id', '=', input.token_id).where(owner.column, '=', owner.id).executeTakeFirst();
  if (!row) throw new NotFoundError('Deploy Token');
  return row;
}

/** GET /projects/:id/deploy_tokens/:token_id, GET /groups/:id/deploy_tokens/:token_id */
export async function getDeployToken(ctx: Ctx, kind: DeployTokenOwner, input: DeployTokenRefInput): Promise<DeployTokenEntity> {
  return toDeployTokenEntity(await findDeployToken(ctx, kind, input, 'read_deploy_token'), nowIso(ctx));
}

/** POST /projects/:id/deploy_tokens, POST /groups/:id/deploy_tokens: the answer holds the clear `token`. */
export async function createDeployToken(ctx: Ctx, kind: DeployTokenOwner, input: CreateDeployTokenInput): Promise<DeployTokenEntity> {
  const user = requireUser(ctx);
  const owner = await ownerOf(ctx, kind, input.id, 'create_deploy_token');
  if (input.scopes.length === 0) throw new BadRequestError("Scopes can't be blank", { raw: true });
  if (input.username !== undefined && !USERNAME_RE.test(input.username)) {
    throw new BadRequestError("Username can contain only letters, digits, '_', '-', '+', and '.'", { raw: true });
  }
  const now = nowIso(ctx);
  const expiresAt = input.expires_at?.toISOString() ?? null;
  if (expiresAt !== null && expiresAt <= now) throw new BadRequestError('Expires at must be in the future', { raw: true });
  const token = randomToken(DEPLOY_TOKEN_PREFIX);
  const row = await ctx.db
    .insertInto('deploy_tokens')
    .values({
      project_id: kind === 'project' ? owner.id : null,
      group_id: kind === 'group' ? owner.id : null,
      name: input.name,
      username: input.username === undefined || input.username === '' ? null : input.username,
      token_digest: digestToken(token),
      scopes: JSON.stringify([...new Set(input.scopes)]),
      expires_at: expiresAt,
      creator_id: user.id,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDeployTokenEntity(row, now, token);
}

// Service errors answer as GitLab's render_api_error!: `{"message": "<model message>"}`.

/** DELETE /projects/:id/deploy_tokens/:token_id, DELETE /groups/:id/deploy_tokens/:token_id (204): the token is destroyed. */
export async function deleteDeployToken(ctx: Ctx, kind: DeployTokenOwner, input: DeployTokenRefInput): Promise<void> {
  const row = await findDeployToken(ctx, kind, input, 'destroy_deploy_token');
  await ctx.db.deleteFrom('deploy_tokens').where('id', '=', row.id).execute();
}
