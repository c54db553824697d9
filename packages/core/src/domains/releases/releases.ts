/**
 * Project releases (GitLab's API::Releases with Releases::{Create,Update,Destroy}Service and
 * ReleasesFinder). A release belongs to a tag; creating one may create the tag from `ref`, its
 * asset links and milestones in the same transaction.
 */
import { repositoryTransaction } from '../repository/index.js';
import type { Kysely } from 'kysely';
import { nowIso, type Ctx } from '../../access/context.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, namespaceOf } from '../../access/policy.js';
import { redirect } from '../../kernel/route.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { resolveRevision, selectTag } from '../repository/index.js';
import { canCreateTag, createTagIn, TAG_MESSAGES, validRefName } from '../repository/index.js';
import { filepathOf, invalidLinkType, linkErrors, type LinkFields } from './release-link.rules.js';
import { presentRelease, presentReleases, type ReleaseEntity } from './release.entity.js';
import { selectRelease, setReleaseMilestones } from './release.queries.js';
import { destroyRelease, runReleaseChanged } from './release-hooks.js';
import type {
  CreateReleaseInput,
  DownloadReleaseAssetInput,
  GetReleaseInput,
  LatestReleaseInput,
  ListReleasesInput,
  ReleaseRefInput,
  UpdateReleaseInput,
} from './release.schema.js';
import type { ReleaseRow } from './release.table.js';

/** `Gitlab::Database::MAX_TEXT_SIZE_LIMIT`. */
const MAX_DESCRIPTION = 1_000_000;
const DESCRIPTION_TOO_LONG = `is too long (maximum is ${MAX_DESCRIPTION} characters)`;

/** The project of a release route, readable by the caller; 404 otherwise. */
async function releaseProject(ctx: Ctx, id: string): Promise<ProjectRow> {
  const project = await findProject(ctx, id);
  await authorize(ctx, 'read_release', { kind: 'project', project });
  return project;
}

/**
 * Milestones to attach, from `milestones` (titles) or `milestone_ids`: the project's own and, on
 * Premium, its group's. Undefined when neither is given; unknown ones answer 400.
 */
async function resolveMilestones(ctx: Ctx, project: ProjectRow, input: { milestones?: string[]; milestone_ids?: number[] }): Promise<number[] | undefined> {
  if (input.milestones !== undefined && input.milestone_ids !== undefined) {
    throw new ValidationError([{ field: 'milestones, milestone_ids', message: 'Cannot specify milestones and milestone_ids at the same time' }]);
  }
  if (input.milestones === undefined && input.milestone_ids === undefined) return undefined;
  const ns = await namespaceOf(ctx, project.namespace_id);
  const groupIds = ns.kind === 'group' && tierAtLeast(ctx.config.tier, 'premium') ? [ns.id] : [];
  const scoped = ctx.db
    .selectFrom('milestones')
    .select(['id', 'title'])
    .where((eb) => eb.or([eb('project_id', '=', project.id), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]));
  if (input.milestones !== undefined) {
    if (!input.milestones.length) return [];
    const rows = await scoped.where('title', 'in', input.milestones).execute();
    const missing = input.milestones.filter((t) => !rows.some((r) => r.title === t));
    if (missing.length) throw new BadRequestError(`Milestone(s) not found: ${missing.join(', ')}`, { raw: true });
    return rows.map((r) => r.id);
  }
  const ids = input.milestone_ids!;
  if (!ids.length) return [];
  const rows = await scoped.where('id', 'in', ids).execute();
  const missing = ids.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length) throw new BadRequestError(`Milestone id(s) not found: ${missing.join(', ')}`, { raw: true });
  return rows.map((r) => r.id);
}

/** The `assets[links]` of a new release, validated as Rails validates nested links ("Validation failed: ..."). */
function plannedLinks(input: CreateReleaseInput): LinkFields[] {
  const links = input.assets?.links ?? [];
  const planned: LinkFields[] = [];
  for (const link of links) {
    const type = link.link_type ?? 'other';
    const invalid = invalidLinkType(type);
    if (invalid) throw new BadRequestError(invalid, { raw: true });
    planned.push({ name: link.name, url: link.url.trim(), filepath: filepathOf(link) ?? null, link_type: type });
  }
  return planned;
}

function validationFailures(links: LinkFields[], description: string | null | undefined): string[] {
  const errors: string[] = [];
  for (const link of links) {
    for (const m of linkErrors(link, (a) => `Links ${a.toLowerCase()}`)) if (!errors.includes(m)) errors.push(m);
  }
  const nestedErrors = errors.length > 0;
  if (description && description.length > MAX_DESCRIPTION) errors.push(`Description ${DESCRIPTION_TOO_LONG}`);
  if (!nestedErrors) {
    // NestedAttributesDuplicatesValidator over name, url and filepath
    for (const key of ['name', 'url', 'filepath'] as const) {
      const values = links.map((l) => l[key]).filter((v): v is string => v !== null);
      const dups = [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];
      if (dups.length) errors.push(`Links have duplicate values (${dups.join(', ')})`);
    }
  }
  return errors;
}

/** GET /projects/:id/releases: by `released_at` (or `created_at`), newest first unless `sort=asc`. */
export async function listReleases(ctx: Ctx, input: ListReleasesInput): Promise<Page<ReleaseEntity>> {
  const project = await releaseProject(ctx, input.id);
  let q = ctx.db.selectFrom('releases').selectAll().where('project_id', '=', project.id);
  if (input.updated_before) q = q.where('updated_at', '<=', input.updated_before.toISOString());
  if (input.updated_after) q = q.where('updated_at', '>=', input.updated_after.toISOString());
  q = q.orderBy(input.order_by, input.sort).orderBy('id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentReleases(ctx, rows, { project, html: input.include_html_description }));
}

/** GET /projects/:id/releases/:tag_name: needs the code (Guests of private projects get 403). */
export async function getRelease(ctx: Ctx, input: GetReleaseInput): Promise<ReleaseEntity> {
  const project = await releaseProject(ctx, input.id);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  const release = await selectRelease(ctx.db, project.id, input.tag_name);
  if (!release) throw new NotFoundError(null);
  return presentRelease(ctx, release, { project, html: input.include_html_description });
}

/** GET /projects/:id/releases/permalink/latest[/*suffix]: 302 to the latest release by `released_at`. */
export async function latestReleaseRedirect(ctx: Ctx, input: LatestReleaseInput) {
  const project = await releaseProject(ctx, input.id);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  const latest = await ctx.db
    .selectFrom('releases')
    .select('tag_name')
    .where('project_id', '=', project.id)
    .orderBy('released_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!latest) throw new NotFoundError(null);
  let location = ctx.urls.api(`/projects/${project.id}/releases/${encodeURIComponent(latest.tag_name)}`);
  const suffix = input.suffix_path?.replace(/^\/+/, '');
  if (suffix) {
    if (suffix.split('/').some((part) => part === '..' || part === '.')) {
      throw new ValidationError([{ field: 'suffix_path', message: 'should be a valid file path' }]);
    }
    location += `/${suffix.split('/').map(encodeURIComponent).join('/')}`;
  }
  if (input.include_html_description !== undefined) location += `?include_html_description=${input.include_html_description}`;
  return redirect(location);
}

/** GET /projects/:id/releases/:tag_name/downloads/*direct_asset_path: 302 to the link's URL. */
export async function downloadReleaseAsset(ctx: Ctx, input: DownloadReleaseAssetInput) {
  const project = await releaseProject(ctx, input.id);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  const release = await selectRelease(ctx.db, project.id, input.tag_name);
  if (!release) throw new NotFoundError(null);
  const link = await ctx.db
    .selectFrom('release_links')
    .select('url')
    .where('release_id', '=', release.id)
    .where('filepath', '=', `/${input.direct_asset_path.replace(/^\/+/, '')}`)
    .executeTakeFirst();
  if (!link) throw new NotFoundError(null, { exact: '404 Not found' });
  return redirect(link.url);
}

/**
 * POST /projects/:id/releases (Developer). An existing tag, or `ref` to create it (annotated
 * with `tag_message`); then the release, its links and milestones, in one transaction.
 */
export async function createRelease(ctx: Ctx, input: CreateReleaseInput): Promise<ReleaseEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'create_release', { kind: 'project', project });
  // Releases::CreateService asks `can_create_tag?` first, whether the tag exists or not.
  if (!(await canCreateTag(ctx, project, input.tag_name))) throw new ForbiddenError(undefined, { exact: TAG_MESSAGES.createProtectedTag });
  if (await selectRelease(ctx.db, project.id, input.tag_name)) throw new ConflictError('Release already exists');
  const milestoneIds = await resolveMilestones(ctx, project, input);
  const tag = await selectTag(ctx.db, project.id, input.tag_name);
  if (!tag) {
    if (!input.ref) throw new UnprocessableError('Ref is not specified');
    if (!validRefName(input.tag_name)) throw new BadRequestError('Tag name invalid', { raw: true });
    if (!(await resolveRevision(ctx.db, project.id, input.ref))) throw new BadRequestError(`Target ${input.ref} is invalid`, { raw: true });
  }
  const links = plannedLinks(input);
  const failures = validationFailures(links, input.description);
  if (failures.length) throw new BadRequestError(`Validation failed: ${failures.join(', ')}`, { raw: true });

  const now = nowIso(ctx);
  const row = await guardTagRace(() =>
    repositoryTransaction(ctx, async (trx) => {
      const sha = tag ? tag.commit_sha : (await createTagIn(trx, ctx, project, input.tag_name, input.ref!, input.tag_message)).tag.commit_sha;
      const release = await trx
        .insertInto('releases')
        .values({
          project_id: project.id,
          tag_name: input.tag_name,
          name: input.name ?? input.tag_name,
          description: input.description ?? null,
          author_id: ctx.actor.user?.id ?? null,
          sha,
          released_at: input.released_at?.toISOString() ?? now,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (links.length) {
        await trx
          .insertInto('release_links')
          .values(links.map((l) => ({ release_id: release.id, name: l.name, url: l.url, filepath: l.filepath, link_type: l.link_type, created_at: now, updated_at: now })))
          .execute();
      }
      if (milestoneIds?.length) await setReleaseMilestones(trx, release.id, milestoneIds);
      await runReleaseChanged(trx, { action: 'create', by: ctx, project, release });
      return release;
    }),
  );
  return presentRelease(ctx, row, { project });
}

/** A concurrent create of the same release answers as the existence check does. */
async function guardTagRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError('Release already exists');
    throw err;
  }
}

/**
 * The release a PUT or DELETE addresses. GitLab authorizes against the release itself, so a
 * missing release answers 403 (the project must still be visible: 404 otherwise).
 */
async function releaseToChange(ctx: Ctx, input: ReleaseRefInput, ability: 'update_release' | 'destroy_release'): Promise<{ project: ProjectRow; release: ReleaseRow }> {
  const project = await findProject(ctx, input.id);
  const release = await selectRelease(ctx.db, project.id, input.tag_name);
  if (!release) throw new ForbiddenError();
  await authorize(ctx, ability, { kind: 'project', project });
  if (!(await selectTag(ctx.db, project.id, input.tag_name))) throw new NotFoundError(null, { exact: 'Tag does not exist' });
  return { project, release };
}

/** PUT /projects/:id/releases/:tag_name (Developer): name, description, released_at, milestones. */
export async function updateRelease(ctx: Ctx, input: UpdateReleaseInput): Promise<ReleaseEntity> {
  const { project, release } = await releaseToChange(ctx, input, 'update_release');
  const given = (['name', 'description', 'released_at', 'milestones', 'milestone_ids'] as const).filter((k) => input[k] !== undefined);
  if (!given.length) throw new BadRequestError('params is empty', { raw: true });
  const milestoneIds = await resolveMilestones(ctx, project, input);
  if (input.description && input.description.length > MAX_DESCRIPTION) throw new BadRequestError({ description: [DESCRIPTION_TOO_LONG] });
  const set: Partial<Pick<ReleaseRow, 'name' | 'description' | 'released_at' | 'updated_at'>> = { updated_at: nowIso(ctx) };
  if (input.name !== undefined) set.name = input.name ?? release.tag_name;
  if (input.description !== undefined) set.description = input.description;
  if (input.released_at !== undefined) set.released_at = input.released_at.toISOString();
  const row = await ctx.db.transaction().execute(async (trx: Kysely<Database>) => {
    if (milestoneIds !== undefined) await setReleaseMilestones(trx, release.id, milestoneIds);
    const updated = await trx.updateTable('releases').set(set).where('id', '=', release.id).returningAll().executeTakeFirstOrThrow();
    await runReleaseChanged(trx, { action: 'update', by: ctx, project, release: updated });
    return updated;
  });
  return presentRelease(ctx, row, { project });
}

/** DELETE /projects/:id/releases/:tag_name (Developer): the tag stays; answers the release as it was. */
export async function deleteRelease(ctx: Ctx, input: ReleaseRefInput): Promise<ReleaseEntity> {
  const { project, release } = await releaseToChange(ctx, input, 'destroy_release');
  const entity = await presentRelease(ctx, release, { project });
  await ctx.db.transaction().execute((trx) => destroyRelease(trx, ctx, project, release));
  return entity;
}
