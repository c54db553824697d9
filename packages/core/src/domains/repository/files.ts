/**
 * Repository files: GitLab's `API::Files`. Reads resolve `ref` to a commit; Forgelet keeps
 * the files of branch and tag heads only, so a commit that no branch or tag points at has
 * no readable files (404 `File Not Found`). Writes are one-action commits.
 */
import { repositoryTransaction } from './git-write.js';
import { createHash } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CommitActionName } from './commit-actions.js';
import type { DeleteFileInput, GetFileInput, RawFileInput, WriteFileInput } from './files.schema.js';
import { canOnBranch } from './protection.js';
import { readFileOnRef, resolveRevision, selectBranch } from './refs.js';
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

export interface LoadedFile {
  metadata: FileMetadata;
  content: Buffer;
  /** `X-Gitlab-File-Name: …` and the rest, as GitLab's `set_http_headers`. */
  headers: Record<string, string>;
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

async function loadFile(ctx: Ctx, project: ProjectRow, ref: string | undefined, path: string): Promise<LoadedFile> {
  const resolved = await resolveRevision(ctx.db, project.id, ref ?? project.default_branch);
  if (!resolved) throw new NotFoundError('Commit');
  const found = resolved.ref && (await readFileOnRef(ctx.db, resolved.ref, path));
  if (!found) throw new NotFoundError('File');
  const metadata: FileMetadata = {
    file_name: path.slice(path.lastIndexOf('/') + 1),
    file_path: path,
    size: found.size,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(found.content).digest('hex'),
    ref: ref ?? null,
    blob_id: found.file.blob_sha,
    commit_id: resolved.commit.sha,
    last_commit_id: found.file.last_commit_sha,
    execute_filemode: found.file.executable === 1,
  };
  return { metadata, content: found.content, headers: gitlabHeaders(metadata) };
}

/** GET /projects/:id/repository/files/:file_path (and HEAD, which sends only the headers). */
export async function getFile(ctx: Ctx, input: GetFileInput): Promise<{ body: FileEntity; headers: Record<string, string> }> {
  const project = await findCodeProject(ctx, input.id);
  const file = await loadFile(ctx, project, input.ref, input.file_path);
  return { body: { ...file.metadata, content: file.content.toString('base64') }, headers: file.headers };
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

/** GET /projects/:id/repository/files/:file_path/raw: the bytes, `ref` defaulting to the default branch. */
export async function getRawFile(ctx: Ctx, input: RawFileInput): Promise<{ content: Buffer; contentType: string; headers: Record<string, string> }> {
  const project = await findCodeProject(ctx, input.id);
  const file = await loadFile(ctx, project, input.ref, input.file_path);
  return {
    content: file.content,
    contentType: rawContentType(file.content),
    headers: {
      ...file.headers,
      'Content-Disposition': inlineDisposition(file.metadata.file_name),
      'Cache-Control': 'no-cache, no-store',
      Pragma: 'no-cache',
      Expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
    },
  };
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
