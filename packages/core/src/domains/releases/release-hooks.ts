/**
 * What other domains do when a release is created, updated or deleted, without releases naming
 * them (webhooks' release events); and releases' own reaction to the repository: a deleted tag
 * takes its release with it (GitLab's Tags::DestroyService runs Releases::DestroyService). The
 * wiring (forge.ts) registers each reaction; they run inside the transaction of the change.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { PushHooks } from '../repository/index.js';
import { deleteReleaseById, selectRelease } from './release.queries.js';
import type { ReleaseRow } from './release.table.js';

export interface ReleaseChange {
  /** GitLab's Releases::{Create,Update,Destroy}Service actions. */
  action: 'create' | 'update' | 'delete';
  by: Ctx;
  project: ProjectRow;
  /** The release after the change; on `delete`, as it was, its links and milestones still there. */
  release: ReleaseRow;
}

export interface ReleaseHooks {
  releaseChanged?: (trx: Kysely<Database>, change: ReleaseChange) => Promise<void>;
}

const registered = new HookList<ReleaseHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerReleaseHooks(hooks: ReleaseHooks): void {
  registered.register(hooks);
}

export async function runReleaseChanged(trx: Kysely<Database>, change: ReleaseChange): Promise<void> {
  for (const h of registered.all()) if (h.releaseChanged) await h.releaseChanged(trx, change);
}

/** Deletes a release, its links and milestones, after its reactions saw it whole. */
export async function destroyRelease(trx: Kysely<Database>, by: Ctx, project: ProjectRow, release: ReleaseRow): Promise<void> {
  await runReleaseChanged(trx, { action: 'delete', by, project, release });
  await deleteReleaseById(trx, release.id);
}

/** A deleted tag's release is deleted in the same transaction. */
export const releasesPushHooks: PushHooks = {
  refUpdated: async (trx, ctx, project, update) => {
    if (update.kind !== 'tag' || update.after !== null) return;
    const release = await selectRelease(trx, project.id, update.name);
    if (release) await destroyRelease(trx, ctx, project, release);
  },
};
