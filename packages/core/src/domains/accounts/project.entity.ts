import type { Kysely } from 'kysely';
import type { Ctx, UrlBuilder } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { cachedRead } from '../../storage/prepared.js';
import { readmePathsOf } from '../repository/index.js';
import { toNamespaceEntity, type NamespaceEntity } from './group.entity.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserBasicEntity } from '../../access/user.entity.js';

/** GitLab's BasicProjectDetails (`simple=true`). */
export interface ProjectSimpleEntity {
  id: number;
  description: string | null;
  name: string;
  name_with_namespace: string;
  path: string;
  path_with_namespace: string;
  created_at: string;
  default_branch: string;
  tag_list: string[];
  topics: string[];
  ssh_url_to_repo: string;
  http_url_to_repo: string;
  web_url: string;
  readme_url: string | null;
  forks_count: number;
  avatar_url: string | null;
  star_count: number;
  last_activity_at: string;
  namespace: NamespaceEntity;
}

export interface ProjectEntity extends ProjectSimpleEntity {
  visibility: string;
  archived: boolean;
  empty_repo: boolean;
  owner?: UserBasicEntity;
  creator_id: number | null;
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  jobs_enabled: boolean;
  wiki_enabled: boolean;
  snippets_enabled: boolean;
  /** Open issues that are not confidential; absent when the project's issues are disabled. */
  open_issues_count?: number;
  container_registry_image_prefix: string;
  _links: Record<string, string>;
  /** How merge requests merge: `merge`, `rebase_merge` or `ff`. */
  merge_method: string;
  /** Premium and up (GitLab's merge_request_approvers feature). */
  approvals_before_merge?: number;
  /** Maintainers only: the project's legacy runner registration token. */
  runners_token?: string;
  permissions?: { project_access: { access_level: number; notification_level: number } | null; group_access: { access_level: number; notification_level: number } | null };
}

/** `readmePath`: the README on the default branch (repository/readme.ts), null when there is none. */
export function toProjectSimpleEntity(row: ProjectRow, namespace: NamespaceRow, urls: UrlBuilder, readmePath: string | null = null): ProjectSimpleEntity {
  const web = urls.web(`/${row.path_with_namespace}`);
  const host = urls.host();
  const topics = JSON.parse(row.topics) as string[];
  return {
    id: row.id,
    description: row.description || null,
    name: row.name,
    name_with_namespace: row.name_with_namespace,
    path: row.path,
    path_with_namespace: row.path_with_namespace,
    created_at: row.created_at,
    default_branch: row.default_branch,
    tag_list: topics,
    topics,
    ssh_url_to_repo: `git@${host.split(':')[0]}:${row.path_with_namespace}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    readme_url: readmePath === null ? null : `${web}/-/blob/${row.default_branch}/${readmePath}`,
    forks_count: 0,
    avatar_url: null,
    star_count: 0,
    last_activity_at: row.last_activity_at,
    namespace: toNamespaceEntity(namespace, urls),
  };
}

/** The namespaces of a page of projects (one query, kept in the read cache). */
export function namespacesOfProjects(db: Kysely<Database>, rows: readonly ProjectRow[]): Promise<readonly NamespaceRow[]> {
  return cachedRead(db, db.selectFrom('namespaces').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.namespace_id))]).compile());
}

/** Simple entities for a page of projects: one query for their namespaces, one for their READMEs. */
export async function presentSimpleProjects(ctx: Ctx, rows: ProjectRow[]): Promise<ProjectSimpleEntity[]> {
  if (rows.length === 0) return [];
  const [namespaceRows, readmes] = await Promise.all([namespacesOfProjects(ctx.db, rows), readmePathsOf(ctx.db, rows)]);
  const namespaces = new Map(namespaceRows.map((n) => [n.id, n]));
  return rows.map((r) => toProjectSimpleEntity(r, namespaces.get(r.namespace_id)!, ctx.urls, readmes.get(r.id) ?? null));
}

/**
 * `emptyRepo`: the project has no branch yet (GitLab's `empty_repo`); `openIssues`: its
 * `project_counters.open_issues_count` (no row: 0).
 * Built by adding to the simple entity, not with `{ ...simple, more }`: on Node 20's V8 an
 * object spread followed by a dozen more properties costs ~100 µs (measured), more than the
 * rest of a project GET.
 */
export function toProjectEntity(
  row: ProjectRow,
  namespace: NamespaceRow,
  urls: UrlBuilder,
  owner?: UserBasicEntity,
  emptyRepo = true,
  readmePath: string | null = null,
  withApprovals = false,
  openIssues = 0,
): ProjectEntity {
  const self = urls.api(`/projects/${row.id}`);
  const entity = toProjectSimpleEntity(row, namespace, urls, readmePath) as ProjectEntity;
  entity.visibility = row.visibility;
  entity.archived = row.archived === 1;
  entity.empty_repo = emptyRepo;
  entity.creator_id = row.creator_id;
  entity.issues_enabled = row.issues_enabled === 1;
  entity.merge_requests_enabled = row.merge_requests_enabled === 1;
  entity.jobs_enabled = row.jobs_enabled === 1;
  entity.wiki_enabled = row.wiki_enabled === 1;
  entity.snippets_enabled = row.snippets_enabled === 1;
  if (entity.issues_enabled) entity.open_issues_count = openIssues;
  entity.container_registry_image_prefix = `${urls.host()}/${row.path_with_namespace}`;
  // As GitLab's entity: the issues and merge requests links only while those features are on.
  const links: Record<string, string> = { self };
  if (entity.issues_enabled) links.issues = `${self}/issues`;
  if (entity.merge_requests_enabled) links.merge_requests = `${self}/merge_requests`;
  links.repo_branches = `${self}/repository/branches`;
  links.labels = `${self}/labels`;
  links.events = `${self}/events`;
  links.members = `${self}/members`;
  links.cluster_agents = `${self}/cluster_agents`;
  entity._links = links;
  entity.merge_method = row.merge_method;
  if (withApprovals) entity.approvals_before_merge = row.approvals_before_merge;
  if (owner) entity.owner = owner;
  return entity;
}
