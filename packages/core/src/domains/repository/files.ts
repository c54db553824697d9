/**
 * Repository files: GitLab's `API::Files` and the blobs of `API::Repositories`. Reads come
 * from git at any ref, tag or sha; raw bodies stream from `git cat-file`. Writes are
 * one-action commits.
 */
import { repositoryTransaction } from './git-write.js';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { blobStream, entryAt, lastCommitFor, objectInfo, readBlob, type TreeEntry } from '../../storage/git-read.js';
import { commitOf } from './git-revisions.js';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CommitActionName } from './commit-actions.js';
import type { DeleteFileInput, GetFileInput, RawFileInput, WriteFileInput } from './files.schema.js';
import { canOnBranch } from './protection.js';
import { readFileOnRef, selectBranch } from './refs.js';
import { findCodeProject, findPushProject } from './repository-access.js';
import { recordCommitIn } from './write-commit.js';
import { runRefPushed } from './push-hooks.js';

/** `blob_data` of GitLab's files API: the metadata in the JSON and the `X-Gitlab-*` headers. */
export interface FileMetadata {
  file_name: string;
  file_path: string;
  size: number;
  encoding: 'base64';
  content_sha256: string;
  ref: string | null;
  blob_id: string;
  commit_id: string;
  last_commit_id: string;
  execute_filemode: boolean;
}

export interface FileEntity extends FileMetadata {
  content: string;
}

/** `file_name` → `X-Gitlab-File-Name`; null → empty. */
function gitlabHeaders(data: FileMetadata): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    const name = key
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('-');
    headers[`X-Gitlab-${name}`] = value === null ? '' : String(value);
  }
  return headers;
}

/** The file's metadata at `ref` (404 Commit for an unknown ref, 404 File for a path that is not a file there). */
async function locateFile(ctx: Ctx, project: ProjectRow, ref: string | undefined, path: string): Promise<{ commit: string; blob: TreeEntry; metadata: Omit<FileMetadata, 'content_sha256'> }> {
  const commit = await commitOf(ctx, project, ref, { field: 'ref', notFound: 'Commit' });
  const blob = await entryAt(ctx.git, project.id, commit, path);
  if (!blob || blob.type !== 'blob') throw new NotFoundError('File');
  const metadata = {
    file_name: path.slice(path.lastIndexOf('/') + 1),
    file_path: path,
    size: blob.size ?? 0,
    encoding: 'base64' as const,
    ref: ref ?? null,
    blob_id: blob.sha,
    commit_id: commit,
    last_commit_id: (await lastCommitFor(ctx.git, project.id, commit, path)) ?? commit,
    execute_filemode: blob.mode === '100755',
  };
  return { commit, blob, metadata };
}

/** GitLab's field order: content_sha256 after encoding. */
function withSha256(m: Omit<FileMetadata, 'content_sha256'>, sha256: string): FileMetadata {
  return { file_name: m.file_name, file_path: m.file_path, size: m.size, encoding: m.encoding, content_sha256: sha256, ref: m.ref, blob_id: m.blob_id, commit_id: m.commit_id, last_commit_id: m.last_commit_id, execute_filemode: m.execute_filemode };
}

/** SHA-256 and the first bytes of a blob, read as a stream (the blob is never held whole). */
async function digestBlob(ctx: Ctx, projectId: number, sha: string): Promise<{ sha256: string; head: Buffer }> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headBytes = 0;
  for await (const chunk of blobStream(ctx.git, projectId, sha) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    if (headBytes < 8000) {
      head.push(chunk.subarray(0, 8000 - headBytes));
      headBytes += Math.min(chunk.length, 8000 - headBytes);
    }
  }
  return { sha256: hash.digest('hex'), head: Buffer.concat(head) };
}

/** GET /projects/:id/repository/files/:file_path (and HEAD, which sends only the headers). */
export async function getFile(ctx: Ctx, input: GetFileInput): Promise<{ body: FileEntity; headers: Record<string, string> }> {
  const project = await findCodeProject(ctx, input.id);
  const { metadata } = await locateFile(ctx, project, input.ref, input.file_path);
  const content = await readBlob(ctx.git, project.id, metadata.blob_id);
  const full = withSha256(metadata, createHash('sha256').update(content).digest('hex'));
  return { body: { ...full, content: content.toString('base64') }, headers: gitlabHeaders(full) };
}

/** HEAD /projects/:id/repository/files/:file_path: the headers only (the blob is hashed as a stream). */
export async function headFile(ctx: Ctx, input: GetFileInput): Promise<Record<string, string>> {
  const project = await findCodeProject(ctx, input.id);
  const { metadata } = await locateFile(ctx, project, input.ref, input.file_path);
  const { sha256 } = await digestBlob(ctx, project.id, metadata.blob_id);
  return gitlabHeaders(withSha256(metadata, sha256));
}

/** The type a browser may safely get: text as text/plain, a few image formats, else octet-stream. */
export function rawContentType(content: Buffer): string {
  const head = content.subarray(0, 8000);
  const binary = head.includes(0) || !isUtf8(head);
  if (!binary) return 'text/plain; charset=utf-8';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  return 'application/octet-stream';
}

function isUtf8(buf: Buffer): boolean {
  // A multi-byte character cut at the 8000-byte boundary still counts as text.
  const text = buf.toString('utf8');
  const replacements = text.split('\ufffd').length - 1;
  return replacements === 0 || (replacements === 1 && text.endsWith('\ufffd') && buf.length === 8000);
}

/** `inline; filename="a.txt"; filename*=UTF-8''a.txt` (ActionDispatch's format). */
export function inlineDisposition(name: string): string {
  const ascii = name.replace(/[^ A-Za-z0-9!#$+.^_`|~-]/g, (c) => (c.charCodeAt(0) < 128 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : '?'));
  const encoded = Array.from(Buffer.from(name, 'utf8'))
    .map((b) => (/[A-Za-z0-9!#$&+.^_`|~-]/.test(String.fromCharCode(b)) && b < 128 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  return `inline; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const NO_CACHE = { 'Cache-Control': 'no-cache, no-store', Pragma: 'no-cache', Expires: 'Fri, 01 Jan 1990 00:00:00 GMT' };

export interface RawBlob {
  body: Readable;
  size: number;
  contentType: string;
  headers: Record<string, string>;
}

/** GET /projects/:id/repository/files/:file_path/raw: the bytes streamed from git, `ref` defaulting to the default branch. */
export async function getRawFile(ctx: Ctx, input: RawFileInput): Promise<RawBlob> {
  const project = await findCodeProject(ctx, input.id);
  const { metadata } = await locateFile(ctx, project, input.ref, input.file_path);
  const { sha256, head } = await digestBlob(ctx, project.id, metadata.blob_id);
  return {
    body: blobStream(ctx.git, project.id, metadata.blob_id),
    size: metadata.size,
    contentType: rawContentType(head),
    headers: { ...gitlabHeaders(withSha256(metadata, sha256)), 'Content-Disposition': inlineDisposition(metadata.file_name), ...NO_CACHE },
  };
}

/** `:sha` of the blobs routes: a full object id naming a blob, else 404 Blob. */
async function findBlob(ctx: Ctx, projectId: number, sha: string): Promise<{ size: number }> {
  const info = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? await objectInfo(ctx.git, projectId, sha) : null;
  if (!info || info.type !== 'blob') throw new NotFoundError('Blob');
  return info;
}

export interface BlobEntity {
  size: number;
  encoding: 'base64';
  content: string;
  sha: string;
}

/** GET /projects/:id/repository/blobs/:sha */
export async function getBlob(ctx: Ctx, input: { id: string; sha: string }): Promise<BlobEntity> {
  const project = await findCodeProject(ctx, input.id);
  const info = await findBlob(ctx, project.id, input.sha);
  const content = await readBlob(ctx.git, project.id, input.sha);
  return { size: info.size, encoding: 'base64', content: content.toString('base64'), sha: input.sha };
}

/** GET /projects/:id/repository/blobs/:sha/raw: streamed from git. */
export async function getRawBlob(ctx: Ctx, input: { id: string; sha: string }): Promise<RawBlob> {
  const project = await findCodeProject(ctx, input.id);
  const info = await findBlob(ctx, project.id, input.sha);
  const { head } = await digestBlob(ctx, project.id, input.sha);
  return { body: blobStream(ctx.git, project.id, input.sha), size: info.size, contentType: rawContentType(head), headers: { ...NO_CACHE } };
}

export interface FileCommitEntity {
  file_path: string;
  branch: string;
}

/**
 * POST, PUT and DELETE of a file: one commit on `branch` (Developer). As in GitLab's file
 * services, push access to the branch itself is checked after the project's: 400.
 */
export async function writeFile(ctx: Ctx, action: Extract<CommitActionName, 'create' | 'update' | 'delete'>, input: WriteFileInput | DeleteFileInput): Promise<FileCommitEntity> {
  const project = await findPushProject(ctx, input.id);
  if (!(await canOnBranch(ctx, project, input.branch, 'push'))) throw new BadRequestError('You are not allowed to push into this branch', { raw: true });
  const content = 'content' in input ? input : undefined;
  const startBranch = input.start_branch ?? input.branch;
  const done = await repositoryTransaction(ctx, async (trx) => {
    if (action === 'update' && content?.last_commit_id) {
      const start = await selectBranch(trx, project.id, startBranch);
      const current = start && (await readFileOnRef(trx, start, input.file_path));
      if (current && current.file.last_commit_sha !== content.last_commit_id) {
        throw new BadRequestError('You are attempting to update a file that has changed since you started editing it.', { raw: true });
      }
    }
    return recordCommitIn(trx, ctx, project, {
      branch: input.branch,
      start_branch: startBranch,
      commit_message: input.commit_message,
      author_email: input.author_email,
      author_name: input.author_name,
      actions: [
        {
          action,
          file_path: input.file_path,
          ...(content && { content: content.content, encoding: content.encoding, execute_filemode: content.execute_filemode }),
        },
      ],
    });
  });
  await runRefPushed(ctx, project, { kind: 'branch', name: input.branch, message: input.commit_message, before: done.before });
  return { file_path: input.file_path, branch: input.branch };
}
