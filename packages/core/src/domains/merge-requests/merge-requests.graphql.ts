/**
 * GitLab's GraphQL `MergeRequest` (app/graphql/types/merge_request_type.rb),
 * `Project.mergeRequests/mergeRequest` and `Group.mergeRequests`, over the REST use cases.
 * The approval fields (`approved`, `approvalsRequired`, ...) are added by the approvals domain.
 */
import { GraphQLEnumType } from 'graphql';
import { gql, oncePerRequest, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { listMergeRequestPipelines } from './merge-request-pipelines.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { projectLabelByTitle } from '../labels/index.js';
import { listGroupMergeRequests, listProjectMergeRequests } from './list-merge-requests.js';
import { getMergeRequest } from './get-merge-request.js';
import { ListGroupMergeRequestsInput, ListProjectMergeRequestsInput } from './merge-request.schema.js';
import type { MergeRequestDetailEntity, MergeRequestEntity } from './merge-request.entity.js';
import { mayUpdateMergeRequest } from './update-merge-request.js';
import { can, type ProjectAbility } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';

/** GET …/merge_requests/:iid's answer for a merge request of a list, once per request. */
function fullMergeRequest(ctx: Ctx, mr: MergeRequestEntity): Promise<MergeRequestDetailEntity> {
  if ('user' in mr) return Promise.resolve(mr as MergeRequestDetailEntity);
  return oncePerRequest(ctx, `graphql:mr:${mr.id}`, () => getMergeRequest(ctx, { id: String(mr.project_id), merge_request_iid: mr.iid }));
}

const { nn, string, int, boolean, from } = gql;

interface MergeRequestArgs extends ConnectionArgs {
  iids?: string[] | null;
  state?: string | null;
  labels?: string[] | null;
  milestoneTitle?: string | null;
  sourceBranches?: string[] | null;
  targetBranches?: string[] | null;
  authorUsername?: string | null;
  reviewerUsername?: string | null;
  draft?: boolean | null;
  search?: string | null;
}

function filters(args: MergeRequestArgs): Record<string, unknown> {
  return gql.given({
    state: args.state === 'locked' ? undefined : args.state,
    labels: args.labels?.join(','),
    milestone: args.milestoneTitle,
    source_branch: args.sourceBranches?.[0],
    target_branch: args.targetBranches?.[0],
    author_username: args.authorUsername,
    reviewer_username: args.reviewerUsername,
    draft: args.draft,
    search: args.search,
  });
}

const upper = (key: string) => (mr: Record<string, unknown>) => (typeof mr[key] === 'string' ? (mr[key] as string).toUpperCase() : null);

export const mergeRequestsGraphql: GraphqlModule = (g) => {
  const values = (names: string[]) => Object.fromEntries(names.map((n) => [n, { value: n }]));
  g.add(new GraphQLEnumType({ name: 'MergeRequestState', description: 'State of a GitLab merge request', values: values(['opened', 'closed', 'locked', 'all', 'merged']) }));
  g.add(new GraphQLEnumType({ name: 'MergeStatus', description: 'Representation of whether a GitLab merge request can be merged.', values: values(['UNCHECKED', 'CHECKING', 'CAN_BE_MERGED', 'CANNOT_BE_MERGED', 'CANNOT_BE_MERGED_RECHECK']) }));
  g.add(
    new GraphQLEnumType({
      name: 'DetailedMergeStatus',
      description: 'Detailed representation of whether a GitLab merge request can be merged.',
      values: values(['UNCHECKED', 'CHECKING', 'MERGEABLE', 'COMMITS_STATUS', 'CI_MUST_PASS', 'CI_STILL_RUNNING', 'DISCUSSIONS_NOT_RESOLVED', 'DRAFT_STATUS', 'NOT_OPEN', 'NOT_APPROVED', 'BLOCKED_STATUS', 'EXTERNAL_STATUS_CHECKS', 'PREPARING', 'JIRA_ASSOCIATION', 'CONFLICT', 'NEED_REBASE', 'APPROVALS_SYNCING', 'LOCKED_PATHS', 'LOCKED_LFS_FILES', 'REQUESTED_CHANGES', 'SECURITY_POLICY_VIOLATIONS', 'MERGE_TIME', 'TITLE_REGEX']),
    }),
  );
  const onProject = (ability: ProjectAbility) => async (mr: MergeRequestEntity, ctx: Ctx) => can(ctx, ability, { kind: 'project', project: await findProject(ctx, String(mr.project_id)) });
  const mayUpdate = (mr: MergeRequestEntity, ctx: Ctx) => mayUpdateMergeRequest(ctx, String(mr.project_id), mr.iid);
  g.defineObject('MergeRequestPermissions', {
    description: 'Check permissions for the current user on a merge request',
    fields: () =>
      gql.permissionFields<MergeRequestEntity>({
        readMergeRequest: ['If `true`, the user can perform `read_merge_request` on this resource', onProject('read_merge_request')],
        adminMergeRequest: ['If `true`, the user can perform `admin_merge_request` on this resource', onProject('update_merge_request')],
        updateMergeRequest: ['If `true`, the user can perform `update_merge_request` on this resource', mayUpdate],
        createNote: ['If `true`, the user can perform `create_note` on this resource', onProject('create_note')],
        canMerge: [
          'Indicates the user can perform `can_merge` on this resource.',
          // GET …/merge_requests/:iid's `user.can_merge` (the merge rules with the target branch's protection).
          async (mr, ctx) => (await fullMergeRequest(ctx, mr)).user.can_merge,
        ],
      }),
  });
  g.defineObject('MergeRequest', {
    description: 'A merge request.',
    fields: () => ({
      id: gql.gid('MergeRequest', 'ID of the merge request.'),
      iid: { type: nn(string), description: 'Internal ID of the merge request.', resolve: (mr: MergeRequestEntity) => String(mr.iid) },
      title: from(nn(string), 'title', 'Title of the merge request.'),
      description: from(string, 'description', 'Description of the merge request (Markdown rendered as HTML for caching).'),
      state: from(nn(g.type('MergeRequestState')), 'state', 'State of the merge request.'),
      draft: from(nn(boolean), 'draft', 'Indicates if the merge request is a draft.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of when the merge request was created.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of when the merge request was last updated.'),
      mergedAt: from(g.type('Time'), 'merged_at', 'Timestamp of when the merge request was merged, null if not merged.'),
      closedAt: from(g.type('Time'), 'closed_at', 'Timestamp of when the merge request was closed, null if not closed.'),
      sourceBranch: from(nn(string), 'source_branch', 'Source branch of the merge request.'),
      targetBranch: from(nn(string), 'target_branch', 'Target branch of the merge request.'),
      sourceProjectId: from(int, 'source_project_id', 'ID of the merge request source project.'),
      targetProjectId: from(nn(int), 'target_project_id', 'ID of the merge request target project.'),
      projectId: from(nn(int), 'project_id', 'ID of the merge request project.'),
      webUrl: from(string, 'web_url', 'Web URL of the merge request.'),
      webPath: { type: nn(string), description: 'Web path of the merge request.', resolve: (mr: MergeRequestEntity) => new URL(mr.web_url).pathname },
      reference: {
        type: nn(string),
        description: 'Internal reference of the merge request. Returned in shortened format by default.',
        args: { full: { type: boolean, defaultValue: false, description: 'Boolean option specifying whether the reference should be returned in full.' } },
        resolve: (mr: MergeRequestEntity, args: { full: boolean }) => (args.full ? mr.references.full : mr.references.short),
      },
      author: from(g.object('UserCore'), 'author', 'User who created this merge request.'),
      mergeUser: from(g.object('UserCore'), 'merge_user', 'User who merged this merge request or set it to auto-merge.'),
      assignees: { type: g.connection('UserCore'), description: 'Assignees of the merge request.', resolve: (mr: MergeRequestEntity) => gql.wholeList(mr.assignees) },
      reviewers: { type: g.connection('UserCore'), description: 'Users from whom a review has been requested.', resolve: (mr: MergeRequestEntity) => gql.wholeList(mr.reviewers) },
      labels: {
        type: g.connection('Label'),
        description: 'Labels of the merge request.',
        resolve: async (mr: MergeRequestEntity, _args: unknown, ctx: Ctx) => gql.wholeList((await Promise.all(mr.labels.map((t) => projectLabelByTitle(ctx, mr.project_id, t)))).filter((l) => l !== null)),
      },
      milestone: from(g.object('Milestone'), 'milestone', 'Milestone of the merge request.'),
      userNotesCount: from(int, 'user_notes_count', 'User notes count of the merge request.'),
      upvotes: from(nn(int), 'upvotes', 'Number of upvotes for the merge request.'),
      downvotes: from(nn(int), 'downvotes', 'Number of downvotes for the merge request.'),
      diffHeadSha: from(string, 'sha', 'Diff head SHA of the merge request.'),
      mergeCommitSha: from(string, 'merge_commit_sha', 'SHA of the merge request commit (set once merged).'),
      squashCommitSha: from(string, 'squash_commit_sha', 'SHA of the squash commit (set once merged).'),
      squash: from(nn(boolean), 'squash', 'Indicates if the merge request is set to be squashed when merged.'),
      squashOnMerge: from(nn(boolean), 'squash_on_merge', 'Indicates if the merge request will be squashed when merged.'),
      shouldRemoveSourceBranch: from(boolean, 'should_remove_source_branch', 'Indicates if the source branch of the merge request will be deleted after merge.'),
      forceRemoveSourceBranch: from(boolean, 'force_remove_source_branch', 'Indicates if the project settings will lead to source branch deletion after merge.'),
      discussionLocked: from(nn(boolean), 'discussion_locked', 'Indicates if comments on the merge request are locked to members only.'),
      conflicts: from(nn(boolean), 'has_conflicts', 'Indicates if the merge request has conflicts.'),
      mergeWhenPipelineSucceeds: from(boolean, 'merge_when_pipeline_succeeds', 'Indicates if the merge has been set to auto-merge.'),
      mergeStatusEnum: { type: g.type('MergeStatus'), description: 'Merge status of the merge request.', resolve: upper('merge_status') },
      detailedMergeStatus: { type: g.type('DetailedMergeStatus'), description: 'Detailed merge status of the merge request.', resolve: upper('detailed_merge_status') },
      timeEstimate: { type: nn(int), description: 'Time estimate of the merge request.', resolve: (mr: MergeRequestEntity) => mr.time_stats.time_estimate },
      totalTimeSpent: { type: nn(int), description: 'Total time (in seconds) reported as spent on the merge request.', resolve: (mr: MergeRequestEntity) => mr.time_stats.total_time_spent },
      taskCompletionStatus: from(nn(g.object('TaskCompletionStatus')), 'task_completion_status', 'Completion status of tasks.'),
      userPermissions: { type: nn(g.object('MergeRequestPermissions')), description: 'Permissions for the current user on the resource.', resolve: (mr: MergeRequestEntity) => mr },
    }),
  });
  const listArgs = {
    ...connectionArgs,
    iids: { type: gql.list(string), description: 'Array of IIDs of merge requests, for example `[1, 2]`.' },
    state: { type: g.input('MergeRequestState'), description: 'Merge request state. If provided, all resolved merge requests will have the state.' },
    labels: { type: gql.list(string), description: 'Array of label names. All resolved merge requests will have all of these labels.' },
    milestoneTitle: { type: string, description: 'Title of the milestone.' },
    sourceBranches: { type: gql.list(string), description: 'Array of source branch names.' },
    targetBranches: { type: gql.list(string), description: 'Array of target branch names.' },
    authorUsername: { type: string, description: 'Username of the author.' },
    reviewerUsername: { type: string, description: 'Username of the reviewer.' },
    draft: { type: boolean, description: 'Limit result to draft merge requests.' },
    search: { type: string, description: 'Search query for title or description.' },
  };
  // GitLab's MergeRequestPipelinesResolver (PipelinesForMergeRequestFinder), as REST's …/pipelines.
  g.extend('MergeRequest', () => ({
    pipelines: {
      type: g.connection('Pipeline'),
      description: 'Pipelines for the merge request.',
      args: { ...connectionArgs, status: { type: g.input('PipelineStatusEnum'), description: 'Filter pipelines by their status.' } },
      resolve: (mr: MergeRequestEntity, args: ConnectionArgs & { status?: string | null }, ctx: Ctx) =>
        visibleConnection(resolveConnection(args, (page) => listMergeRequestPipelines(ctx, { id: String(mr.project_id), merge_request_iid: mr.iid, ...page, ...gql.given({ status: args.status }) }))),
    },
  }));
  g.extend('Project', () => ({
    mergeRequests: {
      type: g.connection('MergeRequest'),
      description: 'Merge requests of the project.',
      args: listArgs,
      resolve: (project: { id: number }, args: MergeRequestArgs, ctx: Ctx) => {
        const input = parseParams(ListProjectMergeRequestsInput, { id: String(project.id), ...filters(args), ...gql.given({ iids: args.iids?.map(Number) }) });
        return resolveConnection(args, (page) => listProjectMergeRequests(ctx, { ...input, ...page }));
      },
    },
    mergeRequest: {
      type: g.object('MergeRequest'),
      description: 'A single merge request of the project.',
      args: { iid: { type: nn(string), description: 'IID of the merge request, for example `1`.' } },
      resolve: (project: { id: number }, args: { iid: string }, ctx: Ctx) => orNull(getMergeRequest(ctx, { id: String(project.id), merge_request_iid: Number(args.iid) })),
    },
  }));
  g.extend('Group', () => ({
    mergeRequests: {
      type: g.connection('MergeRequest'),
      description: 'Merge requests for projects in this group.',
      args: { ...listArgs, includeSubgroups: { type: boolean, defaultValue: false, description: 'Include merge requests belonging to subgroups.' } },
      resolve: (group: { id: number }, args: MergeRequestArgs, ctx: Ctx) => {
        const input = parseParams(ListGroupMergeRequestsInput, { id: String(group.id), ...filters(args) });
        return resolveConnection(args, (page) => listGroupMergeRequests(ctx, { ...input, ...page }));
      },
    },
  }));
};
