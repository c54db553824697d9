/**
 * GitLab's GraphQL epics (ee/app/graphql/types/epic_type.rb, epic_issue_type.rb):
 * `Group.epics`, `Group.epic(iid:)`, `Epic.parent/children/issues`, over the REST use cases
 * (GET /groups/:id/epics[/:iid], …/epics/:iid/epics, …/epics/:iid/issues), so the tier
 * (Premium; child epics Ultimate) and confidentiality rules are the REST ones.
 */
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { gql, oncePerRequest, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { groupByPath } from '../accounts/index.js';
import { getEpic, getIssueEpic, listEpics } from './epics.js';
import { listChildEpics } from './epic-links.js';
import { listEpicIssues } from './epic-issues.js';
import { ListEpicIssuesInput, ListEpicsInput } from './epic.schema.js';
import type { EpicEntity } from './epic.entity.js';
import type { EpicIssueEntity } from './epic-issue.entity.js';

const { nn, string, int, boolean, from } = gql;

interface EpicArgs extends ConnectionArgs {
  iid?: string | null;
  iids?: string[] | null;
  state?: string | null;
  search?: string | null;
  authorUsername?: string | null;
  labelName?: string[] | null;
  confidential?: boolean | null;
  includeDescendantGroups?: boolean | null;
  includeAncestorGroups?: boolean | null;
}

/** The children of an epic (unpaginated in REST too: an epic has at most 100), once per request. */
function childrenOf(ctx: Ctx, e: EpicEntity): Promise<EpicEntity[]> {
  return oncePerRequest(ctx, `graphql:epic-children:${e.id}`, () => orNull(listChildEpics(ctx, String(e.group_id), e.iid)).then((list) => list ?? []));
}

const issueEpic = (ctx: Ctx, issueId: number) => oncePerRequest(ctx, `graphql:issue-epic:${issueId}`, () => getIssueEpic(ctx, issueId));

export const epicsGraphql: GraphqlModule = (g) => {
  g.add(new GraphQLEnumType({ name: 'EpicState', description: 'State of an epic', values: { all: { value: 'all' }, opened: { value: 'opened' }, closed: { value: 'closed' } } }));
  const epicIssues = (e: EpicEntity, args: ConnectionArgs, ctx: Ctx) => {
    const input = parseParams(ListEpicIssuesInput, { id: String(e.group_id), epic_iid: e.iid });
    return visibleConnection(resolveConnection(args, (page) => listEpicIssues(ctx, { ...input, ...page })));
  };
  g.defineObject('Epic', {
    description: 'Represents an epic',
    fields: () => ({
      id: gql.gid('Epic', 'ID of the epic.'),
      iid: { type: nn(gql.id), description: 'Internal ID of the epic.', resolve: (e: EpicEntity) => String(e.iid) },
      title: from(string, 'title', 'Title of the epic.'),
      description: from(string, 'description', 'Description of the epic.'),
      state: from(nn(g.type('EpicState')), 'state', 'State of the epic.'),
      confidential: from(boolean, 'confidential', 'Indicates if the epic is confidential.'),
      color: from(string, 'color', 'Color of the epic.'),
      createdAt: from(g.type('Time'), 'created_at', 'Timestamp of when the epic was created.'),
      updatedAt: from(g.type('Time'), 'updated_at', 'Timestamp of when the epic was updated.'),
      closedAt: from(g.type('Time'), 'closed_at', 'Timestamp of when the epic was closed.'),
      startDate: from(g.type('Time'), 'start_date', 'Start date of the epic.'),
      startDateIsFixed: from(boolean, 'start_date_is_fixed', 'Indicates if the start date has been manually set.'),
      startDateFixed: from(g.type('Time'), 'start_date_fixed', 'Fixed start date of the epic.'),
      startDateFromInheritedSource: from(g.type('Time'), 'start_date_from_inherited_source', 'Inherited start date of the epic from child epics or milestones.'),
      dueDate: from(g.type('Time'), 'due_date', 'Due date of the epic.'),
      dueDateIsFixed: from(boolean, 'due_date_is_fixed', 'Indicates if the due date has been manually set.'),
      dueDateFixed: from(g.type('Time'), 'due_date_fixed', 'Fixed due date of the epic.'),
      dueDateFromInheritedSource: from(g.type('Time'), 'due_date_from_inherited_source', 'Inherited due date of the epic from child epics or milestones.'),
      upvotes: from(nn(int), 'upvotes', 'Number of upvotes the epic has received.'),
      downvotes: from(nn(int), 'downvotes', 'Number of downvotes the epic has received.'),
      webUrl: from(string, 'web_url', 'Web URL of the epic.'),
      webPath: { type: nn(string), description: 'Web path of the epic.', resolve: (e: EpicEntity) => new URL(e.web_url).pathname },
      reference: {
        type: nn(string),
        description: 'Internal reference of the epic. Returned in shortened format by default.',
        args: { full: { type: boolean, defaultValue: false, description: 'Indicates if the reference should be returned in full.' } },
        resolve: (e: EpicEntity, args: { full: boolean }) => (args.full ? e.references.full : e.references.short),
      },
      author: from(nn(g.object('UserCore')), 'author', 'Author of the epic.'),
      group: { type: nn(g.object('Group')), description: 'Group to which the epic belongs.', resolve: (e: EpicEntity, _a: unknown, ctx: Ctx) => groupByPath(ctx, String(e.group_id)) },
      parent: {
        type: g.object('Epic'),
        description: 'Parent epic of the epic.',
        resolve: (e: EpicEntity, _a: unknown, ctx: Ctx) => {
          if (e.parent_iid === null || !e._links.parent) return null;
          // The parent's group is in its API link (…/groups/<id>/epics/<iid>): it may be another group's epic.
          const m = /\/groups\/(\d+)\/epics\/\d+$/.exec(e._links.parent);
          return m ? orNull(getEpic(ctx, m[1]!, e.parent_iid)) : null;
        },
      },
      hasChildren: { type: nn(boolean), description: 'Indicates if the epic has children.', resolve: async (e: EpicEntity, _a: unknown, ctx: Ctx) => (await childrenOf(ctx, e)).length > 0 },
      children: {
        type: g.connection('Epic'),
        description: 'Children (sub-epics) of the epic.',
        resolve: async (e: EpicEntity, _a: unknown, ctx: Ctx) => gql.wholeList(await childrenOf(ctx, e)),
      },
      hasIssues: {
        type: nn(boolean),
        description: 'Indicates if the epic has direct issues.',
        resolve: async (e: EpicEntity, _a: unknown, ctx: Ctx) => (await epicIssues(e, { first: 1 }, ctx)).nodes.length > 0,
      },
      issues: { type: g.connection('EpicIssue'), description: 'A list of issues associated with the epic.', args: connectionArgs, resolve: epicIssues },
    }),
  });
  // GitLab's EpicIssue: the Issue type's fields plus the association's.
  g.add(
    new GraphQLObjectType({
      name: 'EpicIssue',
      description: 'Relationship between an epic and an issue',
      fields: () => ({
        ...g.object('Issue').toConfig().fields,
        epicIssueId: { type: nn(gql.id), description: 'ID of the epic-issue relation.', resolve: (i: EpicIssueEntity) => `gid://gitlab/EpicIssue/${i.epic_issue_id}` },
        relativePosition: from(int, 'relative_position', 'Relative position of the issue (used for positioning in epic tree and issue boards).'),
      }),
    }),
  );
  const listArgs = {
    ...connectionArgs,
    iid: { type: gql.id, description: 'IID of the epic, e.g., "1".' },
    iids: { type: gql.list(gql.id), description: 'List of IIDs of epics, e.g., `[1, 2]`.' },
    state: { type: g.input('EpicState'), description: 'Filter epics by state.' },
    search: { type: string, description: 'Search query for title or description.' },
    authorUsername: { type: string, description: 'Filter epics by author.' },
    labelName: { type: gql.list(string), description: 'Filter epics by labels.' },
    confidential: { type: boolean, description: 'Filter epics by given confidentiality.' },
    includeDescendantGroups: { type: boolean, defaultValue: true, description: 'Include epics from descendant groups.' },
    includeAncestorGroups: { type: boolean, defaultValue: false, description: 'Include epics from ancestor groups.' },
  };
  g.extend('Issue', () => ({
    epic: { type: g.object('Epic'), description: 'Epic to which the issue belongs.', resolve: (i: { id: number }, _a: unknown, ctx: Ctx) => issueEpic(ctx, i.id) },
    hasEpic: { type: nn(boolean), description: 'Indicates if the issue belongs to an epic.', resolve: async (i: { id: number }, _a: unknown, ctx: Ctx) => (await issueEpic(ctx, i.id)) !== null },
  }));
  g.extend('Group', () => ({
    epics: {
      type: g.connection('Epic'),
      description: 'Find epics.',
      args: listArgs,
      resolve: async (group: { id: number }, args: EpicArgs, ctx: Ctx) => {
        const iids = args.iid ? [args.iid] : args.iids;
        if (iids?.length) {
          // Specific epics: each through GET /groups/:id/epics/:iid (hidden ones drop out).
          const found = await Promise.all(iids.slice(0, 100).map((iid) => orNull(getEpic(ctx, String(group.id), Number(iid)))));
          return gql.wholeList(found.filter((e): e is EpicEntity => e !== null && (!args.state || args.state === 'all' || e.state === args.state)));
        }
        const input = parseParams(ListEpicsInput, {
          id: String(group.id),
          ...gql.given({
            state: args.state,
            search: args.search,
            author_username: args.authorUsername,
            labels: args.labelName?.join(','),
            confidential: args.confidential,
            include_descendant_groups: args.includeDescendantGroups,
            include_ancestor_groups: args.includeAncestorGroups,
          }),
        });
        return visibleConnection(resolveConnection(args, (page) => listEpics(ctx, { ...input, ...page })));
      },
    },
    epic: {
      type: g.object('Epic'),
      description: 'Find a single epic.',
      args: { iid: { type: gql.id, description: 'IID of the epic, e.g., "1".' } },
      resolve: (group: { id: number }, args: { iid?: string | null }, ctx: Ctx) => (args.iid ? orNull(getEpic(ctx, String(group.id), Number(args.iid))) : null),
    },
  }));
};
