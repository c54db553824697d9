/**
 * Releases in GitLab's JSON shapes: `Entities::Release` (with ReleasePresenter's paths and
 * URLs), `Entities::BasicReleaseDetails` (group lists with `simple`), `Entities::Releases::Link`.
 * Callers who may not read the code (Guests of private projects) see no tag, commit, sources
 * or evidence, and the name `Release-<id>`, as GitLab shows them.
 */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { can } from '../../access/policy.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentCommit, type CommitEntity } from '../repository/index.js';
import { renderDescription } from '../labels/index.js';
import { presentMilestones } from '../milestones/index.js';
import { withRecordId } from '../../kernel/graphql.js';
import type { MilestoneEntity } from '../milestones/index.js';
import type { ReleaseLinkRow, ReleaseRow } from './release.table.js';

export interface ReleaseLinkEntity {
  id: number;
  name: string;
  url: string;
  /** `<project>/-/releases/<tag>/downloads<direct_asset_path>` when a path is set, else `url`. */
  direct_asset_url: string;
  /** True when the URL is outside the project. */
  external: boolean;
  link_type: string;
}

export interface ReleaseSourceEntity {
  format: string;
  url: string;
}

export interface MilestoneWithStatsEntity extends MilestoneEntity {
  issue_stats: { total: number; closed: number };
}

export interface BasicReleaseEntity {
  name: string;
  tag_name: string;
  description: string | null;
  created_at: string;
  released_at: string;
  upcoming_release: boolean;
}

export interface ReleaseEntity {
  name: string;
  /** Absent for callers who cannot read the code. */
  tag_name?: string;
  description: string | null;
  created_at: string;
  released_at: string;
  upcoming_release: boolean;
  /** With `include_html_description=true`. */
  description_html?: string;
  author?: UserBasicEntity;
  commit?: CommitEntity | null;
  milestones?: MilestoneWithStatsEntity[];
  commit_path?: string;
  tag_path?: string;
  assets: { count: number; sources?: ReleaseSourceEntity[]; links: ReleaseLinkEntity[] };
  evidences?: unknown[];
  _links: {
    closed_issues_url: string;
    closed_merge_requests_url: string;
    edit_url?: string;
    merged_merge_requests_url: string;
    opened_issues_url: string;
    opened_merge_requests_url: string;
    self: string;
  };
}

/** `Gitlab::Workhorse::ARCHIVE_FORMATS`. */
const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/** Releases::Source.all: the repository archive at the tag, in each format. */
export function releaseSources(webUrl: string, project: Pick<ProjectRow, 'path'>, tag: string): ReleaseSourceEntity[] {
  return ARCHIVE_FORMATS.map((format) => ({ format, url: `${webUrl}/-/archive/${tag}/${project.path}-${tag.replace(/\//g, '-')}.${format}` }));
}

const enc = encodeURIComponent;

/** What presenting a release needs to know about its project and the caller. */
export interface ReleaseProjectView {
  project: ProjectRow;
  /** `<external>/<path_with_namespace>`. */
  webUrl: string;
  /** The same as a path (with the external URL's own path prefix, if any). */
  webPath: string;
  canReadCode: boolean;
  canUpdate: boolean;
  /** Milestones are hidden when the project has neither issues nor merge requests. */
  canReadMilestones: boolean;
}

export async function projectView(ctx: Ctx, project: ProjectRow): Promise<ReleaseProjectView> {
  const webUrl = ctx.urls.web(`/${project.path_with_namespace}`);
  const subject = { kind: 'project' as const, project };
  const [canReadCode, canUpdate] = await Promise.all([can(ctx, 'read_code', subject), can(ctx, 'update_release', subject)]);
  return {
    project,
    webUrl,
    webPath: new URL(webUrl).pathname,
    canReadCode,
    canUpdate,
    canReadMilestones: project.issues_enabled === 1 || project.merge_requests_enabled === 1,
  };
}

export function presentLink(view: Pick<ReleaseProjectView, 'webUrl'>, tag: string, row: ReleaseLinkRow): ReleaseLinkEntity {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    direct_asset_url: row.filepath ? `${view.webUrl}/-/releases/${enc(tag)}/downloads/${row.filepath.replace(/^\//, '')}` : row.url,
    external: !row.url.startsWith(view.webUrl),
    link_type: row.link_type,
  };
}

function isUpcoming(ctx: Ctx, releasedAt: string): boolean {
  return Math.floor(Date.parse(releasedAt) / 1000) > Math.floor(ctx.clock.now().getTime() / 1000);
}

function releaseName(view: ReleaseProjectView, row: ReleaseRow): string {
  return view.canReadCode ? row.name : `Release-${row.id}`;
}

/** `Entities::BasicReleaseDetails` (group lists with `simple=true`). */
export function presentBasicRelease(ctx: Ctx, view: ReleaseProjectView, row: ReleaseRow): BasicReleaseEntity {
  return {
    name: releaseName(view, row),
    tag_name: row.tag_name,
    description: row.description,
    created_at: row.created_at,
    released_at: row.released_at,
    upcoming_release: isUpcoming(ctx, row.released_at),
  };
}

/** Views of the projects of a page of releases (one `can` pair per distinct project). */
export async function projectViewsFor(ctx: Ctx, rows: ReleaseRow[], known?: ProjectRow): Promise<Map<number, ReleaseProjectView>> {
  const ids = [...new Set(rows.map((r) => r.project_id))];
  const missing = ids.filter((id) => id !== known?.id);
  const projects = [...(known ? [known] : []), ...(missing.length ? await ctx.db.selectFrom('projects').selectAll().where('id', 'in', missing).execute() : [])];
  const views = await Promise.all(projects.map((p) => projectView(ctx, p)));
  return new Map(views.map((v) => [v.project.id, v]));
}

/** The milestones of each release, with issue counts, in `order_by_dates_and_title` order. */
async function milestonesByRelease(ctx: Ctx, releaseIds: number[]): Promise<Map<number, MilestoneWithStatsEntity[]>> {
  const out = new Map<number, MilestoneWithStatsEntity[]>();
  if (!releaseIds.length) return out;
  const rows = await ctx.db
    .selectFrom('release_milestones as rm')
    .innerJoin('milestones as m', 'm.id', 'rm.milestone_id')
    .selectAll('m')
    .select('rm.release_id')
    .where('rm.release_id', 'in', releaseIds)
    .execute();
  if (!rows.length) return out;
  const milestoneIds = [...new Set(rows.map((r) => r.id))];
  const stats = await ctx.db
    .selectFrom('issues')
    .select((eb) => [
      'milestone_id',
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string>(eb.case().when('state', '=', 'closed').then(1).else(0).end()).as('closed'),
    ])
    .where('milestone_id', 'in', milestoneIds)
    .groupBy('milestone_id')
    .execute();
  const statsOf = new Map(stats.map((s) => [s.milestone_id!, { total: Number(s.total), closed: Number(s.closed ?? 0) }]));
  const unique = milestoneIds.map((id) => rows.find((r) => r.id === id)!);
  const entities = new Map((await presentMilestones(ctx, unique.map(({ release_id: _r, ...m }) => m))).map((e) => [e.id, e]));
  const sorted = [...rows].sort((a, b) => {
    const nullsLast = (x: string | null, y: string | null) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);
    return nullsLast(a.due_date, b.due_date) || nullsLast(a.start_date, b.start_date) || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0);
  });
  for (const row of sorted) {
    const list = out.get(row.release_id) ?? [];
    list.push({ ...entities.get(row.id)!, issue_stats: statsOf.get(row.id) ?? { total: 0, closed: 0 } });
    out.set(row.release_id, list);
  }
  return out;
}

export interface PresentOptions {
  /** Adds `description_html`. */
  html?: boolean;
  /** The project of every row, when known (project routes). */
  project?: ProjectRow;
}

/** `Entities::Release` for a page: a fixed number of queries whatever the page size (plus one pair of ability checks per project). */
export async function presentReleases(ctx: Ctx, rows: ReleaseRow[], options: PresentOptions = {}): Promise<ReleaseEntity[]> {
  if (!rows.length) return [];
  const views = await projectViewsFor(ctx, rows, options.project);
  const ids = rows.map((r) => r.id);
  const authorIds = [...new Set(rows.map((r) => r.author_id).filter((id): id is number => id !== null))];
  const shas = [...new Set(rows.map((r) => r.sha).filter(Boolean))];
  const [authors, commits, links, milestones] = await Promise.all([
    selectUsersByIds(ctx.db, authorIds),
    shas.length
      ? ctx.db.selectFrom('repository_commits').selectAll().where('project_id', 'in', [...views.keys()]).where('sha', 'in', shas).execute()
      : [],
    ctx.db.selectFrom('release_links').selectAll().where('release_id', 'in', ids).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),
    milestonesByRelease(ctx, ids),
  ]);
  const authorOf = new Map(authors.map((u) => [u.id, u]));
  const commitOf = new Map(commits.map((c) => [`${c.project_id}:${c.sha}`, c]));
  return rows.map((row) => {
    const view = views.get(row.project_id)!;
    const { project, webUrl, webPath } = view;
    const tag = enc(row.tag_name);
    const commit = commitOf.get(`${row.project_id}:${row.sha}`);
    const releaseLinks = links.filter((l) => l.release_id === row.id).map((l) => presentLink(view, row.tag_name, l));
    const releaseMilestones = milestones.get(row.id);
    const author = row.author_id !== null ? authorOf.get(row.author_id) : undefined;
    const entity: ReleaseEntity = {
      name: releaseName(view, row),
      ...(view.canReadCode && { tag_name: row.tag_name }),
      description: row.description,
      created_at: row.created_at,
      released_at: row.released_at,
      upcoming_release: isUpcoming(ctx, row.released_at),
      ...(options.html && { description_html: renderDescription(row.description) ?? '' }),
      ...(author && { author: toUserBasicEntity(author, ctx.urls) }),
      ...(view.canReadCode && { commit: commit ? presentCommit(ctx.urls, project, commit) : null }),
      ...(!!releaseMilestones?.length && view.canReadMilestones && { milestones: releaseMilestones }),
      ...(view.canReadCode && commit && { commit_path: `${webPath}/-/commit/${commit.sha}` }),
      ...(view.canReadCode && { tag_path: `${webPath}/-/tags/${tag}` }),
      assets: {
        count: releaseLinks.length + (view.canReadCode ? ARCHIVE_FORMATS.length : 0),
        ...(view.canReadCode && { sources: releaseSources(webUrl, project, row.tag_name) }),
        links: releaseLinks,
      },
      ...(view.canReadCode && { evidences: [] }),
      _links: {
        closed_issues_url: `${webUrl}/-/issues?release_tag=${tag}&scope=all&state=closed`,
        closed_merge_requests_url: `${webUrl}/-/merge_requests?release_tag=${tag}&scope=all&state=closed`,
        ...(view.canUpdate && { edit_url: `${webUrl}/-/releases/${tag}/edit` }),
        merged_merge_requests_url: `${webUrl}/-/merge_requests?release_tag=${tag}&scope=all&state=merged`,
        opened_issues_url: `${webUrl}/-/issues?release_tag=${tag}&scope=all&state=opened`,
        opened_merge_requests_url: `${webUrl}/-/merge_requests?release_tag=${tag}&scope=all&state=opened`,
        self: `${webUrl}/-/releases/${tag}`,
      },
    };
    // The record's id for GraphQL's `gid://gitlab/Release/<id>` (not in the REST JSON, as in GitLab's).
    return withRecordId(entity, row.id);
  });
}

export async function presentRelease(ctx: Ctx, row: ReleaseRow, options: PresentOptions = {}): Promise<ReleaseEntity> {
  return (await presentReleases(ctx, [row], options))[0]!;
}
