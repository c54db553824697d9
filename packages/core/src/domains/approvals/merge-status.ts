/**
 * What the merge request domain needs of approvals: whether merge requests are approved
 * (for `detailed_merge_status` and for merging) and whether a push is still being processed.
 */
import type { Ctx } from '../../access/context.js';
import type { MergeRequestRow } from '../merge-requests/index.js';
import { approvalStatesOf, type SyncStatus } from './approval-state.js';

export interface MergeRequestApprovalStatus {
  approved: boolean;
  /** `checking` / `approvals_syncing` until the queue has processed the last push. */
  sync: SyncStatus;
}

/** Approval status of a page of merge requests (batched). */
export async function approvalStatusesOf(ctx: Ctx, rows: MergeRequestRow[]): Promise<Map<number, MergeRequestApprovalStatus>> {
  const states = await approvalStatesOf(ctx, rows);
  const out = new Map<number, MergeRequestApprovalStatus>();
  for (const [id, s] of states) out.set(id, { approved: s.approved, sync: s.sync });
  return out;
}

/**
 * Merging needs the approvals (GitLab's `mergeable?` includes `approved?`); the merge
 * endpoint answers 405 otherwise. A push still being processed does not block it: its
 * approval reset already happened with the commit.
 */
export async function approvalsAllowMerge(ctx: Ctx, mr: MergeRequestRow): Promise<boolean> {
  return (await approvalStatusesOf(ctx, [mr])).get(mr.id)!.approved;
}
