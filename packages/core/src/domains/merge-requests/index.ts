import type { Route } from '../../kernel/route.js';
import { mergeRequestsRoutes as routes } from './merge-requests.routes.js';

/** Routes of this domain. */
export const mergeRequestsRoutes: Route[] = routes;

export { findMergeRequest, mergeRequestNoteable } from './find-merge-request.js';
export { createMergeRequest } from './create-merge-request.js';
export { getMergeRequest, deleteMergeRequest } from './get-merge-request.js';
export { updateMergeRequest, mayUpdateMergeRequest } from './update-merge-request.js';
export { mergeMergeRequest } from './merge-merge-request.js';
export { listMergeRequestStateEvents, getMergeRequestStateEvent } from './merge-request-state-events.js';
export { listMergeRequestsOfMilestone } from './milestone-merge-requests.js';
export { listMergeRequests, listGroupMergeRequests, listProjectMergeRequests, listMilestoneMergeRequests } from './list-merge-requests.js';
export type { MergeRequestEntity, MergeRequestDetailEntity, MergeRequestReferences } from './merge-request.entity.js';
export type {
  CreateMergeRequestInput,
  UpdateMergeRequestInput,
  MergeMergeRequestInput,
  MergeRequestRefInput,
  ListMergeRequestsInput,
  ListProjectMergeRequestsInput,
  ListGroupMergeRequestsInput,
  MergeRequestPageInput,
  MergeRequestVersionInput,
  MergeRequestChangesInput,
  MergeRequestDiffsInput,
  GetMergeRequestInput,
  RebaseMergeRequestInput,
  CommitMergeRequestsInput,
} from './merge-request.schema.js';
export type { MergeRequestVersionEntity, MergeRequestVersionDetailEntity, MergeRequestChangesEntity } from './merge-request-versions.js';
export type { MergeRequestRow } from './merge-request.table.js';
export { mergeRequestPipelineHooks } from './merge-request-metrics.js';
/** For the wiring: approvals provides the approval status (merge_status, merging). */
export { registerApprovalStatus, type ApprovalStatusProvider, type MergeRequestApprovalStatus } from './approval-status.js';
// for other domains
export { recordProductionDeployment } from './merge-request-metrics.js';
export { presentMergeRequests, detailedMergeStatusesOf } from './present-merge-requests.js';
/** For the wiring and approvals: reactions to merge request changes (webhooks). */
export {
  registerMergeRequestHooks,
  runMergeRequestChanged,
  type MergeRequestHooks,
  type MergeRequestChange,
  type MergeRequestAction,
} from './merge-request-hooks.js';
export { selectMergeRequestUserIds } from './merge-request.queries.js';
export { publicMergeStatus, mergeRequestPushHooks, registerMergeRequestJobs } from './merge-request-diffs.js';
/** GraphQL: MergeRequest, Project.mergeRequests/mergeRequest, Group.mergeRequests. */
export { mergeRequestsGraphql } from './merge-requests.graphql.js';
/** For git-http: `git push -o merge_request.*`. */
export { applyMergeRequestPushOptions, openMergeRequestIids, type PushedBranch } from './push-options.js';
/** A push that brings an open merge request's head into its target merges it (GitLab's post_merge_manually_merged). */
export { manualMergePushHooks } from './manually-merged.js';
