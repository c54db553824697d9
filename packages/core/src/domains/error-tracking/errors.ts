/**
 * Reading and triaging grouped errors: Forgelet's REST extensions under
 * `/forgelet/projects/:id/error_tracking` (GitLab shows these in GraphQL only). Reporter and
 * up. Every read first writes what the ingest buffer holds, so it sees every accepted event.
 */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ConflictError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, requireUser, type ProjectAbility } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findProject } from '../../access/lookup.js';
import { createIssue, type IssueEntity } from '../issues/index.js';
import type { ErrorRefInput, ErrorStatus, ListErrorEventsInput, ListErrorsInput, ListSessionsInput, UpdateErrorInput } from './error-tracking.schema.js';
import type { ErrorTrackingErrorRow, ErrorTrackingEventRow } from './error-tracking.table.js';
import { stackFramesOf, type EventUser, type StackFrame } from './normalize.js';

/** One grouped error. `frequency`: 24 `[hour start, events]` pairs, oldest first, ending with the current hour. */
export interface ErrorTrackingErrorEntity {
  id: number;
  fingerprint: string;
  title: string;
  type: string | null;
  message: string | null;
  culprit: string | null;
  platform: string | null;
  status: ErrorStatus;
  count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
  first_release: string | null;
  last_release: string | null;
  frequency: [string, number][];
  stack_trace: StackFrame[];
  issue_iid: number | null;
}

export interface ErrorTrackingEventEntity {
  id: number;
  event_id: string;
  error_id: number;
  timestamp: string;
  received_at: string;
  level: string | null;
  environment: string | null;
  release: string | null;
  platform: string | null;
  message: string | null;
  user: EventUser | null;
  stack_trace: StackFrame[];
  /** The event as the SDK sent it (heavy optional parts dropped for very large events). */
  payload: unknown;
}

export interface ErrorTrackingSessionEntity {
  release: string | null;
  environment: string | null;
  /** Sessions seen (for request-mode SDKs: the ended sessions they counted). */
  sessions: number;
  exited: number;
  errored: number;
  crashed: number;
  abnormal: number;
  /** Share of sessions that did not crash, 0 to 1 (4 decimals); null without sessions. */
  crash_free_rate: number | null;
  first_seen: string;
  last_seen: string;
}

const HOUR_MS = 3600_000;

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The 24 hour starts ending with the current hour (injected clock). */
export function frequencyHours(now: Date): string[] {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: 24 }, (_, i) => new Date(current - (23 - i) * HOUR_MS).toISOString());
}

async function presentErrors(ctx: Ctx, rows: ErrorTrackingErrorRow[]): Promise<ErrorTrackingErrorEntity[]> {
  if (!rows.length) return [];
  const hours = frequencyHours(ctx.clock.now());
  const ids = rows.map((r) => r.id);
  const counts = await ctx.db
    .selectFrom('error_tracking_error_frequency')
    .select(['error_id', 'hour_start', 'count'])
    .where('error_id', 'in', ids)
    .where('hour_start', '>=', hours[0]!)
    .where('hour_start', '<=', hours[23]!)
    .execute();
  const byError = new Map<number, Map<string, number>>();
  for (const c of counts) {
    let m = byError.get(c.error_id);
    if (!m) byError.set(c.error_id, (m = new Map()));
    m.set(c.hour_start, Number(c.count));
  }
  const stacks = await latestStacks(ctx, ids);
  const issueIds = rows.map((r) => r.issue_id).filter((id): id is number => id !== null);
  const issues = issueIds.length ? await ctx.db.selectFrom('issues').select(['id', 'iid']).where('id', 'in', issueIds).execute() : [];
  const iidOf = new Map(issues.map((i) => [i.id, i.iid]));
  return rows.map((r) => ({
    id: r.id,
    fingerprint: r.fingerprint,
    title: r.title,
    type: r.type,
    message: r.message,
    culprit: r.culprit,
    platform: r.platform,
    status: r.status as ErrorStatus,
    count: Number(r.event_count),
    user_count: Number(r.user_count),
    first_seen: r.first_seen_at,
    last_seen: r.last_seen_at,
    first_release: r.first_release,
    last_release: r.last_release,
    frequency: hours.map((h) => [h, byError.get(r.id)?.get(h) ?? 0] as [string, number]),
    stack_trace: stacks.get(r.id) ?? [],
    issue_iid: r.issue_id !== null ? (iidOf.get(r.issue_id) ?? null) : null,
  }));
}

/** An event's stack trace: the column when its payload lost parts (PAYLOAD_CAP), else from the payload. */
function stackOfEvent(row: Pick<ErrorTrackingEventRow, 'stack_trace'>, payload: unknown): StackFrame[] {
  return row.stack_trace !== null ? parseJson<StackFrame[]>(row.stack_trace, []) : stackFramesOf(payload);
}

/**
 * Each error's latest stack trace: its newest event's (the first of its events list: latest
 * `occurred_at`, then the last written), read with the index the list uses. Derived when read,
 * so ingest writes nothing for it (the newest event outlives its error: retention removes
 * both at the same age).
 */
async function latestStacks(ctx: Ctx, errorIds: number[]): Promise<Map<number, StackFrame[]>> {
  const rows = await ctx.db
    .selectFrom('error_tracking_error_events')
    .select(['error_id', 'stack_trace', 'payload'])
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('error_tracking_errors as r')
        .select((inner) =>
          inner
            .selectFrom('error_tracking_error_events as x')
            .select('x.id')
            .whereRef('x.error_id', '=', 'r.id')
            .orderBy('x.occurred_at', 'desc')
            .orderBy('x.id', 'desc')
            .limit(1)
            .as('newest'),
        )
        .where('r.id', 'in', errorIds),
    )
    .execute();
  return new Map(rows.map((r) => [r.error_id, stackOfEvent(r, r.stack_trace === null ? parseJson<unknown>(r.payload, null) : null)]));
}

function presentEvent(row: ErrorTrackingEventRow): ErrorTrackingEventEntity {
  const payload = parseJson<unknown>(row.payload, null);
  return {
    id: row.id,
    event_id: row.event_id,
    error_id: row.error_id,
    timestamp: row.occurred_at,
    received_at: row.received_at,
    level: row.level,
    environment: row.environment,
    release: row.release,
    platform: row.platform,
    message: row.message,
    user: parseJson<EventUser | null>(row.user, null),
    stack_trace: stackOfEvent(row, payload),
    payload,
  };
}

/** The project for the ability. */
export async function projectFor(ctx: Ctx, ref: string, ability: ProjectAbility): Promise<ProjectRow> {
  requireUser(ctx);
  const project = await findProject(ctx, ref);
  await authorize(ctx, ability, { kind: 'project', project });
  return project;
}

export async function findError(ctx: Ctx, project: ProjectRow, errorId: number): Promise<ErrorTrackingErrorRow> {
  const row = await ctx.db.selectFrom('error_tracking_errors').selectAll().where('id', '=', errorId).where('project_id', '=', project.id).executeTakeFirst();
  if (!row) throw new NotFoundError('Error');
  return row;
}

const likePattern = (search: string) => `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** GET /forgelet/projects/:id/error_tracking/errors */
export async function listErrors(ctx: Ctx, input: ListErrorsInput): Promise<Page<ErrorTrackingErrorEntity>> {
  const project = await projectFor(ctx, input.id, 'read_sentry_issue');
  let query = ctx.db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', project.id);
  if (input.status) query = query.where('status', '=', input.status);
  if (input.search !== undefined && input.search.trim() !== '') {
    const pattern = likePattern(input.search.trim());
    query = query.where((eb) =>
      eb.or(
        (['title', 'message', 'culprit'] as const).map((col) => eb(sql`lower(coalesce(${sql.ref(col)}, ''))`, 'like', sql`${pattern} escape '\\'`)),
      ),
    );
  }
  if (input.sort === 'frequency') query = query.orderBy('event_count', 'desc').orderBy('id', 'desc');
  else if (input.sort === 'first_seen') query = query.orderBy('first_seen_at', 'desc').orderBy('id', 'desc');
  else query = query.orderBy('last_seen_at', 'desc').orderBy('id', 'desc');
  return paginate(ctx.db, query, input, (rows) => presentErrors(ctx, rows));
}

/** GET /forgelet/projects/:id/error_tracking/errors/:error_id */
export async function getError(ctx: Ctx, input: ErrorRefInput): Promise<ErrorTrackingErrorEntity> {
  const project = await projectFor(ctx, input.id, 'read_sentry_issue');
  const [entity] = await presentErrors(ctx, [await findError(ctx, project, input.error_id)]);
  return entity!;
}

/** GET /forgelet/projects/:id/error_tracking/errors/:error_id/events (newest first). */
export async function listErrorEvents(ctx: Ctx, input: ListErrorEventsInput): Promise<Page<ErrorTrackingEventEntity>> {
  const project = await projectFor(ctx, input.id, 'read_sentry_issue');
  const error = await findError(ctx, project, input.error_id);
  const query = ctx.db
    .selectFrom('error_tracking_error_events')
    .selectAll()
    .where('error_id', '=', error.id)
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc');
  return paginate(ctx.db, query, input, (rows) => rows.map(presentEvent));
}

/** The project of an error (GraphQL names errors by Global ID alone); the use cases then apply the project's policy. */
export async function projectIdOfError(ctx: Ctx, errorId: number): Promise<number | null> {
  const row = await ctx.db.selectFrom('error_tracking_errors').select('project_id').where('id', '=', errorId).executeTakeFirst();
  return row?.project_id ?? null;
}

/** PUT /forgelet/projects/:id/error_tracking/errors/:error_id: `status` unresolved, resolved or ignored. */
export async function updateError(ctx: Ctx, input: UpdateErrorInput): Promise<ErrorTrackingErrorEntity> {
  const project = await projectFor(ctx, input.id, 'update_sentry_issue');
  const error = await findError(ctx, project, input.error_id);
  const row =
    error.status === input.status
      ? error
      : await ctx.db
          .updateTable('error_tracking_errors')
          .set({ status: input.status, updated_at: nowIso(ctx) })
          .where('id', '=', error.id)
          .returningAll()
          .executeTakeFirstOrThrow();
  const [entity] = await presentErrors(ctx, [row]);
  return entity!;
}

function frameLine(f: StackFrame): string {
  const where = f.filename ?? f.abs_path ?? f.module ?? '?';
  const pos = f.lineno !== null ? `:${f.lineno}${f.colno !== null ? `:${f.colno}` : ''}` : '';
  return `  at ${f.function ?? '<anonymous>'} (${where}${pos})`;
}

/** The stack trace as text, most recent call last (Sentry's frame order). */
export function formatStackTrace(title: string, frames: StackFrame[]): string {
  const lines = [title];
  for (const f of frames) {
    lines.push(frameLine(f));
    const source = f.context.find(([n]) => n === f.lineno)?.[1];
    if (source !== undefined && source.trim() !== '' && f.in_app !== false) lines.push(`      ${source.trim()}`);
  }
  return lines.join('\n');
}

function issueDescription(ctx: Ctx, project: ProjectRow, error: ErrorTrackingErrorRow, frames: StackFrame[]): string {
  const link = ctx.urls.api(`/forgelet/projects/${project.id}/error_tracking/errors/${error.id}`);
  const seen = (at: string, release: string | null) => (release ? `${at} (release \`${release}\`)` : at);
  const trace = formatStackTrace(error.title, frames).replace(/```/g, '`\u200b``');
  return [
    `**Error:** [${error.title.replace(/([[\]])/g, '\\$1')}](${link})`,
    '',
    `- **Error ID:** ${error.id}`,
    `- **Fingerprint:** \`${error.fingerprint}\``,
    error.culprit ? `- **Culprit:** \`${error.culprit.replace(/`/g, "'")}\`` : null,
    `- **Events:** ${error.event_count}`,
    `- **Users:** ${error.user_count}`,
    `- **First seen:** ${seen(error.first_seen_at, error.first_release)}`,
    `- **Last seen:** ${seen(error.last_seen_at, error.last_release)}`,
    '',
    '### Stack trace',
    '',
    '```',
    trace,
    '```',
  ]
    .filter((l) => l !== null)
    .join('\n');
}

/**
 * POST /forgelet/projects/:id/error_tracking/errors/:error_id/issue: an issue whose
 * description holds the latest stack trace and links back to the error (issues' own create
 * use case, so its rules apply). One issue per error: a second call answers 409 while the
 * first issue exists.
 */
export async function createIssueForError(ctx: Ctx, input: ErrorRefInput): Promise<IssueEntity> {
  const project = await projectFor(ctx, input.id, 'update_sentry_issue');
  const error = await findError(ctx, project, input.error_id);
  if (error.issue_id !== null) {
    const existing = await ctx.db.selectFrom('issues').select('iid').where('id', '=', error.issue_id).executeTakeFirst();
    if (existing) throw new ConflictError(`An issue already exists for this error: #${existing.iid}`);
  }
  const frames = (await latestStacks(ctx, [error.id])).get(error.id) ?? [];
  const issue = await createIssue(ctx, { id: String(project.id), title: error.title.slice(0, 255), description: issueDescription(ctx, project, error, frames) });
  await ctx.db.updateTable('error_tracking_errors').set({ issue_id: issue.id, updated_at: nowIso(ctx) }).where('id', '=', error.id).execute();
  return issue;
}

interface SessionSums {
  release: string;
  environment: string;
  sessions: number | string;
  exited: number | string;
  errored: number | string;
  crashed: number | string;
  abnormal: number | string;
  first_seen: string;
  last_seen: string;
}

function presentSession(row: SessionSums): ErrorTrackingSessionEntity {
  const sessions = Number(row.sessions);
  const crashed = Number(row.crashed);
  return {
    release: row.release === '' ? null : row.release,
    environment: row.environment === '' ? null : row.environment,
    sessions,
    exited: Number(row.exited),
    errored: Number(row.errored),
    crashed,
    abnormal: Number(row.abnormal),
    crash_free_rate: sessions ? Math.round((1 - crashed / sessions) * 10_000) / 10_000 : null,
    first_seen: row.first_seen,
    last_seen: row.last_seen,
  };
}

/**
 * GET /forgelet/projects/:id/error_tracking/sessions: release health per release and
 * environment, most recently active first. Sessions sent one by one count once each (by
 * `sid`) with their latest status; `errored` are sessions that had errors but neither
 * crashed nor ended abnormally. `sessions` items (pre-aggregated) add their counts.
 */
export async function listSessions(ctx: Ctx, input: ListSessionsInput): Promise<Page<ErrorTrackingSessionEntity>> {
  const project = await projectFor(ctx, input.id, 'read_sentry_issue');
  let runs = ctx.db
    .selectFrom('error_tracking_sessions')
    .select([
      'release',
      'environment',
      sql<number>`count(*)`.as('sessions'),
      sql<number>`sum(case when status = 'exited' and errors = 0 then 1 else 0 end)`.as('exited'),
      sql<number>`sum(case when status not in ('crashed', 'abnormal') and (errors > 0 or status = 'errored') then 1 else 0 end)`.as('errored'),
      sql<number>`sum(case when status = 'crashed' then 1 else 0 end)`.as('crashed'),
      sql<number>`sum(case when status = 'abnormal' then 1 else 0 end)`.as('abnormal'),
      sql<string>`min(started_at)`.as('first_seen'),
      sql<string>`max(updated_at)`.as('last_seen'),
    ])
    .where('project_id', '=', project.id)
    .groupBy(['release', 'environment']);
  let aggregates = ctx.db
    .selectFrom('error_tracking_session_aggregates')
    .select([
      'release',
      'environment',
      sql<number>`exited + errored + crashed + abnormal`.as('sessions'),
      sql<number>`exited`.as('exited'),
      sql<number>`errored`.as('errored'),
      sql<number>`crashed`.as('crashed'),
      sql<number>`abnormal`.as('abnormal'),
      sql<string>`first_seen_at`.as('first_seen'),
      sql<string>`last_seen_at`.as('last_seen'),
    ])
    .where('project_id', '=', project.id);
  if (input.release !== undefined) {
    runs = runs.where('release', '=', input.release);
    aggregates = aggregates.where('release', '=', input.release);
  }
  const query = ctx.db
    .selectFrom(runs.unionAll(aggregates).as('s'))
    .select([
      's.release',
      's.environment',
      sql<number>`sum(s.sessions)`.as('sessions'),
      sql<number>`sum(s.exited)`.as('exited'),
      sql<number>`sum(s.errored)`.as('errored'),
      sql<number>`sum(s.crashed)`.as('crashed'),
      sql<number>`sum(s.abnormal)`.as('abnormal'),
      sql<string>`min(s.first_seen)`.as('first_seen'),
      sql<string>`max(s.last_seen)`.as('last_seen'),
    ])
    .groupBy(['s.release', 's.environment'])
    .orderBy(sql`max(s.last_seen)`, 'desc')
    .orderBy('s.release')
    .orderBy('s.environment');
  return paginate(ctx.db, query, input, (rows) => rows.map(presentSession));
}
