/**
 * Release asset links (GitLab's API::Release::Links with Releases::Links::{Create,Update,
 * Destroy}Service): read by whoever reads releases, written by Developers. Model errors answer
 * 400 with the full messages, `{"message":["Name has already been taken"]}`.
 */
import { nowIso, type Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize } from '../../access/policy.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { filepathOf, linkErrors, type LinkFields, type LinkSiblings } from './release-link.rules.js';
import { presentLink, type ReleaseLinkEntity } from './release.entity.js';
import { selectLinks, selectRelease } from './release.queries.js';
import type { CreateReleaseLinkInput, ListReleaseLinksInput, ReleaseLinkRefInput, UpdateReleaseLinkInput } from './release.schema.js';
import type { ReleaseLinkRow, ReleaseRow } from './release.table.js';

const NOT_FOUND = () => new NotFoundError(null, { exact: '404 Not found' });

interface LinkScope {
  project: ProjectRow;
  release: ReleaseRow;
  webUrl: string;
}

/** The project (readable, with `read_release`) and the release of the tag; `404 Not found` without it. */
async function linkScope(ctx: Ctx, input: { id: string; tag_name: string }): Promise<LinkScope> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_release', { kind: 'project', project });
  const release = await selectRelease(ctx.db, project.id, input.tag_name);
  if (!release) throw NOT_FOUND();
  return { project, release, webUrl: ctx.urls.web(`/${project.path_with_namespace}`) };
}

async function findLink(ctx: Ctx, scope: LinkScope, id: number): Promise<ReleaseLinkRow> {
  const row = await ctx.db.selectFrom('release_links').selectAll().where('release_id', '=', scope.release.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw NOT_FOUND();
  return row;
}

function present(scope: LinkScope, row: ReleaseLinkRow): ReleaseLinkEntity {
  return presentLink(scope, scope.release.tag_name, row);
}

/** The other links of the release, for the uniqueness validations. */
async function siblingsOf(ctx: Ctx, releaseId: number, exceptId?: number): Promise<LinkSiblings> {
  const rows = (await selectLinks(ctx.db, releaseId)).filter((r) => r.id !== exceptId);
  return {
    names: new Set(rows.map((r) => r.name)),
    urls: new Set(rows.map((r) => r.url)),
    filepaths: new Set(rows.filter((r) => r.filepath !== null).map((r) => r.filepath!)),
  };
}

async function validate(ctx: Ctx, scope: LinkScope, fields: LinkFields, exceptId?: number): Promise<void> {
  const errors = linkErrors(fields, (a) => a, await siblingsOf(ctx, scope.release.id, exceptId));
  if (errors.length) throw new BadRequestError(errors);
}

/** A unique-index race answers as the uniqueness validation would. */
async function guardRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError(['Name has already been taken']);
    throw err;
  }
}

/** GET …/releases/:tag_name/assets/links: newest first. */
export async function listReleaseLinks(ctx: Ctx, input: ListReleaseLinksInput): Promise<Page<ReleaseLinkEntity>> {
  const scope = await linkScope(ctx, input);
  const q = ctx.db.selectFrom('release_links').selectAll().where('release_id', '=', scope.release.id).orderBy('created_at', 'desc').orderBy('id', 'desc');
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => present(scope, r)));
}

/** GET …/assets/links/:link_id */
export async function getReleaseLink(ctx: Ctx, input: ReleaseLinkRefInput): Promise<ReleaseLinkEntity> {
  const scope = await linkScope(ctx, input);
  return present(scope, await findLink(ctx, scope, input.link_id));
}

/** POST …/assets/links (Developer). */
export async function createReleaseLink(ctx: Ctx, input: CreateReleaseLinkInput): Promise<ReleaseLinkEntity> {
  const scope = await linkScope(ctx, input);
  await authorize(ctx, 'create_release', { kind: 'project', project: scope.project });
  const fields: LinkFields = { name: input.name, url: input.url.trim(), filepath: filepathOf(input) ?? null, link_type: input.link_type };
  await validate(ctx, scope, fields);
  const now = nowIso(ctx);
  const row = await guardRace(() =>
    ctx.db.transaction().execute(async (trx) => {
      const link = await trx
        .insertInto('release_links')
        .values({ release_id: scope.release.id, ...fields, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('releases').set({ updated_at: now }).where('id', '=', scope.release.id).execute();
      return link;
    }),
  );
  return present(scope, row);
}

/** PUT …/assets/links/:link_id (Developer): name and/or url, plus the path and type; the rest is kept. */
export async function updateReleaseLink(ctx: Ctx, input: UpdateReleaseLinkInput): Promise<ReleaseLinkEntity> {
  const scope = await linkScope(ctx, input);
  const link = await findLink(ctx, scope, input.link_id);
  await authorize(ctx, 'update_release', { kind: 'project', project: scope.project });
  const filepath = filepathOf(input);
  const fields: LinkFields = {
    name: input.name ?? link.name,
    url: input.url?.trim() ?? link.url,
    filepath: filepath === undefined ? link.filepath : filepath,
    link_type: input.link_type ?? link.link_type,
  };
  await validate(ctx, scope, fields, link.id);
  const now = nowIso(ctx);
  const row = await guardRace(() =>
    ctx.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('release_links')
        .set({ ...fields, updated_at: now })
        .where('id', '=', link.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('releases').set({ updated_at: now }).where('id', '=', scope.release.id).execute();
      return updated;
    }),
  );
  return present(scope, row);
}

/** DELETE …/assets/links/:link_id (Developer): answers the deleted link. */
export async function deleteReleaseLink(ctx: Ctx, input: ReleaseLinkRefInput): Promise<ReleaseLinkEntity> {
  const scope = await linkScope(ctx, input);
  const link = await findLink(ctx, scope, input.link_id);
  await authorize(ctx, 'destroy_release', { kind: 'project', project: scope.project });
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('release_links').where('id', '=', link.id).execute();
    await trx.updateTable('releases').set({ updated_at: now }).where('id', '=', scope.release.id).execute();
  });
  return present(scope, link);
}
