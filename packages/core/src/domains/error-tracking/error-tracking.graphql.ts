/**
 * GitLab's GraphQL error tracking (app/graphql/types/error_tracking/*, resolvers/error_tracking/*):
 * `Project.sentryErrors` → `SentryErrorCollection { errors, detailedError(id:),
 * errorStackTrace(id:), externalUrl }`, over the REST extensions
 * (/forgelet/projects/:id/error_tracking/errors…), Reporter and up as there. Forgelet is
 * GitLab's integrated backend: IDs are `gid://gitlab/Gitlab::ErrorTracking::Error/<id>` (list)
 * and `…::DetailedError/<id>` (details), either accepted as input.
 *
 * GitLab has no GraphQL mutation for an error's status (its UI calls
 * `PUT /-/error_tracking/:id`); `forgeletSentryErrorStatusUpdate` is Forgelet's, named so no
 * GitLab name can collide with it, over PUT /forgelet/projects/:id/error_tracking/errors/:id.
 */
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { gql, orNull, parseGlobalId, toGlobalId, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { projectByPath } from '../accounts/index.js';
import { getError, listErrorEvents, listErrors, projectIdOfError, updateError, type ErrorTrackingErrorEntity } from './errors.js';
import { NotFoundError } from '../../kernel/errors.js';
import { ListErrorsInput, UpdateErrorInput } from './error-tracking.schema.js';
import type { StackFrame } from './normalize.js';

const { nn, string, int, boolean, from } = gql;
const ERROR_MODELS = ['Gitlab::ErrorTracking::DetailedError', 'Gitlab::ErrorTracking::Error'];

/** The collection's project (what `Project.sentryErrors` resolves to). */
interface Collection {
  project_id: number;
  project_path: string;
  project_name: string;
  project_web_url: string;
}

type SentryError = ErrorTrackingErrorEntity & { collection: Collection };

const attach = (c: Collection) => (e: ErrorTrackingErrorEntity): SentryError => ({ ...e, collection: c });

/** Fields SentryError and SentryDetailedError share (GitLab's types repeat them). */
function errorFields(g: Parameters<GraphqlModule>[0], model: string) {
  return {
    id: { type: nn(gql.id), description: 'ID (global ID) of the error.', resolve: (e: SentryError) => toGlobalId(model, e.id) },
    sentryId: { type: nn(string), description: 'ID (Sentry ID) of the error.', resolve: (e: SentryError) => String(e.id) },
    title: from(nn(string), 'title', 'Title of the error.'),
    type: { type: nn(string), description: 'Type of the error.', resolve: (e: SentryError) => e.type ?? 'error' },
    message: from(string, 'message', 'Sentry metadata message of the error.'),
    culprit: { type: nn(string), description: 'Culprit of the error.', resolve: (e: SentryError) => e.culprit ?? '' },
    count: from(nn(int), 'count', 'Count of occurrences.'),
    userCount: from(nn(int), 'user_count', 'Count of users affected by the error.'),
    firstSeen: from(nn(g.type('Time')), 'first_seen', 'Timestamp when the error was first seen.'),
    lastSeen: from(nn(g.type('Time')), 'last_seen', 'Timestamp when the error was last seen.'),
    status: { type: nn(g.type('SentryErrorStatus')), description: 'Status of the error.', resolve: (e: SentryError) => e.status.toUpperCase() },
    frequency: {
      type: nn(gql.list(g.object('SentryErrorFrequency'))),
      description: 'Last 24hr stats of the error.',
      resolve: (e: SentryError) => e.frequency.map(([time, count]) => ({ time, count })),
    },
    externalUrl: { type: nn(string), description: 'External URL of the error.', resolve: (e: SentryError) => `${e.collection.project_web_url}/-/error_tracking/${e.id}/details` },
    shortId: { type: nn(string), description: 'Short ID (Sentry ID) of the error.', resolve: (e: SentryError) => String(e.id) },
    sentryProjectId: { type: nn(gql.id), description: 'ID of the project (Sentry project).', resolve: (e: SentryError) => toGlobalId('Project', e.collection.project_id) },
    sentryProjectName: { type: nn(string), description: 'Name of the project affected by the error.', resolve: (e: SentryError) => e.collection.project_name },
    sentryProjectSlug: { type: nn(string), description: 'Slug of the project affected by the error.', resolve: (e: SentryError) => e.collection.project_path },
  };
}

function stackTraceEntries(frames: StackFrame[]) {
  return frames.map((f) => ({
    function: f.function,
    col: f.colno === null ? null : String(f.colno),
    line: f.lineno === null ? null : String(f.lineno),
    fileName: f.filename ?? f.abs_path ?? f.module,
    traceContext: f.context.map(([line, code]) => ({ line, code })),
  }));
}

export const errorTrackingGraphql: GraphqlModule = (g) => {
  g.add(
    new GraphQLEnumType({
      name: 'SentryErrorStatus',
      description: 'State of a Sentry error',
      values: {
        RESOLVED: { value: 'RESOLVED', description: 'Error has been resolved.' },
        RESOLVED_IN_NEXT_RELEASE: { value: 'RESOLVED_IN_NEXT_RELEASE', description: 'Error has been ignored until next release.' },
        UNRESOLVED: { value: 'UNRESOLVED', description: 'Error is unresolved.' },
        IGNORED: { value: 'IGNORED', description: 'Error has been ignored.' },
      },
    }),
  );
  const detailedErrorId = g.globalId('Gitlab::ErrorTracking::DetailedError', { aliases: ['Gitlab::ErrorTracking::Error'] });
  g.add(
    new GraphQLObjectType({
      name: 'SentryErrorFrequency',
      fields: { count: from(nn(int), 'count', 'Count of errors received since the previously recorded time.'), time: from(nn(g.type('Time')), 'time', 'Time the error frequency stats were recorded.') },
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'SentryErrorStackTraceContext',
      description: 'An object context for a Sentry error stack trace',
      fields: { code: from(nn(string), 'code', 'Code number of the context.'), line: from(nn(int), 'line', 'Line number of the context.') },
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'SentryErrorStackTraceEntry',
      description: 'An object containing a stack trace entry for a Sentry error',
      fields: () => ({
        col: from(string, 'col', 'Function in which the Sentry error occurred.'),
        fileName: from(string, 'fileName', 'File in which the Sentry error occurred.'),
        function: from(string, 'function', 'Function in which the Sentry error occurred.'),
        line: from(string, 'line', 'Function in which the Sentry error occurred.'),
        traceContext: from(gql.list(g.object('SentryErrorStackTraceContext')), 'traceContext', 'Context of the Sentry error.'),
      }),
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'SentryErrorStackTrace',
      description: 'An object containing a stack trace entry for a Sentry error',
      fields: () => ({
        dateReceived: from(nn(string), 'dateReceived', 'Time the stack trace was received by Sentry.'),
        issueId: from(nn(string), 'issueId', 'ID of the Sentry error.'),
        stackTraceEntries: from(nn(gql.list(g.object('SentryErrorStackTraceEntry'))), 'stackTraceEntries', 'Stack trace entries for the Sentry error.'),
      }),
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'SentryErrorTags',
      description: 'State of a Sentry error',
      fields: { level: from(string, 'level', 'Severity level of the Sentry Error.'), logger: from(string, 'logger', 'Logger of the Sentry Error.') },
    }),
  );
  g.defineObject('SentryError', { description: 'A Sentry error. A simplified version of SentryDetailedError', fields: () => errorFields(g, 'Gitlab::ErrorTracking::Error') });
  g.defineObject('SentryDetailedError', {
    description: 'A Sentry error',
    fields: () => ({
      ...errorFields(g, 'Gitlab::ErrorTracking::DetailedError'),
      externalBaseUrl: { type: nn(string), description: 'External Base URL of the Sentry Instance.', resolve: (e: SentryError) => e.collection.project_web_url },
      integrated: { type: boolean, description: 'Error tracking backend.', resolve: () => true },
      firstReleaseVersion: from(string, 'first_release', 'Release version the error was first seen.'),
      lastReleaseVersion: from(string, 'last_release', 'Release version the error was last seen.'),
      firstReleaseShortVersion: { type: string, description: 'Release short version the error was first seen.', resolve: (e: SentryError) => e.first_release?.slice(0, 8) ?? null },
      lastReleaseShortVersion: { type: string, description: 'Release short version the error was last seen.', resolve: (e: SentryError) => e.last_release?.slice(0, 8) ?? null },
      gitlabIssuePath: { type: string, description: 'URL of GitLab Issue.', resolve: (e: SentryError) => (e.issue_iid === null ? null : `/${e.collection.project_path}/-/issues/${e.issue_iid}`) },
      tags: { type: nn(g.object('SentryErrorTags')), description: 'Tags associated with the Sentry Error.', resolve: () => ({ level: null, logger: null }) },
    }),
  });
  g.defineObject('SentryErrorCollection', {
    description: 'An object containing a collection of Sentry errors, and a detailed error',
    fields: () => ({
      externalUrl: { type: string, description: 'External URL for Sentry.', resolve: (c: Collection) => `${c.project_web_url}/-/error_tracking` },
      errors: {
        type: g.connection('SentryError'),
        description: 'Collection of Sentry Errors.',
        args: {
          ...connectionArgs,
          searchTerm: { type: string, description: 'Search query for the Sentry error details.' },
          sort: { type: string, description: 'Attribute to sort on. Options are frequency, first_seen, last_seen. last_seen is default.' },
        },
        resolve: (c: Collection, args: ConnectionArgs & { searchTerm?: string | null; sort?: string | null }, ctx: Ctx) => {
          const input = parseParams(ListErrorsInput, { id: String(c.project_id), ...gql.given({ search: args.searchTerm, sort: args.sort }) });
          return visibleConnection(
            resolveConnection(args, async (page) => {
              const answer = await listErrors(ctx, { ...input, ...page });
              return { ...answer, items: answer.items.map(attach(c)) };
            }),
          );
        },
      },
      detailedError: {
        type: g.object('SentryDetailedError'),
        description: 'Detailed version of a Sentry error on the project.',
        args: { id: { type: nn(detailedErrorId), description: 'ID of the Sentry issue.' } },
        resolve: async (c: Collection, args: { id: string }, ctx: Ctx) => {
          const found = await orNull(getError(ctx, { id: String(c.project_id), error_id: parseGlobalId(args.id, ERROR_MODELS) }));
          return found && attach(c)(found);
        },
      },
      errorStackTrace: {
        type: g.object('SentryErrorStackTrace'),
        description: 'Stack Trace of Sentry Error.',
        args: { id: { type: nn(detailedErrorId), description: 'ID of the Sentry issue.' } },
        resolve: async (c: Collection, args: { id: string }, ctx: Ctx) => {
          const errorId = parseGlobalId(args.id, ERROR_MODELS);
          // The latest event's stack trace (GitLab's `latest_event`).
          const page = await orNull(listErrorEvents(ctx, { id: String(c.project_id), error_id: errorId, page: 1, per_page: 1 }));
          const latest = page?.items[0];
          if (!latest) return null;
          return { dateReceived: latest.received_at, issueId: String(errorId), stackTraceEntries: stackTraceEntries(latest.stack_trace) };
        },
      },
    }),
  });
  g.extend('Project', () => ({
    sentryErrors: {
      type: g.object('SentryErrorCollection'),
      description: 'Paginated collection of Sentry errors on the project.',
      resolve: async (project: { id: number; path_with_namespace: string; name: string; web_url: string }, _a: unknown, ctx: Ctx) => {
        // GitLab's `read_sentry_issue` (Reporter and up): whoever the list refuses gets null.
        const allowed = await orNull(listErrors(ctx, { ...parseParams(ListErrorsInput, { id: String(project.id) }), page: 1, per_page: 1 }));
        if (!allowed) return null;
        return { project_id: project.id, project_path: project.path_with_namespace, project_name: project.name, project_web_url: project.web_url } satisfies Collection;
      },
    },
  }));
  g.mutation<{ id: string; status: string }>('forgeletSentryErrorStatusUpdate', {
    description: 'Sets the status of an error (Forgelet: GitLab has this in its web UI only). RESOLVED_IN_NEXT_RELEASE is refused: Forgelet does not track releases for that.',
    input: () => ({
      id: { type: nn(detailedErrorId), description: 'ID of the error.' },
      status: { type: nn(g.input('SentryErrorStatus')), description: 'Status to set.' },
    }),
    payload: () => ({ error: { type: g.object('SentryDetailedError'), description: 'The error after the update.' } }),
    resolve: async (ctx, input) => {
      const errorId = parseGlobalId(input.id, ERROR_MODELS);
      const projectId = await projectIdOfError(ctx, errorId);
      const project = projectId === null ? null : await projectByPath(ctx, String(projectId));
      if (!project) throw new NotFoundError('Error');
      const updated = await updateError(ctx, parseParams(UpdateErrorInput, { id: String(project.id), error_id: errorId, status: input.status.toLowerCase() }));
      return { error: attach({ project_id: project.id, project_path: project.path_with_namespace, project_name: project.name, project_web_url: project.web_url! })(updated) };
    },
  });
};
