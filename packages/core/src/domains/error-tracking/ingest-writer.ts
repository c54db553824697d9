/**
 * The SQL of a batch of accepted events (storage for ingest-buffer.ts): one transaction with
 * one upsert of the errors they touch (counters added in SQL, so several processes may write
 * at once), one insert of the events, the new distinct users and the hourly counts.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../storage/database.js';
import { isPostgres } from '../../storage/migrations/helpers.js';
import type { Queue } from '../../storage/queue.js';
import type { NormalizedEvent, SessionAggregate, SessionUpdate } from './normalize.js';

export interface PendingEvent extends NormalizedEvent {
  projectId: number;
  receivedAt: string;
}

export type PendingSession = ({ kind: 'session' } & SessionUpdate & { projectId: number }) | ({ kind: 'aggregate' } & SessionAggregate & { projectId: number });

export const PURGE_JOB = 'error_tracking.purge';

interface Group {
  projectId: number;
  fingerprint: string;
  events: PendingEvent[];
  first: PendingEvent;
  last: PendingEvent;
  firstRelease: string | null;
  lastRelease: string | null;
}

const ERRORS = 'error_tracking_errors';
/** `excluded.<col>` when the batch's newest event is at least as new as the stored one, else the stored value. */
const latest = (col: string): RawBuilder<any> =>
  sql<any>`case when excluded.last_seen_at >= ${sql.ref(`${ERRORS}.last_seen_at`)} then ${sql.ref(`excluded.${col}`)} else ${sql.ref(`${ERRORS}.${col}`)} end`;

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function groupEvents(events: PendingEvent[]): Group[] {
  const groups = new Map<string, Group>();
  for (const e of events) {
    const key = `${e.projectId}:${e.fingerprint}`;
    let g = groups.get(key);
    if (!g) {
      g = { projectId: e.projectId, fingerprint: e.fingerprint, events: [], first: e, last: e, firstRelease: null, lastRelease: null };
      groups.set(key, g);
    }
    g.events.push(e);
    if (e.occurredAt < g.first.occurredAt) g.first = e;
    if (e.occurredAt >= g.last.occurredAt) g.last = e;
  }
  for (const g of groups.values()) {
    const withRelease = g.events.filter((e) => e.release !== null).sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : 0));
    g.firstRelease = withRelease[0]?.release ?? null;
    g.lastRelease = withRelease[withRelease.length - 1]?.release ?? null;
  }
  // One lock order for every writer (PostgreSQL: concurrent upserts of the same rows).
  return [...groups.values()].sort((a, b) => a.projectId - b.projectId || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
}

/** SQL of multi-row statements by database adapter, then by statement and row count. */
const rowStatements = new WeakMap<object, Map<string, string>>();

/**
 * A multi-row statement built and compiled by Kysely once per row count, then run with the
 * rows' values (the builder costs more per row than SQLite's insert). The SQL is kept only
 * when its parameters are exactly the rows' values in column order, as checked on that
 * first compile (any constant or reordering in it: compiled every time).
 */
async function executeRows<T extends object, R>(
  trx: Kysely<Database>,
  name: string,
  rows: T[],
  build: (rows: T[]) => { compile(): CompiledQuery<R> },
): Promise<R[]> {
  const columns = Object.keys(rows[0]!) as (keyof T)[];
  const parameters: unknown[] = [];
  for (const row of rows) for (const c of columns) parameters.push(row[c]);
  const adapter = trx.getExecutor().adapter;
  let known = rowStatements.get(adapter);
  if (!known) rowStatements.set(adapter, (known = new Map()));
  const key = `${name}:${columns.length}:${rows.length}`;
  let text = known.get(key);
  if (text === undefined) {
    const compiled = build(rows).compile();
    if (compiled.parameters.length !== parameters.length || compiled.parameters.some((p, i) => p !== parameters[i])) return (await trx.executeQuery(compiled)).rows;
    text = compiled.sql;
    known.set(key, text);
  }
  return (await trx.executeQuery(CompiledQuery.raw(text, parameters) as CompiledQuery<R>)).rows;
}

interface ErrorKey {
  id: number;
  project_id: number;
  fingerprint: string;
}

/** SQLite: the ids of the groups' errors, one statement per project (by the unique index on project and fingerprint). */
async function errorIdsOf(trx: Kysely<Database>, groups: Group[]): Promise<ErrorKey[]> {
  const byProject = new Map<number, string[]>();
  for (const g of groups) {
    const list = byProject.get(g.projectId);
    if (list) list.push(g.fingerprint);
    else byProject.set(g.projectId, [g.fingerprint]);
  }
  const out: ErrorKey[] = [];
  for (const [projectId, fingerprints] of byProject) {
    const text = `select id, project_id, fingerprint from ${ERRORS} where project_id = ? and fingerprint in (${fingerprints.map(() => '?').join(', ')})`;
    out.push(...(await trx.executeQuery(CompiledQuery.raw(text, [projectId, ...fingerprints]) as CompiledQuery<ErrorKey>)).rows);
  }
  return out;
}

const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00.000Z`;

async function writeEvents(trx: Kysely<Database>, events: PendingEvent[], now: string): Promise<void> {
  const groups = groupEvents(events);
  const ids = new Map<string, number>();
  const postgres = isPostgres(trx);
  for (const part of chunks(groups, 200)) {
    const upserted = await executeRows(
      trx,
      'errors',
      part.map((g) => ({
        project_id: g.projectId,
        fingerprint: g.fingerprint,
        title: g.last.title,
        type: g.last.type,
        message: g.last.message,
        culprit: g.last.culprit,
        platform: g.last.platform,
        level: g.last.level,
        status: 'unresolved',
        event_count: g.events.length,
        user_count: 0,
        first_seen_at: g.first.occurredAt,
        last_seen_at: g.last.occurredAt,
        first_release: g.firstRelease,
        last_release: g.lastRelease,
        last_event_id: g.last.eventId,
        issue_id: null,
        created_at: now,
        updated_at: now,
      })),
      (values) =>
        trx
          .insertInto('error_tracking_errors')
          .values(values)
          .onConflict((oc) =>
            oc.columns(['project_id', 'fingerprint']).doUpdateSet({
              event_count: sql`${sql.ref(`${ERRORS}.event_count`)} + excluded.event_count`,
              first_release: sql`case when excluded.first_seen_at < ${sql.ref(`${ERRORS}.first_seen_at`)} and excluded.first_release is not null
                then excluded.first_release else coalesce(${sql.ref(`${ERRORS}.first_release`)}, excluded.first_release) end`,
              first_seen_at: sql`case when excluded.first_seen_at < ${sql.ref(`${ERRORS}.first_seen_at`)} then excluded.first_seen_at else ${sql.ref(`${ERRORS}.first_seen_at`)} end`,
              last_release: sql`case when excluded.last_seen_at >= ${sql.ref(`${ERRORS}.last_seen_at`)}
                then coalesce(excluded.last_release, ${sql.ref(`${ERRORS}.last_release`)}) else coalesce(${sql.ref(`${ERRORS}.last_release`)}, excluded.last_release) end`,
              title: latest('title'),
              type: latest('type'),
              message: latest('message'),
              culprit: latest('culprit'),
              platform: latest('platform'),
              level: latest('level'),
              last_event_id: latest('last_event_id'),
              // Last: the comparisons above read the stored last_seen_at (SET sees the old row on both dialects).
              last_seen_at: sql`case when excluded.last_seen_at > ${sql.ref(`${ERRORS}.last_seen_at`)} then excluded.last_seen_at else ${sql.ref(`${ERRORS}.last_seen_at`)} end`,
              // A resolved error that happens again is a regression: unresolved again. Ignored stays ignored.
              status: sql`case when ${sql.ref(`${ERRORS}.status`)} = 'resolved' then 'unresolved' else ${sql.ref(`${ERRORS}.status`)} end`,
              updated_at: sql`excluded.updated_at`,
            }),
          )
          .$if(postgres, (q) => q.returning(['id', 'project_id', 'fingerprint'])),
    );
    // SQLite's RETURNING doubles an upsert's cost (measured: 22 -> 10 µs a row); its ids are
    // read back instead, in the same transaction (which holds the write lock).
    const rows = postgres ? (upserted as unknown as ErrorKey[]) : await errorIdsOf(trx, part);
    for (const r of rows) ids.set(`${r.project_id}:${r.fingerprint}`, r.id);
  }
  const errorIdOf = (e: PendingEvent) => ids.get(`${e.projectId}:${e.fingerprint}`)!;

  for (const part of chunks(events, 250)) {
    await executeRows(
      trx,
      'events',
      part.map((e) => ({
          error_id: errorIdOf(e),
          project_id: e.projectId,
          event_id: e.eventId,
          occurred_at: e.occurredAt,
          received_at: e.receivedAt,
          level: e.level,
          environment: e.environment,
          release: e.release,
          platform: e.platform,
          message: e.message,
          user_key: e.userKey,
          user: e.user ? JSON.stringify(e.user) : null,
          // Derived from a complete payload when read (errors.ts presentEvent): half the row, written once.
          stack_trace: e.payloadComplete ? null : JSON.stringify(e.frames),
          payload: e.payload,
        })),
      (values) => trx.insertInto('error_tracking_error_events').values(values),
    );
  }

  // Distinct users: only the pairs not seen before count.
  const pairs = new Map<string, { error_id: number; user_key: string }>();
  for (const e of events) {
    if (e.userKey === null) continue;
    const errorId = errorIdOf(e);
    pairs.set(`${errorId}\u0000${e.userKey}`, { error_id: errorId, user_key: e.userKey });
  }
  const added = new Map<number, number>();
  for (const part of chunks([...pairs.values()], 500)) {
    const inserted = await executeRows(trx, 'users', part, (values) =>
      trx
        .insertInto('error_tracking_error_users')
        .values(values)
        .onConflict((oc) => oc.columns(['error_id', 'user_key']).doNothing())
        .returning('error_id'),
    );
    for (const r of inserted) added.set(r.error_id, (added.get(r.error_id) ?? 0) + 1);
  }
  const byIncrement = new Map<number, number[]>();
  for (const [errorId, n] of added) byIncrement.set(n, [...(byIncrement.get(n) ?? []), errorId]);
  for (const [n, errorIds] of byIncrement) {
    await trx
      .updateTable('error_tracking_errors')
      .set({ user_count: sql`user_count + ${n}` })
      .where('id', 'in', errorIds)
      .execute();
  }

  const hours = new Map<string, { error_id: number; hour_start: string; count: number }>();
  for (const e of events) {
    const errorId = errorIdOf(e);
    const hour = hourOf(e.occurredAt);
    const key = `${errorId}:${hour}`;
    const h = hours.get(key);
    if (h) h.count++;
    else hours.set(key, { error_id: errorId, hour_start: hour, count: 1 });
  }
  const sortedHours = [...hours.values()].sort((a, b) => a.error_id - b.error_id || (a.hour_start < b.hour_start ? -1 : 1));
  for (const part of chunks(sortedHours, 500)) {
    await executeRows(trx, 'frequency', part, (values) =>
      trx
        .insertInto('error_tracking_error_frequency')
        .values(values)
        .onConflict((oc) => oc.columns(['error_id', 'hour_start']).doUpdateSet({ count: sql`error_tracking_error_frequency.count + excluded.count` })),
    );
  }
}

const TERMINAL = "('exited', 'crashed', 'abnormal', 'errored')";

async function writeSessionUpdates(trx: Kysely<Database>, updates: Extract<PendingSession, { kind: 'session' }>[]): Promise<void> {
  // Several updates of one session in a batch: the last status (an ended session stays ended), the most errors.
  const merged = new Map<string, Extract<PendingSession, { kind: 'session' }>>();
  for (const u of updates) {
    const key = `${u.projectId}\u0000${u.sid}`;
    const m = merged.get(key);
    if (!m) merged.set(key, { ...u });
    else {
      if (!TERMINAL.includes(`'${m.status}'`)) m.status = u.status;
      m.errors = Math.max(m.errors, u.errors);
      m.at = u.at > m.at ? u.at : m.at;
    }
  }
  const rows = [...merged.values()].sort((a, b) => a.projectId - b.projectId || (a.sid < b.sid ? -1 : 1));
  const S = 'error_tracking_sessions';
  for (const part of chunks(rows, 300)) {
    await trx
      .insertInto('error_tracking_sessions')
      .values(
        part.map((u) => ({
          project_id: u.projectId,
          sid: u.sid,
          release: u.release,
          environment: u.environment,
          status: u.status,
          errors: u.errors,
          started_at: u.startedAt,
          updated_at: u.at,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['project_id', 'sid']).doUpdateSet({
          status: sql<string>`case when ${sql.ref(`${S}.status`)} in ${sql.raw(TERMINAL)} then ${sql.ref(`${S}.status`)} else excluded.status end`,
          errors: sql<number>`case when excluded.errors > ${sql.ref(`${S}.errors`)} then excluded.errors else ${sql.ref(`${S}.errors`)} end`,
          updated_at: sql<string>`case when excluded.updated_at > ${sql.ref(`${S}.updated_at`)} then excluded.updated_at else ${sql.ref(`${S}.updated_at`)} end`,
        }),
      )
      .execute();
  }
}

async function writeSessionAggregates(trx: Kysely<Database>, aggregates: Extract<PendingSession, { kind: 'aggregate' }>[]): Promise<void> {
  const merged = new Map<string, Extract<PendingSession, { kind: 'aggregate' }>>();
  for (const s of aggregates) {
    const key = `${s.projectId}\u0000${s.release}\u0000${s.environment}`;
    const m = merged.get(key);
    if (!m) merged.set(key, { ...s });
    else {
      m.exited += s.exited;
      m.errored += s.errored;
      m.crashed += s.crashed;
      m.abnormal += s.abnormal;
      if (s.at > m.at) m.at = s.at;
    }
  }
  const rows = [...merged.values()].sort((a, b) => a.projectId - b.projectId || (a.release < b.release ? -1 : a.release > b.release ? 1 : a.environment < b.environment ? -1 : 1));
  const add = (col: string) => sql<number>`${sql.ref(`error_tracking_session_aggregates.${col}`)} + ${sql.ref(`excluded.${col}`)}`;
  for (const part of chunks(rows, 200)) {
    await trx
      .insertInto('error_tracking_session_aggregates')
      .values(
        part.map((s) => ({
          project_id: s.projectId,
          release: s.release,
          environment: s.environment,
          exited: s.exited,
          errored: s.errored,
          crashed: s.crashed,
          abnormal: s.abnormal,
          first_seen_at: s.at,
          last_seen_at: s.at,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['project_id', 'release', 'environment']).doUpdateSet({
          exited: add('exited'),
          errored: add('errored'),
          crashed: add('crashed'),
          abnormal: add('abnormal'),
          last_seen_at: sql<string>`case when excluded.last_seen_at > error_tracking_session_aggregates.last_seen_at then excluded.last_seen_at else error_tracking_session_aggregates.last_seen_at end`,
        }),
      )
      .execute();
  }
}

async function writeSessions(trx: Kysely<Database>, sessions: PendingSession[]): Promise<void> {
  const updates = sessions.filter((s): s is Extract<PendingSession, { kind: 'session' }> => s.kind === 'session');
  const aggregates = sessions.filter((s): s is Extract<PendingSession, { kind: 'aggregate' }> => s.kind === 'aggregate');
  if (updates.length) await writeSessionUpdates(trx, updates);
  if (aggregates.length) await writeSessionAggregates(trx, aggregates);
}

/** One transaction for a batch of events and session updates. */
export async function writeBatch(db: Kysely<Database>, events: PendingEvent[], sessions: PendingSession[], now: string, extra?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (events.length) await writeEvents(trx, events, now);
    if (sessions.length) await writeSessions(trx, sessions);
    if (extra) await extra(trx);
  });
}

const RETENTION_CHECK_MS = 3600_000;

/** The retention job, once (a pending job with the same key makes this a no-op). */
export async function schedulePurgeJob(queue: Queue, db: Kysely<Database>, now: Date): Promise<void> {
  await queue.enqueue(db, PURGE_JOB, {}, { uniqueKey: PURGE_JOB, runAt: new Date(now.getTime() + RETENTION_CHECK_MS) });
}
