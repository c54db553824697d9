/**
 * Personal access tokens and project/group access tokens (whose user is a bot member of
 * the project or group). Tokens are stored as SHA-256 digests and shown once.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { MAX_DB_INTEGER, p, params, type InferShape } from '../../kernel/params.js';
import { accessLevel, authorize, requireAdmin, requireUser, type Subject } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { AccessTokenRow } from '../../access/access-token.table.js';
import { findGroup, findProject, findUser } from '../../access/lookup.js';
import { insertUserWithNamespace } from './user.queries.js';
import { insertMember } from './member.queries.js';
import { runMemberChanged, runUserChanged } from './account-hooks.js';
import {
  toPersonalAccessTokenEntity,
  toResourceAccessTokenEntity,
  type PersonalAccessTokenEntity,
  type ResourceAccessTokenEntity,
} from './token.entity.js';

export const TOKEN_SCOPES = [
  'api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy', 'read_repository', 'write_repository',
  'read_registry', 'write_registry', 'ai_features', 'sudo', 'admin_mode', 'read_service_ping', 'self_rotate',
] as const;
const RESOURCE_SCOPES = TOKEN_SCOPES.filter((s) => s !== 'sudo' && s !== 'admin_mode' && s !== 'read_service_ping');

export const TOKEN_PREFIX = 'glpat-';

const tokenFields = {
  name: p.string().max(255).nonBlank(),
  description: p.string().max(255).optional(),
  expires_at: p.date().optional(),
};

export const CreatePersonalAccessTokenInput = params({
  user_id: p.id(),
  ...tokenFields,
  scopes: p.array(p.enum(TOKEN_SCOPES)).commaSeparated(),
});
export type CreatePersonalAccessTokenInput = InferShape<typeof CreatePersonalAccessTokenInput.shape>;

export const ListPersonalAccessTokensInput = params({
  user_id: p.id().optional(),
  revoked: p.boolean().optional(),
  state: p.enum(['active', 'inactive']).optional(),
  search: p.search().optional(),
  ...paginationParams,
});
export type ListPersonalAccessTokensInput = InferShape<typeof ListPersonalAccessTokensInput.shape>;

export const CreateResourceAccessTokenInput = params({
  id: p.string(),
  ...tokenFields,
  scopes: p.array(p.enum(RESOURCE_SCOPES)).commaSeparated(),
  access_level: p.enum([10, 15, 20, 30, 40, 50] as const).default(40),
});
export type CreateResourceAccessTokenInput = InferShape<typeof CreateResourceAccessTokenInput.shape>;

export const RotateTokenInput = params({ expires_at: p.date().optional() });

export function today(ctx: Ctx): string {
  return ctx.clock.now().toISOString().slice(0, 10);
}

function checkExpiry(ctx: Ctx, expiresAt: string | undefined) {
  if (expiresAt !== undefined && expiresAt <= today(ctx)) {
    throw new BadRequestError({ expires_at: ['must be in the future'] }, { raw: true });
  }
}

function checkScopes(scopes: string[]) {
  if (scopes.length === 0) throw new BadRequestError({ scopes: ["can't be blank"] }, { raw: true });
}

async function insertToken(
  trx: Kysely<Database>,
  values: Omit<AccessTokenRow, 'id' | 'token_digest' | 'revoked' | 'last_used_at' | 'impersonation'> & { impersonation?: number },
): Promise<{ row: AccessTokenRow; token: string }> {
  const token = randomToken(TOKEN_PREFIX);
  const row = await trx
    .insertInto('access_tokens')
    .values({ ...values, token_digest: digestToken(token), revoked: 0, last_used_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, token };
}

/** Creates a token with a known clear text (root bootstrap, seeding). */
export async function insertTokenWithValue(
  db: Kysely<Database>,
  values: { user_id: number; name: string; scopes: string[]; expires_at: string | null; created_at: string },
  token: string,
): Promise<AccessTokenRow> {
  return db
    .insertInto('access_tokens')
    .values({
      user_id: values.user_id,
      name: values.name,
      description: null,
      scopes: JSON.stringify(values.scopes),
      expires_at: values.expires_at,
      created_at: values.created_at,
      token_digest: digestToken(token),
      revoked: 0,
      last_used_at: null,
      resource_kind: null,
      resource_id: null,
      access_level: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What a rotation may say about the new token's expiry. */
export interface RotateOptions {
  expiresAt?: string;
  /** GitLab's keep_token_lifetime: the new token lives as long as the old one did (none: no expiry). */
  keepTokenLifetime?: boolean;
}

/** GitLab's RotateService expiry: kept lifetime, else the date given, else one week from today. */
function rotatedExpiry(ctx: Ctx, row: AccessTokenRow, options: RotateOptions): string | null {
  const now = ctx.clock.now();
  if (options.keepTokenLifetime) {
    if (row.expires_at === null) return null;
    const lifetime = Date.parse(`${row.expires_at}T00:00:00Z`) - Date.parse(`${row.created_at.slice(0, 10)}T00:00:00Z`);
    return new Date(Date.parse(`${today(ctx)}T00:00:00Z`) + lifetime).toISOString().slice(0, 10);
  }
  return options.expiresAt ?? new Date(now.getTime() + 7 * 86400_000).toISOString().slice(0, 10);
}

/** Rotation: revokes `row` and issues a token like it, in one transaction. */
async function reissueToken(ctx: Ctx, row: AccessTokenRow, options: RotateOptions) {
  checkExpiry(ctx, options.expiresAt);
  const expires = rotatedExpiry(ctx, row, options);
  return ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', row.id).execute();
    // As GitLab: a rotated bot keeps its memberships whatever the new expiry (they no longer expire).
    if (row.resource_kind !== null) await trx.updateTable('members').set({ expires_at: null }).where('user_id', '=', row.user_id).execute();
    const { id: _id, token_digest: _d, revoked: _r, last_used_at: _l, ...rest } = row;
    return insertToken(trx, { ...rest, expires_at: expires, created_at: nowIso(ctx) });
  });
}

/** An administrator issues a user a personal (or impersonation) token: the row and its clear text. */
export async function issueUserToken(ctx: Ctx, input: CreatePersonalAccessTokenInput, impersonation: boolean): Promise<{ row: AccessTokenRow; token: string }> {
  requireAdmin(ctx);
  const user = await findUser(ctx, input.user_id);
  checkScopes(input.scopes);
  checkExpiry(ctx, input.expires_at);
  return insertToken(ctx.db, {
    user_id: user.id,
    name: input.name,
    description: input.description ?? null,
    scopes: JSON.stringify(input.scopes),
    expires_at: input.expires_at ?? null,
    resource_kind: null,
    resource_id: null,
    access_level: null,
    impersonation: impersonation ? 1 : 0,
    created_at: nowIso(ctx),
  });
}

/** `state`: active (not revoked, not expired) or inactive, for token lists. */
export function whereTokenState<Q extends SelectQueryBuilder<Database, 'access_tokens', any>>(q: Q, state: 'active' | 'inactive' | 'all' | undefined, day: string): Q {
  if (state === 'active') return q.where('revoked', '=', 0).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', day)])) as Q;
  if (state === 'inactive') return q.where((eb) => eb.or([eb('revoked', '=', 1), eb('expires_at', '<=', day)])) as Q;
  return q;
}

/** POST /users/:user_id/personal_access_tokens (admin) */
export async function createPersonalAccessToken(ctx: Ctx, input: CreatePersonalAccessTokenInput): Promise<PersonalAccessTokenEntity> {
  const { row, token } = await issueUserToken(ctx, input, false);
  return toPersonalAccessTokenEntity(row, today(ctx), token);
}

/** GET /personal_access_tokens: the caller's own; admins see all or filter by user_id. */
export async function listPersonalAccessTokens(ctx: Ctx, input: ListPersonalAccessTokensInput): Promise<Page<PersonalAccessTokenEntity>> {
  const user = requireUser(ctx);
  let q = ctx.db.selectFrom('access_tokens').selectAll().where('resource_kind', 'is', null);
  // GitLab: users list their own tokens but not the impersonation tokens admins made for them
  if (!ctx.actor.isAdmin) q = q.where('user_id', '=', user.id).where('impersonation', '=', 0);
  else if (input.user_id !== undefined) q = q.where('user_id', '=', input.user_id);
  if (input.revoked !== undefined) q = q.where('revoked', '=', input.revoked ? 1 : 0);
  const day = today(ctx);
  q = whereTokenState(q, input.state, day);
  if (input.search) q = q.where(sql`lower(name)`, 'like', `%${input.search.toLowerCase()}%`);
  return paginate(ctx.db, q.orderBy('id', 'asc'), input, (rows) => rows.map((r) => toPersonalAccessTokenEntity(r, day)));
}

async function findPersonalToken(ctx: Ctx, id: number | 'self'): Promise<AccessTokenRow> {
  const user = requireUser(ctx);
  const tokenId = id === 'self' ? ctx.actor.token?.id : id;
  if (tokenId === undefined || tokenId > MAX_DB_INTEGER) throw new NotFoundError('Personal Access Token');
  const row = await ctx.db
    .selectFrom('access_tokens')
    .selectAll()
    .where('id', '=', tokenId)
    .where('resource_kind', 'is', null)
    .executeTakeFirst();
  if (!row || (row.user_id !== user.id && !ctx.actor.isAdmin)) throw new NotFoundError('Personal Access Token');
  return row;
}

/** GET /personal_access_tokens/:id and /self */
export async function getPersonalAccessToken(ctx: Ctx, id: number | 'self'): Promise<PersonalAccessTokenEntity> {
  if (id === 'self' && ctx.actor.token?.kind !== 'personal' && ctx.actor.token) {
    // resource tokens may read themselves too
    const row = await ctx.db.selectFrom('access_tokens').selectAll().where('id', '=', ctx.actor.token.id).executeTakeFirstOrThrow();
    return toPersonalAccessTokenEntity(row, today(ctx));
  }
  return toPersonalAccessTokenEntity(await findPersonalToken(ctx, id), today(ctx));
}

/** DELETE /personal_access_tokens/:id and /self: revokes. */
export async function revokePersonalAccessToken(ctx: Ctx, id: number | 'self'): Promise<void> {
  const row = await findPersonalToken(ctx, id);
  if (row.revoked) throw new BadRequestError('Token already revoked', { raw: false });
  await ctx.db.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', row.id).execute();
}

/** POST /personal_access_tokens/:id/rotate and /self/rotate: revoke and issue a new one (default: one week). */
export async function rotatePersonalAccessToken(ctx: Ctx, id: number | 'self', options: RotateOptions = {}): Promise<PersonalAccessTokenEntity> {
  const row = await findPersonalToken(ctx, id);
  if (row.revoked) throw new BadRequestError('Token already revoked');
  const { row: next, token } = await reissueToken(ctx, row, options);
  return toPersonalAccessTokenEntity(next, today(ctx), token);
}

// ---- project and group access tokens ----

type ResourceKind = 'project' | 'group';

async function resourceOf(ctx: Ctx, kind: ResourceKind, ref: string) {
  if (kind === 'project') {
    const project = await findProject(ctx, ref);
    const subject: Subject = { kind: 'project', project };
    await authorize(ctx, 'manage_resource_access_tokens', subject);
    return { id: project.id, sourceKind: 'project' as const, subject };
  }
  const group = await findGroup(ctx, ref);
  const subject: Subject = { kind: 'group', group };
  await authorize(ctx, 'manage_resource_access_tokens', subject);
  return { id: group.id, sourceKind: 'namespace' as const, subject };
}

/**
 * Revokes the access tokens of projects or groups being deleted and blocks their bot users
 * (call inside the deleting transaction, before the rows go), as GitLab removes those bots.
 */
export async function retireResourceTokens(trx: Kysely<Database>, kind: ResourceKind, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const bots = trx.selectFrom('access_tokens').select('user_id').where('resource_kind', '=', kind).where('resource_id', 'in', ids);
  await trx.updateTable('users').set({ state: 'blocked' }).where('id', 'in', bots).where('bot_kind', 'is not', null).execute();
  await trx.updateTable('access_tokens').set({ revoked: 1 }).where('resource_kind', '=', kind).where('resource_id', 'in', ids).execute();
}

/** POST /projects/:id/access_tokens, /groups/:id/access_tokens: creates the bot user, its membership and the token. */
export async function createResourceAccessToken(ctx: Ctx, kind: ResourceKind, input: CreateResourceAccessTokenInput): Promise<ResourceAccessTokenEntity> {
  const resource = await resourceOf(ctx, kind, input.id);
  checkScopes(input.scopes);
  checkExpiry(ctx, input.expires_at);
  // A token may not hold more access than its creator has.
  if (!ctx.actor.isAdmin && input.access_level > (await accessLevel(ctx, resource.subject))) {
    throw new BadRequestError(`${kind === 'project' ? 'Project' : 'Group'} access token creation failed: access level of the token can't be greater than the access level of the user who created the token`, { raw: true });
  }
  const now = nowIso(ctx);
  const suffix = randomBytes(4).toString('hex');
  const { row, token } = await ctx.db.transaction().execute(async (trx) => {
    const bot = await insertUserWithNamespace(
      trx,
      {
        username: `${kind}_${resource.id}_bot_${suffix}`,
        name: input.name,
        email: `${kind}_${resource.id}_bot_${suffix}@noreply.forgelet.local`,
        state: 'active',
        is_admin: 0,
        bot_kind: `${kind}_bot`,
        bio: '',
        location: '',
        public_email: null,
        website_url: '',
        organization: '',
        job_title: '',
        can_create_group: 0,
        projects_limit: 0,
        external: 0,
        created_at: now,
        updated_at: now,
      },
      now,
    );
    await runUserChanged(trx, { action: 'create', by: ctx, user: bot });
    const member = await insertMember(
      trx,
      { source_kind: resource.sourceKind, source_id: resource.id, user_id: bot.id, access_level: input.access_level, expires_at: input.expires_at ?? null, created_by_id: ctx.actor.user?.id ?? null },
      now,
    );
    await runMemberChanged(trx, { action: 'create', by: ctx, member, source: resource.subject });
    return insertToken(trx, {
      user_id: bot.id,
      name: input.name,
      description: input.description ?? null,
      scopes: JSON.stringify(input.scopes),
      expires_at: input.expires_at ?? null,
      resource_kind: kind,
      resource_id: resource.id,
      access_level: input.access_level,
      created_at: now,
    });
  });
  return toResourceAccessTokenEntity(row, today(ctx), token);
}

export const ListResourceAccessTokensInput = params({
  id: p.string(),
  state: p.enum(['active', 'inactive']).optional(),
  ...paginationParams,
});

/** GET /projects/:id/access_tokens */
export async function listResourceAccessTokens(
  ctx: Ctx,
  kind: ResourceKind,
  input: InferShape<typeof ListResourceAccessTokensInput.shape>,
): Promise<Page<ResourceAccessTokenEntity>> {
  const resource = await resourceOf(ctx, kind, input.id);
  const day = today(ctx);
  const q = whereTokenState(ctx.db.selectFrom('access_tokens').selectAll().where('resource_kind', '=', kind).where('resource_id', '=', resource.id), input.state, day);
  return paginate(ctx.db, q.orderBy('id', 'asc'), input, (rows) => rows.map((r) => toResourceAccessTokenEntity(r, day)));
}

async function findResourceToken(ctx: Ctx, kind: ResourceKind, ref: string, tokenId: number) {
  const resource = await resourceOf(ctx, kind, ref);
  const row = await ctx.db
    .selectFrom('access_tokens')
    .selectAll()
    .where('id', '=', tokenId)
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', resource.id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`${kind === 'project' ? 'Project' : 'Group'} Access Token`);
  return { row, resource };
}

/** GET /projects/:id/access_tokens/:token_id */
export async function getResourceAccessToken(ctx: Ctx, kind: ResourceKind, ref: string, tokenId: number): Promise<ResourceAccessTokenEntity> {
  const { row } = await findResourceToken(ctx, kind, ref, tokenId);
  return toResourceAccessTokenEntity(row, today(ctx));
}

/** DELETE /projects/:id/access_tokens/:token_id: revokes the token and removes the bot's membership. */
export async function revokeResourceAccessToken(ctx: Ctx, kind: ResourceKind, ref: string, tokenId: number): Promise<void> {
  const { row, resource } = await findResourceToken(ctx, kind, ref, tokenId);
  if (row.revoked) throw new BadRequestError(`Could not revoke access token ${row.id}`);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', row.id).execute();
    const removed = await trx
      .deleteFrom('members')
      .where('user_id', '=', row.user_id)
      .where('source_kind', '=', resource.sourceKind)
      .where('source_id', '=', resource.id)
      .returningAll()
      .execute();
    for (const member of removed) await runMemberChanged(trx, { action: 'destroy', by: ctx, member, source: resource.subject });
    await trx.updateTable('users').set({ state: 'blocked' }).where('id', '=', row.user_id).execute();
  });
}

/** POST /projects/:id/access_tokens/:token_id/rotate */
export async function rotateResourceAccessToken(ctx: Ctx, kind: ResourceKind, ref: string, tokenId: number, options: RotateOptions = {}): Promise<ResourceAccessTokenEntity> {
  const { row } = await findResourceToken(ctx, kind, ref, tokenId);
  if (row.revoked) throw new BadRequestError('Token already revoked');
  if (ctx.actor.token?.id === row.id) throw new ForbiddenError();
  const { row: next, token } = await reissueToken(ctx, row, options);
  return toResourceAccessTokenEntity(next, today(ctx), token);
}
