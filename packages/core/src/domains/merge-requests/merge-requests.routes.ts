import { p, params } from '../../kernel/params.js';
import { listMergeRequestPipelines } from './merge-request-pipelines.js';
import { accepted, created, noContent, ok, paged, route, text } from '../../kernel/route.js';
import { rebaseMergeRequest } from './rebase-merge-request.js';
import { listCommitMergeRequests } from './commit-merge-requests.js';
import { ListStateEventsInput } from '../state-events/index.js';
import { getMergeRequestStateEvent, listMergeRequestStateEvents } from './merge-request-state-events.js';
import { createMergeRequest } from './create-merge-request.js';
import { deleteMergeRequest, getMergeRequest } from './get-merge-request.js';
import { listGroupMergeRequests, listMergeRequests, listProjectMergeRequests } from './list-merge-requests.js';
import { mergeMergeRequest } from './merge-merge-request.js';
import { MilestoneIssuablesInput } from '../milestones/index.js';
import { listMergeRequestsOfMilestone } from './milestone-merge-requests.js';
import {
  CommitMergeRequestsInput,
  CreateMergeRequestInput,
  GetMergeRequestInput,
  RebaseMergeRequestInput,
  ListGroupMergeRequestsInput,
  ListMergeRequestsInput,
  ListProjectMergeRequestsInput,
  MergeMergeRequestInput,
  MergeRequestChangesInput,
  MergeRequestDiffsInput,
  MergeRequestPageInput,
  MergeRequestRefInput,
  MergeRequestVersionInput,
  UpdateMergeRequestInput,
} from './merge-request.schema.js';
import { getMergeRequestChanges, getVersion, listMergeRequestCommits, listMergeRequestDiffs, listVersions, rawMergeRequestDiffs } from './merge-request-versions.js';
import { updateMergeRequest } from './update-merge-request.js';

const tag = 'merge_requests';


export const mergeRequestsRoutes = [
  route('GET', '/merge_requests', { auth: 'optional', params: ListMergeRequestsInput, tag, summary: "List the caller's merge requests" },
    async (ctx, input) => paged(await listMergeRequests(ctx, input))),
  route('GET', '/groups/:id/merge_requests', { auth: 'optional', params: ListGroupMergeRequestsInput, tag, summary: "List merge requests of a group's projects" },
    async (ctx, input) => paged(await listGroupMergeRequests(ctx, input))),
  route('GET', '/projects/:id/merge_requests', { auth: 'optional', params: ListProjectMergeRequestsInput, tag, summary: 'List project merge requests' },
    async (ctx, input) => paged(await listProjectMergeRequests(ctx, input))),
  route('POST', '/projects/:id/merge_requests', { auth: 'required', params: CreateMergeRequestInput, tag, summary: 'Create a merge request' },
    async (ctx, input) => created(await createMergeRequest(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid', { auth: 'optional', params: GetMergeRequestInput, tag, summary: 'Get a merge request' },
    async (ctx, input) => ok(await getMergeRequest(ctx, input))),
  route('PUT', '/projects/:id/merge_requests/:merge_request_iid', { auth: 'required', params: UpdateMergeRequestInput, tag, summary: 'Update, close or reopen a merge request' },
    async (ctx, input) => ok(await updateMergeRequest(ctx, input))),
  route('DELETE', '/projects/:id/merge_requests/:merge_request_iid', { auth: 'required', params: MergeRequestRefInput, tag, summary: 'Delete a merge request' },
    async (ctx, input) => {
      await deleteMergeRequest(ctx, input);
      return noContent();
    }),
  route('PUT', '/projects/:id/merge_requests/:merge_request_iid/merge', { auth: 'required', params: MergeMergeRequestInput, tag, summary: 'Merge a merge request' },
    async (ctx, input) => ok(await mergeMergeRequest(ctx, input))),
  route('PUT', '/projects/:id/merge_requests/:merge_request_iid/rebase', { auth: 'required', params: RebaseMergeRequestInput, tag, summary: 'Rebase the source branch of a merge request onto its target (queued)' },
    async (ctx, input) => accepted(await rebaseMergeRequest(ctx, input))),
  route('GET', '/projects/:id/repository/commits/:sha/merge_requests', { auth: 'optional', jobToken: true, params: CommitMergeRequestsInput, tag: 'commits', summary: 'Merge requests associated with a commit' },
    async (ctx, input) => paged(await listCommitMergeRequests(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/versions', { auth: 'optional', params: MergeRequestPageInput, tag, summary: 'List the diff versions of a merge request' },
    async (ctx, input) => paged(await listVersions(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/versions/:version_id', { auth: 'optional', params: MergeRequestVersionInput, tag, summary: 'Get a diff version of a merge request, with its commits and diffs' },
    async (ctx, input) => ok(await getVersion(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/changes', { auth: 'optional', params: MergeRequestChangesInput, tag, summary: 'Get a merge request with its changes (deprecated in GitLab)' },
    async (ctx, input) => ok(await getMergeRequestChanges(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/diffs', { auth: 'optional', params: MergeRequestDiffsInput, tag, summary: 'List the diffs of a merge request' },
    async (ctx, input) => paged(await listMergeRequestDiffs(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/raw_diffs', { auth: 'optional', params: MergeRequestRefInput, tag, summary: 'Get the diff of a merge request as plain text' },
    async (ctx, input) => text(await rawMergeRequestDiffs(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/pipelines', { auth: 'optional', params: MergeRequestPageInput, tag, summary: "List a merge request's pipelines (its source branch's at its recent diff heads)" },
    async (ctx, input) => paged(await listMergeRequestPipelines(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/commits', { auth: 'optional', params: MergeRequestPageInput, tag, summary: 'List the commits of a merge request' },
    async (ctx, input) => paged(await listMergeRequestCommits(ctx, input))),
  route('GET', '/groups/:id/milestones/:milestone_id/merge_requests', { auth: 'optional', params: MilestoneIssuablesInput, tag: 'milestones', summary: 'Merge requests of a group milestone' },
    async (ctx, input) => paged(await listMergeRequestsOfMilestone(ctx, 'groups', input))),
  route('GET', '/projects/:id/milestones/:milestone_id/merge_requests', { auth: 'optional', params: MilestoneIssuablesInput, tag: 'milestones', summary: 'Merge requests of a project milestone' },
    async (ctx, input) => paged(await listMergeRequestsOfMilestone(ctx, 'projects', input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/resource_state_events',
    { auth: 'required', params: params({ id: p.string(), merge_request_iid: p.integer(), ...ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of a merge request' },
    async (ctx, input) => paged(await listMergeRequestStateEvents(ctx, input.id, input.merge_request_iid, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/resource_state_events/:resource_state_event_id',
    { auth: 'required', params: params({ id: p.string(), merge_request_iid: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of a merge request' },
    async (ctx, input) => ok(await getMergeRequestStateEvent(ctx, input.id, input.merge_request_iid, input.resource_state_event_id))),
];
