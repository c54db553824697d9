/**
 * What other domains do when the repository moves, without the repository naming them: a ref
 * written through the API runs its push pipeline (ci), a merge request's source branch
 * getting a new head resets or keeps its approvals (approvals), a deleted tag takes its release
 * with it (releases), and every ref written or deleted is a push event for the hooks
 * (webhooks). Each domain hands its reaction to the wiring (forge.ts), which registers it here,
 * as ci's pipeline hooks do.
 */
import type { Kysely } from 'kysely';
import { HookList } from '../../kernel/hooks.js';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { Database } from '../../storage/database.js';
import type { PushOptions } from './push-options.js';

/** A ref just written. */
export interface PushedRef {
  kind: 'branch' | 'tag';
  name: string;
  /** The pushed commit's message (or the tag's): `[skip ci]` in it skips the pipeline. */
  message?: string | null;
  /** The ref's head before the push (GitLab's oldrev, a push pipeline's `before_sha`); none for a new ref. */
  before?: string | null;
  /** `git push -o` options (parsed; push-options.ts): `ci.skip`, `ci.variable`, `ci.input` reach the push pipeline. */
  pushOptions?: PushOptions;
}

/**
 * A ref created, moved or deleted, as a git push reports it (oldrev, newrev): every path that
 * writes a branch or a tag (commits, files, branch and tag creation and deletion, merges,
 * releases that create their tag) reports it once, in the transaction that wrote it.
 */
export interface RefUpdate {
  kind: 'branch' | 'tag';
  name: string;
  /** The head before; null when the ref was created. */
  before: string | null;
  /** The head after; null when the ref was deleted. */
  after: string | null;
}

export interface PushHooks {
  /** Inside the transaction that wrote or deleted the ref, after the write (the reaction may read the new state). */
  refUpdated?: (trx: Kysely<Database>, ctx: Ctx, project: ProjectRow, update: RefUpdate) => Promise<void>;
  /** After the transaction that wrote the ref committed (GitLab's post-receive). */
  refPushed?: (ctx: Ctx, project: ProjectRow, pushed: PushedRef) => Promise<void>;
  /** Inside the commit's transaction, after the open merge requests from `branch` took `sha` as their head. */
  mergeRequestHeadsMoved?: (trx: Kysely<Database>, projectId: number, branch: string, sha: string, now: string) => Promise<void>;
}

const registered = new HookList<PushHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerPushHooks(hooks: PushHooks): void {
  registered.register(hooks);
}

export async function runRefPushed(ctx: Ctx, project: ProjectRow, pushed: PushedRef): Promise<void> {
  for (const h of registered.all()) if (h.refPushed) await h.refPushed(ctx, project, pushed);
}

export async function runRefUpdated(trx: Kysely<Database>, ctx: Ctx, project: ProjectRow, update: RefUpdate): Promise<void> {
  for (const h of registered.all()) if (h.refUpdated) await h.refUpdated(trx, ctx, project, update);
}

export async function runMergeRequestHeadsMoved(trx: Kysely<Database>, projectId: number, branch: string, sha: string, now: string): Promise<void> {
  for (const h of registered.all()) if (h.mergeRequestHeadsMoved) await h.mergeRequestHeadsMoved(trx, projectId, branch, sha, now);
}
