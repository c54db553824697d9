import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { MilestoneRow, NewMilestoneRow } from './milestone.table.js';

export type MilestoneUpdate = Partial<Pick<MilestoneRow, 'title' | 'description' | 'state' | 'start_date' | 'due_date' | 'updated_at'>>;

export async function insertMilestone(trx: Kysely<Database>, values: NewMilestoneRow): Promise<MilestoneRow> {
  return trx.insertInto('milestones').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateMilestoneById(trx: Kysely<Database>, id: number, values: MilestoneUpdate): Promise<MilestoneRow> {
  return trx.updateTable('milestones').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function selectMilestonesByIds(db: Kysely<Database>, ids: readonly number[]): Promise<MilestoneRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('milestones').selectAll().where('id', 'in', [...new Set(ids)]).execute();
}

/** A milestone of exactly this project or group (GitLab's `parent.milestones.find(id)`). */
export async function selectMilestoneOf(
  db: Kysely<Database>,
  owner: { projectId: number } | { groupId: number },
  id: number,
): Promise<MilestoneRow | undefined> {
  const q = db.selectFrom('milestones').selectAll().where('id', '=', id);
  return ('projectId' in owner ? q.where('project_id', '=', owner.projectId) : q.where('group_id', '=', owner.groupId)).executeTakeFirst();
}

/**
 * A milestone with this title among the given containers, if any: exact title across
 * containers (GitLab's `find_by_title`), any case within `sameContainer` (the unique index).
 */
export async function selectMilestoneWithTitle(
  db: Kysely<Database>,
  title: string,
  scope: { projectIds: number[]; groupIds: number[] },
  sameContainer: { projectId: number } | { groupId: number },
  exceptId?: number,
): Promise<MilestoneRow | undefined> {
  let q = db
    .selectFrom('milestones')
    .selectAll()
    .where((eb) => {
      const ors = [
        'projectId' in sameContainer
          ? eb.and([eb('project_id', '=', sameContainer.projectId), eb(sql`lower(title)`, '=', title.toLowerCase())])
          : eb.and([eb('group_id', '=', sameContainer.groupId), eb(sql`lower(title)`, '=', title.toLowerCase())]),
      ];
      if (scope.projectIds.length) ors.push(eb.and([eb('project_id', 'in', scope.projectIds), eb('title', '=', title)]));
      if (scope.groupIds.length) ors.push(eb.and([eb('group_id', 'in', scope.groupIds), eb('title', '=', title)]));
      return eb.or(ors);
    });
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return q.limit(1).executeTakeFirst();
}

/** Unassigns the milestone from its issues and merge requests, then deletes it (no foreign keys point at it). */
export async function deleteMilestoneById(trx: Kysely<Database>, id: number, now: string): Promise<void> {
  await trx.updateTable('issues').set({ milestone_id: null, updated_at: now }).where('milestone_id', '=', id).execute();
  await trx.updateTable('merge_requests').set({ milestone_id: null, updated_at: now }).where('milestone_id', '=', id).execute();
  await trx.deleteFrom('milestones').where('id', '=', id).execute();
}
