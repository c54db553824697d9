/**
 * Group-level protected environments (GitLab's API::ProtectedEnvironments, groups part, and
 * ProtectedEnvironments::Create/UpdateService). Premium and up; the caller must maintain the
 * group (admin_protected_environments), else 403; a group it cannot see is 404.
 *
 * The name is a deployment tier; it protects environments of that tier in every project
 * below the group. Entries (deploy access levels, approval rules) hold exactly one of
 * `user_id`, `group_id`, `access_level`. As GitLab's services do, entries that name a user
 * who is not a Maintainer (or Owner) of the group, a group that is not the group or one of
 * its subgroups, or not exactly one of the three keys are dropped before saving; the model
 * then needs at least one deploy access level (422 otherwise).
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { MAINTAINER } from '../../access/levels.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { findGroup } from '../../access/lookup.js';
import { presentProtectedEnvironments, type ProtectedEnvironmentEntity } from './delivery.entity.js';
import type {
  GroupProtectedEnvironmentRefInput,
  ListGroupProtectedEnvironmentsInput,
  ProtectGroupEnvironmentInput,
  ProtectionEntryInput,
  UpdateGroupProtectedEnvironmentInput,
} from './delivery.schema.js';
import { ENVIRONMENT_TIERS, type ProtectedEnvironmentRow } from './delivery.table.js';
import { loadProtectionEntries } from './protection.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';

type Db = Kysely<Database>;
const MAX_REQUIRED_APPROVALS = 5;

async function findAdminGroup(ctx: Ctx, ref: string): Promise<NamespaceRow> {
  const group = await findGroup(ctx, ref);
  if (!tierAtLeast(ctx.config.tier, 'premium')) throw new ForbiddenError();
  await authorize(ctx, 'admin_protected_environments', { kind: 'group', group });
  return group;
}

async function findProtected(ctx: Ctx, group: NamespaceRow, name: string): Promise<ProtectedEnvironmentRow> {
  const row = await ctx.db.selectFrom('protected_environments').selectAll().where('group_id', '=', group.id).where('name', '=', name).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

async function present(ctx: Ctx, rows: ProtectedEnvironmentRow[]): Promise<ProtectedEnvironmentEntity[]> {
  const entries = await loadProtectionEntries(ctx.db, rows);
  return presentProtectedEnvironments(ctx, rows.map((row) => ({ row, ...entries.get(row.id)! })));
}

/** GET /groups/:id/protected_environments (paginated, in tier order: production first). */
export async function listGroupProtectedEnvironments(ctx: Ctx, input: ListGroupProtectedEnvironmentsInput): Promise<Page<ProtectedEnvironmentEntity>> {
  const group = await findAdminGroup(ctx, input.id);
  const q = ctx.db
    .selectFrom('protected_environments')
    .selectAll()
    .where('group_id', '=', group.id)
    .orderBy((eb) =>
      eb
        .case()
        .when('name', '=', 'production').then(0)
        .when('name', '=', 'staging').then(1)
        .when('name', '=', 'testing').then(2)
        .when('name', '=', 'development').then(3)
        .when('name', '=', 'other').then(4)
        .else(5)
        .end(),
    )
    .orderBy('id');
  return paginate(ctx.db, q, input, (rows) => present(ctx, rows));
}

/** GET /groups/:id/protected_environments/:name */
export async function getGroupProtectedEnvironment(ctx: Ctx, input: GroupProtectedEnvironmentRefInput): Promise<ProtectedEnvironmentEntity> {
  const group = await findAdminGroup(ctx, input.id);
  return (await present(ctx, [await findProtected(ctx, group, input.name)]))[0]!;
}

// ---- entries -------------------------------------------------------------------------------

/** Users who may be named: Maintainers and Owners of the group, directly or through an ancestor. */
async function qualifiedUserIds(db: Db, group: NamespaceRow, userIds: number[], today: string): Promise<Set<number>> {
  if (!userIds.length) return new Set();
  const rows = await db
    .selectFrom('members')
    .select('user_id')
    .where('source_kind', '=', 'namespace')
    .where('source_id', 'in', traversalIds(group.traversal))
    .where('user_id', 'in', userIds)
    .where('access_level', '>=', MAINTAINER)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/** Groups that may be named: the group and its subgroups. */
async function qualifiedGroupIds(db: Db, group: NamespaceRow, groupIds: number[]): Promise<Set<number>> {
  if (!groupIds.length) return new Set();
  const rows = await db
    .selectFrom('namespaces')
    .select('id')
    .where('kind', '=', 'group')
    .where('id', 'in', groupIds)
    .where('traversal', 'like', `${group.traversal}%`)
    .execute();
  return new Set(rows.map((r) => r.id));
}

const KEYS = ['access_level', 'user_id', 'group_id'] as const;
const keysOf = (e: ProtectionEntryInput) => KEYS.filter((k) => e[k] !== undefined && e[k] !== null);

/** ProtectedEnvironments::BaseService#sanitized_params: the entries that may be saved. */
async function sanitize(ctx: Ctx, group: NamespaceRow, entries: ProtectionEntryInput[] | undefined): Promise<ProtectionEntryInput[] | undefined> {
  if (!entries) return undefined;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const users = await qualifiedUserIds(ctx.db, group, entries.map((e) => e.user_id).filter((v): v is number => v !== undefined), today);
  const groups = await qualifiedGroupIds(ctx.db, group, entries.map((e) => e.group_id).filter((v): v is number => v !== undefined));
  return entries.filter((e) => {
    // Removing an entry needs only its id: users who left the group can still be removed.
    if (e._destroy === true && e.id !== undefined) return true;
    if (keysOf(e).length !== 1) return false;
    if (e.group_id !== undefined) return groups.has(e.group_id);
    if (e.user_id !== undefined) return users.has(e.user_id);
    return true;
  });
}

/** Grape's `at_least_one_of :access_level, :user_id, :group_id` on approval rules that are not destroyed. */
function checkRulesHaveOneKey(rules: ProtectionEntryInput[] | undefined): void {
  const problems = (rules ?? []).flatMap((r, i) =>
    r._destroy === true || keysOf(r).length
      ? []
      : [{ field: KEYS.map((k) => `approval_rules[${i}][${k}]`).join(', '), message: 'are missing, at least one parameter must be provided' }],
  );
  if (problems.length) throw new ValidationError(problems);
}

function modelErrors(required: number | undefined, rules: ProtectionEntryInput[] | undefined, deployLevels: number | null): string[] {
  const out: string[] = [];
  if (deployLevels !== null && deployLevels < 1) out.push('Deploy access levels is too short (minimum is 1 character)');
  if (required !== undefined) {
    if (required < 0) out.push('Required approval count must be greater than or equal to 0');
    if (required > MAX_REQUIRED_APPROVALS) out.push(`Required approval count must be less than or equal to ${MAX_REQUIRED_APPROVALS}`);
  }
  for (const r of rules ?? []) {
    if (r._destroy === true || r.required_approvals === undefined) continue;
    if (r.required_approvals < 1) out.push('Approval rules required approvals must be greater than 0');
    if (r.required_approvals > MAX_REQUIRED_APPROVALS) out.push(`Approval rules required approvals must be less than or equal to ${MAX_REQUIRED_APPROVALS}`);
  }
  return [...new Set(out)];
}

function entryValues(e: ProtectionEntryInput) {
  return {
    access_level: e.access_level ?? null,
    user_id: e.user_id ?? null,
    group_id: e.group_id ?? null,
    group_inheritance_type: e.group_inheritance_type ?? 0,
  };
}

/**
 * POST /groups/:id/protected_environments: 201. Name not a tier → 422 `{"message":["Name must
 * be one of environment tiers: …"]}`; already protected → 409.
 */
export async function protectGroupEnvironment(ctx: Ctx, input: ProtectGroupEnvironmentInput): Promise<ProtectedEnvironmentEntity> {
  const group = await findAdminGroup(ctx, input.id);
  checkRulesHaveOneKey(input.approval_rules);
  const existing = await ctx.db.selectFrom('protected_environments').select('id').where('group_id', '=', group.id).where('name', '=', input.name).executeTakeFirst();
  if (existing) throw new ConflictError(`Protected environment '${input.name}' already exists`);
  // On create nothing is destroyed or updated: entries with ids are new entries as well.
  const levels = ((await sanitize(ctx, group, input.deploy_access_levels)) ?? []).filter((e) => e._destroy !== true);
  const rules = ((await sanitize(ctx, group, input.approval_rules)) ?? []).filter((e) => e._destroy !== true);
  const errors: string[] = [];
  if (input.name.trim() === '') errors.push("Name can't be blank");
  if (!(ENVIRONMENT_TIERS as readonly string[]).includes(input.name)) errors.push(`Name must be one of environment tiers: ${ENVIRONMENT_TIERS.join(', ')}.`);
  errors.push(...modelErrors(input.required_approval_count, rules, levels.length));
  if (errors.length) throw new UnprocessableError(errors);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const pe = await trx
      .insertInto('protected_environments')
      .values({ group_id: group.id, project_id: null, name: input.name, required_approval_count: input.required_approval_count, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const e of levels) {
      await trx.insertInto('protected_environment_deploy_access_levels').values({ protected_environment_id: pe.id, ...entryValues(e), created_at: now, updated_at: now }).execute();
    }
    for (const e of rules) {
      await trx
        .insertInto('protected_environment_approval_rules')
        .values({ protected_environment_id: pe.id, ...entryValues(e), required_approvals: e.required_approvals ?? 1, created_at: now, updated_at: now })
        .execute();
    }
    return pe;
  });
  return (await present(ctx, [row]))[0]!;
}

type EntryTable = 'protected_environment_deploy_access_levels' | 'protected_environment_approval_rules';

/** Nested attributes: create without id, update by id, delete by id with `_destroy`. Unknown ids are 404. */
async function applyEntries(trx: Db, table: EntryTable, peId: number, entries: ProtectionEntryInput[], now: string): Promise<void> {
  const ids = entries.map((e) => e.id).filter((v): v is number => v !== undefined);
  if (ids.length) {
    const found = await trx.selectFrom(table).select('id').where('protected_environment_id', '=', peId).where('id', 'in', ids).execute();
    if (found.length !== new Set(ids).size) throw new NotFoundError(null, { exact: '404 Not found' });
  }
  for (const e of entries) {
    if (e.id !== undefined && e._destroy === true) {
      await trx.deleteFrom(table).where('id', '=', e.id).execute();
      continue;
    }
    if (e._destroy === true) continue;
    const values: Record<string, unknown> = { ...entryValues(e), updated_at: now };
    if (e.group_inheritance_type === undefined && e.id !== undefined) delete values.group_inheritance_type;
    if (table === 'protected_environment_approval_rules' && (e.required_approvals !== undefined || e.id === undefined)) values.required_approvals = e.required_approvals ?? 1;
    if (e.id !== undefined) await trx.updateTable(table).set(values).where('id', '=', e.id).execute();
    else await trx.insertInto(table).values({ protected_environment_id: peId, ...values, created_at: now } as never).execute();
  }
}

/**
 * PUT /groups/:id/protected_environments/:name: entries created, updated or destroyed
 * (nested attributes), `required_approval_count` set. 422 with the model's messages.
 */
export async function updateGroupProtectedEnvironment(ctx: Ctx, input: UpdateGroupProtectedEnvironmentInput): Promise<ProtectedEnvironmentEntity> {
  const group = await findAdminGroup(ctx, input.id);
  const pe = await findProtected(ctx, group, input.name);
  checkRulesHaveOneKey(input.approval_rules);
  const levels = await sanitize(ctx, group, input.deploy_access_levels);
  const rules = await sanitize(ctx, group, input.approval_rules);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (levels) await applyEntries(trx, 'protected_environment_deploy_access_levels', pe.id, levels, now);
    if (rules) await applyEntries(trx, 'protected_environment_approval_rules', pe.id, rules, now);
    const remaining = await trx
      .selectFrom('protected_environment_deploy_access_levels')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('protected_environment_id', '=', pe.id)
      .executeTakeFirstOrThrow();
    const errors = modelErrors(input.required_approval_count, rules, Number(remaining.n));
    // Rolled back with the transaction.
    if (errors.length) throw new UnprocessableError(errors);
    return trx
      .updateTable('protected_environments')
      .set({ ...(input.required_approval_count !== undefined ? { required_approval_count: input.required_approval_count } : {}), updated_at: now })
      .where('id', '=', pe.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return (await present(ctx, [row]))[0]!;
}

/** DELETE /groups/:id/protected_environments/:name: 200 with the protection as it was. */
export async function unprotectGroupEnvironment(ctx: Ctx, input: GroupProtectedEnvironmentRefInput): Promise<ProtectedEnvironmentEntity> {
  const group = await findAdminGroup(ctx, input.id);
  const pe = await findProtected(ctx, group, input.name);
  const [entity] = await present(ctx, [pe]);
  await ctx.db.deleteFrom('protected_environments').where('id', '=', pe.id).execute();
  return entity!;
}
