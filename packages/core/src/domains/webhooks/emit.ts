/**
 * Queuing events for hooks: `emitWebhookEvent` finds, in the caller's transaction, every hook
 * that takes the event (the project's hooks, the hooks of the groups above it on Premium, the
 * system hooks where GitLab sends them) and is not disabled, builds the payload once and queues
 * one delivery per hook in that transaction: an event of a change that rolls back is never sent,
 * and one queued before a restart is sent after it. The worker delivers each once (execute-hook.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import { traversalIds, type NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import { PERMANENTLY_DISABLED_FAILURE_THRESHOLD, TEMPORARILY_DISABLED_FAILURE_THRESHOLD } from './auto-disabling.js';
import { executeHook } from './execute-hook.js';
import { branchFilterMatches } from './branch-filter.js';
import type { HookEventColumn } from './webhook.table.js';
import { preparedQuery } from '../../storage/prepared.js';

export const DELIVERY_JOB = 'webhook_delivery';

export interface WebhookEvent {
  /** The project the event happened in: its hooks, and the hooks of its ancestor groups (Premium). */
  project?: ProjectRow | null;
  /** A group's own event (members, subgroups): the hooks of the group and its ancestors (Premium). */
  group?: NamespaceRow | null;
  /**
   * System hooks too: `'flag'` when they have this event's switch (push, tag push, merge
   * requests, repository update), `'always'` for system events (project_create, user_create …).
   */
  system?: 'flag' | 'always';
  /** The hook switch this event needs (`issues_events`); null for system events. */
  flag: HookEventColumn | null;
  /** A push to this branch: project and group hooks whose branch filter refuses it are left out (branch-filter.ts). */
  branch?: string;
  /** GitLab's hook scope (`issue_hooks`): the log's `trigger`, and X-Gitlab-Event (`Issue Hook`). */
  trigger: string;
  /** Builds the payload; called once, only when some hook takes the event. */
  build: () => Record<string, unknown> | Promise<Record<string, unknown>>;
}

interface QueuedDelivery {
  hookId: number;
  trigger: string;
  eventUuid: string;
  /** Chosen when queued, so a delivery taken over after a crash sends the same Idempotency-Key. */
  idempotencyKey: string;
  data: Record<string, unknown>;
}

/**
 * Any hook at all (compiled once): most instances have none, and every change asks. Cached
 * between writes to web_hooks, inside the change's transaction too (on PostgreSQL a round trip
 * per write saved).
 */
const selectAnyHook = preparedQuery((db) => db.selectFrom('web_hooks').select('id').limit(1), { cache: true, inTransactions: true });

/**
 * Whether any hook exists, in the change's transaction: one indexed read or a cache hit, so
 * that a change on an instance without hooks (the common case) pays no more (the reactions ask
 * first, before they read what an event needs). The transactions that ask never write hooks.
 */
export async function anyWebhook(trx: Kysely<Database>): Promise<boolean> {
  return (await selectAnyHook(trx)).length > 0;
}

/** Queues the event for every hook that takes it, in `trx`; answers how many deliveries were queued. */
export async function emitWebhookEvent(trx: Kysely<Database>, deps: Pick<Deps, 'config' | 'clock' | 'queue'>, event: WebhookEvent): Promise<number> {
  const premium = tierAtLeast(deps.config.tier, 'premium');
  let groupIds: number[] = [];
  if (premium && event.group) groupIds = traversalIds(event.group.traversal);
  else if (premium && event.project) {
    const ns = await trx.selectFrom('namespaces').select(['kind', 'traversal']).where('id', '=', event.project.namespace_id).executeTakeFirst();
    if (ns?.kind === 'group') groupIds = traversalIds(ns.traversal);
  }
  const now = deps.clock.now().toISOString();
  const hooks = await trx
    .selectFrom('web_hooks')
    .select(['id', 'type', 'push_events_branch_filter', 'branch_filter_strategy'])
    .where((eb) => {
      const scopes = [];
      if (event.project) scopes.push(eb.and([eb('type', '=', 'ProjectHook'), eb('project_id', '=', event.project.id)]));
      if (groupIds.length) scopes.push(eb.and([eb('type', '=', 'GroupHook'), eb('group_id', 'in', groupIds)]));
      if (event.system) scopes.push(eb('type', '=', 'SystemHook'));
      if (scopes.length === 0) return sql<boolean>`1 = 0`;
      return eb.or(scopes);
    })
    .where((eb) =>
      eb.or([
        eb('type', '=', 'SystemHook'),
        eb.and([
          eb.or([
            eb('recent_failures', '<=', TEMPORARILY_DISABLED_FAILURE_THRESHOLD),
            eb.and([eb('disabled_until', 'is not', null), eb('disabled_until', '<', now)]),
          ]),
          eb('recent_failures', '<=', PERMANENTLY_DISABLED_FAILURE_THRESHOLD),
        ]),
      ]),
    )
    .$call((q) => {
      if (event.flag === null) return q.where('type', '=', 'SystemHook');
      const flag = event.flag;
      // System hooks of a system event take every one; else the hook's switch decides.
      return q.where((eb) => (event.system === 'always' ? eb.or([eb('type', '=', 'SystemHook'), eb(flag, '=', 1)]) : eb(flag, '=', 1)));
    })
    .orderBy('id')
    .execute()
    .then((rows) => (event.branch === undefined ? rows : rows.filter((h) => h.type === 'SystemHook' || branchFilterMatches(h, event.branch!))));
  if (hooks.length === 0) return 0;
  const data = await event.build();
  const eventUuid = randomUUID();
  for (const hook of hooks) {
    const trigger = hook.type === 'SystemHook' && event.system === 'always' ? 'system_hooks' : event.trigger;
    const job: QueuedDelivery = { hookId: hook.id, trigger, eventUuid, idempotencyKey: randomUUID(), data };
    // One attempt plus re-claims after a crash: a target's failure is never retried.
    await deps.queue.enqueue(trx, DELIVERY_JOB, job, { maxAttempts: 3 });
  }
  return hooks.length;
}

async function deliverQueued(deps: Deps, job: QueuedDelivery): Promise<void> {
  const hook = await deps.db.selectFrom('web_hooks').selectAll().where('id', '=', job.hookId).executeTakeFirst();
  if (!hook) return; // deleted since
  await executeHook(deps, hook, job.data, job.trigger, { eventUuid: job.eventUuid, idempotencyKey: job.idempotencyKey });
}

/** The delivery worker (forge.ts). */
export function registerWebhookJobs(deps: Deps): void {
  deps.queue.register(DELIVERY_JOB, async (payload: QueuedDelivery) => deliverQueued(deps, payload));
}
