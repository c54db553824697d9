/** GitLab's GraphQL `Milestone` (app/graphql/types/milestone_type.rb), `Project.milestones` and `Group.milestones`, over the milestone use cases. */
import { GraphQLEnumType } from 'graphql';
import { gql, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { listGroupMilestones, listProjectMilestones } from './list-milestones.js';
import { ListGroupMilestonesInput, ListProjectMilestonesInput } from './milestone.schema.js';
import type { MilestoneEntity } from './milestone.entity.js';

const { nn, string, boolean, from } = gql;

type MilestoneArgs = ConnectionArgs & { state?: string | null; title?: string | null; searchTitle?: string | null; iids?: string[] | null; includeAncestors?: boolean | null; includeDescendants?: boolean | null };

function filters(args: MilestoneArgs): Record<string, unknown> {
  return gql.given({ state: args.state, title: args.title, search_title: args.searchTitle, iids: args.iids?.map(Number), include_ancestors: args.includeAncestors });
}

export const milestonesGraphql: GraphqlModule = (g) => {
  g.add(new GraphQLEnumType({ name: 'MilestoneStateEnum', description: 'Current state of milestone', values: { active: { value: 'active', description: 'Milestone is currently active.' }, closed: { value: 'closed', description: 'Milestone is closed.' } } }));
  g.defineObject('Milestone', {
    description: 'Represents a milestone',
    fields: () => ({
      id: gql.gid('Milestone', 'ID of the milestone.'),
      iid: { type: nn(gql.id), description: 'Internal ID of the milestone.', resolve: (m: MilestoneEntity) => String(m.iid) },
      title: from(nn(string), 'title', 'Title of the milestone.'),
      description: from(string, 'description', 'Description of the milestone.'),
      state: from(nn(g.type('MilestoneStateEnum')), 'state', 'State of the milestone.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of milestone creation.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of last milestone update.'),
      dueDate: from(g.type('Time'), 'due_date', 'Timestamp of the milestone due date.'),
      startDate: from(g.type('Time'), 'start_date', 'Timestamp of the milestone start date.'),
      expired: from(nn(boolean), 'expired', 'Expired state of the milestone (a milestone is expired when the due date is past the current date).'),
      webPath: { type: nn(string), description: 'Web path of the milestone.', resolve: (m: MilestoneEntity) => new URL(m.web_url).pathname },
      projectMilestone: { type: nn(boolean), description: 'Indicates if milestone is at project level.', resolve: (m: MilestoneEntity) => m.project_id !== undefined },
      groupMilestone: { type: nn(boolean), description: 'Indicates if milestone is at group level.', resolve: (m: MilestoneEntity) => m.group_id !== undefined },
    }),
  });
  const listArgs = {
    ...connectionArgs,
    state: { type: g.input('MilestoneStateEnum'), description: 'Filter milestones by state.' },
    title: { type: string, description: 'Title of the milestone.' },
    searchTitle: { type: string, description: 'Search string for the title.' },
    iids: { type: gql.list(string), description: 'Array of IIDs of milestones to return.' },
    includeAncestors: { type: boolean, description: 'Also return milestones in the ancestor groups.' },
  };
  g.extend('Project', () => ({
    milestones: {
      type: g.connection('Milestone'),
      description: 'Milestones of the project.',
      args: listArgs,
      resolve: (project: { id: number }, args: MilestoneArgs, ctx: Ctx) => {
        const input = parseParams(ListProjectMilestonesInput, { id: String(project.id), ...filters(args) });
        return resolveConnection(args, (page) => listProjectMilestones(ctx, { ...input, ...page }));
      },
    },
  }));
  g.extend('Group', () => ({
    milestones: {
      type: g.connection('Milestone'),
      description: 'Milestones of the group.',
      args: { ...listArgs, includeDescendants: { type: boolean, description: 'Include milestones from all subgroups and subprojects.' } },
      resolve: (group: { id: number }, args: MilestoneArgs, ctx: Ctx) => {
        const input = parseParams(ListGroupMilestonesInput, { id: String(group.id), ...filters(args), ...gql.given({ include_descendants: args.includeDescendants }) });
        return resolveConnection(args, (page) => listGroupMilestones(ctx, { ...input, ...page }));
      },
    },
  }));
};
