/**
 * Flow callbacks: HTTPS endpoints of the organization that receive `flow.started`,
 * `flow.completed` and `flow.failed`, signed per Standard Webhooks (`webhook-id` stable across
 * retries, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`), the plain token
 * in `X-Service-Token`. Deliveries run through the durable queue with exponential backoff over
 * about a day; every attempt is recorded.
 */
import { selectUserById } from '../../access/users.js';
import { createHmac, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { Ctx, Deps } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { egressRefusal } from '../../kernel/egress.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import type { InferShape } from '../../kernel/params.js';
import { requireAdmin, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { CreateCallbackInput } from './flows.schema.js';
import type { AiFlowCallbackDeliveryRow, AiFlowCallbackRow, AiFlowRow } from './flows.table.js';

export const DELIVERY_JOB = 'flow_callback_delivery';
/** An event recorded by a hook that holds only a transaction; its handler queues the delivery. */
export const EVENT_JOB = 'flow_callback_event';
/** 1 attempt + 10 retries, 90 s doubling: the last retry about 25.6 hours after the first attempt. */
export const MAX_DELIVERY_ATTEMPTS = 11;
export const BASE_BACKOFF_MS = 90_000;
const DELIVERY_TIMEOUT_MS = 15_000;

/** Delay after failed attempt n (1-based) before attempt n + 1. */
export function backoffAfter(attempt: number): number {
  return BASE_BACKOFF_MS * 2 ** (attempt - 1);
}

// ---- organization owners ----

/** Owner of the (default) organization: an administrator or a user granted the role. */
export async function isOrganizationOwner(ctx: Ctx): Promise<boolean> {
  const user = requireUser(ctx);
  if (ctx.actor.isAdmin) return true;
  const row = await ctx.db.selectFrom('organization_owners').select('user_id').where('user_id', '=', user.id).executeTakeFirst();
  return row !== undefined;
}

async function requireOrganizationOwner(ctx: Ctx): Promise<void> {
  if (!(await isOrganizationOwner(ctx))) throw new ForbiddenError();
}

export interface OrganizationOwnerEntity {
  user_id: number;
  username: string;
  created_at: string;
}

export async function listOrganizationOwners(ctx: Ctx, input: PageRequest): Promise<Page<OrganizationOwnerEntity>> {
  requireAdmin(ctx);
  const q = ctx.db
    .selectFrom('organization_owners as o')
    .innerJoin('users as u', 'u.id', 'o.user_id')
    .select(['o.user_id', 'u.username', 'o.created_at'])
    .orderBy('o.user_id');
  return paginate(ctx.db, q, input, (rows) => rows);
}

export async function addOrganizationOwner(ctx: Ctx, userId: number): Promise<OrganizationOwnerEntity> {
  requireAdmin(ctx);
  const user = await selectUserById(ctx.db, userId);
  if (!user) throw new NotFoundError('User');
  const now = nowIso(ctx);
  await ctx.db.insertInto('organization_owners').values({ user_id: user.id, created_at: now }).onConflict((oc) => oc.column('user_id').doNothing()).execute();
  const row = await ctx.db.selectFrom('organization_owners').select('created_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
  return { user_id: user.id, username: user.username, created_at: row.created_at };
}

export async function removeOrganizationOwner(ctx: Ctx, userId: number): Promise<void> {
  requireAdmin(ctx);
  const done = await ctx.db.deleteFrom('organization_owners').where('user_id', '=', userId).executeTakeFirst();
  if (Number(done.numDeletedRows) === 0) throw new NotFoundError('Organization Owner');
}

// ---- callback endpoints ----

export interface FlowCallbackEntity {
  id: number;
  url: string;
  name: string | null;
  signing_token_set: boolean;
  token_set: boolean;
  created_at: string;
}

function presentCallback(ctx: Pick<Ctx, 'secrets'>, row: AiFlowCallbackRow): FlowCallbackEntity {
  return {
    id: row.id,
    url: ctx.secrets.decrypt(row.url_encrypted),
    name: row.name,
    signing_token_set: row.signing_token_encrypted !== null,
    token_set: row.token_encrypted !== null,
    created_at: row.created_at,
  };
}

function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

const SIGNING_TOKEN = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

export async function createCallback(ctx: Ctx, input: InferShape<typeof CreateCallbackInput.shape>): Promise<FlowCallbackEntity> {
  const user = requireUser(ctx);
  await requireOrganizationOwner(ctx);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new BadRequestError('url is not a valid URL');
  }
  const localHttp = url.protocol === 'http:' && ctx.egress.allowLocal === true && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !localHttp) throw new BadRequestError('url must use HTTPS');
  if (url.username || url.password) throw new BadRequestError('url must not contain credentials');
  if (input.signing_token !== undefined) {
    const m = SIGNING_TOKEN.exec(input.signing_token);
    if (!m || Buffer.from(m[1]!, 'base64').length !== 32 || Buffer.from(m[1]!, 'base64').toString('base64') !== m[1]) {
      throw new BadRequestError('signing_token must be whsec_ followed by the base64 encoding of 32 bytes');
    }
  }
  if (input.token !== undefined && input.token === '') throw new BadRequestError('token is empty');
  // GitLab's URL validation of hooks: a local target is refused before anything is stored.
  const blocked = await ctx.egress.refusal(url.toString());
  if (blocked) throw new UnprocessableError({ url: [`is blocked: ${blocked}`] });
  const row = await ctx.db
    .insertInto('ai_flow_callbacks')
    .values({
      name: input.name ?? null,
      url_encrypted: ctx.secrets.encrypt(url.toString()),
      signing_token_encrypted: input.signing_token !== undefined ? ctx.secrets.encrypt(input.signing_token) : null,
      token_encrypted: input.token !== undefined ? ctx.secrets.encrypt(input.token) : null,
      created_by_id: user.id,
      created_at: nowIso(ctx),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentCallback(ctx, row);
}

async function loadCallback(ctx: Ctx, id: number): Promise<AiFlowCallbackRow> {
  await requireOrganizationOwner(ctx);
  const row = await ctx.db.selectFrom('ai_flow_callbacks').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

export async function listCallbacks(ctx: Ctx, input: PageRequest): Promise<Page<FlowCallbackEntity>> {
  await requireOrganizationOwner(ctx);
  const q = ctx.db.selectFrom('ai_flow_callbacks').selectAll().orderBy('id');
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => presentCallback(ctx, r)));
}

export async function getCallback(ctx: Ctx, id: number): Promise<FlowCallbackEntity> {
  return presentCallback(ctx, await loadCallback(ctx, id));
}

export async function deleteCallback(ctx: Ctx, id: number): Promise<void> {
  const row = await loadCallback(ctx, id);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('ai_flows').set({ callback_id: null }).where('callback_id', '=', row.id).execute();
    await trx.deleteFrom('ai_flow_callbacks').where('id', '=', row.id).execute();
  });
}

// ---- deliveries ----

export interface DeliveryAttemptEntity {
  attempt: number;
  status_code: number | null;
  error: string | null;
  attempted_at: string;
}

export interface DeliveryEntity {
  id: number;
  webhook_id: string;
  event: string;
  flow_id: number | null;
  status: string;
  attempts: DeliveryAttemptEntity[];
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export async function listDeliveries(ctx: Ctx, input: { id: number } & PageRequest): Promise<Page<DeliveryEntity>> {
  const callback = await loadCallback(ctx, input.id);
  const q = ctx.db.selectFrom('ai_flow_callback_deliveries').selectAll().where('callback_id', '=', callback.id).orderBy('id');
  return paginate(ctx.db, q, input, async (rows: AiFlowCallbackDeliveryRow[]) => {
    const ids = rows.map((r) => r.id);
    const attempts = ids.length
      ? await ctx.db.selectFrom('ai_flow_callback_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('delivery_id').orderBy('attempt').execute()
      : [];
    return rows.map((r) => ({
      id: r.id,
      webhook_id: r.webhook_id,
      event: r.event,
      flow_id: r.flow_id,
      status: r.status,
      attempts: attempts.filter((a) => a.delivery_id === r.id).map((a) => ({ attempt: a.attempt, status_code: a.status_code, error: a.error, attempted_at: a.attempted_at })),
      next_attempt_at: r.next_attempt_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
    }));
  });
}

/** Records the event for the flow's callback endpoint and queues its delivery, in the caller's transaction. */
export async function emitFlowEvent(trx: Kysely<Database>, deps: Deps, flow: AiFlowRow, event: string, data: unknown, now: string): Promise<void> {
  if (flow.callback_id === null) return;
  const webhookId = `msg_${randomUUID().replace(/-/g, '')}`;
  const payload = JSON.stringify({ type: event, event, event_id: webhookId, timestamp: now, data });
  const delivery = await trx
    .insertInto('ai_flow_callback_deliveries')
    .values({ callback_id: flow.callback_id, flow_id: flow.id, event, webhook_id: webhookId, payload, status: 'pending', next_attempt_at: now, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await deps.queue.enqueue(trx, DELIVERY_JOB, { deliveryId: delivery.id }, { maxAttempts: MAX_DELIVERY_ATTEMPTS + 2 });
}

interface QueuedEvent {
  flowId: number;
  event: string;
  data: Record<string, unknown>;
  at: string;
}

/**
 * emitFlowEvent for hooks that have only a transaction (CI job processing): the event, with the
 * flow as it is now, is written to the queue in that transaction (the row `Queue#enqueue`
 * writes); its handler records the delivery with the instance URL and queues it.
 */
export async function queueFlowEventIn(trx: Kysely<Database>, flow: AiFlowRow, event: string, data: Record<string, unknown>, now: string): Promise<void> {
  if (flow.callback_id === null) return;
  const payload: QueuedEvent = { flowId: flow.id, event, data, at: now };
  await trx
    .insertInto('queue_jobs')
    .values({ kind: EVENT_JOB, payload: JSON.stringify(payload), unique_key: null, status: 'pending', run_at: now, attempts: 0, max_attempts: 5, created_at: now })
    .execute();
}

async function recordQueuedEvent(deps: Deps, payload: QueuedEvent): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const flow = await trx.selectFrom('ai_flows').selectAll().where('id', '=', payload.flowId).executeTakeFirst();
    if (!flow || flow.callback_id === null) return;
    // A handler run again after a crash does not record the event twice.
    const recorded = await trx
      .selectFrom('ai_flow_callback_deliveries')
      .select('id')
      .where('flow_id', '=', flow.id)
      .where('event', '=', payload.event)
      .where('created_at', '=', payload.at)
      .executeTakeFirst();
    if (recorded) return;
    await emitFlowEvent(trx, deps, flow, payload.event, { ...payload.data, instance_url: deps.config.externalUrl }, payload.at);
  });
}

/** Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the decoded secret. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

function describeError(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    if (e instanceof Error) parts.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(': ').slice(0, 1000) || String(err);
}

/** One delivery attempt; returns when to try again, or nothing when done (delivered or given up). */
async function deliver(deps: Deps, deliveryId: number, now: Date): Promise<{ retryAt: Date } | void> {
  const delivery = await deps.db.selectFrom('ai_flow_callback_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
  if (!delivery || delivery.status !== 'pending') return;
  const callback = await deps.db.selectFrom('ai_flow_callbacks').selectAll().where('id', '=', delivery.callback_id).executeTakeFirst();
  if (!callback) return;
  const attempt = delivery.attempts + 1;
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'Forgelet-Flow-Callbacks',
    'webhook-id': delivery.webhook_id,
    'webhook-timestamp': String(timestamp),
  };
  if (callback.signing_token_encrypted) headers['webhook-signature'] = signPayload(deps.secrets.decrypt(callback.signing_token_encrypted), delivery.webhook_id, timestamp, delivery.payload);
  if (callback.token_encrypted) headers['X-Service-Token'] = deps.secrets.decrypt(callback.token_encrypted);
  let statusCode: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    const res = await deps.egress.fetch(deps.secrets.decrypt(callback.url_encrypted), {
      method: 'POST',
      headers,
      body: delivery.payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    statusCode = res.status;
    await res.body?.cancel().catch(() => {});
    if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
  } catch (err) {
    const refusal = egressRefusal(err);
    refused = refusal !== null;
    error = refusal ? `${refusal.message} (${refusal.address})` : describeError(err);
  }
  const at = now.toISOString();
  const delivered = error === null;
  const giveUp = !delivered && (refused || attempt >= MAX_DELIVERY_ATTEMPTS);
  const retryAt = !delivered && !giveUp ? new Date(now.getTime() + backoffAfter(attempt)) : null;
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('ai_flow_callback_attempts')
      .values({ delivery_id: delivery.id, attempt, status_code: statusCode, error, attempted_at: at })
      .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
      .execute();
    await trx
      .updateTable('ai_flow_callback_deliveries')
      .set({ attempts: attempt, status: delivered ? 'delivered' : giveUp ? 'failed' : 'pending', next_attempt_at: retryAt?.toISOString() ?? null, updated_at: at })
      .where('id', '=', delivery.id)
      .execute();
  });
  if (retryAt) return { retryAt };
}

export function registerFlowJobs(deps: Deps): void {
  deps.queue.register(DELIVERY_JOB, async (payload: { deliveryId: number }, job) => deliver(deps, payload.deliveryId, job.now));
  deps.queue.register(EVENT_JOB, async (payload: QueuedEvent) => recordQueuedEvent(deps, payload));
}
