/**
 * What a merge request needs of its approvals: whether it is approved (for `merge_status`,
 * `detailed_merge_status` and merging) and whether a push is still being processed. The
 * approvals domain, which sits above merge requests (its rules are about them), provides it
 * through the wiring (forge.ts), so merge requests never import approvals.
 */
import type { Ctx } from '../../access/context.js';
import { Registry } from '../../kernel/hooks.js';
import type { MergeRequestRow } from './merge-request.table.js';

export interface MergeRequestApprovalStatus {
  approved: boolean;
  /** Approvals reset (by a push, or a new merge request) and not yet synced by the queue: GitLab's temporarily_unapproved?. */
  temporarilyUnapproved: boolean;
}

/** The approval status of a page of merge requests (batched), by merge request id. */
export type ApprovalStatusProvider = (ctx: Ctx, rows: MergeRequestRow[]) => Promise<Map<number, MergeRequestApprovalStatus>>;

const providers = new Registry<'approvals', ApprovalStatusProvider>('merge request approvals');

/** Hands merge requests the approval status of approvals (forge.ts). */
export function registerApprovalStatus(provider: ApprovalStatusProvider): void {
  providers.register('approvals', provider);
}

export function approvalStatusesOf(ctx: Ctx, rows: MergeRequestRow[]): Promise<Map<number, MergeRequestApprovalStatus>> {
  return providers.get('approvals')(ctx, rows);
}

/**
 * Merging needs the approvals (GitLab's `mergeable?` includes `approved?`); the merge
 * endpoint answers 405 otherwise.
 */
export async function approvalsAllowMerge(ctx: Ctx, mr: MergeRequestRow): Promise<boolean> {
  return (await approvalStatusesOf(ctx, [mr])).get(mr.id)!.approved;
}
