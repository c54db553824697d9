/**
 * GET /projects/:id/repository/tree. Forgelet stores files, not trees: directories are the
 * path prefixes of the files on the ref, found in SQL (one level with `instr`/`strpos`; all
 * levels with a recursive CTE that descends one directory per step). Trees come first, then
 * blobs, each by path, paged with LIMIT/OFFSET. Limitations: a directory's `id` is a stable
 * hash of the ref's commit and the path (not git's tree id); empty directories do not exist;
 * a commit no branch or tag points at lists nothing.
 */
import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { clampPerPage, paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { bytewise, position } from './history.queries.js';
import { resolveRevision } from './refs.js';
import { findCodeProject } from './repository-access.js';

export const ListTreeInput = params({
  id: p.string(),
  path: p.string().optional().describe('A directory; the root when absent.'),
  ref: p.string().optional().describe('Branch, tag or commit; the default branch when absent.'),
  recursive: p.boolean().default(false),
  pagination: p.enum(['legacy', 'keyset', 'none']).optional().describe('`keyset` is accepted; pages are offset pages either way.'),
  page_token: p.string().optional(),
  ...paginationParams,
});
export type ListTreeInput = InferShape<typeof ListTreeInput.shape>;

export interface TreeEntryEntity {
  id: string;
  name: string;
  type: 'tree' | 'blob';
  path: string;
  mode: string;
}

interface TreeRow {
  grp: number;
  path: string;
  blob_sha: string;
  executable: number;
}

export async function listTree(ctx: Ctx, input: ListTreeInput): Promise<Page<TreeEntryEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const resolved = await resolveRevision(ctx.db, project.id, input.ref || project.default_branch);
  if (!resolved) throw new NotFoundError('Tree');
  const refRow = resolved.ref;
  if (!refRow) return { items: [], page: input.page, perPage: clampPerPage(input.per_page), total: 0, hasNext: false };
  const dir = (input.path ?? '').replace(/^\/+|\/+$/g, '');
  const prefix = dir ? `${dir}/` : '';
  const len = prefix.length;
  const pos = (expr: RawBuilder<string>) => position(ctx.dialect, expr, '/');
  const rest = sql<string>`substr(f.path, ${len + 1})`;
  const under = prefix ? sql`substr(f.path, 1, ${len}) = ${prefix}` : sql`1 = 1`;
  const blobs = sql`select 1 as grp, f.path as path, f.blob_sha as blob_sha, f.executable as executable
    from repository_files f where f.ref_id = ${refRow.id} and ${under} and ${pos(rest)} = 0`;
  const allBlobs = sql`select 1 as grp, f.path as path, f.blob_sha as blob_sha, f.executable as executable
    from repository_files f where f.ref_id = ${refRow.id} and ${under}`;
  const firstDirs = sql`select distinct substr(f.path, 1, ${len} + ${pos(rest)} - 1) as dir
    from repository_files f where f.ref_id = ${refRow.id} and ${under} and ${pos(rest)} > 0`;
  const byPath = bytewise(ctx.dialect, 'e.path');
  let query;
  if (input.recursive) {
    const deeper = sql<string>`substr(f.path, length(d.dir) + 2)`;
    const dirs = sql<{ dir: string }>`(${firstDirs}
      union
      select substr(f.path, 1, length(d.dir) + ${pos(deeper)}) as dir
        from dirs d join repository_files f on f.ref_id = ${refRow.id} and substr(f.path, 1, length(d.dir) + 1) = d.dir || '/'
        where ${pos(deeper)} > 0)`;
    const entries = sql<TreeRow>`(select 0 as grp, d.dir as path, '' as blob_sha, 0 as executable from dirs d union all ${allBlobs})`;
    query = ctx.db.withRecursive('dirs(dir)', () => dirs).selectFrom(entries.as('e')).selectAll('e').orderBy('e.grp').orderBy(byPath);
  } else {
    const entries = sql<TreeRow>`(select 0 as grp, s.dir as path, '' as blob_sha, 0 as executable from (${firstDirs}) s union all ${blobs})`;
    query = ctx.db.selectFrom(entries.as('e')).selectAll('e').orderBy('e.grp').orderBy(byPath);
  }
  return paginate(ctx.db, query, input, (rows: TreeRow[]) =>
    rows.map((row) => {
      const tree = Number(row.grp) === 0;
      return {
        id: tree ? createHash('sha1').update(`tree ${resolved.commit.sha} ${row.path}`).digest('hex') : row.blob_sha,
        name: row.path.slice(row.path.lastIndexOf('/') + 1),
        type: tree ? 'tree' : 'blob',
        path: row.path,
        mode: tree ? '040000' : Number(row.executable) ? '100755' : '100644',
      };
    }),
  );
}
