/** The migration API: start (with source checks), lists, one migration or entity, failures, cancel. */
import { sql } from 'kysely';
import { nowIso, type Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnavailableError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { authorize, requireUser } from '../../access/policy.js';
import { enqueueEntity } from './engine.js';
import type { BulkImportEntityRow, BulkImportRow } from './bulk-import.table.js';
import { pipelinesOf } from './pipelines.js';
import { enc, SourceClient, SourceNetworkError } from './source-client.js';

export const BULK_IMPORT_STATUSES = ['created', 'started', 'finished', 'failed', 'canceled', 'timeout'] as const;

export const StartBulkImportInput = params({
  configuration: p.object({ url: p.string().nonBlank(), access_token: p.string().nonBlank() }),
  entities: p.array(
    p.object({
      source_type: p.enum(['group_entity', 'project_entity']),
      source_full_path: p.string().nonBlank(),
      destination_slug: p.string().optional(),
      destination_name: p.string().optional(),
      destination_namespace: p.string(),
      migrate_projects: p.boolean().default(true),
      migrate_memberships: p.boolean().default(true),
    }),
  ),
});
export type StartBulkImportInput = InferShape<typeof StartBulkImportInput.shape>;

export const ListBulkImportsInput = params({
  sort: p.enum(['asc', 'desc']).default('desc'),
  status: p.enum(['created', 'started', 'finished', 'failed']).optional(),
  ...paginationParams,
});
export type ListBulkImportsInput = InferShape<typeof ListBulkImportsInput.shape>;
export const ListImportEntitiesInput = params({ import_id: p.id(), sort: p.enum(['asc', 'desc']).default('desc'), status: p.enum(['created', 'started', 'finished', 'failed']).optional(), ...paginationParams });
export const ImportRefInput = params({ import_id: p.id() });
export const EntityRefInput = params({ import_id: p.id(), entity_id: p.id() });

const MIN_MAJOR = 14;
const SLUG_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;

export interface BulkImportEntity {
  id: number;
  status: string;
  source_type: string;
  source_url?: string;
  created_at: string;
  updated_at: string;
  has_failures?: boolean;
}

export function toBulkImportEntity(row: BulkImportRow, options: { sourceUrl?: boolean; hasFailures?: boolean } = {}): BulkImportEntity {
  const out = { id: row.id, status: row.status, source_type: row.source_type } as BulkImportEntity;
  if (options.sourceUrl !== false) out.source_url = row.source_url;
  out.created_at = row.created_at;
  out.updated_at = row.updated_at;
  if (options.hasFailures !== false) out.has_failures = row.has_failures === 1;
  return out;
}

async function presentEntities(ctx: Ctx, rows: BulkImportEntityRow[]) {
  const ids = rows.map((r) => r.id);
  const trackers = ids.length ? await ctx.db.selectFrom('bulk_import_trackers').selectAll().where('entity_id', 'in', ids).orderBy('id').execute() : [];
  const failures = ids.length ? await ctx.db.selectFrom('bulk_import_failures').selectAll().where('entity_id', 'in', ids).orderBy('id').execute() : [];
  return rows.map((r) => {
    const counted = new Set(pipelinesOf(r.entity_type).filter((x) => x.counted).map((x) => x.relation));
    const stats: Record<string, { source: number; fetched: number; imported: number }> = {};
    for (const t of trackers) {
      if (t.entity_id !== r.id || !counted.has(t.relation)) continue;
      stats[t.relation] = { source: Number(t.source_count), fetched: Number(t.fetched_count), imported: Number(t.imported_count) };
    }
    return {
      id: r.id,
      bulk_import_id: r.bulk_import_id,
      status: r.status,
      entity_type: r.entity_type,
      source_full_path: r.source_full_path,
      destination_full_path: r.destination_namespace ? `${r.destination_namespace}/${r.destination_slug}` : r.destination_slug,
      destination_name: r.destination_name,
      destination_slug: r.destination_slug,
      destination_namespace: r.destination_namespace,
      parent_id: r.parent_id,
      namespace_id: r.namespace_id,
      project_id: r.project_id,
      created_at: r.created_at,
      updated_at: r.updated_at,
      failures: failures
        .filter((f) => f.entity_id === r.id)
        .map((f) => ({
          relation: f.relation,
          step: f.step,
          exception_message: f.exception_message,
          exception_class: f.exception_class,
          correlation_id_value: f.correlation_id_value,
          created_at: f.created_at,
          pipeline_class: f.pipeline_class,
          pipeline_step: f.step,
        })),
      migrate_projects: r.migrate_projects === 1,
      migrate_memberships: r.migrate_memberships === 1,
      has_failures: r.has_failures === 1,
      stats,
    };
  });
}
export type BulkImportEntityEntity = Awaited<ReturnType<typeof presentEntities>>[number];

/** The source URL must be a bare base URL (scheme, host, optional port). */
function checkSourceUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UnprocessableError('Invalid source URL. Enter only the base URL of the source GitLab instance.');
  }
  if (!['http:', 'https:'].includes(u.protocol) || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username) {
    throw new UnprocessableError('Invalid source URL. Enter only the base URL of the source GitLab instance.');
  }
  return `${u.protocol}//${u.host}`;
}

const TOKEN_MESSAGE = "Import aborted as the provided personal access token does not have the required 'api' scope or is no longer valid.";

/** A failed exchange with the source: a refused target with GitLab's UrlBlocker text as is. */
function unreachable(err: unknown): UnprocessableError {
  if (err instanceof SourceNetworkError && err.blocked) return new UnprocessableError(err.message);
  return new UnprocessableError(`Import failed. Unable to connect to the source instance: ${(err as Error).message}`.slice(0, 255));
}

async function checkSource(source: SourceClient): Promise<string> {
  let version: string | undefined;
  try {
    let res = await source.json('GET', '/version', {}, [401, 403, 404]);
    if (res.status === 404) res = await source.json('GET', '/metadata', {}, [401, 403, 404]);
    if (res.status === 401 || res.status === 403) throw new UnprocessableError(TOKEN_MESSAGE);
    version = typeof res.body?.version === 'string' ? res.body.version : undefined;
  } catch (err) {
    if (err instanceof SourceNetworkError) throw unreachable(err);
    throw err;
  }
  const [major = 0, minor = 0] = (version ?? '').split('.').map((x) => Number.parseInt(x, 10));
  if (!version || !(major >= MIN_MAJOR)) throw new UnprocessableError('Unsupported GitLab version. Source instance must run GitLab version 14 or later.');
  if (major > 15 || (major === 15 && minor >= 5)) {
    const self = await source.json('GET', '/personal_access_tokens/self', {}, [401, 403, 404]).catch(() => null);
    const scopes: unknown = self?.status === 200 ? self.body?.scopes : null;
    if (!Array.isArray(scopes) || !scopes.includes('api')) throw new UnprocessableError(TOKEN_MESSAGE);
  }
  return version;
}

/** POST /bulk_imports */
export async function startBulkImport(ctx: Ctx, input: StartBulkImportInput) {
  const user = requireUser(ctx);
  if (input.entities.length === 0) throw new BadRequestError('entities is empty');
  const sourceUrl = checkSourceUrl(input.configuration.url);
  // GitLab's UrlBlocker refuses a local source before any request (and before the destinations).
  const blocked = await ctx.egress.refusal(sourceUrl);
  if (blocked) throw new UnprocessableError(`URL is blocked: ${blocked}`);
  // Destinations first (no network): each must be free and creatable by the caller.
  const planned: { e: StartBulkImportInput['entities'][number]; slug: string; ns: string; full: string }[] = [];
  for (const e of input.entities) {
    const slug = e.destination_slug ?? e.destination_name;
    if (!slug) throw new BadRequestError('destination_slug is missing');
    if (!SLUG_RE.test(slug) || /[-_.]{2}/.test(slug) || /[-_.]$/.test(slug)) {
      throw new UnprocessableError('Import failed. Destination URL must not start or end with a special character and must not contain consecutive special characters.');
    }
    const ns = e.destination_namespace.replace(/^\/+|\/+$/g, '');
    const invalidNs = new UnprocessableError(`Import failed. Destination '${e.destination_namespace}' is invalid, or you don't have permission.`);
    if (ns === '') {
      if (e.source_type === 'project_entity') throw invalidNs;
      if (!ctx.actor.isAdmin && !user.can_create_group) throw invalidNs;
    } else {
      const group = await ctx.db.selectFrom('namespaces').selectAll().where(sql`lower(full_path)`, '=', ns.toLowerCase()).executeTakeFirst();
      // Personal namespaces are not supported destinations.
      if (!group || group.kind !== 'group') throw invalidNs;
      try {
        await authorize(ctx, e.source_type === 'group_entity' ? 'create_subgroup' : 'create_projects', { kind: 'group', group });
      } catch (err) {
        if (err instanceof ForbiddenError || err instanceof NotFoundError) throw invalidNs;
        throw err;
      }
    }
    const full = ns ? `${ns}/${slug}` : slug;
    const takenGroup = await ctx.db.selectFrom('namespaces').select('id').where(sql`lower(full_path)`, '=', full.toLowerCase()).executeTakeFirst();
    const takenProject = await ctx.db.selectFrom('projects').select('id').where(sql`lower(path_with_namespace)`, '=', full.toLowerCase()).executeTakeFirst();
    if (takenGroup || takenProject || planned.some((x) => x.full.toLowerCase() === full.toLowerCase())) {
      throw new UnprocessableError(`Import aborted as '${full}' already exists. Change the destination and try again.`);
    }
    const same = sourceUrl.replace(/\/+$/, '') === ctx.config.externalUrl.replace(/\/+$/, '');
    if (same && e.source_type === 'group_entity' && (full.toLowerCase() + '/').startsWith(e.source_full_path.toLowerCase() + '/')) {
      throw new UnprocessableError('Import failed: Destination cannot be a subgroup of the source group. Change the destination and try again.');
    }
    planned.push({ e, slug, ns, full });
  }
  // Then the source: reachable, new enough, the token valid with api scope, each entity visible.
  const source = new SourceClient(ctx.egress, sourceUrl, input.configuration.access_token);
  const version = await checkSource(source);
  const sourceIds: (number | null)[] = [];
  for (const { e } of planned) {
    const kind = e.source_type === 'group_entity' ? 'groups' : 'projects';
    const res = await source.json('GET', `/${kind}/${enc(e.source_full_path)}`, {}, [401, 403, 404]).catch((err) => {
      throw unreachable(err);
    });
    if (res.status === 401) throw new UnprocessableError(TOKEN_MESSAGE);
    if (res.status !== 200) throw new UnprocessableError(`Import failed. '${e.source_full_path}' not found.`);
    sourceIds.push(typeof res.body?.id === 'number' ? res.body.id : null);
  }
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const imp = await trx
      .insertInto('bulk_imports')
      .values({ user_id: user.id, status: 'created', source_type: 'gitlab', source_url: sourceUrl, source_token_encrypted: ctx.secrets.encrypt(input.configuration.access_token), source_version: version, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const [i, { e, slug, ns }] of planned.entries()) {
      const ent = await trx
        .insertInto('bulk_import_entities')
        .values({
          bulk_import_id: imp.id,
          status: 'created',
          entity_type: e.source_type === 'group_entity' ? 'group' : 'project',
          source_full_path: e.source_full_path,
          source_xid: sourceIds[i] ?? null,
          destination_name: slug,
          destination_slug: slug,
          destination_namespace: ns,
          parent_id: null,
          namespace_id: null,
          project_id: null,
          migrate_projects: e.migrate_projects ? 1 : 0,
          migrate_memberships: e.migrate_memberships ? 1 : 0,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await enqueueEntity(ctx, trx, ent.id);
    }
    return imp;
  });
  return toBulkImportEntity(row);
}

function ownScope(ctx: Ctx) {
  const user = requireUser(ctx);
  return user.id;
}

export async function listBulkImports(ctx: Ctx, input: ListBulkImportsInput): Promise<Page<BulkImportEntity>> {
  let q = ctx.db.selectFrom('bulk_imports').selectAll().where('user_id', '=', ownScope(ctx));
  if (input.status) q = q.where('status', '=', input.status);
  q = q.orderBy('created_at', input.sort).orderBy('id', input.sort);
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => toBulkImportEntity(r)));
}

async function findImport(ctx: Ctx, id: number): Promise<BulkImportRow> {
  const row = await ctx.db.selectFrom('bulk_imports').selectAll().where('id', '=', id).where('user_id', '=', ownScope(ctx)).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

export async function getBulkImport(ctx: Ctx, id: number) {
  return toBulkImportEntity(await findImport(ctx, id), { hasFailures: true });
}

export async function listImportEntities(ctx: Ctx, input: ListBulkImportsInput & { import_id?: number }) {
  const userId = ownScope(ctx);
  if (input.import_id !== undefined) await findImport(ctx, input.import_id);
  let q = ctx.db
    .selectFrom('bulk_import_entities as e')
    .innerJoin('bulk_imports as b', 'b.id', 'e.bulk_import_id')
    .selectAll('e')
    .where('b.user_id', '=', userId);
  if (input.import_id !== undefined) q = q.where('e.bulk_import_id', '=', input.import_id);
  if (input.status) q = q.where('e.status', '=', input.status);
  q = q.orderBy('e.created_at', input.sort).orderBy('e.id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentEntities(ctx, rows as BulkImportEntityRow[]));
}

async function findEntity(ctx: Ctx, importId: number, entityId: number): Promise<BulkImportEntityRow> {
  await findImport(ctx, importId);
  const row = await ctx.db.selectFrom('bulk_import_entities').selectAll().where('id', '=', entityId).where('bulk_import_id', '=', importId).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

export async function getImportEntity(ctx: Ctx, importId: number, entityId: number) {
  return (await presentEntities(ctx, [await findEntity(ctx, importId, entityId)]))[0]!;
}

export async function listEntityFailures(ctx: Ctx, importId: number, entityId: number) {
  const entity = await findEntity(ctx, importId, entityId);
  const imp = await findImport(ctx, importId);
  const rows = await ctx.db.selectFrom('bulk_import_failures').selectAll().where('entity_id', '=', entity.id).orderBy('id').execute();
  return rows.map((f) => ({
    relation: f.relation,
    exception_message: f.exception_message,
    exception_class: f.exception_class,
    correlation_id_value: f.correlation_id_value,
    source_url: f.source_url ?? `${imp.source_url}/${entity.source_full_path}`,
    source_title: f.source_title,
  }));
}

/** POST /bulk_imports/:id/cancel: the migration, its open entities and their steps end as canceled. */
export async function cancelBulkImport(ctx: Ctx, id: number) {
  const imp = await findImport(ctx, id);
  const now = nowIso(ctx);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('bulk_imports').set({ status: 'canceled', updated_at: now }).where('id', '=', imp.id).execute();
      const open = await trx.selectFrom('bulk_import_entities').select('id').where('bulk_import_id', '=', imp.id).where('status', 'in', ['created', 'started']).execute();
      const ids = open.map((o) => o.id);
      if (ids.length) {
        await trx.updateTable('bulk_import_entities').set({ status: 'canceled', updated_at: now }).where('id', 'in', ids).execute();
        await trx.updateTable('bulk_import_trackers').set({ status: 'canceled', updated_at: now }).where('entity_id', 'in', ids).where('status', 'in', ['created', 'started']).execute();
        // Outstanding steps: their pending jobs end now.
        await trx
          .updateTable('queue_jobs')
          .set({ status: 'done', finished_at: now })
          .where('status', '=', 'pending')
          .where('unique_key', 'in', ids.map((i) => `bulk_import_entity:${i}`))
          .execute();
      }
    });
  } catch (err) {
    throw new UnavailableError(`503 Service Unavailable: ${(err as Error).message}`.slice(0, 200));
  }
  return toBulkImportEntity((await findImport(ctx, id)), { sourceUrl: false });
}
