/**
 * GET /projects/:id/repository/files/:file_path/blame: `git blame --porcelain` at `ref`,
 * consecutive lines of one commit grouped as GitLab's `BlameRange` (`{commit, lines}`).
 */
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { blame, entryAt, readBlob, readCommits } from '../../storage/git-read.js';
import { presentCommit, type CommitEntity } from './commit.entity.js';
import { commitFields } from './commits.js';
import type { BlameInput } from './files.schema.js';
import { commitOf } from './git-revisions.js';
import { findCodeProject } from './repository-access.js';

export interface BlameRangeEntity {
  commit: CommitEntity;
  lines: string[];
}

function lineCount(content: Buffer): number {
  if (!content.length) return 0;
  let n = 0;
  for (let i = content.indexOf(10); i !== -1; i = content.indexOf(10, i + 1)) n += 1;
  return content[content.length - 1] === 10 ? n : n + 1;
}

export async function blameFile(ctx: Ctx, input: BlameInput): Promise<BlameRangeEntity[]> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await commitOf(ctx, project, input.ref, { field: 'ref', notFound: 'Commit' });
  const blob = await entryAt(ctx.git, project.id, commit, input.file_path);
  if (!blob || blob.type !== 'blob') throw new NotFoundError('File');
  let range: { start: number; end: number } | undefined;
  if (input.range) {
    if (input.range.end < input.range.start) throw new BadRequestError('range[start] must be less than or equal to range[end]');
    const lines = lineCount(await readBlob(ctx.git, project.id, blob.sha));
    if (input.range.start > lines) throw new BadRequestError('range[start] is outside of the file length');
    range = { start: input.range.start, end: Math.min(input.range.end, lines) };
  }
  if (blob.size === 0) return [];
  const lines = await blame(ctx.git, project.id, commit, input.file_path, range);
  const shas = [...new Set(lines.map((l) => l.sha))];
  const commits = new Map((await readCommits(ctx.git, project.id, shas)).map((c) => [c.sha, presentCommit(ctx.urls, project, commitFields(c))]));
  const groups: BlameRangeEntity[] = [];
  let last: string | null = null;
  for (const line of lines) {
    if (line.sha !== last) groups.push({ commit: commits.get(line.sha)!, lines: [] });
    groups[groups.length - 1]!.lines.push(line.text);
    last = line.sha;
  }
  return groups;
}
