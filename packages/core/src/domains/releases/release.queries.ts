import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { ReleaseLinkRow, ReleaseRow } from './release.table.js';

type Db = Kysely<Database>;

export async function selectRelease(db: Db, projectId: number, tag: string): Promise<ReleaseRow | undefined> {
  return db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag_name', '=', tag).executeTakeFirst();
}

export async function selectLinks(db: Db, releaseId: number): Promise<ReleaseLinkRow[]> {
  return db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).execute();
}

/** Deletes a release with its links and milestone associations. */
export async function deleteReleaseById(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('release_links').where('release_id', '=', id).execute();
  await trx.deleteFrom('release_milestones').where('release_id', '=', id).execute();
  await trx.deleteFrom('releases').where('id', '=', id).execute();
}

/** Replaces the milestones of a release. */
export async function setReleaseMilestones(trx: Db, releaseId: number, milestoneIds: number[]): Promise<void> {
  await trx.deleteFrom('release_milestones').where('release_id', '=', releaseId).execute();
  const unique = [...new Set(milestoneIds)];
  if (unique.length) await trx.insertInto('release_milestones').values(unique.map((milestone_id) => ({ release_id: releaseId, milestone_id }))).execute();
}
