/**
 * A project's `last_activity_at`, as GitLab's Event#update_project keeps it: every event of the
 * project (an issue or merge request opened, closed, reopened or merged, a comment, a push, a
 * milestone opened or closed) moves it to the event's time, at most once an hour (only when it
 * is an hour old or more). Call it inside the transaction of the write.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { ProjectRow } from './project.table.js';

/** GitLab's Event::RESET_PROJECT_ACTIVITY_INTERVAL. */
const RESET_INTERVAL_MS = 60 * 60 * 1000;

export async function recordProjectActivity(trx: Kysely<Database>, project: Pick<ProjectRow, 'id' | 'last_activity_at'>, at: string): Promise<void> {
  if (!projectActivityDue(project, at)) return;
  await trx.updateTable('projects').set({ last_activity_at: at }).where('id', '=', project.id).where('last_activity_at', '<=', hourBefore(at)).execute();
}

/**
 * Whether an event at `at` may move the project's `last_activity_at`. The row in hand (read in
 * this request) is no newer than the stored one: nothing else moves it, and only forward.
 * Recent there, it is recent in the database: no statement at all.
 */
export function projectActivityDue(project: Pick<ProjectRow, 'last_activity_at'>, at: string): boolean {
  return project.last_activity_at <= hourBefore(at);
}

const hourBefore = (at: string) => new Date(Date.parse(at) - RESET_INTERVAL_MS).toISOString();
