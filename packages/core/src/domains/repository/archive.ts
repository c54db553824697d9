/**
 * GET /projects/:id/repository/archive[.format]: `git archive` streamed to the client (never
 * buffered), tar.bz2 piped through `bzip2`. The name and the top directory inside are GitLab's
 * `<project path>-<ref with / as ->-<sha>[-<path>]`.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { processOutput } from '../../storage/git.js';
import { entryAt } from '../../storage/git-read.js';
import { commitOf } from './git-revisions.js';
import { findCodeProject } from './repository-access.js';

export const ARCHIVE_FORMATS = ['tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2', 'tar', 'zip'] as const;

export const ArchiveInput = params({
  id: p.string(),
  sha: p.string().optional().describe('Commit, branch or tag; the default branch when absent.'),
  format: p.enum(ARCHIVE_FORMATS).default('tar.gz'),
  path: p.string().optional().describe('Only this directory (or file).'),
  include_lfs_blobs: p.boolean().default(true).describe('Git LFS is not stored by Forgelet: accepted and ignored.'),
  exclude_paths: p.array(p.string()).commaSeparated().optional().describe('Paths left out of the archive.'),
});
export type ArchiveInput = InferShape<typeof ArchiveInput.shape>;

/** GitLab's extension for a requested format (`Repository#archive_metadata`). */
function extensionOf(format: string): 'tar.gz' | 'tar.bz2' | 'tar' | 'zip' {
  if (['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'].includes(format)) return 'tar.bz2';
  if (format === 'tar' || format === 'zip') return format;
  return 'tar.gz';
}


export interface ArchiveStream {
  body: Readable;
  /** Workhorse's: application/zip for zip, else application/octet-stream. */
  contentType: 'application/zip' | 'application/octet-stream';
  fileName: string;
}

export async function getArchive(ctx: Ctx, input: ArchiveInput): Promise<ArchiveStream> {
  const project = await findCodeProject(ctx, input.id);
  // GitLab answers every failure of the archive as 404 File.
  const ref = input.sha || project.default_branch;
  const commit = await commitOf(ctx, project, ref, { field: 'sha', notFound: 'File' });
  const path = input.path?.replace(/^\/+|\/+$/g, '') || undefined;
  if (path && !(await entryAt(ctx.git, project.id, commit, path))) throw new NotFoundError('File');
  const segments = [project.path, ref.replace(/\//g, '-'), commit];
  if (path) segments.push(path.replace(/\//g, '-'));
  const prefix = segments.join('-');
  const ext = extensionOf(input.format);
  const args = ['archive', `--format=${ext === 'tar.bz2' ? 'tar' : ext}`, `--prefix=${prefix}/`, commit, '--'];
  if (path) args.push(`:(literal)${path}`);
  for (const excluded of input.exclude_paths ?? []) args.push(`:(exclude,literal)${excluded.replace(/^\/+|\/+$/g, '')}`);
  const git = ctx.git.spawn(project.id, args);
  git.stdin!.end();
  let body = processOutput(git, 'git archive');
  if (ext === 'tar.bz2') {
    const bzip = spawn('bzip2', ['-c'], { stdio: ['pipe', 'pipe', 'pipe'] });
    bzip.stdin.on('error', () => body.destroy());
    body.on('error', () => bzip.kill());
    body.pipe(bzip.stdin);
    const compressed = processOutput(bzip, 'bzip2');
    compressed.on('close', () => body.destroy());
    body = compressed;
  }
  return { body, contentType: ext === 'zip' ? 'application/zip' : 'application/octet-stream', fileName: `${prefix}.${ext}` };
}
