/**
 * Release and milestone events as GitLab writes them: Gitlab::HookData::ReleaseBuilder (the
 * release's safe attributes, then the project, URL, action, assets with their links' hook
 * attributes and the archive sources, and the tag's commit) and Gitlab::DataBuilder::Milestone
 * (the project, Gitlab::HookData::MilestoneBuilder's attributes, and the action at the top).
 */
import type { Kysely } from 'kysely';
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { Database } from '../../storage/database.js';
import type { MilestoneRow } from '../milestones/index.js';
import { releaseSources, type ReleaseRow } from '../releases/index.js';
import { selectCommit } from '../repository/index.js';
import { projectHookAttrs } from './payloads.js';
import { commitHookAttrs } from './payloads-push.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

/** Release#to_hook_data(action). */
export async function buildReleasePayload(db: Db, urls: UrlBuilder, project: ProjectRow, release: ReleaseRow, action: 'create' | 'update' | 'delete'): Promise<Json> {
  const webUrl = urls.web(`/${project.path_with_namespace}`);
  const links = await db.selectFrom('release_links').selectAll().where('release_id', '=', release.id).orderBy('id').execute();
  const sources = releaseSources(webUrl, project, release.tag_name);
  const commit = release.sha ? await selectCommit(db, project.id, release.sha) : undefined;
  return {
    id: release.id,
    created_at: release.created_at,
    description: release.description,
    name: release.name,
    released_at: release.released_at,
    tag: release.tag_name,
    object_kind: 'release',
    project: await projectHookAttrs(db, urls, project),
    url: `${webUrl}/-/releases/${encodeURIComponent(release.tag_name)}`,
    action,
    assets: {
      count: links.length + sources.length,
      // Releases::Link#hook_attrs
      links: links.map((l) => ({ id: l.id, link_type: l.link_type, name: l.name, url: l.url })),
      sources,
    },
    commit: commit ? commitHookAttrs(urls, project, commit) : null,
  };
}

/** Gitlab::DataBuilder::Milestone.build(milestone, action) for a project milestone. */
export async function buildMilestonePayload(db: Db, urls: UrlBuilder, project: ProjectRow, milestone: MilestoneRow, action: string): Promise<Json> {
  return {
    object_kind: 'milestone',
    event_type: 'milestone',
    project: await projectHookAttrs(db, urls, project),
    object_attributes: {
      id: milestone.id,
      iid: milestone.iid,
      title: milestone.title,
      description: milestone.description,
      state: milestone.state,
      created_at: milestone.created_at,
      updated_at: milestone.updated_at,
      due_date: milestone.due_date,
      start_date: milestone.start_date,
      group_id: milestone.group_id,
      project_id: milestone.project_id,
    },
    action,
  };
}
