/**
 * Protected tags (GitLab's API::ProtectedTags with ProtectedTags::CreateService): a tag name or
 * wildcard and who may create matching tags. Every route needs Maintainer (GitLab's
 * `authorize_admin_project`). Whether a tag may be created, moved or deleted is answered by
 * repository/protection.ts (`canCreateTag`), asked by the tags API and by git pushes.
 */
import { nowIso, type Ctx } from '../../access/context.js';
import { MAINTAINER } from '../../access/levels.js';
import { NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize } from '../../access/policy.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { ProtectedTagRow } from '../repository/index.js';
import { accessEntryPresenter, type ProtectedRefAccessEntity } from './protected-branch.entity.js';
import { entryErrors, planned, type PlannedEntry } from './protected-branches.js';
import type { CreateProtectedTagInput, ListProtectedTagsInput, ProtectedTagRefInput } from './protected-tag.schema.js';

/** GitLab's `Entities::ProtectedTag`. */
export interface ProtectedTagEntity {
  name: string;
  create_access_levels: ProtectedRefAccessEntity[];
}

const NOT_FOUND = () => new NotFoundError(null, { exact: '404 Not found' });

async function presentProtectedTags(ctx: Ctx, rows: ProtectedTagRow[]): Promise<ProtectedTagEntity[]> {
  if (!rows.length) return [];
  const entries = await ctx.db.selectFrom('protected_tag_create_access_levels').selectAll().where('protected_tag_id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
  const present = await accessEntryPresenter(ctx, entries);
  return rows.map((row) => ({
    name: row.name,
    create_access_levels: entries
      .filter((e) => e.protected_tag_id === row.id)
      .map(present),
  }));
}

async function maintainerProject(ctx: Ctx, id: string): Promise<ProjectRow> {
  const project = await findProject(ctx, id);
  await authorize(ctx, 'admin_protected_branch', { kind: 'project', project });
  return project;
}

async function findRule(ctx: Ctx, project: ProjectRow, name: string): Promise<ProtectedTagRow> {
  const row = await ctx.db.selectFrom('protected_tags').selectAll().where('project_id', '=', project.id).where('name', '=', name).executeTakeFirst();
  if (!row) throw NOT_FOUND();
  return row;
}

/** GET /projects/:id/protected_tags (Maintainer). */
export async function listProtectedTags(ctx: Ctx, input: ListProtectedTagsInput): Promise<Page<ProtectedTagEntity>> {
  const project = await maintainerProject(ctx, input.id);
  const q = ctx.db.selectFrom('protected_tags').selectAll().where('project_id', '=', project.id).orderBy('id');
  return paginate(ctx.db, q, input, (rows) => presentProtectedTags(ctx, rows));
}

/** GET /projects/:id/protected_tags/:name (the exact rule name, wildcards included). */
export async function getProtectedTag(ctx: Ctx, input: ProtectedTagRefInput): Promise<ProtectedTagEntity> {
  const project = await maintainerProject(ctx, input.id);
  return (await presentProtectedTags(ctx, [await findRule(ctx, project, input.name)]))[0]!;
}

/**
 * POST /projects/:id/protected_tags: `create_access_level` (default 40, Maintainers, unless
 * `allowed_to_create` is given) plus the `allowed_to_create` entries (users and groups on
 * Premium). A name already protected is 422 `Name has already been taken`, as GitLab's model.
 */
export async function createProtectedTag(ctx: Ctx, input: CreateProtectedTagInput): Promise<ProtectedTagEntity> {
  const project = await maintainerProject(ctx, input.id);
  const errors: string[] = [];
  if (input.name.trim() === '') errors.push("Name can't be blank");
  const allowed = (input.allowed_to_create ?? []).filter((e) => !e._destroy);
  let level = input.create_access_level;
  if (level === undefined && !allowed.length) level = MAINTAINER;
  const entries: PlannedEntry[] = [...(level !== undefined ? [planned({ access_level: level })] : []), ...allowed.map((e) => planned(e))];
  errors.push(...(await entryErrors(ctx, project, 'Create access levels', entries)));
  const taken = await ctx.db.selectFrom('protected_tags').select('id').where('project_id', '=', project.id).where('name', '=', input.name).executeTakeFirst();
  if (taken) errors.unshift('Name has already been taken');
  if (errors.length) throw new UnprocessableError(errors);
  const now = nowIso(ctx);
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      const rule = await trx.insertInto('protected_tags').values({ project_id: project.id, name: input.name, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();
      await trx
        .insertInto('protected_tag_create_access_levels')
        .values(entries.map((e) => ({ protected_tag_id: rule.id, access_level: e.access_level, user_id: e.user_id, group_id: e.group_id })))
        .execute();
      return rule;
    });
    return (await presentProtectedTags(ctx, [row]))[0]!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new UnprocessableError(['Name has already been taken']);
    throw err;
  }
}

/** DELETE /projects/:id/protected_tags/:name (204). */
export async function deleteProtectedTag(ctx: Ctx, input: ProtectedTagRefInput): Promise<void> {
  const project = await maintainerProject(ctx, input.id);
  const rule = await findRule(ctx, project, input.name);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('protected_tag_create_access_levels').where('protected_tag_id', '=', rule.id).execute();
    await trx.deleteFrom('protected_tags').where('id', '=', rule.id).execute();
  });
}
