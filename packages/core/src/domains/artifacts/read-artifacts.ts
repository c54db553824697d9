/**
 * Reading artifacts (GitLab's lib/api/ci/job_artifacts.rb, the GET routes): the archive of a
 * job or of the latest successful pipeline of a ref, one file out of it, and its tree. The
 * archive is streamed from the blob store; a single file is streamed from its local header
 * through inflate; the tree is a paginated query over the index built at upload. Neither
 * holds an archive or an entry in memory.
 */
import { Readable } from 'node:stream';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { DialectName } from '../../storage/dialect.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findCiProject, findJob } from '../ci/index.js';
import type { CiArtifactEntryRow, CiJobArtifactRow } from '../ci/index.js';
import { availableArchive, latestBuildWithArtifacts, refHasPipelines } from './artifact-access.js';
import { presentTreeEntry, type ArtifactTreeEntryEntity } from './artifact.entity.js';
import type { ArtifactsByRefInput, ArtifactTreeInput, JobArtifactFileInput, JobArtifactsInput } from './artifacts.schema.js';
import { readBlob } from './blob-read.js';
import { attachmentDisposition, contentTypeByExtension, detectedContentType } from './content-type.js';
import { openZipEntry } from './zip.js';

/** An archive to send as `application/octet-stream`, attachment. */
export interface ArtifactDownload {
  body: Readable;
  size: number;
  filename: string;
}

/** One file of an archive, with the headers Workhorse would send. */
export interface ArtifactFile {
  body: Readable;
  size: number;
  contentType: string;
  disposition: string;
}

/** An archive artifact as a download. */
export function streamArchive(ctx: Pick<Ctx, 'blobs'>, archive: CiJobArtifactRow): ArtifactDownload {
  return { body: readBlob(ctx.blobs, archive.blob_key), size: Number(archive.size), filename: archive.file_name };
}

/** GET …/jobs/:job_id/artifacts: the archive, streamed (job tokens allowed); `404 Not Found` without one. */
export async function downloadJobArtifacts(ctx: Ctx, input: JobArtifactsInput): Promise<ArtifactDownload> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'read_job_artifacts', { kind: 'project', project });
  const archive = await availableArchive(ctx, job);
  if (!archive) throw new NotFoundError();
  return streamArchive(ctx, archive);
}

/**
 * GitLab's `Gitlab::Ci::Build::Artifacts::Path#valid?` as the API applies it: a relative path
 * inside the archive (no `..` or `.` segment, no NUL, not absolute) or `400 Bad request`.
 */
export function checkArtifactPath(path: string): string {
  const bad = () => new BadRequestError('400 Bad request', { raw: true });
  if (path === '' || path.includes('\0') || path.startsWith('/') || path.includes('\\')) throw bad();
  if (path.split('/').some((seg) => seg === '..' || seg === '.')) throw bad();
  return path;
}

/** The index row of a file in the archive, or null. */
async function fileEntry(db: Kysely<Database>, archive: CiJobArtifactRow, path: string): Promise<CiArtifactEntryRow | null> {
  const row = await db
    .selectFrom('ci_artifact_entries')
    .selectAll()
    .where('artifact_id', '=', archive.id)
    .where('path', '=', path)
    .where('type', '=', 'file')
    .executeTakeFirst();
  return row ?? null;
}

async function openEntry(ctx: Pick<Ctx, 'blobs'>, archive: CiJobArtifactRow, entry: CiArtifactEntryRow): Promise<Readable> {
  return openZipEntry(ctx.blobs, archive.blob_key, {
    local_header_offset: Number(entry.local_header_offset),
    compressed_size: Number(entry.compressed_size),
    compression_method: Number(entry.compression_method),
    size: Number(entry.size),
  });
}

/** GET …/jobs/:job_id/artifacts/*artifact_path: one file, its type from its extension (legacy Workhorse). */
export async function downloadJobArtifactFile(ctx: Ctx, input: JobArtifactFileInput): Promise<ArtifactFile> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'read_job_artifacts', { kind: 'project', project });
  const archive = await availableArchive(ctx, job);
  if (!archive) throw new NotFoundError();
  const path = checkArtifactPath(input.artifact_path);
  const entry = archive.file_format === 'zip' ? await fileEntry(ctx.db, archive, path) : null;
  if (!entry) throw new NotFoundError();
  return {
    body: await openEntry(ctx, archive, entry),
    size: Number(entry.size),
    contentType: contentTypeByExtension(path),
    disposition: attachmentDisposition(path),
  };
}

/** The reading of `<ref>/download` or `<ref>/raw/<path>` behind the greedy by-ref route. */
export type RefRequest = { kind: 'download'; ref: string } | { kind: 'raw'; ref: string; path: string };

function decodeSegment(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    throw new NotFoundError();
  }
}

/**
 * Every reading of the segments after `jobs/artifacts/`, greediest ref first (GitLab's
 * `ref_name: /.+/`): `<ref>/download`, then `<ref>/raw/<path>` at each `raw` segment from the
 * right. Segments are split while still encoded, so `feature%2Fx/raw/dir%2Ffile.txt`
 * (gitbeaker) and `feature/x/raw/dir/file.txt` (python-gitlab) read the same.
 */
export function refReadings(rawSegments: string[]): RefRequest[] {
  const segs = rawSegments.filter((s) => s !== '');
  const join = (parts: string[]) => parts.map(decodeSegment).join('/');
  const out: RefRequest[] = [];
  if (segs.length >= 2 && segs[segs.length - 1] === 'download') out.push({ kind: 'download', ref: join(segs.slice(0, -1)) });
  for (let i = segs.length - 2; i >= 1; i--) {
    if (segs[i] === 'raw') out.push({ kind: 'raw', ref: join(segs.slice(0, i)), path: join(segs.slice(i + 1)) });
  }
  return out;
}

/** The raw segments after `/projects/:id/jobs/artifacts/` in the request path. */
export function refSegmentsOf(requestPath: string): string[] {
  const segs = requestPath.split('/').filter((s) => s !== '');
  // projects, :id, jobs, artifacts, …
  return segs.slice(4);
}

/**
 * The reading to serve: the greediest one whose ref has pipelines in the project (so a ref
 * or a path holding `raw` or `download` still resolves), else the greediest.
 */
async function chooseReading(ctx: Ctx, project: ProjectRow, readings: RefRequest[]): Promise<RefRequest> {
  if (!readings.length) throw new NotFoundError();
  if (readings.length === 1) return readings[0]!;
  for (const r of readings) if (await refHasPipelines(ctx.db, project.id, r.ref)) return r;
  return readings[0]!;
}

export type ByRefResult = { kind: 'download'; file: ArtifactDownload } | { kind: 'raw'; file: ArtifactFile };

/** Reads at most `n` bytes off the front of a stream; returns them and a stream of everything. */
async function peek(stream: Readable, n: number): Promise<{ head: Buffer; body: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < n) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  async function* rest() {
    yield* chunks;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  const body = Readable.from(rest(), { objectMode: false });
  body.on('close', () => {
    if (!done) void iterator.return?.();
  });
  return { head: Buffer.concat(chunks).subarray(0, n), body };
}

/**
 * GET …/jobs/artifacts/:ref_name/download?job= and …/:ref_name/raw/*artifact_path?job=: the
 * archive, or one file with its type detected from its content, of the named job in the
 * latest successful pipeline of the ref (or of up to 100 recent ones).
 */
export async function artifactsByRef(ctx: Ctx, input: ArtifactsByRefInput, requestPath: string): Promise<ByRefResult> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const reading = await chooseReading(ctx, project, refReadings(refSegmentsOf(requestPath)));
  const build = await latestBuildWithArtifacts(ctx, project, input.job, reading.ref, input.search_recent_successful_pipelines);
  if (!build) {
    throw input.search_recent_successful_pipelines ? new NotFoundError('Job') : new NotFoundError(null, { exact: '404 Not found' });
  }
  await authorize(ctx, 'read_job_artifacts', { kind: 'project', project });
  if (reading.kind === 'download') return { kind: 'download', file: streamArchive(ctx, build.archive) };
  const path = checkArtifactPath(reading.path);
  const entry = build.archive.file_format === 'zip' ? await fileEntry(ctx.db, build.archive, path) : null;
  if (!entry) throw new NotFoundError();
  const { head, body } = await peek(await openEntry(ctx, build.archive, entry), 512);
  return {
    kind: 'raw',
    file: { body, size: Number(entry.size), contentType: detectedContentType(head, path), disposition: attachmentDisposition(path) },
  };
}

/** Byte-wise ordering and comparison on both dialects (PostgreSQL's default collation is not). */
function bytewise(dialect: DialectName, column: string): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}

/** The first path after every path starting with `prefix` (a prefix ending in `/`: `/` + 1 is `0`). */
function prefixEnd(prefix: string): string {
  return `${prefix.slice(0, -1)}0`;
}

/**
 * GET …/jobs/:job_id/artifacts/tree: the entries of a directory (directories first, then
 * files) or, with `recursive`, every entry below it by path, paginated in SQL.
 */
export async function listArtifactTree(ctx: Ctx, input: ArtifactTreeInput): Promise<Page<ArtifactTreeEntryEntity>> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'read_job_artifacts', { kind: 'project', project });
  const archive = await availableArchive(ctx, job);
  if (!archive) throw new NotFoundError('Artifacts');
  if (archive.file_format !== 'zip') throw new NotFoundError('Artifacts metadata');
  const directory = input.path === '' ? '' : `${input.path.replace(/\/+$/, '')}/`;
  if (directory !== '') {
    const exists = await ctx.db
      .selectFrom('ci_artifact_entries')
      .select('id')
      .where('artifact_id', '=', archive.id)
      .where('path', '=', directory)
      .where('type', '=', 'directory')
      .executeTakeFirst();
    if (!exists) throw new NotFoundError('Path');
  }
  const path = bytewise(ctx.dialect, 'path');
  let query = ctx.db
    .selectFrom('ci_artifact_entries')
    .select(['id', 'name', 'path', 'type', 'size', 'mode'])
    .where('artifact_id', '=', archive.id);
  if (input.recursive) {
    if (directory !== '') query = query.where(path, '>', directory).where(path, '<', prefixEnd(directory));
    query = query.orderBy(path);
  } else {
    query = query
      .where('parent', '=', directory)
      .orderBy(sql`case when type = 'directory' then 0 else 1 end`)
      .orderBy(path);
  }
  return paginate(ctx.db, query, input, (rows) => rows.map(presentTreeEntry));
}
