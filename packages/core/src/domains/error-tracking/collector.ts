/**
 * The Sentry-compatible collector (GitLab's API::ErrorTracking::Collector):
 * `POST /error_tracking/collector/api/:id/store` (one JSON event) and `…/envelope` (Sentry
 * envelopes). A DSN `http://<key>@host/api/v4/error_tracking/collector/<project id>` makes
 * SDKs call these. Checks in GitLab's order: the project (404 Project Not Found), integrated
 * tracking enabled (404), an active key of the project from `sentry_key`, `X-Sentry-Auth`
 * or the envelope header's `dsn` (none: 400, unknown: 404); then the body (400 "Failed to
 * parse sentry request" / "Unsupported sentry payload"). Accepted: 200 `{"id": event_id}`
 * as Sentry answers (`{}` for an envelope without an event), once the events are committed
 * (ingest-buffer.ts: the requests of one turn of the event loop share one transaction).
 */
import type { Ctx } from '../../access/context.js';
import { BadRequestError, isDomainError, NotFoundError, TooLargeError } from '../../kernel/errors.js';
import { ok, type RouteRequest } from '../../kernel/route.js';
import { preparedQuery } from '../../storage/prepared.js';
import { selectProjectByRef } from '../../access/lookup.js';
import type { CollectorInput } from './error-tracking.schema.js';
import { EnvelopeParseError, keyOfAuthHeader, keyOfDsn, parseEnvelope, parseStoreBody, type Envelope } from './envelope.js';
import { ingestBufferOf } from './ingest-buffer.js';
import type { PendingEvent, PendingSession } from './ingest-writer.js';
import { eventIdOf, normalizeEvent, normalizeSession, normalizeSessionAggregates } from './normalize.js';

const PARSE_FAILED = () => new BadRequestError('Failed to parse sentry request');
const UNSUPPORTED = () => new BadRequestError('Unsupported sentry payload');

/** The project by id with its setting and, when given, its active key: one indexed lookup per event. */
const selectTarget = preparedQuery((db, projectId: number, publicKey: string) =>
  db
    .selectFrom('projects')
    .leftJoin('error_tracking_settings', 'error_tracking_settings.project_id', 'projects.id')
    .leftJoin('error_tracking_client_keys', (join) =>
      join
        .onRef('error_tracking_client_keys.project_id', '=', 'projects.id')
        .on('error_tracking_client_keys.public_key', '=', publicKey)
        .on('error_tracking_client_keys.active', '=', 1),
    )
    .select(['projects.id as project_id', 'error_tracking_settings.active', 'error_tracking_settings.integrated', 'error_tracking_client_keys.id as key_id'])
    .where('projects.id', '=', projectId),
  // Cached between writes (storage/read-cache.ts): a changed setting or key drops it at once.
  { cache: true },
);
const selectKey = preparedQuery((db, projectId: number, publicKey: string) =>
  db.selectFrom('error_tracking_client_keys').select('id').where('project_id', '=', projectId).where('public_key', '=', publicKey).where('active', '=', 1),
  { cache: true },
);

/** The whole body (already gunzipped/inflated by the server), or why it could not be read. */
async function readBody(body: AsyncIterable<Uint8Array> | undefined, limit: number): Promise<Buffer | Error> {
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) return new TooLargeError();
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  return Buffer.concat(chunks);
}

function keyFromHeaders(input: CollectorInput, req: RouteRequest): string | null {
  if (input.sentry_key) return input.sentry_key;
  const auth = req.headers['x-sentry-auth'] ?? (/^sentry\s/i.test(req.headers.authorization ?? '') ? req.headers.authorization : undefined);
  return keyOfAuthHeader(auth);
}

export async function collect(ctx: Ctx, kind: 'store' | 'envelope', input: CollectorInput, req: RouteRequest) {
  const raw = await readBody(req.body, ctx.config.limits.bodyBytes);
  const received = ctx.clock.now();

  // The DSN names the project by id; a full path works too (one more lookup).
  let key = keyFromHeaders(input, req);
  const projectId = /^\d+$/.test(input.id) ? Number(input.id) : ((await selectProjectByRef(ctx, input.id))?.id ?? 0);
  const target = projectId > 0 && projectId <= 2_147_483_647 ? (await selectTarget(ctx.db, projectId, key ?? ''))[0] : undefined;
  if (!target) throw new NotFoundError('Project');
  const project = { id: target.project_id };
  if (target.active !== 1 || target.integrated !== 1) throw new NotFoundError();

  let envelope: Envelope | null = null;
  let envelopeError: unknown = null;
  const parseOnce = () => {
    if (envelope || envelopeError || !Buffer.isBuffer(raw)) return;
    try {
      envelope = parseEnvelope(raw);
    } catch (err) {
      envelopeError = err;
    }
  };
  let keyId = target.key_id;
  if (!key && kind === 'envelope') {
    parseOnce();
    key = keyOfDsn((envelope as Envelope | null)?.header.dsn);
    if (key) keyId = (await selectKey(ctx.db, project.id, key))[0]?.id ?? null;
  }
  if (!key) throw PARSE_FAILED();
  if (keyId === null || keyId === undefined) throw new NotFoundError();

  if (!Buffer.isBuffer(raw)) {
    if (raw instanceof TooLargeError) throw raw;
    throw PARSE_FAILED();
  }

  const events: PendingEvent[] = [];
  const sessions: PendingSession[] = [];
  const receivedAt = received.toISOString();
  let replyId: string | null = null;
  /** `raw`: the JSON text of `payload` when it was not changed since it was parsed (stored as it came). */
  const addEvent = (payload: unknown, raw?: string) => {
    const n = normalizeEvent(payload, received, req.ip, raw);
    if (!n.ok) throw UNSUPPORTED();
    events.push(Object.assign(n.value, { projectId: project.id, receivedAt })); // a new object each call: no copy
    replyId ??= n.value.eventId;
  };

  if (kind === 'store') {
    const event = parseStoreBody(raw);
    if (event === undefined) throw PARSE_FAILED();
    addEvent(event);
  } else {
    parseOnce();
    if (envelopeError || !envelope) {
      if (envelopeError instanceof EnvelopeParseError || !isDomainError(envelopeError)) throw PARSE_FAILED();
      throw envelopeError;
    }
    const env = envelope as Envelope;
    for (const item of env.items) {
      if (item.type !== 'event' && item.type !== 'session' && item.type !== 'sessions') continue; // transaction, attachment, client_report …
      let payload: unknown;
      let raw: string | undefined;
      try {
        raw = item.payload.toString('utf8');
        payload = JSON.parse(raw);
      } catch {
        throw PARSE_FAILED();
      }
      if (item.type === 'event') {
        // The envelope header's event_id wins when the payload has none.
        if (payload && typeof payload === 'object' && !Array.isArray(payload) && (payload as Record<string, unknown>).event_id === undefined && env.header.event_id !== undefined) {
          (payload as Record<string, unknown>).event_id = env.header.event_id;
          raw = undefined;
        }
        addEvent(payload, raw);
      } else {
        if (item.type === 'session') {
          const n = normalizeSession(payload, received);
          if (n.ok) sessions.push({ kind: 'session', ...n.value, projectId: project.id });
        } else {
          const n = normalizeSessionAggregates(payload, received);
          if (n.ok) sessions.push({ kind: 'aggregate', ...n.value, projectId: project.id });
        }
      }
    }
    if (replyId === null && env.header.event_id !== undefined) replyId = eventIdOf(env.header.event_id);
  }

  await ingestBufferOf(ctx).add(events, sessions);
  return ok(replyId === null ? {} : { id: replyId });
}
