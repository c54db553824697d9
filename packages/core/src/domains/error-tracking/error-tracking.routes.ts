import { created, ok, paged, route, type Route } from '../../kernel/route.js';
import { p, params } from '../../kernel/params.js';
import { collect } from './collector.js';
import {
  ClientKeyRefInput,
  CollectorInput,
  ErrorFrequencyInput,
  ErrorRefInput,
  ListClientKeysInput,
  ListErrorEventsInput,
  ListErrorsInput,
  ListSessionsInput,
  PatchSettingsInput,
  ProjectRefInput,
  PutSettingsInput,
  UpdateErrorInput,
} from './error-tracking.schema.js';
import { getErrorFrequency } from './error-frequency.js';
import { createIssueForError, getError, listErrorEvents, listErrors, listSessions, updateError } from './errors.js';
import {
  createClientKey,
  deleteClientKey,
  getErrorTrackingSettings,
  listClientKeys,
  patchErrorTrackingSettings,
  putErrorTrackingSettings,
} from './settings.js';

const tag = 'error_tracking';

/** gitbeaker's ErrorTrackingClientKeys.remove sends the key id in the body of `DELETE …/client_keys`. */
const DeleteKeyByBodyInput = params({ id: p.string(), key_id: p.integer() });

export const errorTrackingRoutes: Route[] = [
  // Settings and client keys (GitLab REST, Maintainer).
  route('GET', '/projects/:id/error_tracking/settings', { auth: 'required', params: ProjectRefInput, tag, summary: 'Get the error tracking settings of a project' },
    async (ctx, input) => ok(await getErrorTrackingSettings(ctx, input))),
  route('PATCH', '/projects/:id/error_tracking/settings', { auth: 'required', params: PatchSettingsInput, tag, summary: 'Enable or disable error tracking (the setting must exist)' },
    async (ctx, input) => ok(await patchErrorTrackingSettings(ctx, input))),
  route('PUT', '/projects/:id/error_tracking/settings', { auth: 'required', params: PutSettingsInput, tag, summary: 'Create or update the error tracking settings (integrated backend)' },
    async (ctx, input) => ok(await putErrorTrackingSettings(ctx, input))),
  route('GET', '/projects/:id/error_tracking/client_keys', { auth: 'required', params: ListClientKeysInput, tag, summary: 'List client keys (DSNs)' },
    async (ctx, input) => paged(await listClientKeys(ctx, input))),
  route('POST', '/projects/:id/error_tracking/client_keys', { auth: 'required', params: ProjectRefInput, tag, summary: 'Create a client key (DSN)' },
    async (ctx, input) => created(await createClientKey(ctx, input))),
  route('DELETE', '/projects/:id/error_tracking/client_keys/:key_id', { auth: 'required', params: ClientKeyRefInput, tag, summary: 'Delete a client key: the collector refuses it at once' },
    async (ctx, input) => ok(await deleteClientKey(ctx, input))),
  route('DELETE', '/projects/:id/error_tracking/client_keys', { auth: 'required', params: DeleteKeyByBodyInput, tag, summary: 'Delete a client key named by `key_id` in the body (what gitbeaker sends)' },
    async (ctx, input) => ok(await deleteClientKey(ctx, input))),

  // The Sentry collector (no user: the DSN's public key authorises; trailing slashes are allowed by the router).
  route('POST', '/error_tracking/collector/api/:id/store', { auth: 'none', rawBody: true, params: CollectorInput, tag, summary: 'Sentry store endpoint: one JSON event' },
    async (ctx, input, req) => collect(ctx, 'store', input, req)),
  route('POST', '/error_tracking/collector/api/:id/envelope', { auth: 'none', rawBody: true, params: CollectorInput, tag, summary: 'Sentry envelope endpoint: events, sessions (other items are dropped)' },
    async (ctx, input, req) => collect(ctx, 'envelope', input, req)),

  // Reading and triage (Forgelet extensions; GitLab has these in GraphQL only). Reporter and up.
  route('GET', '/forgelet/projects/:id/error_tracking/errors', { auth: 'required', params: ListErrorsInput, tag, summary: 'List grouped errors (sort last_seen, first_seen or frequency; search; status)' },
    async (ctx, input) => paged(await listErrors(ctx, input))),
  route('GET', '/forgelet/projects/:id/error_tracking/errors/:error_id', { auth: 'required', params: ErrorRefInput, tag, summary: 'Get one error with its 24-hour frequency and latest stack trace' },
    async (ctx, input) => ok(await getError(ctx, input))),
  route('GET', '/forgelet/projects/:id/error_tracking/errors/:error_id/frequency', { auth: 'required', params: ErrorFrequencyInput, tag, summary: 'Events of an error per hour over 24 hours or per day over 30 days (period)' },
    async (ctx, input) => ok(await getErrorFrequency(ctx, input))),
  route('GET', '/forgelet/projects/:id/error_tracking/errors/:error_id/events', { auth: 'required', params: ListErrorEventsInput, tag, summary: 'List the events of an error (newest first)' },
    async (ctx, input) => paged(await listErrorEvents(ctx, input))),
  route('PUT', '/forgelet/projects/:id/error_tracking/errors/:error_id', { auth: 'required', params: UpdateErrorInput, tag, summary: 'Set the status of an error: unresolved, resolved or ignored' },
    async (ctx, input) => ok(await updateError(ctx, input))),
  route('POST', '/forgelet/projects/:id/error_tracking/errors/:error_id/issue', { auth: 'required', params: ErrorRefInput, tag, summary: 'Create an issue from an error (its description holds the stack trace)' },
    async (ctx, input) => created(await createIssueForError(ctx, input))),
  route('GET', '/forgelet/projects/:id/error_tracking/sessions', { auth: 'required', params: ListSessionsInput, tag, summary: 'Sessions per release and environment (release health)' },
    async (ctx, input) => paged(await listSessions(ctx, input))),
];
