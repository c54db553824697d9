/**
 * GET /projects/:id/repository/tree, from git (`ls-tree`) at any branch, tag or sha: one
 * directory, or everything under it with `recursive`. Trees come before blobs, each in git's
 * order, as Gitaly's `TREES_FIRST`. Ids are git's tree and blob ids.
 *
 * A `path` that is no directory at the ref is GitLab's `404 invalid revision or path Not Found`.
 *
 * Pagination: offset pages (`legacy`, the default); `keyset` pages after the entry whose id
 * is `page_token` (GitLab's "tree record ID") and tells the next page only by a `Link` with
 * the last entry's id; `none` (recursive only) returns everything.
 */
import type { Ctx } from '../../access/context.js';
import { NotFoundError, ValidationError } from '../../kernel/errors.js';
import { clampPerPage, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { listDirectory, type TreeEntry } from '../../storage/git-read.js';
import { commitOf } from './git-revisions.js';
import { findCodeProject } from './repository-access.js';

export const ListTreeInput = params({
  id: p.string(),
  path: p.string().optional().describe('A directory; the root when absent.'),
  ref: p.string().optional().describe('Branch, tag or commit; the default branch when absent.'),
  recursive: p.boolean().default(false),
  pagination: p.enum(['legacy', 'keyset', 'none']).default('legacy').describe('`keyset` pages after `page_token`; `none` (recursive only) lists everything.'),
  page_token: p.string().optional().describe('With `pagination=keyset`: the id of the entry the page starts after.'),
  ...paginationParams,
});
export type ListTreeInput = InferShape<typeof ListTreeInput.shape>;

export interface TreeEntryEntity {
  id: string;
  name: string;
  type: 'tree' | 'blob' | 'commit';
  path: string;
  mode: string;
}

function present(e: TreeEntry): TreeEntryEntity {
  return { id: e.sha, name: e.path.slice(e.path.lastIndexOf('/') + 1), type: e.type, path: e.path, mode: e.mode };
}

export async function listTree(ctx: Ctx, input: ListTreeInput): Promise<Page<TreeEntryEntity>> {
  if (input.pagination === 'none' && !input.recursive) throw new ValidationError([{ field: 'pagination', message: 'cannot be "none" unless "recursive" is true' }]);
  const project = await findCodeProject(ctx, input.id);
  const commit = await commitOf(ctx, project, input.ref, { field: 'ref', notFound: 'Tree' });
  const entries = await listDirectory(ctx.git, project.id, commit, input.path ?? '', input.recursive);
  // Gitaly's resolve-tree error, which GitLab shows through `not_found!(e.message)`.
  if (!entries) throw new NotFoundError('invalid revision or path');
  // Trees first (stable: git's order within each group).
  const sorted = [...entries.filter((e) => e.type === 'tree'), ...entries.filter((e) => e.type !== 'tree')];
  const perPage = clampPerPage(input.per_page);
  if (input.pagination === 'none') return { items: sorted.map(present), page: 1, perPage: Math.max(sorted.length, 1), total: sorted.length, hasNext: false };
  if (input.pagination === 'keyset') {
    let start = 0;
    if (input.page_token) {
      const at = sorted.findIndex((e) => e.sha === input.page_token || e.path === input.page_token);
      if (at === -1) throw new NotFoundError('Tree', { exact: `404 Tree Not Found` });
      start = at + 1;
    }
    const items = sorted.slice(start, start + perPage).map(present);
    // As GitLab's GitalyKeysetPager: a full page links to the next one.
    return { items, page: 1, perPage, total: null, hasNext: false, keyset: { nextToken: items.length === perPage ? items[items.length - 1]!.id : null } };
  }
  const page = Math.max(1, input.page);
  const offset = (page - 1) * perPage;
  return { items: sorted.slice(offset, offset + perPage).map(present), page, perPage, total: sorted.length, hasNext: offset + perPage < sorted.length };
}
