/**
 * GitLab's GraphQL `PipelineSchedule` and `PipelineScheduleVariable`
 * (app/graphql/types/ci/pipeline_schedule_type.rb, pipeline_schedule_variable_type.rb) and
 * `Project.pipelineSchedules(status:, ids:)`, over GET …/pipeline_schedules[/:id]: the
 * variables (with their values) only for the callers REST shows them to (the schedule's owner,
 * Maintainers), as GitLab's `read_pipeline_schedule_variables` authorizes them.
 */
import { GraphQLEnumType } from 'graphql';
import { gql, oncePerRequest, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, emptyConnection, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { getPipelineSchedule, listPipelineSchedules } from './pipeline-schedules.js';
import { ListPipelineSchedulesInput } from './pipeline-schedule.schema.js';
import type { PipelineScheduleDetailsEntity, PipelineScheduleEntity } from './pipeline-schedule.entity.js';

const { nn, string, boolean, from } = gql;

type Schedule = PipelineScheduleEntity & { project_id: number; project_path: string };

/** The schedule's details (GET …/pipeline_schedules/:id: last pipeline, variables), once per request. */
function detailsOf(ctx: Ctx, s: Schedule): Promise<PipelineScheduleDetailsEntity | null> {
  return oncePerRequest(ctx, `graphql:schedule:${s.id}`, () => orNull(getPipelineSchedule(ctx, { id: String(s.project_id), pipeline_schedule_id: s.id })));
}

const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');

export const pipelineSchedulesGraphql: GraphqlModule = (g) => {
  g.add(
    new GraphQLEnumType({
      name: 'PipelineScheduleStatus',
      description: 'Values for pipeline schedule status',
      values: { ACTIVE: { value: 'active', description: 'Active pipeline schedules.' }, INACTIVE: { value: 'inactive', description: 'Inactive pipeline schedules.' } },
    }),
  );
  g.add(new GraphQLEnumType({ name: 'CiVariableType', description: 'CI/CD variable type.', values: { ENV_VAR: { value: 'env_var' }, FILE: { value: 'file' } } }));
  g.defineObject('PipelineScheduleVariable', {
    description: 'A variable of a pipeline schedule.',
    fields: () => ({
      key: from(string, 'key', 'Name of the variable.'),
      value: from(string, 'value', 'Value of the variable.'),
      variableType: from(g.type('CiVariableType'), 'variable_type', 'Type of the variable.'),
      raw: from(boolean, 'raw', 'Indicates whether the variable is raw.'),
    }),
  });
  g.defineObject('PipelineSchedule', {
    description: 'Represents a pipeline schedule',
    fields: () => ({
      id: gql.gid('Ci::PipelineSchedule', 'ID of the pipeline schedule.'),
      description: from(string, 'description', 'Description of the pipeline schedule.'),
      owner: from(g.object('UserCore'), 'owner', 'Owner of the pipeline schedule.'),
      active: from(nn(boolean), 'active', 'Indicates if a pipeline schedule is active.'),
      nextRunAt: from(g.type('Time'), 'next_run_at', 'Time when the next pipeline will run.'),
      realNextRun: from(g.type('Time'), 'next_run_at', 'Time when the next pipeline will run.'),
      cron: from(nn(string), 'cron', 'Cron notation for the schedule.'),
      cronTimezone: from(nn(string), 'cron_timezone', 'Timezone for the pipeline schedule.'),
      ref: from(string, 'ref', 'Ref of the pipeline schedule.'),
      refForDisplay: { type: string, description: 'Git ref for the pipeline schedule.', resolve: (s: Schedule) => shortRef(s.ref) },
      refPath: { type: string, description: 'Path to the ref that triggered the pipeline.', resolve: (s: Schedule) => `/${s.project_path}/-/commits/${shortRef(s.ref)}` },
      forTag: { type: nn(boolean), description: 'Indicates if a pipelines schedule belongs to a tag.', resolve: (s: Schedule) => s.ref.startsWith('refs/tags/') },
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of when the pipeline schedule was created.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of when the pipeline schedule was last updated.'),
      lastPipeline: {
        type: g.object('Pipeline'),
        description: 'Last pipeline object.',
        resolve: async (s: Schedule, _a: unknown, ctx: Ctx) => (await detailsOf(ctx, s))?.last_pipeline ?? null,
      },
      variables: {
        type: g.connection('PipelineScheduleVariable'),
        description: 'Pipeline schedule variables.',
        resolve: async (s: Schedule, _a: unknown, ctx: Ctx) => {
          const variables = (await detailsOf(ctx, s))?.variables;
          return variables ? gql.wholeList(variables) : emptyConnection();
        },
      },
    }),
  });
  g.extend('Project', () => ({
    pipelineSchedules: {
      type: g.connection('PipelineSchedule'),
      description: 'Pipeline schedules of the project. This field can only be resolved for one project per request.',
      args: {
        ...connectionArgs,
        status: { type: g.input('PipelineScheduleStatus'), description: 'Filter pipeline schedules by active status.' },
        ids: { type: gql.list(gql.id), description: 'Filter pipeline schedules by IDs.' },
      },
      resolve: async (project: { id: number; path_with_namespace: string }, args: ConnectionArgs & { status?: string | null; ids?: string[] | null }, ctx: Ctx) => {
        const attach = (s: PipelineScheduleEntity | PipelineScheduleDetailsEntity): Schedule => ({ ...s, project_id: project.id, project_path: project.path_with_namespace });
        if (args.ids?.length) {
          // Specific schedules (GitLab's `ids`): each through GET …/pipeline_schedules/:id.
          const ids = args.ids.map((id) => Number(String(id).split('/').pop()));
          const found = await Promise.all(ids.map((id) => orNull(getPipelineSchedule(ctx, { id: String(project.id), pipeline_schedule_id: id }))));
          return gql.wholeList(found.filter((s) => s !== null && (!args.status || (s.active ? 'active' : 'inactive') === args.status)).map((s) => attach(s!)));
        }
        const input = parseParams(ListPipelineSchedulesInput, { id: String(project.id), ...gql.given({ scope: args.status }) });
        return visibleConnection(
          resolveConnection(args, async (page) => {
            const answer = await listPipelineSchedules(ctx, { ...input, ...page });
            return { ...answer, items: answer.items.map(attach) };
          }),
        );
      },
    },
  }));
};
