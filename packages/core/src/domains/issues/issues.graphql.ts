/**
 * GitLab's GraphQL `Issue` (app/graphql/types/issue_type.rb), `Project.issues/issue` and
 * `Group.issues`, over the REST issue use cases (same filters, same confidentiality rules).
 */
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { gql, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { projectLabelByTitle } from '../labels/index.js';
import { listGroupIssues, listProjectIssues } from './list-issues.js';
import { getIssue } from './get-issue.js';
import { ListGroupIssuesInput, ListProjectIssuesInput } from './issue.schema.js';
import type { IssueEntity } from './issue.entity.js';
import { mayUpdateIssue } from './update-issue.js';
import { can, type ProjectAbility } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';

const { nn, string, int, boolean, from } = gql;

interface IssueArgs extends ConnectionArgs {
  iid?: string | null;
  iids?: string[] | null;
  state?: string | null;
  labelName?: string[] | null;
  milestoneTitle?: string[] | null;
  search?: string | null;
  authorUsername?: string | null;
  assigneeUsernames?: string[] | null;
  confidential?: boolean | null;
  types?: string[] | null;
  includeSubgroups?: boolean | null;
}

function filters(args: IssueArgs): Record<string, unknown> {
  const iids = args.iid ? [Number(args.iid)] : args.iids?.map(Number);
  return gql.given({
    iids,
    state: args.state === 'locked' ? undefined : args.state,
    labels: args.labelName?.join(','),
    milestone: args.milestoneTitle?.[0],
    search: args.search,
    author_username: args.authorUsername,
    assignee_username: args.assigneeUsernames,
    confidential: args.confidential,
    issue_type: args.types?.[0]?.toLowerCase(),
  });
}

export function issueWebPath(issue: { web_url: string }): string {
  return new URL(issue.web_url).pathname;
}

export const issuesGraphql: GraphqlModule = (g) => {
  g.add(
    new GraphQLEnumType({
      name: 'IssueState',
      description: 'State of a GitLab issue',
      values: { opened: { value: 'opened' }, closed: { value: 'closed' }, locked: { value: 'locked' }, all: { value: 'all' } },
    }),
  );
  g.add(
    new GraphQLEnumType({
      name: 'IssueType',
      description: 'Issue type',
      values: { ISSUE: { value: 'ISSUE', description: 'Issue issue type' }, INCIDENT: { value: 'INCIDENT', description: 'Incident issue type' }, TEST_CASE: { value: 'TEST_CASE', description: 'Test Case issue type' }, TASK: { value: 'TASK', description: 'Task issue type' } },
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'TaskCompletionStatus',
      description: 'Completion status of tasks',
      fields: { count: from(nn(int), 'count', 'Number of total tasks.'), completedCount: from(nn(int), 'completed_count', 'Number of completed tasks.') },
    }),
  );
  const project = (ctx: Ctx, issue: IssueEntity) => findProject(ctx, String(issue.project_id));
  const onProject = (ability: ProjectAbility) => async (issue: IssueEntity, ctx: Ctx) => can(ctx, ability, { kind: 'project', project: await project(ctx, issue) });
  const mayUpdate = (issue: IssueEntity, ctx: Ctx) => mayUpdateIssue(ctx, String(issue.project_id), issue.iid);
  g.defineObject('IssuePermissions', {
    description: 'Check permissions for the current user on a issue',
    fields: () =>
      gql.permissionFields<IssueEntity>({
        readIssue: ['If `true`, the user can perform `read_issue` on this resource', onProject('read_issue')],
        adminIssue: ['If `true`, the user can perform `admin_issue` on this resource', onProject('admin_issue')],
        updateIssue: ['If `true`, the user can perform `update_issue` on this resource', mayUpdate],
        reopenIssue: ['If `true`, the user can perform `reopen_issue` on this resource', mayUpdate],
        createNote: ['If `true`, the user can perform `create_note` on this resource', onProject('create_note')],
        adminIssueRelation: ['If `true`, the user can perform `admin_issue_relation` on this resource', onProject('admin_issue_relation')],
      }),
  });
  g.defineObject('Issue', {
    description: 'An issue.',
    fields: () => ({
      id: gql.gid('Issue', 'ID of the issue.'),
      iid: { type: nn(string), description: 'Internal ID of the issue.', resolve: (i: IssueEntity) => String(i.iid) },
      title: from(nn(string), 'title', 'Title of the issue.'),
      description: from(string, 'description', 'Description of the issue.'),
      state: from(nn(g.type('IssueState')), 'state', 'State of the issue.'),
      type: from(g.type('IssueType'), 'type', 'Type of the issue.'),
      confidential: from(nn(boolean), 'confidential', 'Indicates the issue is confidential.'),
      discussionLocked: from(nn(boolean), 'discussion_locked', 'Indicates discussion is locked on the issue.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of when the issue was created.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of when the issue was last updated.'),
      closedAt: from(g.type('Time'), 'closed_at', 'Timestamp of when the issue was closed.'),
      dueDate: from(g.type('Time'), 'due_date', 'Due date of the issue.'),
      webUrl: from(nn(string), 'web_url', 'Web URL of the issue.'),
      webPath: { type: nn(string), description: 'Web path of the issue.', resolve: issueWebPath },
      reference: {
        type: nn(string),
        description: 'Internal reference of the issue. Returned in shortened format by default.',
        args: { full: { type: boolean, defaultValue: false, description: 'Boolean option specifying whether the reference should be returned in full.' } },
        resolve: (i: IssueEntity, args: { full: boolean }) => (args.full ? i.references.full : i.references.short),
      },
      projectId: from(nn(int), 'project_id', 'ID of the issue project.'),
      author: from(nn(g.object('UserCore')), 'author', 'User that created the issue.'),
      assignees: { type: g.connection('UserCore'), description: 'Assignees of the issue.', resolve: (i: IssueEntity) => gql.wholeList(i.assignees) },
      labels: {
        type: g.connection('Label'),
        description: 'Labels of the issue.',
        resolve: async (i: IssueEntity, _args: unknown, ctx: Ctx) => gql.wholeList((await Promise.all(i.labels.map((t) => projectLabelByTitle(ctx, i.project_id, t)))).filter((l) => l !== null)),
      },
      milestone: from(g.object('Milestone'), 'milestone', 'Milestone of the issue.'),
      userNotesCount: from(nn(int), 'user_notes_count', 'Number of user notes of the issue.'),
      mergeRequestsCount: from(nn(int), 'merge_requests_count', 'Number of merge requests that close the issue on merge.'),
      upvotes: from(nn(int), 'upvotes', 'Number of upvotes the issue has received.'),
      downvotes: from(nn(int), 'downvotes', 'Number of downvotes the issue has received.'),
      weight: from(int, 'weight', 'Weight of the issue.'),
      severity: from(string, 'severity', 'Severity level of the incident.'),
      subscribed: from(nn(boolean), 'subscribed', 'Indicates the currently logged in user is subscribed to the issue.'),
      timeEstimate: { type: nn(int), description: 'Time estimate of the issue.', resolve: (i: IssueEntity) => i.time_stats.time_estimate },
      totalTimeSpent: { type: nn(int), description: 'Total time (in seconds) reported as spent on the issue.', resolve: (i: IssueEntity) => i.time_stats.total_time_spent },
      humanTimeEstimate: { type: string, description: 'Human-readable time estimate of the issue.', resolve: (i: IssueEntity) => i.time_stats.human_time_estimate },
      humanTotalTimeSpent: { type: string, description: 'Human-readable total time reported as spent on the issue.', resolve: (i: IssueEntity) => i.time_stats.human_total_time_spent },
      taskCompletionStatus: from(nn(g.object('TaskCompletionStatus')), 'task_completion_status', 'Task completion status of the issue.'),
      userPermissions: { type: nn(g.object('IssuePermissions')), description: 'Permissions for the current user on the resource.', resolve: (issue: IssueEntity) => issue },
    }),
  });
  const listArgs = {
    ...connectionArgs,
    iid: { type: string, description: 'IID of the issue. For example, "1".' },
    iids: { type: gql.list(string), description: 'List of IIDs of issues. For example, `["1", "2"]`.' },
    state: { type: g.input('IssueState'), description: 'Current state of the issue.' },
    labelName: { type: gql.list(string), description: 'Labels applied to the issue.' },
    milestoneTitle: { type: gql.list(string), description: 'Milestone applied to the issue.' },
    search: { type: string, description: 'Search query for title or description.' },
    authorUsername: { type: string, description: 'Username of the author of the issue.' },
    assigneeUsernames: { type: gql.list(string), description: 'Usernames of users assigned to the issue.' },
    confidential: { type: boolean, description: 'Filter for confidential issues.' },
    types: { type: gql.list(g.input('IssueType')), description: 'Filter issues by the given issue types.' },
  };
  g.extend('Project', () => ({
    issues: {
      type: g.connection('Issue'),
      description: 'Issues of the project.',
      args: listArgs,
      resolve: (project: { id: number }, args: IssueArgs, ctx: Ctx) => {
        const input = parseParams(ListProjectIssuesInput, { id: String(project.id), ...filters(args) });
        return resolveConnection(args, (page) => listProjectIssues(ctx, { ...input, ...page }));
      },
    },
    issue: {
      type: g.object('Issue'),
      description: 'A single issue of the project.',
      args: { iid: { type: string, description: 'IID of the issue. For example, "1".' } },
      resolve: (project: { id: number }, args: { iid?: string | null }, ctx: Ctx) => (args.iid ? orNull(getIssue(ctx, String(project.id), Number(args.iid))) : null),
    },
  }));
  g.extend('Group', () => ({
    issues: {
      type: g.connection('Issue'),
      description: 'Issues for projects in this group.',
      args: { ...listArgs, includeSubgroups: { type: boolean, defaultValue: false, description: 'Include issues belonging to subgroups.' } },
      resolve: (group: { id: number }, args: IssueArgs, ctx: Ctx) => {
        const input = parseParams(ListGroupIssuesInput, { id: String(group.id), ...filters(args) });
        return resolveConnection(args, (page) => listGroupIssues(ctx, { ...input, ...page }));
      },
    },
  }));
};
