/**
 * The branch and tag lists answer from the database's index of the repository, which follows
 * git's refs: API writes move both in one transaction (git-write.ts), a push's post-receive
 * indexes what git already moved. The one way they part: a post-receive whose indexing fails
 * (the database refused or was unreachable, the process died) leaves git's refs ahead of the
 * index, and git cannot undo a received push. As GitLab's PostReceive worker is retried from
 * its queue, such a push queues a reconcile job: it compares git's refs with the index and
 * applies the difference as the pusher's push (its reactions run then), retried until it goes in.
 */
import { ANONYMOUS, contextFor, type Ctx, type Deps } from '../../access/context.js';
import { selectUserById } from '../../access/users.js';
import { selectProjectByRef } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { applyPushedRefUpdates } from './git-index.js';
import type { PushOptions } from './push-options.js';
import type { RefUpdate } from './push-hooks.js';

export const RECONCILE_REFS_JOB = 'repository.reconcile_refs';

export function registerRefReconcileJobs(deps: Deps): void {
  deps.queue.register(RECONCILE_REFS_JOB, async (payload: { project_id: number; user_id: number | null }) => {
    const project = await selectProjectByRef(deps, payload.project_id);
    if (!project || !(await deps.git.exists(project.id))) return;
    const user = payload.user_id === null ? undefined : await selectUserById(deps.db, payload.user_id);
    const ctx = user ? contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 }) : contextFor(deps, ANONYMOUS);
    await reconcileRefs(ctx, project, { imported: !user });
  });
}

/**
 * Differences between git's branches and tags and the index's, as ref updates (`before` the
 * index's commit, `after` git's object: a tag object for an annotated tag).
 */
export async function refDifferences(ctx: Ctx, project: Pick<ProjectRow, 'id'>): Promise<RefUpdate[]> {
  const out = (await ctx.git.run(project.id, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(*objectname)', 'refs/heads', 'refs/tags'])).stdout.toString('utf8');
  const inGit = new Map<string, { object: string; commit: string }>();
  for (const line of out.split('\n')) {
    const [ref, object, peeled] = line.split('\0');
    if (!ref || !object) continue;
    inGit.set(ref, { object, commit: peeled || object });
  }
  const rows = await ctx.db.selectFrom('repository_refs').select(['kind', 'name', 'commit_sha']).where('project_id', '=', project.id).execute();
  const updates: RefUpdate[] = [];
  const indexed = new Set<string>();
  for (const row of rows) {
    const ref = `${row.kind === 'branch' ? 'refs/heads/' : 'refs/tags/'}${row.name}`;
    indexed.add(ref);
    const git = inGit.get(ref);
    // A branch of an empty repository has no commit yet: git has no ref for it either.
    if (!git) {
      if (row.commit_sha) updates.push({ kind: row.kind as RefUpdate['kind'], name: row.name, before: row.commit_sha, after: null });
      continue;
    }
    if (git.commit !== row.commit_sha) updates.push({ kind: row.kind as RefUpdate['kind'], name: row.name, before: row.commit_sha || null, after: git.object });
  }
  for (const [ref, git] of inGit) {
    if (indexed.has(ref)) continue;
    const kind = ref.startsWith('refs/heads/') ? 'branch' : 'tag';
    updates.push({ kind, name: ref.slice(kind === 'branch' ? 'refs/heads/'.length : 'refs/tags/'.length), before: null, after: git.object });
  }
  return updates;
}

/** Brings the index to git's refs; answers how many refs it changed. */
export async function reconcileRefs(ctx: Ctx, project: ProjectRow, options: { imported?: boolean } = {}): Promise<number> {
  const updates = await refDifferences(ctx, project);
  await applyPushedRefUpdates(ctx, project, updates, { imported: options.imported ?? false });
  return updates.length;
}

/**
 * A push's post-receive: its ref updates go into the index; when that fails, a reconcile is
 * queued (durable, retried) before the failure is reported to the pusher.
 */
export async function indexPushedRefs(ctx: Ctx, project: ProjectRow, updates: RefUpdate[], options: { pushOptions?: PushOptions } = {}): Promise<void> {
  try {
    await applyPushedRefUpdates(ctx, project, updates, options);
  } catch (err) {
    await ctx.queue
      .enqueue(ctx.db, RECONCILE_REFS_JOB, { project_id: project.id, user_id: ctx.actor.user?.id ?? null }, { uniqueKey: `reconcile_refs:${project.id}`, maxAttempts: 10 })
      .catch(() => {});
    throw err;
  }
}
