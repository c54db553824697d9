/**
 * Named snapshots of the whole state, restore, and reset to the initial state (the root
 * user alone, with its tokens kept). See storage/snapshots.ts for how each dialect copies.
 */
import { sql } from 'kysely';
import { bootstrapRoot } from '../domains/accounts/index.js';
import type { Deps } from '../access/context.js';
import { BadRequestError } from '../kernel/errors.js';
import { SNAPSHOT_NAME, type SnapshotInfo } from '../storage/snapshots.js';
import { recountOpenIssues } from '../domains/issues/index.js';
import { exclusive, harnessOf } from './harness.js';

export type SnapshotEntity = SnapshotInfo;

function checkName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) {
    throw new BadRequestError('name must be 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
}

export async function listSnapshots(deps: Deps): Promise<SnapshotEntity[]> {
  return harnessOf(deps).snapshots.list();
}

export async function createSnapshot(deps: Deps, name: string): Promise<SnapshotEntity> {
  checkName(name);
  return exclusive(deps, () => harnessOf(deps).snapshots.create(name, deps.clock.now().toISOString()));
}

/**
 * Puts the database and the blobs back as they were at the snapshot. The job queue is part
 * of the state: jobs pending then are pending again; the worker is paused meanwhile, so no
 * job of this process is half-run across the restore.
 */
export async function restoreSnapshot(deps: Deps, name: string): Promise<SnapshotEntity> {
  checkName(name);
  return exclusive(deps, async () => {
    const info = await harnessOf(deps).snapshots.restore(name);
    await releaseOwnLeases(deps);
    // A snapshot taken before migration 015 holds no counts: they come from the issues restored.
    await recountOpenIssues(deps.db);
    return info;
  });
}

export async function deleteSnapshot(deps: Deps, name: string): Promise<void> {
  checkName(name);
  await exclusive(deps, () => harnessOf(deps).snapshots.delete(name));
}

/** Leases this process held when a snapshot was taken mean nothing after a restore. */
async function releaseOwnLeases(deps: Deps): Promise<void> {
  await deps.db
    .updateTable('queue_jobs')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('status', '=', 'pending')
    .where('lease_owner', '=', deps.queue.owner)
    .execute();
}

/**
 * Empties everything (tables, ids, blobs; snapshots stay) and recreates the root user; the
 * root user's personal access tokens are kept, so the caller's root token still works.
 */
export async function resetState(deps: Deps): Promise<void> {
  await exclusive(deps, async () => {
    const root = await deps.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', 'root').executeTakeFirst();
    const tokens = root
      ? await deps.db.selectFrom('access_tokens').selectAll().where('user_id', '=', root.id).where('resource_kind', 'is', null).orderBy('id').execute()
      : [];
    await harnessOf(deps).snapshots.wipe();
    await bootstrapRoot(deps, { token: `reset-${Math.random().toString(36).slice(2)}${Date.now()}` });
    const newRoot = await deps.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', 'root').executeTakeFirstOrThrow();
    await deps.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('access_tokens').where('user_id', '=', newRoot.id).execute();
      // Same ids as before, so the token list reads as it did.
      for (const token of tokens) await trx.insertInto('access_tokens').values({ ...token, user_id: newRoot.id }).execute();
      if (deps.dialect === 'postgres' && tokens.length) {
        await sql`select setval(pg_get_serial_sequence('access_tokens', 'id'), (select max(id) from access_tokens))`.execute(trx);
      }
    });
  });
}
