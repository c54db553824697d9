/**
 * A user's ref or sha to the commit it names in git, with GitLab's answers: a value git must
 * not see (an option such as `--output=x`, control characters, a range) is 400 naming the
 * parameter; a ref git does not know is GitLab's 404 for the endpoint (`404 Commit Not Found`,
 * `404 Tree Not Found`, ...).
 */
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { NotFoundError, ValidationError } from '../../kernel/errors.js';
import { isSafeRevision, resolveCommit } from '../../storage/git-read.js';

/** 400 `{"error":"<field> is invalid"}` unless git may see `value`. */
export function checkRevision(value: string, field: string): string {
  if (!isSafeRevision(value)) throw new ValidationError([{ field, message: 'is invalid' }]);
  return value;
}

/** The commit `rev` (default: the project's default branch) names: its sha, or 404 `<notFound> Not Found` (null: the bare `404 Not Found`). */
export async function commitOf(ctx: Ctx, project: ProjectRow, rev: string | undefined, options: { field?: string; notFound?: string | null } = {}): Promise<string> {
  const value = checkRevision(rev || project.default_branch, options.field ?? 'ref');
  const sha = await resolveCommit(ctx.git, project.id, value);
  if (!sha) throw new NotFoundError(options.notFound === undefined ? 'Commit' : options.notFound);
  return sha;
}

/** Like `commitOf`, null instead of a 404 for a ref git does not know. */
export async function commitOrNull(ctx: Ctx, project: ProjectRow, rev: string, field: string): Promise<string | null> {
  return resolveCommit(ctx.git, project.id, checkRevision(rev, field));
}
