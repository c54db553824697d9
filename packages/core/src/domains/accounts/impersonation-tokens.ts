/**
 * Impersonation tokens (`/users/:user_id/impersonation_tokens`, administrators): personal
 * access tokens an administrator makes for a user. They authenticate as that user; the entity
 * says `impersonation: true`; the clear token is shown once, at creation.
 */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { MAX_DB_INTEGER, p, params, type InferShape } from '../../kernel/params.js';
import { requireAdmin } from '../../access/policy.js';
import { findUser } from '../../access/lookup.js';
import type { AccessTokenRow } from '../../access/access-token.table.js';
import { toPersonalAccessTokenEntity, type PersonalAccessTokenEntity } from './token.entity.js';
import { issueUserToken, today, TOKEN_SCOPES, whereTokenState } from './tokens.js';

export interface ImpersonationTokenEntity extends PersonalAccessTokenEntity {
  impersonation: boolean;
}

export const ListImpersonationTokensInput = params({
  user_id: p.id(),
  state: p.enum(['all', 'active', 'inactive']).default('all').describe('Filter by state.'),
  ...paginationParams,
});
export type ListImpersonationTokensInput = InferShape<typeof ListImpersonationTokensInput.shape>;

export const CreateImpersonationTokenInput = params({
  user_id: p.id(),
  name: p.string().max(255).nonBlank().describe('Name of the token.'),
  description: p.string().max(255).optional(),
  expires_at: p.date().optional().describe('YYYY-MM-DD; none: the token does not expire.'),
  scopes: p.array(p.enum(TOKEN_SCOPES)).commaSeparated().describe('At least one scope.'),
});
export type CreateImpersonationTokenInput = InferShape<typeof CreateImpersonationTokenInput.shape>;

export const ImpersonationTokenRefInput = params({ user_id: p.id(), impersonation_token_id: p.id() });
export type ImpersonationTokenRefInput = InferShape<typeof ImpersonationTokenRefInput.shape>;

function toImpersonationTokenEntity(row: AccessTokenRow, day: string, token?: string): ImpersonationTokenEntity {
  const entity = toPersonalAccessTokenEntity(row, day, token) as ImpersonationTokenEntity;
  entity.impersonation = row.impersonation === 1;
  return entity;
}

/** GET /users/:user_id/impersonation_tokens */
export async function listImpersonationTokens(ctx: Ctx, input: ListImpersonationTokensInput): Promise<Page<ImpersonationTokenEntity>> {
  requireAdmin(ctx);
  const user = await findUser(ctx, input.user_id);
  const day = today(ctx);
  const q = whereTokenState(ctx.db.selectFrom('access_tokens').selectAll().where('user_id', '=', user.id).where('impersonation', '=', 1), input.state, day);
  return paginate(ctx.db, q.orderBy('id', 'asc'), input, (rows) => rows.map((r) => toImpersonationTokenEntity(r, day)));
}

async function findImpersonationToken(ctx: Ctx, input: ImpersonationTokenRefInput): Promise<AccessTokenRow> {
  requireAdmin(ctx);
  const user = await findUser(ctx, input.user_id);
  const row =
    input.impersonation_token_id > MAX_DB_INTEGER
      ? undefined
      : await ctx.db
          .selectFrom('access_tokens')
          .selectAll()
          .where('id', '=', input.impersonation_token_id)
          .where('user_id', '=', user.id)
          .where('impersonation', '=', 1)
          .executeTakeFirst();
  if (!row) throw new NotFoundError('Impersonation Token');
  return row;
}

/** GET /users/:user_id/impersonation_tokens/:impersonation_token_id */
export async function getImpersonationToken(ctx: Ctx, input: ImpersonationTokenRefInput): Promise<ImpersonationTokenEntity> {
  return toImpersonationTokenEntity(await findImpersonationToken(ctx, input), today(ctx));
}

/** POST /users/:user_id/impersonation_tokens: the answer holds the clear `token`. */
export async function createImpersonationToken(ctx: Ctx, input: CreateImpersonationTokenInput): Promise<ImpersonationTokenEntity> {
  const { row, token } = await issueUserToken(ctx, input, true);
  return toImpersonationTokenEntity(row, today(ctx), token);
}

/** DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id: revokes (204, again too). */
export async function revokeImpersonationToken(ctx: Ctx, input: ImpersonationTokenRefInput): Promise<void> {
  const row = await findImpersonationToken(ctx, input);
  await ctx.db.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', row.id).execute();
}
