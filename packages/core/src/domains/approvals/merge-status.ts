/**
 * What the merge request domain needs of approvals (merge-requests/approval-status.ts): whether
 * merge requests are approved and whether their approvals are syncing. Registered in forge.ts.
 */
import type { ApprovalStatusProvider, MergeRequestApprovalStatus } from '../merge-requests/index.js';
import { approvalStatesOf } from './approval-state.js';

/** Approval status of a page of merge requests (batched). */
export const approvalStatusesOf: ApprovalStatusProvider = async (ctx, rows) => {
  const states = await approvalStatesOf(ctx, rows);
  const out = new Map<number, MergeRequestApprovalStatus>();
  for (const [id, s] of states) out.set(id, { approved: s.approved, temporarilyUnapproved: s.temporarilyUnapproved });
  return out;
};
