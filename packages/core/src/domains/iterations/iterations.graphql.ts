/**
 * GitLab's GraphQL iterations (ee/app/graphql/types/iteration_type.rb, iterations/cadence_type.rb):
 * `Group.iterations`, `Group.iterationCadences`, and the cadence mutations GitLab has
 * (`iterationCadenceCreate`, `iterationCadenceUpdate`, `iterationCadenceDestroy`), over the
 * use cases that also serve the REST aliases under /api/v4/forgelet/groups/:id/iteration_cadences.
 */
import { GraphQLEnumType } from 'graphql';
import { gql, parseGlobalId, RESOURCE_NOT_AVAILABLE, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import { NotFoundError } from '../../kernel/errors.js';
import type { Ctx } from '../../access/context.js';
import { getGroup } from '../accounts/index.js';
import { listGroupIterations } from './list-group-iterations.js';
import { createIterationCadence, deleteIterationCadence, getIterationCadence, listIterationCadences, selectCadenceGroupId, updateIterationCadence } from './iteration-cadences.js';
import { CreateIterationCadenceInput, ListGroupIterationsInput, ListIterationCadencesInput, UpdateIterationCadenceInput } from './iteration.schema.js';
import type { IterationEntity } from './iteration.entity.js';

const { nn, string, int, boolean, from } = gql;
const CADENCE = 'Iterations::Cadence';
const STATE_NAMES: Record<number, string> = { 1: 'upcoming', 2: 'current', 3: 'closed' };

interface CadenceInput {
  title?: string | null;
  description?: string | null;
  startDate?: string | null;
  durationInWeeks?: number | null;
  iterationsInAdvance?: number | null;
  automatic?: boolean | null;
  active?: boolean | null;
  rollOver?: boolean | null;
}

const cadenceParams = (i: CadenceInput) =>
  gql.given({ title: i.title, description: i.description, start_date: i.startDate, duration_in_weeks: i.durationInWeeks, iterations_in_advance: i.iterationsInAdvance, automatic: i.automatic, active: i.active, roll_over: i.rollOver });

/** The group (as a REST ref) of the cadence a Global ID names; GitLab's message when there is none. */
async function cadenceGroup(ctx: Ctx, gid: string): Promise<{ group: string; cadence: number }> {
  const cadence = parseGlobalId(gid, [CADENCE]);
  const groupId = await selectCadenceGroupId(ctx.db, cadence);
  if (groupId === null) throw new NotFoundError(null, { exact: RESOURCE_NOT_AVAILABLE });
  return { group: String(groupId), cadence };
}

export const iterationsGraphql: GraphqlModule = (g) => {
  const cadenceId = g.globalId(CADENCE);
  g.add(
    new GraphQLEnumType({
      name: 'IterationState',
      description: 'State of a GitLab iteration',
      values: Object.fromEntries(['upcoming', 'started', 'current', 'opened', 'closed', 'all'].map((v) => [v, { value: v }])),
    }),
  );
  g.defineObject('IterationCadence', {
    description: 'Represents an iteration cadence',
    fields: () => ({
      id: gql.gid(CADENCE, 'Global ID of the iteration cadence.'),
      title: from(nn(string), 'title', 'Title of the iteration cadence.'),
      description: from(string, 'description', 'Description of the iteration cadence. Maximum length is 5000 characters.'),
      startDate: from(g.type('Time'), 'start_date', 'Timestamp of the automation start date.'),
      durationInWeeks: from(int, 'duration_in_weeks', 'Duration in weeks of the iterations within this cadence.'),
      iterationsInAdvance: from(int, 'iterations_in_advance', 'Upcoming iterations to be created when iteration cadence is set to automatic.'),
      automatic: from(nn(boolean), 'automatic', 'Whether the iteration cadence should automatically generate upcoming iterations.'),
      active: from(nn(boolean), 'active', 'Whether the iteration cadence is active.'),
      rollOver: from(nn(boolean), 'roll_over', 'Whether the iteration cadence should roll over issues to the next iteration or not.'),
    }),
  });
  g.defineObject('Iteration', {
    description: 'Represents an iteration object',
    fields: () => ({
      id: gql.gid('Iteration', 'ID of the iteration.'),
      iid: { type: nn(gql.id), description: 'Internal ID of the iteration.', resolve: (i: IterationEntity) => String(i.iid) },
      sequence: from(nn(int), 'sequence', 'Sequence number for the iteration when you sort the containing cadence\'s iterations by the start and end date. The earliest starting and ending iteration is assigned 1.'),
      title: from(string, 'title', 'Title of the iteration.'),
      description: from(string, 'description', 'Description of the iteration.'),
      state: { type: nn(g.type('IterationState')), description: 'State of the iteration.', resolve: (i: IterationEntity) => STATE_NAMES[i.state] },
      startDate: from(g.type('Time'), 'start_date', 'Timestamp of the iteration start date.'),
      dueDate: from(g.type('Time'), 'due_date', 'Timestamp of the iteration due date.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of iteration creation.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of last iteration update.'),
      webUrl: from(nn(string), 'web_url', 'Web URL of the iteration.'),
      webPath: { type: nn(string), description: 'Web path of the iteration.', resolve: (i: IterationEntity) => new URL(i.web_url).pathname },
    }),
  });
  g.extend('Group', () => ({
    iterations: {
      type: g.connection('Iteration'),
      description: 'Find iterations.',
      args: {
        ...connectionArgs,
        state: { type: g.input('IterationState'), description: 'Filter iterations by state.' },
        search: { type: string, description: 'Query used for fuzzy-searching in the fields selected in the argument `in`.' },
        includeAncestors: { type: boolean, description: 'Whether to include ancestor iterations. Defaults to true.' },
        includeDescendants: { type: boolean, description: 'Whether to include descendant iterations.' },
      },
      resolve: (group: { id: number }, args: ConnectionArgs & { state?: string | null; search?: string | null; includeAncestors?: boolean | null; includeDescendants?: boolean | null }, ctx: Ctx) => {
        const input = parseParams(ListGroupIterationsInput, gql.given({ id: String(group.id), state: args.state, search: args.search, include_ancestors: args.includeAncestors, include_descendants: args.includeDescendants }));
        return resolveConnection(args, (page) => listGroupIterations(ctx, { ...input, ...page }));
      },
    },
    iterationCadences: {
      type: g.connection('IterationCadence'),
      description: 'Find iteration cadences.',
      args: { ...connectionArgs, id: { type: cadenceId, description: 'Global ID of the iteration cadence to look up.' } },
      resolve: async (group: { id: number }, args: ConnectionArgs & { id?: string | null }, ctx: Ctx) => {
        if (args.id) {
          const one = await getIterationCadence(ctx, { id: String(group.id), cadence_id: parseGlobalId(args.id, [CADENCE]) }).catch(() => null);
          return gql.wholeList(one ? [one] : []);
        }
        const input = parseParams(ListIterationCadencesInput, { id: String(group.id) });
        return resolveConnection(args, (page) => listIterationCadences(ctx, { ...input, ...page }));
      },
    },
  }));
  const cadenceInput = () => ({
    title: { type: string, description: 'Title of the iteration cadence.' },
    description: { type: string, description: 'Description of the iteration cadence. Maximum length is 5000 characters.' },
    startDate: { type: g.input('Time'), description: 'Timestamp of the automation start date.' },
    durationInWeeks: { type: int, description: 'Duration in weeks of the iterations within this cadence.' },
    iterationsInAdvance: { type: int, description: 'Upcoming iterations to be created when iteration cadence is set to automatic.' },
    rollOver: { type: boolean, description: 'Whether the iteration cadence should roll over issues to the next iteration or not.' },
  });
  g.mutation<CadenceInput & { groupPath: string; automatic: boolean; active: boolean }>('iterationCadenceCreate', {
    description: 'Creates an iteration cadence.',
    input: () => ({
      groupPath: { type: nn(gql.id), description: 'Group where the iteration cadence is created.' },
      ...cadenceInput(),
      automatic: { type: nn(boolean), description: 'Whether the iteration cadence should automatically generate upcoming iterations.' },
      active: { type: nn(boolean), description: 'Whether the iteration cadence is active.' },
    }),
    payload: () => ({ iterationCadence: { type: g.object('IterationCadence'), description: 'Created iteration cadence.' } }),
    resolve: async (ctx, input) => {
      const params = parseParams(CreateIterationCadenceInput, { id: input.groupPath, ...cadenceParams(input) });
      return { iterationCadence: await createIterationCadence(ctx, params) };
    },
  });
  g.mutation<CadenceInput & { id: string }>('iterationCadenceUpdate', {
    description: 'Updates an iteration cadence.',
    input: () => ({ id: { type: nn(cadenceId), description: 'Global ID of the iteration cadence.' }, ...cadenceInput(), automatic: { type: boolean, description: 'Whether the iteration cadence should automatically generate upcoming iterations.' }, active: { type: boolean, description: 'Whether the iteration cadence is active.' } }),
    payload: () => ({ iterationCadence: { type: g.object('IterationCadence'), description: 'Updated iteration cadence.' } }),
    resolve: async (ctx, input) => {
      const { group, cadence } = await cadenceGroup(ctx, input.id);
      const params = parseParams(UpdateIterationCadenceInput, { id: group, cadence_id: cadence, ...cadenceParams(input) });
      return { iterationCadence: await updateIterationCadence(ctx, params) };
    },
  });
  g.mutation<{ id: string }>('iterationCadenceDestroy', {
    description: 'Destroys an iteration cadence.',
    input: () => ({ id: { type: nn(cadenceId), description: 'Global ID of the iteration cadence.' } }),
    payload: () => ({ group: { type: nn(g.object('Group')), description: 'Group the iteration cadence belongs to.' } }),
    resolve: async (ctx, input) => {
      const { group, cadence } = await cadenceGroup(ctx, input.id);
      await deleteIterationCadence(ctx, { id: group, cadence_id: cadence });
      return { group: await getGroup(ctx, group) };
    },
  });
};
