/**
 * The transfer engine. One queued job per entity; each run does one step of one relation (a
 * page of REST results or one batch of an NDJSON export) and asks to run again. Every step
 * writes its rows, the source ids it imported and the tracker's progress in one transaction,
 * so a crash repeats at most the step in flight and never writes a row twice.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { contextFor, nowIso, type Ctx, type Deps } from '../../kernel/context.js';
import { DomainError } from '../../kernel/errors.js';
import { parseParams } from '../../kernel/params.js';
import type { Database } from '../../storage/database.js';
import { CreateGroupInput, createGroup } from '../accounts/groups.js';
import { CreateProjectInput, createProject } from '../accounts/projects.js';
import type { UserRow } from '../accounts/user.table.js';
import type { BulkImportEntityRow, BulkImportRow, BulkImportTrackerRow } from './bulk-import.table.js';
import { pipelineOf, pipelinesOf, type PipelineDef } from './pipelines.js';
import { enc, SourceClient, SourceNetworkError } from './source-client.js';

export const ENTITY_JOB = 'bulk_imports.entity';
export const entityJobKey = (entityId: number) => `bulk_import_entity:${entityId}`;
const PAGE_SIZE = 100;
const EXPORT_POLL_MS = 2000;
const EXPORT_WAIT_LIMIT_MS = 60 * 60_000;
const MISSING_EXPORT_LIMIT_MS = 5 * 60_000;
const STALE_MS = 24 * 60 * 60_000;

const TERMINAL = ['finished', 'failed', 'canceled', 'timeout'];

class StepCanceled extends Error {}

export function registerBulkImportJobs(deps: Deps): void {
  deps.queue.register(ENTITY_JOB, async (payload: { entity_id: number }, { now }) => runEntityStep(deps, payload.entity_id, now));
}

export async function enqueueEntity(deps: Deps, db: Kysely<Database>, entityId: number): Promise<void> {
  await deps.queue.enqueue(db, ENTITY_JOB, { entity_id: entityId }, { uniqueKey: entityJobKey(entityId), maxAttempts: 3 });
}

interface StepEnv {
  deps: Deps;
  ctx: Ctx;
  imp: BulkImportRow;
  entity: BulkImportEntityRow;
  tracker: BulkImportTrackerRow;
  def: PipelineDef;
  source: SourceClient;
  now: Date;
}

type StepResult = { done: boolean; waitMs?: number };

async function runEntityStep(deps: Deps, entityId: number, now: Date): Promise<void | { retryAt: Date }> {
  const entity = await deps.db.selectFrom('bulk_import_entities').selectAll().where('id', '=', entityId).executeTakeFirst();
  if (!entity || TERMINAL.includes(entity.status)) return;
  const imp = await deps.db.selectFrom('bulk_imports').selectAll().where('id', '=', entity.bulk_import_id).executeTakeFirstOrThrow();
  if (TERMINAL.includes(imp.status)) return;
  const stamp = deps.clock.now().toISOString();
  // Stale entities end as `timeout` (GitLab: not finished within 24 hours).
  if (now.getTime() - Date.parse(entity.created_at) > STALE_MS) {
    await deps.db.updateTable('bulk_import_entities').set({ status: 'timeout', updated_at: stamp }).where('id', '=', entity.id).where('status', 'in', ['created', 'started']).execute();
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'canceled', updated_at: stamp }).where('entity_id', '=', entity.id).where('status', 'in', ['created', 'started']).execute();
    await settleImport(deps, entity.id);
    return;
  }
  if (entity.status === 'created') {
    await deps.db.updateTable('bulk_import_entities').set({ status: 'started', updated_at: stamp }).where('id', '=', entity.id).where('status', '=', 'created').execute();
    await deps.db.updateTable('bulk_imports').set({ status: 'started', updated_at: stamp }).where('id', '=', imp.id).where('status', '=', 'created').execute();
  }
  await ensureTrackers(deps, entity, stamp);
  const trackers = await deps.db
    .selectFrom('bulk_import_trackers')
    .selectAll()
    .where('entity_id', '=', entity.id)
    .where('status', 'in', ['created', 'started'])
    .orderBy('stage')
    .orderBy('id')
    .execute();
  const tracker = trackers[0];
  if (!tracker) {
    await finishEntity(deps, entity.id);
    return;
  }
  const def = pipelineOf(entity.entity_type, tracker.relation)!;
  const user = await deps.db.selectFrom('users').selectAll().where('id', '=', imp.user_id).executeTakeFirst();
  if (!user) {
    await failEntity(deps, entity.id);
    return;
  }
  const ctx = contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
  const source = new SourceClient(deps.egress, imp.source_url, deps.secrets.decrypt(imp.source_token));
  const fresh = (await deps.db.selectFrom('bulk_import_entities').selectAll().where('id', '=', entity.id).executeTakeFirstOrThrow());
  if (tracker.status === 'created') {
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'started', updated_at: stamp }).where('id', '=', tracker.id).execute();
  }
  let result: StepResult;
  try {
    result = await runStep({ deps, ctx, imp, entity: fresh, tracker, def, source, now });
  } catch (err) {
    if (err instanceof StepCanceled) return;
    await recordFailure(deps, fresh, def, err);
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'failed', updated_at: deps.clock.now().toISOString() }).where('id', '=', tracker.id).execute();
    // Without its group or project an entity has nothing to import into.
    if (def.kind === 'attributes') {
      await deps.db.updateTable('bulk_import_trackers').set({ status: 'canceled' }).where('entity_id', '=', entity.id).where('status', 'in', ['created', 'started']).execute();
      await failEntity(deps, entity.id);
      return;
    }
    return { retryAt: now };
  }
  if (result.done) {
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'finished', updated_at: deps.clock.now().toISOString() }).where('id', '=', tracker.id).where('status', '=', 'started').execute();
  }
  return { retryAt: new Date(now.getTime() + (result.waitMs ?? 0)) };
}

async function ensureTrackers(deps: Deps, entity: BulkImportEntityRow, stamp: string): Promise<void> {
  const existing = await deps.db.selectFrom('bulk_import_trackers').select('relation').where('entity_id', '=', entity.id).execute();
  const have = new Set(existing.map((r) => r.relation));
  const wanted = pipelinesOf(entity.entity_type).filter((p) => !have.has(p.relation) && (p.relation !== 'projects' || entity.migrate_projects === 1) && (p.relation !== 'members' || entity.migrate_memberships === 1));
  if (wanted.length === 0) return;
  await deps.db
    .insertInto('bulk_import_trackers')
    .values(wanted.map((p) => ({ entity_id: entity.id, relation: p.relation, stage: p.stage, status: 'created', cursor: null, created_at: stamp, updated_at: stamp })))
    .onConflict((oc) => oc.columns(['entity_id', 'relation']).doNothing())
    .execute();
}

function exceptionClass(err: unknown): string {
  if (err instanceof SourceNetworkError) return err.className;
  if (err instanceof SourceExportError) return 'BulkImports::Error';
  if (err instanceof DomainError) return 'ActiveRecord::RecordInvalid';
  return (err as Error)?.constructor?.name ?? 'StandardError';
}

function exceptionMessage(err: unknown): string {
  const e = err as { message?: unknown; body?: unknown };
  let text = typeof e?.message === 'string' ? e.message : String(err);
  if (err instanceof DomainError) text = JSON.stringify((err as unknown as { body?: unknown }).body ?? text);
  return text.slice(0, 72);
}

async function recordFailure(deps: Deps, entity: BulkImportEntityRow, def: PipelineDef, err: unknown, step = 'extractor', sourceTitle: string | null = null): Promise<void> {
  const now = deps.clock.now().toISOString();
  await deps.db
    .insertInto('bulk_import_failures')
    .values({
      entity_id: entity.id,
      relation: def.relation,
      step: err instanceof SourceNetworkError ? 'extractor' : step,
      exception_message: exceptionMessage(err),
      exception_class: exceptionClass(err),
      correlation_id_value: null,
      pipeline_class: def.pipelineClass,
      source_url: null,
      source_title: sourceTitle,
      created_at: now,
    })
    .execute();
  await deps.db.updateTable('bulk_import_entities').set({ has_failures: 1, updated_at: now }).where('id', '=', entity.id).execute();
  await deps.db.updateTable('bulk_imports').set({ has_failures: 1, updated_at: now }).where('id', '=', entity.bulk_import_id).execute();
}

async function finishEntity(deps: Deps, entityId: number): Promise<void> {
  const now = deps.clock.now().toISOString();
  await deps.db.updateTable('bulk_import_entities').set({ status: 'finished', updated_at: now }).where('id', '=', entityId).where('status', '=', 'started').execute();
  await settleImport(deps, entityId);
}

async function failEntity(deps: Deps, entityId: number): Promise<void> {
  const now = deps.clock.now().toISOString();
  await deps.db.updateTable('bulk_import_entities').set({ status: 'failed', has_failures: 1, updated_at: now }).where('id', '=', entityId).where('status', 'in', ['created', 'started']).execute();
  await settleImport(deps, entityId);
}

/** The migration ends when every entity has: failed when all failed, finished otherwise. */
async function settleImport(deps: Deps, entityId: number): Promise<void> {
  const entity = await deps.db.selectFrom('bulk_import_entities').select('bulk_import_id').where('id', '=', entityId).executeTakeFirstOrThrow();
  const rows = await deps.db.selectFrom('bulk_import_entities').select(['status', 'has_failures']).where('bulk_import_id', '=', entity.bulk_import_id).execute();
  if (rows.some((r) => !TERMINAL.includes(r.status))) return;
  const status = rows.every((r) => r.status === 'timeout') ? 'timeout' : rows.every((r) => r.status === 'failed' || r.status === 'timeout') ? 'failed' : 'finished';
  const hasFailures = rows.some((r) => r.has_failures === 1 || r.status === 'failed' || r.status === 'timeout') ? 1 : 0;
  await deps.db
    .updateTable('bulk_imports')
    .set({ status, has_failures: hasFailures, updated_at: deps.clock.now().toISOString() })
    .where('id', '=', entity.bulk_import_id)
    .where('status', 'in', ['created', 'started'])
    .execute();
}

/** Inside a step's transaction: stop when the migration was canceled meanwhile. */
async function assertRunning(trx: Kysely<Database>, entityId: number): Promise<void> {
  const row = await trx.selectFrom('bulk_import_entities').select('status').where('id', '=', entityId).executeTakeFirst();
  if (!row || row.status !== 'started') throw new StepCanceled();
}

async function runStep(env: StepEnv): Promise<StepResult> {
  switch (env.def.kind) {
    case 'attributes':
      return env.entity.entity_type === 'group' ? importGroupAttributes(env) : importProjectAttributes(env);
    case 'rest':
      return importChildEntities(env);
    case 'ndjson':
      return importNdjsonBatch(env);
  }
}

const VIS_RANK: Record<string, number> = { private: 0, internal: 1, public: 2 };
function capVisibility(wanted: string, parentVisibility: string | null): string {
  if (!parentVisibility) return wanted;
  return (VIS_RANK[wanted] ?? 0) > (VIS_RANK[parentVisibility] ?? 0) ? parentVisibility : wanted;
}

async function destinationParent(env: StepEnv): Promise<{ id: number; visibility: string } | null> {
  const ns = env.entity.destination_namespace;
  if (!ns) return null;
  const row = await env.deps.db.selectFrom('namespaces').select(['id', 'visibility']).where('kind', '=', 'group').where(sql`lower(full_path)`, '=', ns.toLowerCase()).executeTakeFirst();
  if (!row) throw new DestinationError(`Destination namespace ${ns} not found`);
  return row;
}

class DestinationError extends Error {}

const destPath = (e: BulkImportEntityRow) => (e.destination_namespace ? `${e.destination_namespace}/${e.destination_slug}` : e.destination_slug);

async function importGroupAttributes(env: StepEnv): Promise<StepResult> {
  const { entity, deps } = env;
  if (entity.namespace_id) return { done: true };
  const src = (await env.source.json('GET', `/groups/${enc(entity.source_full_path)}`)).body;
  const parent = await destinationParent(env);
  const full = destPath(entity);
  // A step cut short after the group was created: adopt it (the path was free at start).
  let existing = await deps.db.selectFrom('namespaces').select('id').where('kind', '=', 'group').where(sql`lower(full_path)`, '=', full.toLowerCase()).executeTakeFirst();
  if (!existing) {
    const input = parseParams(CreateGroupInput, {
      name: src.name,
      path: entity.destination_slug,
      ...(parent ? { parent_id: parent.id } : {}),
      description: src.description ?? '',
      visibility: capVisibility(src.visibility ?? 'private', parent?.visibility ?? null),
      ...(src.project_creation_level ? { project_creation_level: src.project_creation_level } : {}),
      ...(src.subgroup_creation_level ? { subgroup_creation_level: src.subgroup_creation_level } : {}),
      ...(typeof src.request_access_enabled === 'boolean' ? { request_access_enabled: src.request_access_enabled } : {}),
      ...(typeof src.lfs_enabled === 'boolean' ? { lfs_enabled: src.lfs_enabled } : {}),
    });
    const group = await createGroup(env.ctx, input);
    existing = { id: group.id };
  }
  await deps.db
    .updateTable('bulk_import_entities')
    .set({ namespace_id: existing.id, source_xid: src.id ?? null, destination_name: src.name ?? entity.destination_name, updated_at: nowIso(deps) })
    .where('id', '=', entity.id)
    .execute();
  return { done: true };
}

async function importProjectAttributes(env: StepEnv): Promise<StepResult> {
  const { entity, deps } = env;
  if (entity.project_id) return { done: true };
  const src = (await env.source.json('GET', `/projects/${enc(entity.source_full_path)}`)).body;
  const parent = await destinationParent(env);
  const full = destPath(entity);
  let existing = await deps.db.selectFrom('projects').select('id').where(sql`lower(path_with_namespace)`, '=', full.toLowerCase()).executeTakeFirst();
  if (!existing) {
    const flag = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
    const raw: Record<string, unknown> = {
      name: src.name,
      path: entity.destination_slug,
      namespace_id: String(parent!.id),
      description: src.description ?? '',
      visibility: capVisibility(src.visibility ?? 'private', parent?.visibility ?? null),
    };
    if (src.default_branch) raw.default_branch = src.default_branch;
    if (Array.isArray(src.topics)) raw.topics = src.topics;
    for (const k of ['issues_enabled', 'merge_requests_enabled', 'jobs_enabled', 'wiki_enabled', 'snippets_enabled']) if (flag(src[k]) !== undefined) raw[k] = src[k];
    let input;
    try {
      input = parseParams(CreateProjectInput, raw);
    } catch {
      input = parseParams(CreateProjectInput, { name: raw.name, path: raw.path, namespace_id: raw.namespace_id, description: raw.description, visibility: raw.visibility });
    }
    const project = await createProject(env.ctx, input);
    existing = { id: project.id };
  }
  await deps.db
    .updateTable('bulk_import_entities')
    .set({ project_id: existing.id, source_xid: src.id ?? null, destination_name: src.name ?? entity.destination_name, updated_at: nowIso(deps) })
    .where('id', '=', entity.id)
    .execute();
  return { done: true };
}

/** subgroups / projects: one page of the source's list per step; each item becomes an entity. */
async function importChildEntities(env: StepEnv): Promise<StepResult> {
  const { entity, tracker, deps } = env;
  const page = tracker.cursor ? Number(JSON.parse(tracker.cursor).page) : 1;
  const path = tracker.relation === 'subgroups' ? `/groups/${enc(entity.source_full_path)}/subgroups` : `/groups/${enc(entity.source_full_path)}/projects`;
  const query = tracker.relation === 'subgroups' ? { per_page: PAGE_SIZE, page, all_available: true } : { per_page: PAGE_SIZE, page, include_subgroups: false, with_shared: false };
  const res = await env.source.json<any[]>('GET', path, query);
  const items = Array.isArray(res.body) ? res.body : [];
  const total = Number(res.headers.get('x-total') ?? NaN);
  const nextPage = res.headers.get('x-next-page');
  const group = await deps.db.selectFrom('namespaces').select('full_path').where('id', '=', entity.namespace_id!).executeTakeFirstOrThrow();
  const now = nowIso(deps);
  const created: number[] = [];
  await deps.db.transaction().execute(async (trx) => {
    await assertRunning(trx, entity.id);
    let imported = 0;
    for (const item of items) {
      const sourceId = String(item.id);
      const seen = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entity.id).where('relation', '=', tracker.relation).where('source_id', '=', sourceId).executeTakeFirst();
      if (seen) continue;
      const child = await trx
        .insertInto('bulk_import_entities')
        .values({
          bulk_import_id: entity.bulk_import_id,
          status: 'created',
          entity_type: tracker.relation === 'subgroups' ? 'group' : 'project',
          source_full_path: item.full_path ?? item.path_with_namespace,
          source_xid: item.id ?? null,
          destination_name: item.path,
          destination_slug: item.path,
          destination_namespace: group.full_path,
          parent_id: entity.id,
          namespace_id: null,
          project_id: null,
          migrate_projects: entity.migrate_projects,
          migrate_memberships: entity.migrate_memberships,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.insertInto('bulk_import_source_ids').values({ entity_id: entity.id, relation: tracker.relation, source_id: sourceId, destination_id: child.id }).execute();
      await enqueueEntity(deps, trx, child.id);
      created.push(child.id);
      imported++;
    }
    await trx
      .updateTable('bulk_import_trackers')
      .set((eb) => ({
        cursor: JSON.stringify({ page: page + 1 }),
        source_count: Number.isFinite(total) ? total : eb('source_count', '+', items.length),
        fetched_count: eb('fetched_count', '+', items.length),
        imported_count: eb('imported_count', '+', imported),
        updated_at: now,
      }))
      .where('id', '=', tracker.id)
      .execute();
  });
  return { done: !nextPage || items.length === 0 };
}

interface ExportStatus {
  relation: string;
  status: number;
  error: string | null;
  batched?: boolean;
  batches_count?: number;
  total_objects_count?: number;
}

/** NDJSON relations: request the exports once, poll the relation's status, download one batch per step. */
async function importNdjsonBatch(env: StepEnv): Promise<StepResult> {
  const { entity, tracker, deps, source } = env;
  const kind = entity.entity_type === 'group' ? 'groups' : 'projects';
  const base = `/${kind}/${enc(entity.source_full_path)}/export_relations`;
  if (entity.exports_requested === 0) {
    await source.json('POST', base, { batched: true });
    await deps.db.updateTable('bulk_import_entities').set({ exports_requested: 1 }).where('id', '=', entity.id).execute();
  }
  if (tracker.relation === 'epics' && !(await ancestorEpicsDone(deps.db, entity))) return { done: false, waitMs: 500 };
  const cursor = tracker.cursor ? (JSON.parse(tracker.cursor) as { batch: number; batches: number; batched: boolean; since?: string }) : null;
  if (!cursor || cursor.batches === undefined) {
    const res = await source.json<ExportStatus | ExportStatus[]>('GET', `${base}/status`, { relation: tracker.relation }, [404]);
    const status = Array.isArray(res.body) ? res.body.find((s) => s.relation === tracker.relation) : res.status === 404 ? undefined : res.body;
    const startedAt = cursor?.since ?? env.now.toISOString();
    if (!status || status.status === 0) {
      const waited = env.now.getTime() - new Date(startedAt).getTime();
      // A relation the source never lists (an older source, or one that does not export it) fails sooner.
      if (!status && waited > MISSING_EXPORT_LIMIT_MS) throw new SourceExportError(`Export of ${tracker.relation} is not available on the source instance`);
      if (waited > EXPORT_WAIT_LIMIT_MS) throw new SourceExportError('Empty export status on source instance');
      await deps.db.updateTable('bulk_import_trackers').set({ cursor: JSON.stringify({ since: startedAt }) }).where('id', '=', tracker.id).execute();
      return { done: false, waitMs: EXPORT_POLL_MS };
    }
    if (status.status === -1) throw new SourceExportError(status.error ?? 'Export failed on source instance');
    const batched = Boolean(status.batched);
    const next = { batch: 1, batches: batched ? Math.max(1, status.batches_count ?? 1) : 1, batched };
    await deps.db
      .updateTable('bulk_import_trackers')
      .set({ cursor: JSON.stringify(next), source_count: status.total_objects_count ?? 0 })
      .where('id', '=', tracker.id)
      .execute();
    return { done: false };
  }
  if (cursor.batch > cursor.batches) return { done: true };
  const records = await source.ndjson(`${base}/download`, cursor.batched ? { relation: tracker.relation, batched: true, batch_number: cursor.batch } : { relation: tracker.relation });
  const now = nowIso(deps);
  const users = new UserMapper(deps.db, env.ctx.actor.user!, deps.secrets);
  await deps.db.transaction().execute(async (trx) => {
    await assertRunning(trx, entity.id);
    let imported = 0;
    for (const record of records as any[]) {
      const sourceId = String(record.id ?? record.iid ?? JSON.stringify(record).slice(0, 200));
      const seen = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entity.id).where('relation', '=', tracker.relation).where('source_id', '=', sourceId).executeTakeFirst();
      if (seen) continue;
      const destId = await importRecord(trx, entity, tracker.relation, record, users, now, deps.blobs);
      // null: nothing to import for this record (a member without a matching user).
      await trx.insertInto('bulk_import_source_ids').values({ entity_id: entity.id, relation: tracker.relation, source_id: sourceId, destination_id: destId ?? 0 }).execute();
      if (destId !== null) imported++;
    }
    await trx
      .updateTable('bulk_import_trackers')
      .set((eb) => ({
        cursor: JSON.stringify({ ...cursor, batch: cursor.batch + 1 }),
        fetched_count: eb('fetched_count', '+', records.length),
        imported_count: eb('imported_count', '+', imported),
        updated_at: now,
      }))
      .where('id', '=', tracker.id)
      .execute();
  });
  return { done: cursor.batch + 1 > cursor.batches };
}

/** Epics of a subgroup wait for the epics of the groups above it (their parents may be there). */
async function ancestorEpicsDone(db: Kysely<Database>, entity: BulkImportEntityRow): Promise<boolean> {
  let parentId = entity.parent_id;
  while (parentId !== null) {
    const parent = await db.selectFrom('bulk_import_entities').select(['id', 'status', 'parent_id']).where('id', '=', parentId).executeTakeFirst();
    if (!parent) return true;
    if (!TERMINAL.includes(parent.status)) {
      const t = await db.selectFrom('bulk_import_trackers').select('status').where('entity_id', '=', parent.id).where('relation', '=', 'epics').executeTakeFirst();
      if (!t || ['created', 'started'].includes(t.status)) return false;
    }
    parentId = parent.parent_id;
  }
  return true;
}

class SourceExportError extends Error {
  override name = 'BulkImports::Error';
}

/** Source authors map to destination users by email; otherwise to the importing user. */
class UserMapper {
  private cache = new Map<string, UserRow | null>();
  constructor(private readonly db: Kysely<Database>, readonly importer: UserRow, readonly secrets: Deps['secrets']) {}

  async map(trx: Kysely<Database>, author: { email?: string | null } | null | undefined): Promise<UserRow | null> {
    const email = author?.email?.toLowerCase();
    if (!email) return null;
    if (!this.cache.has(email)) {
      const u = await trx
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or([eb(sql`lower(email)`, '=', email), eb(sql`lower(public_email)`, '=', email)]))
        .executeTakeFirst();
      this.cache.set(email, u ?? null);
    }
    return this.cache.get(email) ?? null;
  }
}

/** GitLab's note for contributions whose author has no destination account. */
export function missingAuthorNote(name: string, at: string): string {
  return `\n\n *By ${name} on ${at.split('.')[0]} (imported from GitLab)*`;
}

async function bumpIid(trx: Kysely<Database>, usage: string, scope: string, value: number): Promise<void> {
  await sql`insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, ${value})
    on conflict (usage, scope) do update set last_value = case when internal_ids.last_value < excluded.last_value then excluded.last_value else internal_ids.last_value end`.execute(trx);
}

async function freeIid(trx: Kysely<Database>, table: 'issues' | 'milestones', col: 'project_id' | 'group_id', ownerId: number, wanted: unknown, usage: string, scope: string): Promise<number> {
  const iid = typeof wanted === 'number' && wanted > 0 ? wanted : null;
  if (iid !== null) {
    const taken = await trx.selectFrom(table).select('id').where(col, '=', ownerId).where('iid', '=', iid).executeTakeFirst();
    if (!taken) {
      await bumpIid(trx, usage, scope, iid);
      return iid;
    }
  }
  const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, 1)
    on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
  return Number(row.rows[0]!.last_value);
}

const str = (v: unknown, fallback: string | null = null) => (typeof v === 'string' ? v : fallback);

async function importRecord(trx: Kysely<Database>, entity: BulkImportEntityRow, relation: string, r: any, users: UserMapper, now: string, blobs: Deps['blobs']): Promise<number | null> {
  const owner = entity.entity_type === 'group' ? { col: 'group_id' as const, id: entity.namespace_id! } : { col: 'project_id' as const, id: entity.project_id! };
  const scope = entity.entity_type === 'group' ? `group:${owner.id}` : `project:${owner.id}`;
  if (relation === 'labels') {
    const title = str(r.title, '')!;
    const existing = await trx.selectFrom('labels').select('id').where(owner.col, '=', owner.id).where('title', '=', title).executeTakeFirst();
    if (existing) return existing.id;
    const row = await trx
      .insertInto('labels')
      .values({
        project_id: owner.col === 'project_id' ? owner.id : null,
        group_id: owner.col === 'group_id' ? owner.id : null,
        title,
        color: str(r.color, '#428BCA')!,
        description: str(r.description),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  if (relation === 'milestones') {
    const title = str(r.title, '')!;
    const existing = await trx.selectFrom('milestones').select('id').where(owner.col, '=', owner.id).where('title', '=', title).executeTakeFirst();
    if (existing) return existing.id;
    const iid = await freeIid(trx, 'milestones', owner.col, owner.id, r.iid, 'milestones', scope);
    const row = await trx
      .insertInto('milestones')
      .values({
        project_id: owner.col === 'project_id' ? owner.id : null,
        group_id: owner.col === 'group_id' ? owner.id : null,
        iid,
        title,
        description: str(r.description),
        state: r.state === 'closed' ? 'closed' : 'active',
        start_date: str(r.start_date),
        due_date: str(r.due_date),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  if (relation === 'issues') return importIssue(trx, entity, r, users, now);
  if (relation === 'epics') return importEpic(trx, entity, r, users, now);
  if (relation === 'members') return importMember(trx, entity, r, users, now);
  if (relation === 'releases') return importRelease(trx, entity, r, users, now);
  if (relation === 'packages') return importPackage(trx, entity, r, blobs, now);
  if (relation === 'merge_requests') return importMergeRequest(trx, entity, r, users, now);
  if (relation === 'repository') return importRepositoryRecord(trx, entity, r, users, now);
  if (relation === 'snippets') return importSnippet(trx, entity, r, users, now);
  if (relation === 'protected_branches') return importProtectedBranch(trx, entity, r, users, now);
  if (relation === 'iterations_cadences') return importCadence(trx, entity, r, now);
  if (relation === 'pipeline_schedules') return importSchedule(trx, entity, r, users, now);
  throw new Error(`unknown relation ${relation}`);
}

/** Group ids from the project's namespace up to the root (milestones and labels resolve there too). */
async function ancestorGroupIds(trx: Kysely<Database>, projectId: number): Promise<number[]> {
  const row = await trx.selectFrom('projects as p').innerJoin('namespaces as n', 'n.id', 'p.namespace_id').select(['n.traversal', 'n.kind']).where('p.id', '=', projectId).executeTakeFirstOrThrow();
  if (row.kind !== 'group') return [];
  return row.traversal.split('/').filter(Boolean).map(Number);
}

async function importIssue(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const groups = await ancestorGroupIds(trx, projectId);
  const author = await users.map(trx, r.author);
  const authorId = author?.id ?? users.importer.id;
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  let milestoneId: number | null = null;
  if (r.milestone?.title) {
    const m = await trx
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', r.milestone.title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    milestoneId = m?.id ?? null;
  }
  const closedBy = r.closed_by ? await users.map(trx, r.closed_by) : null;
  const iid = await freeIid(trx, 'issues', 'project_id', projectId, r.iid, 'issues', `project:${projectId}`);
  const issue = await trx
    .insertInto('issues')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description,
      state: r.state === 'closed' ? 'closed' : 'opened',
      issue_type: typeof r.issue_type === 'string' ? r.issue_type : 'issue',
      confidential: r.confidential ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      author_id: authorId,
      milestone_id: milestoneId,
      due_date: str(r.due_date),
      weight: typeof r.weight === 'number' ? r.weight : null,
      closed_at: r.state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: r.state === 'closed' ? (closedBy?.id ?? (r.closed_by ? users.importer.id : null)) : null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Labels: by title in the project or its groups; a missing one is created in the project.
  const titles = [...new Set(((r.label_links ?? []) as any[]).map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))];
  for (const title of titles) {
    let label = await trx
      .selectFrom('labels')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (!label) {
      const src = (r.label_links as any[]).find((l) => l?.label?.title === title)!.label;
      label = await trx
        .insertInto('labels')
        .values({ project_id: projectId, group_id: null, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Issue', target_id: issue.id, created_at: now }).execute();
  }
  const assigneeIds: number[] = [];
  for (const a of (r.assignees ?? []) as any[]) {
    const u = await users.map(trx, a);
    if (u && !assigneeIds.includes(u.id)) assigneeIds.push(u.id);
  }
  if (assigneeIds.length) await trx.insertInto('issue_assignees').values(assigneeIds.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
  await importEmoji(trx, 'Issue', issue.id, r.award_emoji, users, now);
  for (const e of (r.resource_state_events ?? []) as any[]) {
    if (!['opened', 'closed', 'reopened', 'locked'].includes(e?.state)) continue;
    const u = e.user ? await users.map(trx, e.user) : null;
    await trx
      .insertInto('resource_state_events')
      .values({ user_id: u?.id ?? users.importer.id, issue_id: issue.id, merge_request_id: null, epic_id: null, state: e.state, source_commit: null, source_merge_request_id: null, created_at: str(e.created_at, now)! })
      .execute();
  }
  for (const n of (r.notes ?? []) as any[]) {
    const na = await users.map(trx, n.author);
    let body = str(n.note, '')!;
    if (!na && n.author?.name) body = `${body}${missingAuthorNote(n.author.name, str(n.created_at, now)!)}`;
    const note = await trx
      .insertInto('notes')
      .values({
        project_id: projectId,
        noteable_type: 'Issue',
        noteable_id: issue.id,
        body,
        author_id: na?.id ?? users.importer.id,
        system: n.system ? 1 : 0,
        internal: n.internal ? 1 : 0,
        created_at: str(n.created_at, now)!,
        updated_at: str(n.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await importEmoji(trx, 'Note', note.id, n.award_emoji, users, now);
  }
  return issue.id;
}

/** Members: only users found by email are added (as GitLab does); the importer keeps Owner. */
async function importMember(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number | null> {
  const user = await users.map(trx, r.user);
  if (!user) return null;
  const source = entity.entity_type === 'group' ? { kind: 'namespace' as const, id: entity.namespace_id! } : { kind: 'project' as const, id: entity.project_id! };
  const existing = await trx.selectFrom('members').select(['id', 'access_level']).where('source_kind', '=', source.kind).where('source_id', '=', source.id).where('user_id', '=', user.id).executeTakeFirst();
  if (existing) return existing.id;
  const level = typeof r.access_level === 'number' ? r.access_level : 10;
  const row = await trx
    .insertInto('members')
    .values({
      source_kind: source.kind,
      source_id: source.id,
      user_id: user.id,
      access_level: entity.entity_type === 'project' ? Math.min(level, 50) : level,
      expires_at: str(r.expires_at),
      member_role_id: null,
      created_by_id: users.importer.id,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The destination id of a source epic: this entity's, or the one of the entity that imported its group. */
async function mappedEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, parent: { id: number; group_full_path?: string }): Promise<number | null> {
  let entityId = entity.id;
  if (parent.group_full_path && parent.group_full_path !== entity.source_full_path) {
    const other = await trx
      .selectFrom('bulk_import_entities')
      .select('id')
      .where('bulk_import_id', '=', entity.bulk_import_id)
      .where('entity_type', '=', 'group')
      .where('source_full_path', '=', parent.group_full_path)
      .executeTakeFirst();
    if (!other) return null;
    entityId = other.id;
  }
  const row = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entityId).where('relation', '=', 'epics').where('source_id', '=', String(parent.id)).executeTakeFirst();
  return row && row.destination_id > 0 ? row.destination_id : null;
}

async function importEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const groupId = entity.namespace_id!;
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  const taken = typeof r.iid === 'number' ? await trx.selectFrom('epics').select('id').where('group_id', '=', groupId).where('iid', '=', r.iid).executeTakeFirst() : undefined;
  let iid: number;
  if (typeof r.iid === 'number' && !taken) {
    iid = r.iid;
    await bumpIid(trx, 'epics', `group:${groupId}`, iid);
  } else {
    const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'epics'}, ${`group:${groupId}`}, 1)
      on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
    iid = Number(row.rows[0]!.last_value);
  }
  const parentId = r.parent ? await mappedEpic(trx, entity, r.parent) : null;
  const epic = await trx
    .insertInto('epics')
    .values({
      group_id: groupId,
      iid,
      title: str(r.title, '')!,
      description,
      state: r.state === 'closed' ? 'closed' : 'opened',
      author_id: author?.id ?? users.importer.id,
      parent_id: parentId,
      relative_position: typeof r.relative_position === 'number' ? r.relative_position : null,
      confidential: r.confidential ? 1 : 0,
      start_date_fixed: str(r.start_date_fixed),
      start_date_is_fixed: r.start_date_is_fixed ? 1 : 0,
      due_date_fixed: str(r.due_date_fixed),
      due_date_is_fixed: r.due_date_is_fixed ? 1 : 0,
      ...(typeof r.color === 'string' ? { color: r.color } : {}),
      closed_at: r.state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const ancestors = (await trx.selectFrom('namespaces').select('traversal').where('id', '=', groupId).executeTakeFirstOrThrow()).traversal.split('/').filter(Boolean).map(Number);
  for (const title of [...new Set(((r.label_links ?? []) as any[]).map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))]) {
    let label = await trx.selectFrom('labels').select('id').where('title', '=', title).where('group_id', 'in', ancestors).executeTakeFirst();
    if (!label) {
      const src = (r.label_links as any[]).find((l) => l?.label?.title === title)!.label;
      label = await trx.insertInto('labels').values({ project_id: null, group_id: groupId, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Epic', target_id: epic.id, created_at: now }).execute();
  }
  return epic.id;
}

/** Reactions of mapped users only (a reaction is one user's; GitLab drops the others too). */
async function importEmoji(trx: Kysely<Database>, type: 'Issue' | 'Note' | 'MergeRequest', id: number, list: unknown, users: UserMapper, now: string): Promise<void> {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  for (const e of list as any[]) {
    if (typeof e?.name !== 'string') continue;
    const u = await users.map(trx, e.user);
    if (!u || seen.has(`${u.id}:${e.name}`)) continue;
    seen.add(`${u.id}:${e.name}`);
    await trx.insertInto('award_emoji').values({ name: e.name, user_id: u.id, awardable_type: type, awardable_id: id, created_at: str(e.created_at, now)!, updated_at: str(e.updated_at, now)! }).execute();
  }
}

async function importRelease(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const tag = str(r.tag, '')!;
  const existing = await trx.selectFrom('releases').select('id').where('project_id', '=', projectId).where('tag_name', '=', tag).executeTakeFirst();
  if (existing) return existing.id;
  const author = r.author ? await users.map(trx, r.author) : null;
  const release = await trx
    .insertInto('releases')
    .values({
      project_id: projectId,
      tag_name: tag,
      name: str(r.name, tag)!,
      description: str(r.description),
      author_id: author?.id ?? users.importer.id,
      sha: str(r.sha, '')!,
      released_at: str(r.released_at, now)!,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const l of (r.links ?? []) as any[]) {
    if (typeof l?.name !== 'string' || typeof l?.url !== 'string') continue;
    await trx
      .insertInto('release_links')
      .values({ release_id: release.id, name: l.name, url: l.url, filepath: str(l.filepath), link_type: str(l.link_type, 'other')!, created_at: str(l.created_at, now)!, updated_at: str(l.updated_at, now)! })
      .execute();
  }
  const groups = await ancestorGroupIds(trx, projectId);
  for (const title of (r.milestone_titles ?? []) as unknown[]) {
    if (typeof title !== 'string') continue;
    const m = await trx
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (m) await trx.insertInto('release_milestones').values({ release_id: release.id, milestone_id: m.id }).execute();
  }
  return release.id;
}

/** Schedules arrive inactive (as GitLab imports them): owned by the mapped user or the importer. */
async function importSchedule(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const owner = r.owner ? await users.map(trx, r.owner) : null;
  const schedule = await trx
    .insertInto('ci_pipeline_schedules')
    .values({
      project_id: entity.project_id!,
      description: str(r.description, '')!,
      ref: str(r.ref, '')!,
      cron: str(r.cron, '0 0 * * *')!,
      cron_timezone: str(r.cron_timezone, 'UTC')!,
      next_run_at: null,
      active: 0,
      owner_id: owner?.id ?? users.importer.id,
      last_error: null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const v of (r.variables ?? []) as any[]) {
    if (typeof v?.key !== 'string') continue;
    await trx
      .insertInto('ci_pipeline_schedule_variables')
      .values({
        pipeline_schedule_id: schedule.id,
        key: v.key,
        value_encrypted: users.secrets.encrypt(String(v.value ?? '')),
        variable_type: v.variable_type === 'file' ? 'file' : 'env_var',
        raw: v.raw ? 1 : 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  return schedule.id;
}

async function importSnippet(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  const row = await trx
    .insertInto('snippets')
    .values({
      project_id: entity.project_id!,
      title: str(r.title, '')!,
      description,
      file_name: str(r.file_name, '')!,
      content: str(r.content, '')!,
      visibility: ['private', 'internal', 'public'].includes(r.visibility) ? r.visibility : 'private',
      author_id: author?.id ?? users.importer.id,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A protection with its role levels (and mapped users); an existing one of that name takes the source's levels. */
async function importProtectedBranch(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const name = str(r.name, '')!;
  let pb = await trx.selectFrom('protected_branches').select('id').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
  if (pb) {
    await trx.updateTable('protected_branches').set({ allow_force_push: r.allow_force_push ? 1 : 0, code_owner_approval_required: r.code_owner_approval_required ? 1 : 0, updated_at: now }).where('id', '=', pb.id).execute();
    await trx.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', pb.id).execute();
  } else {
    pb = await trx
      .insertInto('protected_branches')
      .values({ project_id: projectId, name, allow_force_push: r.allow_force_push ? 1 : 0, code_owner_approval_required: r.code_owner_approval_required ? 1 : 0, created_at: str(r.created_at, now)!, updated_at: str(r.updated_at, now)! })
      .returning('id')
      .executeTakeFirstOrThrow();
  }
  for (const l of (r.access_levels ?? []) as any[]) {
    if (!['push', 'merge', 'unprotect'].includes(l?.action)) continue;
    if (l.user) {
      const u = await users.map(trx, l.user);
      if (!u) continue;
      await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action: l.action, access_level: null, user_id: u.id, group_id: null }).execute();
    } else if (typeof l.access_level === 'number') {
      await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action: l.action, access_level: l.access_level, user_id: null, group_id: null }).execute();
    }
  }
  return pb.id;
}

/** A cadence with its iterations (iids kept). Scheduling of automatic cadences resumes when the cadence is next saved. */
async function importCadence(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, now: string): Promise<number> {
  const groupId = entity.namespace_id!;
  const cadence = await trx
    .insertInto('iteration_cadences')
    .values({
      group_id: groupId,
      title: str(r.title, '')!,
      description: str(r.description),
      start_date: str(r.start_date, now.slice(0, 10))!,
      duration_in_weeks: typeof r.duration_in_weeks === 'number' ? r.duration_in_weeks : null,
      iterations_in_advance: typeof r.iterations_in_advance === 'number' ? r.iterations_in_advance : null,
      automatic: r.automatic ? 1 : 0,
      active: r.active === false ? 0 : 1,
      roll_over: r.roll_over ? 1 : 0,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const i of (r.iterations ?? []) as any[]) {
    const taken = typeof i.iid === 'number' ? await trx.selectFrom('iterations').select('id').where('group_id', '=', groupId).where('iid', '=', i.iid).executeTakeFirst() : undefined;
    let iid: number;
    if (typeof i.iid === 'number' && !taken) {
      iid = i.iid;
      await bumpIid(trx, 'iterations', `group:${groupId}`, iid);
    } else {
      const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'iterations'}, ${`group:${groupId}`}, 1)
        on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
      iid = Number(row.rows[0]!.last_value);
    }
    await trx
      .insertInto('iterations')
      .values({
        group_id: groupId,
        iteration_cadence_id: cadence.id,
        iid,
        sequence: typeof i.sequence === 'number' ? i.sequence : 1,
        title: str(i.title),
        description: str(i.description),
        start_date: str(i.start_date, now.slice(0, 10))!,
        due_date: str(i.due_date, now.slice(0, 10))!,
        created_at: str(i.created_at, now)!,
        updated_at: str(i.updated_at, now)!,
      })
      .execute();
  }
  return cadence.id;
}

/** Repository records (blobs, commits, refs with their files) copied as they are: shas are kept. */
async function importRepositoryRecord(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  if (r.type === 'blob') {
    const existing = await trx.selectFrom('repository_blobs').select('id').where('project_id', '=', projectId).where('sha', '=', r.sha).executeTakeFirst();
    if (existing) return existing.id;
    const row = await trx.insertInto('repository_blobs').values({ project_id: projectId, sha: String(r.sha), size: Number(r.size ?? 0), content: String(r.content ?? '') }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }
  if (r.type === 'commit') {
    const existing = await trx.selectFrom('repository_commits').select('id').where('project_id', '=', projectId).where('sha', '=', r.sha).executeTakeFirst();
    if (existing) return existing.id;
    const user = r.user ? await users.map(trx, r.user) : null;
    const parents: string[] = Array.isArray(r.parent_ids) ? r.parent_ids.map(String) : [];
    const row = await trx
      .insertInto('repository_commits')
      .values({
        project_id: projectId,
        sha: String(r.sha),
        parent_ids: JSON.stringify(parents),
        title: str(r.title, '')!,
        message: str(r.message, '')!,
        author_name: str(r.author_name, '')!,
        author_email: str(r.author_email, '')!,
        authored_date: str(r.authored_date, now)!,
        committer_name: str(r.committer_name, '')!,
        committer_email: str(r.committer_email, '')!,
        committed_date: str(r.committed_date, now)!,
        user_id: user?.id ?? null,
        created_at: str(r.created_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (parents.length) await trx.insertInto('repository_commit_parents').values(parents.map((parent_sha, position) => ({ commit_id: row.id, parent_sha, position }))).execute();
    const changes = (Array.isArray(r.changes) ? r.changes : []).filter((c: any) => typeof c?.path === 'string');
    if (changes.length) {
      await trx
        .insertInto('repository_commit_changes')
        .values(changes.map((c: any) => ({ commit_id: row.id, path: c.path, previous_path: str(c.previous_path), change: c.change, additions: Number(c.additions ?? 0), deletions: Number(c.deletions ?? 0) })))
        .execute();
    }
    return row.id;
  }
  if (r.type === 'ref') {
    const kind = r.kind === 'tag' ? 'tag' : 'branch';
    const existing = await trx.selectFrom('repository_refs').select('id').where('project_id', '=', projectId).where('kind', '=', kind).where('name', '=', r.name).executeTakeFirst();
    if (existing) return existing.id;
    const ref = await trx
      .insertInto('repository_refs')
      .values({
        project_id: projectId,
        kind,
        name: String(r.name),
        commit_sha: String(r.commit_sha),
        message: str(r.message),
        tagger_name: str(r.tagger_name),
        tagger_email: str(r.tagger_email),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const files = (Array.isArray(r.files) ? r.files : []).filter((f: any) => typeof f?.path === 'string');
    for (let i = 0; i < files.length; i += 200) {
      await trx
        .insertInto('repository_files')
        .values(files.slice(i, i + 200).map((f: any) => ({ ref_id: ref.id, path: f.path, blob_sha: String(f.blob_sha), last_commit_sha: String(f.last_commit_sha), executable: f.executable ? 1 : 0 })))
        .execute();
    }
    return ref.id;
  }
  throw new Error(`unknown repository record ${String(r.type)}`);
}

/** Labels by title in the project or its groups (a missing one is created in the project), linked to a target. */
async function linkLabels(trx: Kysely<Database>, projectId: number, groups: number[], targetType: 'Issue' | 'MergeRequest', targetId: number, labelLinks: unknown, now: string): Promise<void> {
  const list = Array.isArray(labelLinks) ? (labelLinks as any[]) : [];
  const titles = [...new Set(list.map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))];
  for (const title of titles) {
    let label = await trx
      .selectFrom('labels')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (!label) {
      const src = list.find((l) => l?.label?.title === title)!.label;
      label = await trx
        .insertInto('labels')
        .values({ project_id: projectId, group_id: null, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: targetType, target_id: targetId, created_at: now }).execute();
  }
}

async function importMergeRequest(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const groups = await ancestorGroupIds(trx, projectId);
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  let milestoneId: number | null = null;
  if (r.milestone?.title) {
    const m = await trx
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', r.milestone.title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    milestoneId = m?.id ?? null;
  }
  // Merge request iids are scoped by the bare project id (create-merge-request.ts).
  const scope = String(projectId);
  let iid: number;
  const taken = typeof r.iid === 'number' ? await trx.selectFrom('merge_requests').select('id').where('project_id', '=', projectId).where('iid', '=', r.iid).executeTakeFirst() : undefined;
  if (typeof r.iid === 'number' && !taken) {
    iid = r.iid;
    await bumpIid(trx, 'merge_requests', scope, iid);
  } else {
    const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'merge_requests'}, ${scope}, 1)
      on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
    iid = Number(row.rows[0]!.last_value);
  }
  const state = ['opened', 'closed', 'merged', 'locked'].includes(r.state) ? r.state : 'opened';
  const mergedBy = r.merged_by ? await users.map(trx, r.merged_by) : null;
  const closedBy = r.closed_by ? await users.map(trx, r.closed_by) : null;
  const mr = await trx
    .insertInto('merge_requests')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description,
      state,
      source_branch: str(r.source_branch, '')!,
      target_branch: str(r.target_branch, '')!,
      source_project_id: projectId,
      author_id: author?.id ?? users.importer.id,
      milestone_id: milestoneId,
      sha: str(r.sha, '')!,
      merge_commit_sha: str(r.merge_commit_sha),
      squash_commit_sha: str(r.squash_commit_sha),
      draft: r.draft ? 1 : 0,
      squash: r.squash ? 1 : 0,
      should_remove_source_branch: r.should_remove_source_branch ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      merged_at: state === 'merged' ? str(r.merged_at, now) : null,
      merged_by_id: state === 'merged' ? (mergedBy?.id ?? (r.merged_by ? users.importer.id : null)) : null,
      closed_at: state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: state === 'closed' ? (closedBy?.id ?? (r.closed_by ? users.importer.id : null)) : null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await linkLabels(trx, projectId, groups, 'MergeRequest', mr.id, r.label_links, now);
  for (const [table, list] of [['merge_request_assignees', r.assignees], ['merge_request_reviewers', r.reviewers]] as const) {
    const ids: number[] = [];
    for (const a of (Array.isArray(list) ? list : []) as any[]) {
      const u = await users.map(trx, a);
      if (u && !ids.includes(u.id)) ids.push(u.id);
    }
    if (ids.length) await trx.insertInto(table).values(ids.map((user_id) => ({ merge_request_id: mr.id, user_id }))).execute();
  }
  await importEmoji(trx, 'MergeRequest', mr.id, r.award_emoji, users, now);
  for (const e of (r.resource_state_events ?? []) as any[]) {
    if (!['opened', 'closed', 'reopened', 'merged', 'locked'].includes(e?.state)) continue;
    const u = e.user ? await users.map(trx, e.user) : null;
    await trx
      .insertInto('resource_state_events')
      .values({ user_id: u?.id ?? users.importer.id, issue_id: null, merge_request_id: mr.id, epic_id: null, state: e.state, source_commit: null, source_merge_request_id: null, created_at: str(e.created_at, now)! })
      .execute();
  }
  for (const n of (r.notes ?? []) as any[]) {
    const na = await users.map(trx, n.author);
    let body = str(n.note, '')!;
    if (!na && n.author?.name) body = `${body}${missingAuthorNote(n.author.name, str(n.created_at, now)!)}`;
    const note = await trx
      .insertInto('notes')
      .values({ project_id: projectId, noteable_type: 'MergeRequest', noteable_id: mr.id, body, author_id: na?.id ?? users.importer.id, system: n.system ? 1 : 0, internal: n.internal ? 1 : 0, created_at: str(n.created_at, now)!, updated_at: str(n.updated_at, now)! })
      .returning('id')
      .executeTakeFirstOrThrow();
    await importEmoji(trx, 'Note', note.id, n.award_emoji, users, now);
  }
  return mr.id;
}

const PACKAGE_COLUMNS = [
  'package_type', 'name', 'lower_name', 'version', 'normalized_version', 'version_sort', 'prerelease', 'status', 'authors', 'description', 'summary', 'title', 'tags',
  'project_url', 'icon_url', 'license_url', 'dependency_groups', 'download_count', 'last_downloaded_at', 'created_at', 'updated_at',
] as const;

/** A package, its files (bytes into the blob store first; a rolled back step leaves only unreferenced blobs) and symbol entries. */
async function importPackage(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, blobs: Deps['blobs'], now: string): Promise<number> {
  const projectId = entity.project_id!;
  const values: Record<string, unknown> = { project_id: projectId };
  for (const c of PACKAGE_COLUMNS) if (r[c] !== undefined) values[c] = r[c];
  values.created_at ??= now;
  values.updated_at ??= now;
  const pkg = await trx.insertInto('packages').values(values as any).returning('id').executeTakeFirstOrThrow();
  for (const f of (Array.isArray(r.files) ? r.files : []) as any[]) {
    const bytes = Buffer.from(String(f.content ?? ''), 'base64');
    const key = `packages/nuget/${projectId}/${f.file_kind === 'symbol' ? 'symbols/' : ''}${randomBytes(12).toString('hex')}`;
    await blobs.put(key, bytes);
    const file = await trx
      .insertInto('package_files')
      .values({ package_id: pkg.id, file_kind: str(f.file_kind, 'package')!, file_name: str(f.file_name, '')!, blob_key: key, size: bytes.length, file_sha256: str(f.file_sha256, '')!, created_at: str(f.created_at, now)! })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const sym of (Array.isArray(f.symbols) ? f.symbols : []) as any[]) {
      await trx.insertInto('package_symbols').values({ ...sym, package_id: pkg.id, package_file_id: file.id }).execute();
    }
  }
  return pkg.id;
}
