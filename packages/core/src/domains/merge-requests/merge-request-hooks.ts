/**
 * What other domains do when a merge request changes, without merge requests naming them
 * (webhooks): opened, updated, closed, reopened, merged, and approved or unapproved (which the
 * approvals domain reports through here). Each domain hands its reaction to the wiring
 * (forge.ts); the reactions run inside the transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { MergeRequestRow } from './merge-request.table.js';

/** GitLab's merge request hook actions (`approval`/`unapproval` when the merge request stays short of, or was not, approved). */
export type MergeRequestAction = 'open' | 'update' | 'close' | 'reopen' | 'merge' | 'approved' | 'unapproved' | 'approval' | 'unapproval';

export interface MergeRequestChange {
  action: MergeRequestAction;
  by: Ctx;
  before: MergeRequestRow | null;
  after: MergeRequestRow;
  /** Label, assignee and reviewer ids before an update. */
  previous?: { labelIds: number[]; assigneeIds: number[]; reviewerIds: number[] };
}

export interface MergeRequestHooks {
  mergeRequestChanged?: (trx: Kysely<Database>, change: MergeRequestChange) => Promise<void>;
}

const registered = new HookList<MergeRequestHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerMergeRequestHooks(hooks: MergeRequestHooks): void {
  registered.register(hooks);
}

export async function runMergeRequestChanged(trx: Kysely<Database>, change: MergeRequestChange): Promise<void> {
  for (const h of registered.all()) if (h.mergeRequestChanged) await h.mergeRequestChanged(trx, change);
}
