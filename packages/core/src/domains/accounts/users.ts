/** Users: `/users`, `/users/:id`, `/user`. */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { requireAdmin, requireUser } from '../../access/policy.js';
import { bool, isUniqueViolation } from '../../storage/dialect.js';
import { findUser } from '../../access/lookup.js';
import { insertUserWithNamespace } from './user.queries.js';
import { runProjectChanged, runUserChanged } from './account-hooks.js';
import { hashPassword, storePasswordDigest } from '../../access/passwords.js';
import { toUserDetailEntity, toUserEntity, type UserDetailEntity, type UserEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';

const USERNAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

export const ListUsersInput = params({
  username: p.username().optional(),
  search: p.search().optional(),
  active: p.boolean().optional(),
  blocked: p.boolean().optional(),
  external: p.boolean().optional(),
  admins: p.boolean().optional(),
  humans: p.boolean().optional(),
  exclude_internal: p.boolean().optional(),
  without_project_bots: p.boolean().optional(),
  order_by: p.enum(['id', 'name', 'username', 'created_at', 'updated_at']).default('id'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  ...paginationParams,
});
export type ListUsersInput = InferShape<typeof ListUsersInput.shape>;

const userFields = {
  name: p.string().max(255),
  bio: p.string().optional(),
  location: p.string().optional(),
  public_email: p.string().optional(),
  website_url: p.string().optional(),
  organization: p.string().optional(),
  job_title: p.string().optional(),
  projects_limit: p.integer().min(0).optional(),
  can_create_group: p.boolean().optional(),
  external: p.boolean().optional(),
  admin: p.boolean().optional(),
};

export const CreateUserInput = params({
  email: p.string().regex(/^[^@\s]+@[^@\s]+$/),
  username: p.string().max(255).regex(USERNAME),
  ...userFields,
  password: p.string().optional(),
  reset_password: p.boolean().optional(),
  force_random_password: p.boolean().optional(),
  skip_confirmation: p.boolean().optional(),
});
export type CreateUserInput = InferShape<typeof CreateUserInput.shape>;

export const UpdateUserInput = params({
  id: p.id(),
  email: p.string().regex(/^[^@\s]+@[^@\s]+$/).optional(),
  username: p.string().max(255).regex(USERNAME).optional(),
  ...userFields,
  name: p.string().max(255).optional(),
});
export type UpdateUserInput = InferShape<typeof UpdateUserInput.shape>;

/** What the caller may see of a user: details for self and admins. */
export function presentUser(ctx: Ctx, row: UserRow): UserEntity | UserDetailEntity {
  const self = ctx.actor.user?.id === row.id;
  return self || ctx.actor.isAdmin ? toUserDetailEntity(row, ctx.urls, { admin: ctx.actor.isAdmin }) : toUserEntity(row, ctx.urls);
}

/** GET /users */
export async function listUsers(ctx: Ctx, input: ListUsersInput): Promise<Page<UserEntity>> {
  let q = ctx.db.selectFrom('users').selectAll();
  if (input.username !== undefined) q = q.where(sql`lower(username)`, '=', input.username.toLowerCase());
  if (input.search) {
    const like = `%${input.search.toLowerCase()}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(username)`, 'like', like), eb(sql`lower(name)`, 'like', like), eb(sql`lower(email)`, '=', input.search!.toLowerCase())]));
  }
  if (input.active) q = q.where('state', '=', 'active');
  if (input.blocked) q = q.where('state', '=', 'blocked');
  if (input.external !== undefined && ctx.actor.isAdmin) q = q.where('external', '=', bool(input.external));
  if (input.admins && ctx.actor.isAdmin) q = q.where('is_admin', '=', 1);
  if (input.humans || input.exclude_internal || input.without_project_bots) q = q.where('bot_kind', 'is', null);
  q = q.orderBy(input.order_by, input.sort);
  if (input.order_by !== 'id') q = q.orderBy('id', input.sort);
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => presentUser(ctx, r)));
}

/** GET /users/:id */
export async function getUser(ctx: Ctx, ref: string | number) {
  return presentUser(ctx, await findUser(ctx, ref));
}

/** GET /user */
export function currentUser(ctx: Ctx): UserDetailEntity {
  return toUserDetailEntity(requireUser(ctx), ctx.urls, { admin: ctx.actor.isAdmin });
}

function uniqueUserError(err: unknown): never {
  const text = String((err as Error).message ?? '');
  if (/email/i.test(text)) throw new ConflictError('Email has already been taken');
  throw new ConflictError('Username has already been taken');
}

async function assertFreeNamespacePath(ctx: Ctx, path: string, exceptNamespaceId: number | null = null) {
  const clash = await ctx.db
    .selectFrom('namespaces')
    .select('id')
    .where(sql`lower(full_path)`, '=', path.toLowerCase())
    .executeTakeFirst();
  if (clash && clash.id !== exceptNamespaceId) throw new ConflictError('Username has already been taken');
}

/** POST /users (admin). A password is stored hashed (re-authentication); Forgelet authenticates API calls with tokens. */
export async function createUser(ctx: Ctx, input: CreateUserInput): Promise<UserDetailEntity> {
  requireAdmin(ctx);
  await assertFreeNamespacePath(ctx, input.username);
  const now = nowIso(ctx);
  // Kept hashed for re-authentication (approval_password); API calls use tokens.
  const passwordDigest = input.password ? await hashPassword(input.password) : null;
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      const user = await insertUserWithNamespace(
        trx,
        {
          username: input.username,
          name: input.name,
          email: input.email,
          state: 'active',
          is_admin: bool(input.admin),
          bot_kind: null,
          bio: input.bio ?? '',
          location: input.location ?? '',
          public_email: input.public_email ?? null,
          website_url: input.website_url ?? '',
          organization: input.organization ?? '',
          job_title: input.job_title ?? '',
          can_create_group: input.can_create_group === false ? 0 : 1,
          projects_limit: input.projects_limit ?? 100000,
          external: bool(input.external),
          created_at: now,
          updated_at: now,
        },
        now,
      );
      if (passwordDigest) await storePasswordDigest(trx, user.id, passwordDigest, now);
      await runUserChanged(trx, { action: 'create', by: ctx, user });
      return user;
    });
    return toUserDetailEntity(row, ctx.urls, { admin: true });
  } catch (err) {
    if (isUniqueViolation(err)) uniqueUserError(err);
    throw err;
  }
}

/** PUT /users/:id (admin). A new username renames the user namespace and its projects' paths. */
export async function updateUser(ctx: Ctx, input: UpdateUserInput): Promise<UserDetailEntity> {
  requireAdmin(ctx);
  const user = await findUser(ctx, input.id);
  if (input.username && input.username.toLowerCase() !== user.username.toLowerCase()) {
    await assertFreeNamespacePath(ctx, input.username, user.namespace_id);
  }
  const now = nowIso(ctx);
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set({
          ...(input.email !== undefined && { email: input.email }),
          ...(input.username !== undefined && { username: input.username }),
          ...(input.name !== undefined && { name: input.name }),
          ...(input.bio !== undefined && { bio: input.bio }),
          ...(input.location !== undefined && { location: input.location }),
          ...(input.public_email !== undefined && { public_email: input.public_email }),
          ...(input.website_url !== undefined && { website_url: input.website_url }),
          ...(input.organization !== undefined && { organization: input.organization }),
          ...(input.job_title !== undefined && { job_title: input.job_title }),
          ...(input.projects_limit !== undefined && { projects_limit: input.projects_limit }),
          ...(input.can_create_group !== undefined && { can_create_group: bool(input.can_create_group) }),
          ...(input.external !== undefined && { external: bool(input.external) }),
          ...(input.admin !== undefined && { is_admin: bool(input.admin) }),
          updated_at: now,
        })
        .where('id', '=', user.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (user.namespace_id && (input.username || input.name)) {
        await trx
          .updateTable('namespaces')
          .set({ path: updated.username, full_path: updated.username, name: updated.name, full_name: updated.name, updated_at: now })
          .where('id', '=', user.namespace_id)
          .execute();
        if (input.username && input.username !== user.username) {
          await trx
            .updateTable('projects')
            .set({
              path_with_namespace: sql`${updated.username} || '/' || path`,
              name_with_namespace: sql`${updated.name} || ' / ' || name`,
            })
            .where('namespace_id', '=', user.namespace_id)
            .execute();
        }
      }
      if (updated.username !== user.username) await runUserChanged(trx, { action: 'rename', by: ctx, user: updated, before: user });
      return updated;
    });
    return toUserDetailEntity(row, ctx.urls, { admin: true });
  } catch (err) {
    if (isUniqueViolation(err)) uniqueUserError(err);
    throw err;
  }
}

/** DELETE /users/:id (admin): removes the user, their memberships, tokens and personal projects. */
export async function deleteUser(ctx: Ctx, ref: number): Promise<void> {
  requireAdmin(ctx);
  const user = await findUser(ctx, ref);
  if (user.id === ctx.actor.user?.id) throw new ForbiddenError('You cannot delete yourself');
  if (user.bot_kind) throw new BadRequestError('Bot users are deleted by revoking their token');
  await ctx.db.transaction().execute(async (trx) => {
    if (user.namespace_id) {
      for (const project of await trx.selectFrom('projects').selectAll().where('namespace_id', '=', user.namespace_id).orderBy('id').execute()) {
        await runProjectChanged(trx, { action: 'destroy', by: ctx, project });
      }
      await trx.deleteFrom('projects').where('namespace_id', '=', user.namespace_id).execute();
    }
    await runUserChanged(trx, { action: 'destroy', by: ctx, user });
    await trx.deleteFrom('members').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('access_tokens').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('users').where('id', '=', user.id).execute();
    if (user.namespace_id) await trx.deleteFrom('namespaces').where('id', '=', user.namespace_id).execute();
  });
}
