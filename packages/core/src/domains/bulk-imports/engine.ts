/**
 * The transfer engine. One queued job per entity; each run does one step of one relation (a
 * page of REST results or one batch of an NDJSON export) and asks to run again. Every step
 * writes its rows, the source ids it imported and the tracker's progress in one transaction,
 * so a crash repeats at most the step in flight and never writes a row twice.
 */
import { selectUserById } from '../../access/users.js';
import { sql, type Kysely } from 'kysely';
import { contextFor, nowIso, type Ctx, type Deps } from '../../access/context.js';
import { DomainError } from '../../kernel/errors.js';
import { parseParams } from '../../kernel/params.js';
import type { Database } from '../../storage/database.js';
import { CreateGroupInput, createGroup } from '../accounts/index.js';
import { CreateProjectInput, createProject } from '../accounts/index.js';
import type { BulkImportEntityRow, BulkImportRow, BulkImportTrackerRow } from './bulk-import.table.js';
import { pipelineOf, pipelinesOf, type PipelineDef } from './pipelines.js';
import { enc, SourceClient, SourceNetworkError } from './source-client.js';
import { importMember, importRecord } from './import-records.js';
import { fetchPackageFiles } from './import-code.js';
import { MAX_PACKAGE_BYTES } from '../packages/index.js';
import { SourceUsers } from './source-users.js';
import { importRepositoryStep, isRepositoryCursor, pipelineClassOf, type RepositoryCursor } from './repository-step.js';
export { missingAuthorNote } from './import-records.js';

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
  const user = await selectUserById(deps.db, imp.user_id);
  if (!user) {
    await failEntity(deps, entity.id);
    return;
  }
  const ctx = contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
  const source = new SourceClient(deps.egress, imp.source_url, deps.secrets.decrypt(imp.source_token_encrypted));
  const fresh = (await deps.db.selectFrom('bulk_import_entities').selectAll().where('id', '=', entity.id).executeTakeFirstOrThrow());
  if (tracker.status === 'created') {
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'started', updated_at: stamp }).where('id', '=', tracker.id).execute();
  }
  let result: StepResult;
  try {
    result = await runStep({ deps, ctx, imp, entity: fresh, tracker, def, source, now });
  } catch (err) {
    if (err instanceof StepCanceled) return;
    await recordFailure(deps, fresh, def, err, 'extractor', null, pipelineClassOf(err) ?? def.pipelineClass);
    await deps.db.updateTable('bulk_import_trackers').set({ status: 'failed', updated_at: deps.clock.now().toISOString() }).where('id', '=', tracker.id).execute();
    // Without its group or project an entity has nothing to import into; a pipeline that aborts
    // on failure (GitLab's `abort_on_failure!`: the repository) fails the entity too.
    if (def.kind === 'attributes' || def.abortOnFailure) {
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
  if (err instanceof SourceExportError || (err as Error)?.name === 'BulkImports::Error') return 'BulkImports::Error';
  if (err instanceof DomainError) return 'ActiveRecord::RecordInvalid';
  return (err as Error)?.constructor?.name ?? 'StandardError';
}

function exceptionMessage(err: unknown): string {
  const e = err as { message?: unknown; body?: unknown };
  let text = typeof e?.message === 'string' ? e.message : String(err);
  if (err instanceof DomainError) text = JSON.stringify((err as unknown as { body?: unknown }).body ?? text);
  return text.slice(0, 72);
}

async function recordFailure(deps: Deps, entity: BulkImportEntityRow, def: PipelineDef, err: unknown, step = 'extractor', sourceTitle: string | null = null, pipelineClass = def.pipelineClass): Promise<void> {
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
      pipeline_class: pipelineClass,
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
      return env.def.relation === 'members' ? importMembersPage(env) : importChildEntities(env);
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

/**
 * members: one page of the source's direct members per step (REST, as `GET /groups/:id/members`
 * answers on GitLab and Forgelet); each is added when its user maps by email.
 */
async function importMembersPage(env: StepEnv): Promise<StepResult> {
  const { entity, tracker, deps } = env;
  const page = tracker.cursor ? Number(JSON.parse(tracker.cursor).page) : 1;
  const kind = entity.entity_type === 'group' ? 'groups' : 'projects';
  const res = await env.source.json<any[]>('GET', `/${kind}/${enc(entity.source_full_path)}/members`, { per_page: PAGE_SIZE, page });
  const items = (Array.isArray(res.body) ? res.body : []).filter((m) => typeof m?.id === 'number');
  const total = Number(res.headers.get('x-total') ?? NaN);
  const nextPage = res.headers.get('x-next-page');
  const users = new SourceUsers(deps.db, env.source, env.imp.id, env.ctx.actor.user!, deps.secrets);
  await users.load(items.map((m) => ({ user_id: m.id })));
  // An admin token sees members' emails in the list itself.
  for (const m of items) {
    if (!users.of(m.id).user && typeof m.email === 'string') users.remember(m.id, await users.byEmailAddress(m.email), typeof m.name === 'string' ? m.name : null);
  }
  const now = nowIso(deps);
  await deps.db.transaction().execute(async (trx) => {
    await assertRunning(trx, entity.id);
    let imported = 0;
    for (const m of items) {
      const sourceId = String(m.id);
      const seen = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entity.id).where('relation', '=', tracker.relation).where('source_id', '=', sourceId).executeTakeFirst();
      if (seen) continue;
      const destId = await importMember(trx, entity, m, users, now);
      await trx.insertInto('bulk_import_source_ids').values({ entity_id: entity.id, relation: tracker.relation, source_id: sourceId, destination_id: destId ?? 0 }).execute();
      if (destId !== null) imported++;
    }
    await advancePage(trx, tracker.id, { page, total, fetched: items.length, imported, now });
  });
  return { done: !nextPage || items.length === 0 };
}

/**
 * A REST-listed relation's step is done with one page: the cursor moves to the next page and the
 * stats grow (`total` from the source's X-Total when it sent one).
 */
async function advancePage(
  trx: Kysely<Database>,
  trackerId: number,
  step: { page: number; total: number; fetched: number; imported: number; now: string },
): Promise<void> {
  await trx
    .updateTable('bulk_import_trackers')
    .set((eb) => ({
      cursor: JSON.stringify({ page: step.page + 1 }),
      source_count: Number.isFinite(step.total) ? step.total : eb('source_count', '+', step.fetched),
      fetched_count: eb('fetched_count', '+', step.fetched),
      imported_count: eb('imported_count', '+', step.imported),
      updated_at: step.now,
    }))
    .where('id', '=', trackerId)
    .execute();
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
    await advancePage(trx, tracker.id, { page, total, fetched: items.length, imported, now });
  });
  return { done: !nextPage || items.length === 0 };
}

interface ExportBatchStatus {
  status: number;
  batch_number: number;
  objects_count?: number;
  error?: string | null;
}

/** GitLab's ExportStatus entity (`batched`, `batches_count` and `batches` from GitLab 16.2). */
interface ExportStatus {
  relation: string;
  status: number;
  error: string | null;
  batched?: boolean;
  batches_count?: number;
  total_objects_count?: number;
  batches?: ExportBatchStatus[];
}

/** Export statuses: -2 pending, 0 started, 1 finished, -1 failed. */
const EXPORT_FINISHED = 1;
const EXPORT_FAILED = -1;

type NdjsonCursor = { batch: number; batches: number; batched: boolean; since?: string };

/**
 * NDJSON relations: request the exports once, poll the relation's status, download one batch per
 * step. A relation the source does not export: for Forgelet's own relations (`extra`), a source
 * that answers a download of it with 400 (GitLab: `relation is not portable`) has nothing to import;
 * other relations fail after a while, as GitLab's "Empty export status on source instance".
 */
async function importNdjsonBatch(env: StepEnv): Promise<StepResult> {
  const { entity, tracker, deps, source, def } = env;
  const kind = entity.entity_type === 'group' ? 'groups' : 'projects';
  const base = `/${kind}/${enc(entity.source_full_path)}/export_relations`;
  const relation = def.exportRelation ?? def.relation;
  if (entity.exports_requested === 0) {
    await source.json('POST', base, { batched: true });
    await deps.db.updateTable('bulk_import_entities').set({ exports_requested: 1 }).where('id', '=', entity.id).execute();
  }
  if (tracker.relation === 'epics' && !(await ancestorEpicsDone(deps.db, entity))) return { done: false, waitMs: 500 };
  const cursor = tracker.cursor ? (JSON.parse(tracker.cursor) as NdjsonCursor) : null;
  if (tracker.relation === 'repository' && (!cursor || isRepositoryCursor(cursor))) {
    const step = await importRepositoryStep(env, cursor as RepositoryCursor | null);
    if (!('records' in step)) return step;
    // A source without the bundle and without git over HTTP: its `forgelet_repository` records.
    return { done: false };
  }
  const saveCursor = (next: Partial<NdjsonCursor>, extra: { source_count?: number } = {}) =>
    deps.db.updateTable('bulk_import_trackers').set({ cursor: JSON.stringify(next), ...extra }).where('id', '=', tracker.id).execute();
  if (!cursor || cursor.batches === undefined) {
    const res = await source.json<ExportStatus | ExportStatus[]>('GET', `${base}/status`, { relation }, [404]);
    const status = Array.isArray(res.body) ? res.body.find((s) => s.relation === relation) : res.status === 404 ? undefined : res.body;
    const startedAt = cursor?.since ?? env.now.toISOString();
    if (!status && def.extra) {
      const probe = await source.json('GET', `${base}/download`, { relation }, [400, 404]);
      if (probe.status === 400) {
        await saveCursor({ batch: 1, batches: 0, batched: false }, { source_count: 0 });
        return { done: true };
      }
    }
    if (!status || (status.status !== EXPORT_FINISHED && status.status !== EXPORT_FAILED)) {
      const waited = env.now.getTime() - new Date(startedAt).getTime();
      if (!status && waited > MISSING_EXPORT_LIMIT_MS) throw new SourceExportError(`Export of ${relation} is not available on the source instance`);
      if (waited > EXPORT_WAIT_LIMIT_MS) throw new SourceExportError('Empty export status on source instance');
      await saveCursor({ since: startedAt });
      return { done: false, waitMs: EXPORT_POLL_MS };
    }
    if (status.status === EXPORT_FAILED) throw new SourceExportError(status.error ?? 'Export failed on source instance');
    const batched = Boolean(status.batched);
    // A batched export of nothing has no batches: nothing to download.
    const next = { batch: 1, batches: batched ? Math.max(0, status.batches_count ?? 0) : 1, batched };
    await saveCursor(next, { source_count: status.total_objects_count ?? 0 });
    return { done: next.batches === 0 };
  }
  if (cursor.batch > cursor.batches) return { done: true };
  const records = (await source.ndjson(`${base}/download`, cursor.batched ? { relation, batched: true, batch_number: cursor.batch } : { relation })) as any[];
  if (tracker.relation === 'packages') {
    // Files stream in before the transaction; records imported by an earlier try are skipped.
    const ids = records.filter((r) => r?.id !== undefined && r?.id !== null).map((r) => String(r.id));
    const seen = new Set(
      ids.length
        ? (await deps.db.selectFrom('bulk_import_source_ids').select('source_id').where('entity_id', '=', entity.id).where('relation', '=', 'packages').where('source_id', 'in', ids).execute()).map((r) => r.source_id)
        : [],
    );
    const fresh = records.filter((r) => !(r?.id !== undefined && r?.id !== null && seen.has(String(r.id))));
    await fetchPackageFiles(fresh, entity.project_id!, deps.blobs, (path) => source.download(path), Math.min(deps.config.limits.uploadBytes, MAX_PACKAGE_BYTES));
  }
  const now = nowIso(deps);
  const users = new SourceUsers(deps.db, source, env.imp.id, env.ctx.actor.user!, deps.secrets);
  await users.load(records);
  await deps.db.transaction().execute(async (trx) => {
    await assertRunning(trx, entity.id);
    let imported = 0;
    for (const [index, record] of records.entries()) {
      // GitLab's newer exports omit ids of most records: a record is then known by its place in the batch.
      const sourceId = record?.id !== undefined && record?.id !== null ? String(record.id) : `#${cursor.batch}:${index}`;
      const seen = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entity.id).where('relation', '=', tracker.relation).where('source_id', '=', sourceId).executeTakeFirst();
      if (seen) continue;
      const destId = await importRecord(trx, entity, tracker.relation, record, users, now, deps.blobs);
      // null: nothing to import for this record.
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
