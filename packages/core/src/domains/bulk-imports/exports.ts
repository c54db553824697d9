/**
 * The source side of direct transfer: `POST /{groups|projects}/:id/export_relations`, its
 * status, and NDJSON downloads (gzipped, whole or in batches), answering as GitLab does. Records
 * have GitLab's shapes (export-records.ts), so a GitLab destination reads them and Forgelet's
 * importer reads a GitLab source's. Exports are built from the live rows when downloaded, so a
 * request finishes at once; the status follows GitLab's entity (0 started, 1 finished, -1 failed).
 * Forgelet-only relations (`packages`, `forgelet_repository`) are extra names a GitLab source
 * does not know. `repository` is GitLab's file relation: a tar.gz holding a git bundle
 * (repository-bundle.ts), what a GitLab destination imports (RepositoryBundlePipeline).
 */
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { p, params, type Infer } from '../../kernel/params.js';
import { authorize } from '../../access/policy.js';
import { accepted, attachment, ok, stream } from '../../kernel/route.js';
import { nowIso } from '../../access/context.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { gitlabRecords, selfRecord } from './export-records.js';
import { repositoryBundleArchive, repositoryHasRefs } from './repository-bundle.js';

/** GitLab's group relations Forgelet exports (`self` is the group's attributes). */
export const GROUP_EXPORT_RELATIONS = ['self', 'labels', 'milestones', 'epics', 'members', 'iterations_cadences'] as const;
/** GitLab's project relations Forgelet exports, then Forgelet's own (`packages`, `forgelet_repository`). */
export const PROJECT_EXPORT_RELATIONS = ['self', 'labels', 'milestones', 'issues', 'merge_requests', 'releases', 'snippets', 'protected_branches', 'pipeline_schedules', 'repository', 'packages', 'forgelet_repository'] as const;
/** Relations exported as one record or file, never in batches (GitLab: `self`, the file relations). */
const UNBATCHED = new Set(['self', 'repository']);

/** Records per batch of a batched download (tests may lower it). */
export const exportSettings = { batchSize: 100 };

type OwnerKind = 'group' | 'project';

async function ownerOf(ctx: Ctx, kind: OwnerKind, ref: string): Promise<{ id: number }> {
  if (kind === 'group') {
    const group = await findGroup(ctx, ref);
    await authorize(ctx, 'admin_group', { kind: 'group', group });
    return group;
  }
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  return project;
}

const relationsOf = (kind: OwnerKind): readonly string[] => (kind === 'group' ? GROUP_EXPORT_RELATIONS : PROJECT_EXPORT_RELATIONS);

const exportNotFound = () => new NotFoundError(null, { exact: 'Export not found' });

/**
 * An unknown relation: GitLab validates a project download's `relation` (400 `relation is not
 * portable`); elsewhere no export of that name exists (404 `Export not found`).
 */
function checkRelation(kind: OwnerKind, relation: string | undefined, download = false): void {
  if (relation === undefined || relationsOf(kind).includes(relation)) return;
  if (download && kind === 'project') throw new ValidationError([{ field: 'relation', message: 'is not portable' }]);
  throw exportNotFound();
}

/** Base query of a relation's rows, ordered by id. */
function relationQuery(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string) {
  const col = kind === 'group' ? 'group_id' : 'project_id';
  switch (relation) {
    case 'labels':
      return ctx.db.selectFrom('labels').selectAll().where(col, '=', ownerId).orderBy('id');
    case 'milestones':
      return ctx.db.selectFrom('milestones').selectAll().where(col, '=', ownerId).orderBy('id');
    case 'issues':
      return ctx.db.selectFrom('issues').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'merge_requests':
      return ctx.db.selectFrom('merge_requests').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'packages':
      return ctx.db.selectFrom('packages').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'releases':
      return ctx.db.selectFrom('releases').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'pipeline_schedules':
      return ctx.db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'snippets':
      return ctx.db.selectFrom('snippets').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'protected_branches':
      return ctx.db.selectFrom('protected_branches').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'iterations_cadences':
      return ctx.db.selectFrom('iteration_cadences').selectAll().where('group_id', '=', ownerId).orderBy('id');
    case 'epics':
      return ctx.db.selectFrom('epics').selectAll().where('group_id', '=', ownerId).orderBy('id');
    case 'members':
      return ctx.db
        .selectFrom('members')
        .selectAll()
        .where('source_kind', '=', kind === 'group' ? 'namespace' : 'project')
        .where('source_id', '=', ownerId)
        .orderBy('id');
    default:
      throw new NotFoundError();
  }
}

const REPOSITORY_PARTS = ['repository_blobs', 'repository_commits', 'repository_refs'] as const;

async function repositoryCounts(ctx: Ctx, projectId: number): Promise<number[]> {
  const out: number[] = [];
  for (const table of REPOSITORY_PARTS) {
    const row = await ctx.db.selectFrom(table).select(sql<number>`count(*)`.as('n')).where('project_id', '=', projectId).executeTakeFirst();
    out.push(Number(row?.n ?? 0));
  }
  return out;
}

/**
 * The repository as records: blobs, then commits (parents, changes), then refs (their files),
 * so each record only points at what came before. `offset`/`limit` slice the whole stream.
 */
async function repositoryRecords(ctx: Ctx, projectId: number, offset: number, limit: number | null): Promise<unknown[]> {
  const counts = await repositoryCounts(ctx, projectId);
  const out: unknown[] = [];
  let start = offset;
  let left = limit ?? Number.MAX_SAFE_INTEGER;
  for (const [i, table] of REPOSITORY_PARTS.entries()) {
    const n = counts[i]!;
    if (start >= n) {
      start -= n;
      continue;
    }
    const take = Math.min(left, n - start);
    const rows: any[] = await ctx.db.selectFrom(table).selectAll().where('project_id', '=', projectId).orderBy('id').limit(take).offset(start).execute();
    start = 0;
    left -= rows.length;
    if (table === 'repository_blobs') out.push(...rows.map((b) => ({ id: `blob:${b.sha}`, type: 'blob', sha: b.sha, size: b.size, content: b.content })));
    if (table === 'repository_commits' && rows.length) {
      const ids = rows.map((r) => r.id);
      const changes = await ctx.db.selectFrom('repository_commit_changes').selectAll().where('commit_id', 'in', ids).orderBy('id').execute();
      out.push(...rows.map((c) => ({
        id: `commit:${c.sha}`,
        type: 'commit',
        sha: c.sha,
        parent_ids: JSON.parse(c.parent_ids),
        title: c.title,
        message: c.message,
        author_name: c.author_name,
        author_email: c.author_email,
        authored_date: c.authored_date,
        authored_tz: c.authored_tz,
        committer_name: c.committer_name,
        committer_email: c.committer_email,
        committed_date: c.committed_date,
        committed_tz: c.committed_tz,
        created_at: c.created_at,
        user_id: c.user_id,
        changes: changes.filter((x) => x.commit_id === c.id).map((x) => ({ path: x.path, previous_path: x.previous_path, change: x.change, additions: x.additions, deletions: x.deletions })),
      })));
    }
    if (table === 'repository_refs' && rows.length) {
      const files = await ctx.db.selectFrom('repository_files').selectAll().where('ref_id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
      out.push(...rows.map((r) => ({
        id: `ref:${r.kind}:${r.name}`,
        type: 'ref',
        kind: r.kind,
        name: r.name,
        commit_sha: r.commit_sha,
        message: r.message,
        tagger_name: r.tagger_name,
        tagger_email: r.tagger_email,
        created_at: r.created_at,
        updated_at: r.updated_at,
        files: files.filter((f) => f.ref_id === r.id).map((f) => ({ path: f.path, blob_sha: f.blob_sha, last_commit_sha: f.last_commit_sha, executable: f.executable === 1 })),
      })));
    }
    if (left <= 0) break;
  }
  return out;
}

async function countRelation(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string): Promise<number> {
  if (relation === 'forgelet_repository') return (await repositoryCounts(ctx, ownerId)).reduce((a, b) => a + b, 0);
  if (relation === 'self') return 1;
  if (relation === 'repository') return (await repositoryHasRefs(ctx, ownerId)) ? 1 : 0;
  const q = (relationQuery(ctx, kind, ownerId, relation) as any).clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('n'));
  const row = await (q as any).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Packages with their files and symbol entries. A file's bytes are not in the record: the
 * destination streams each from `GET …/export_relations/package_files/:id` (`download_path`),
 * so neither side holds a package in memory.
 */
async function serializePackages(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const files = await ctx.db.selectFrom('package_files').selectAll().where('package_id', 'in', ids).orderBy('id').execute();
  const symbols = await ctx.db.selectFrom('package_symbols').selectAll().where('package_id', 'in', ids).orderBy('id').execute();
  const out = [];
  for (const r of rows) {
    const own = [];
    for (const f of files.filter((x) => x.package_id === r.id)) {
      own.push({
        id: f.id,
        file_kind: f.file_kind,
        file_name: f.file_name,
        size: f.size,
        file_sha256: f.file_sha256,
        created_at: f.created_at,
        download_path: `/projects/${r.project_id}/export_relations/package_files/${f.id}`,
        symbols: symbols
          .filter((x) => x.package_file_id === f.id)
          .map(({ id: _i, package_id: _p, package_file_id: _f, ...rest }) => rest),
      });
    }
    const { id, project_id: _project, ...columns } = r;
    out.push({ id, ...columns, files: own });
  }
  return out;
}

/** Ids ordered so that every epic comes after its parent (when the parent is in the same list). */
export function parentsFirst(rows: { id: number; parent_id: number | null }[]): number[] {
  const inList = new Set(rows.map((r) => r.id));
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  for (const r of rows) {
    if (r.parent_id !== null && inList.has(r.parent_id)) children.set(r.parent_id, [...(children.get(r.parent_id) ?? []), r.id]);
    else roots.push(r.id);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift()!;
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

/** Records read for a whole-relation download per query, written out before the next is read. */
const DOWNLOAD_PAGE = 100;

/** Gzipped NDJSON of the records `pages` yields, streamed as they are read. */
function ndjsonReply(pages: AsyncIterable<unknown[]>, relation: string) {
  const lines = Readable.from(
    (async function* () {
      for await (const records of pages) {
        if (records.length) yield Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
      }
    })(),
  );
  const gz = createGzip();
  lines.on('error', (err) => gz.destroy(err));
  return stream(lines.pipe(gz), 'application/gzip', { headers: { 'Content-Disposition': `attachment; filename="${relation}.ndjson.gz"` } });
}

/** One batch's records, or the whole relation page by page. */
async function* relationPages(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string, slice: { offset: number; limit: number } | null): AsyncGenerator<unknown[]> {
  if (slice || relation === 'self') {
    yield await relationRecords(ctx, kind, ownerId, relation, slice);
    return;
  }
  for (let offset = 0; ; offset += DOWNLOAD_PAGE) {
    const records = await relationRecords(ctx, kind, ownerId, relation, { offset, limit: DOWNLOAD_PAGE });
    yield records;
    if (records.length < DOWNLOAD_PAGE) return;
  }
}

/** The records of one relation: all of them, or one batch (`offset`/`limit`). */
async function relationRecords(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string, slice: { offset: number; limit: number } | null): Promise<unknown[]> {
  if (relation === 'self') return [await selfRecord(ctx, kind, ownerId)];
  if (relation === 'forgelet_repository') return repositoryRecords(ctx, ownerId, slice?.offset ?? 0, slice?.limit ?? null);
  if (relation === 'epics') {
    // Parents before children, so a destination can link each epic to an imported parent.
    const all = await ctx.db.selectFrom('epics').select(['id', 'parent_id']).where('group_id', '=', ownerId).orderBy('id').execute();
    const ordered = parentsFirst(all);
    const ids = slice ? ordered.slice(slice.offset, slice.offset + slice.limit) : ordered;
    const rows = ids.length ? await ctx.db.selectFrom('epics').selectAll().where('id', 'in', ids).execute() : [];
    rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
    return gitlabRecords(ctx, 'epics', rows);
  }
  let q = relationQuery(ctx, kind, ownerId, relation);
  if (slice) q = (q as any).limit(slice.limit).offset(slice.offset);
  const rows = await (q as any).execute();
  if (relation === 'packages') return serializePackages(ctx, rows);
  return gitlabRecords(ctx, relation, rows);
}

export const RequestExportInput = params({ id: p.string(), batched: p.boolean().default(false) });
export const ExportStatusInput = params({ id: p.string(), relation: p.string().optional() });
export const DownloadExportInput = params({ id: p.string(), relation: p.string(), batched: p.boolean().optional(), batch_number: p.integer().min(1).optional() });

type ExportRow = { relation: string; status: number; updated_at: string };

/** GitLab's ExportStatus entity: batches (with their object counts) for batchable relations. */
async function presentStatus(ctx: Ctx, kind: OwnerKind, ownerId: number, row: ExportRow) {
  const total = await countRelation(ctx, kind, ownerId, row.relation);
  if (UNBATCHED.has(row.relation)) {
    return { relation: row.relation, status: row.status, error: null, updated_at: row.updated_at, batched: false, batches_count: 0, total_objects_count: total };
  }
  const count = Math.ceil(total / exportSettings.batchSize);
  return {
    relation: row.relation,
    status: row.status,
    error: null,
    updated_at: row.updated_at,
    batched: true,
    batches_count: count,
    total_objects_count: total,
    batches: Array.from({ length: count }, (_, i) => ({
      status: row.status,
      batch_number: i + 1,
      objects_count: Math.min(exportSettings.batchSize, total - i * exportSettings.batchSize),
      error: null,
      updated_at: row.updated_at,
    })),
  };
}

/** `POST /{groups|projects}/:id/export_relations`: every relation's export is (re)started. */
export const requestExport = (kind: OwnerKind) => async (ctx: Ctx, input: Infer<typeof RequestExportInput>) => {
  const owner = await ownerOf(ctx, kind, input.id);
  const now = nowIso(ctx);
  for (const relation of relationsOf(kind)) {
    await ctx.db
      .insertInto('bulk_import_exports')
      .values({ owner_kind: kind, owner_id: owner.id, relation, status: 1, user_id: ctx.actor.user?.id ?? null, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['owner_kind', 'owner_id', 'relation']).doUpdateSet({ status: 1, updated_at: now, user_id: ctx.actor.user?.id ?? null }))
      .execute();
  }
  return accepted();
};

/** `GET …/export_relations/status`: one relation's export, or all of them. */
export const exportStatus = (kind: OwnerKind) => async (ctx: Ctx, input: Infer<typeof ExportStatusInput>) => {
  checkRelation(kind, input.relation);
  const owner = await ownerOf(ctx, kind, input.id);
  let q = ctx.db.selectFrom('bulk_import_exports').selectAll().where('owner_kind', '=', kind).where('owner_id', '=', owner.id).orderBy('id');
  if (input.relation) q = q.where('relation', '=', input.relation);
  // Rows of relations this version no longer exports are not shown.
  const rows = (await q.execute()).filter((r) => relationsOf(kind).includes(r.relation));
  const out = [];
  for (const row of rows) out.push(await presentStatus(ctx, kind, owner.id, row));
  if (input.relation) {
    if (out.length === 0) throw exportNotFound();
    return ok(out[0]);
  }
  return ok(out);
};

/** `GET …/export_relations/download`: one relation's records, whole or one batch. */
export const downloadExport = (kind: OwnerKind) => async (ctx: Ctx, input: Infer<typeof DownloadExportInput>) => {
  checkRelation(kind, input.relation, true);
  if ((input.batched === undefined) !== (input.batch_number === undefined)) {
    throw new ValidationError([{ field: 'batched, batch_number', message: 'provide all or none of parameters' }]);
  }
  const owner = await ownerOf(ctx, kind, input.id);
  const exp = await ctx.db.selectFrom('bulk_import_exports').selectAll().where('owner_kind', '=', kind).where('owner_id', '=', owner.id).where('relation', '=', input.relation).executeTakeFirst();
  if (!exp || exp.status !== 1) throw exportNotFound();
  if (input.batched) {
    if (UNBATCHED.has(input.relation)) throw new BadRequestError('Export is not batched', { raw: true });
  }
  if (input.relation === 'repository') {
    return stream(await repositoryBundleArchive(ctx, owner.id), 'application/gzip', { headers: { 'Content-Disposition': 'attachment; filename="repository.tar.gz"' } });
  }
  if (input.batched) {
    const n = input.batch_number!;
    const total = await countRelation(ctx, kind, owner.id, input.relation);
    if (n > Math.ceil(total / exportSettings.batchSize)) throw new NotFoundError(null, { exact: 'Batch not found' });
    return ndjsonReply(relationPages(ctx, kind, owner.id, input.relation, { offset: (n - 1) * exportSettings.batchSize, limit: exportSettings.batchSize }), input.relation);
  }
  // GitLab answers 400 "Export is batched" here when the export was requested batched; Forgelet
  // serves the whole relation in one file either way (a source older than batching is read so).
  return ndjsonReply(relationPages(ctx, kind, owner.id, input.relation, null), input.relation);
};

export const PackageFileExportInput = params({ id: p.string(), package_file_id: p.integer().min(1) });

/**
 * `GET /projects/:id/export_relations/package_files/:package_file_id` (Forgelet's, beside its
 * `packages` relation): the bytes of one package file of an exported project, for the
 * destination to stream into its blob store.
 */
export async function downloadPackageFile(ctx: Ctx, input: Infer<typeof PackageFileExportInput>) {
  const owner = await ownerOf(ctx, 'project', input.id);
  const exp = await ctx.db.selectFrom('bulk_import_exports').select('status').where('owner_kind', '=', 'project').where('owner_id', '=', owner.id).where('relation', '=', 'packages').executeTakeFirst();
  if (!exp || exp.status !== 1) throw exportNotFound();
  const file = await ctx.db
    .selectFrom('package_files')
    .innerJoin('packages', 'packages.id', 'package_files.package_id')
    .select(['package_files.blob_key', 'package_files.size', 'package_files.file_name'])
    .where('package_files.id', '=', input.package_file_id)
    .where('packages.project_id', '=', owner.id)
    .executeTakeFirst();
  if (!file) throw new NotFoundError('Package file');
  return attachment(ctx.blobs.read(file.blob_key), file.size, file.file_name);
}
