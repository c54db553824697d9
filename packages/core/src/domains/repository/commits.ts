/**
 * Commits: GitLab's `API::Commits` list, show, refs and create. The list walks the ancestry
 * of a ref in SQL (recursive CTE) and pages it with LIMIT/OFFSET; like GitLab it sends no
 * totals, only whether a next page exists.
 */
import { repositoryTransaction } from './git-write.js';
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { clampPerPage, paginate, type Page } from '../../kernel/pagination.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CommitAction } from './commit-actions.js';
import { presentCommit, presentCommitDetail, type CommitDetailEntity, type CommitEntity, type CommitStats, type CommitWithStatsEntity } from './commit.entity.js';
import type { CommitRefsInput, CreateCommitInput, GetCommitInput, ListCommitsInput } from './commits.schema.js';
import { ancestryCte, bytewise, descendantsCte, position, startsWith, type WalkStart } from './history.queries.js';
import { resolveRevision } from './refs.js';
import { findCodeProject } from './repository-access.js';
import type { RepositoryCommitRow } from './repository.table.js';
import { authorizePush, recordCommitIn } from './write-commit.js';
import { runRefPushed } from './push-hooks.js';

/** Line counts of commits, from what they recorded as changed. */
export async function statsOf(ctx: Ctx, commitIds: number[]): Promise<Map<number, CommitStats>> {
  const out = new Map<number, CommitStats>(commitIds.map((id) => [id, { additions: 0, deletions: 0, total: 0 }]));
  if (!commitIds.length) return out;
  const rows = await ctx.db
    .selectFrom('repository_commit_changes')
    .select((eb) => ['commit_id', eb.fn.sum<number>('additions').as('additions'), eb.fn.sum<number>('deletions').as('deletions')])
    .where('commit_id', 'in', commitIds)
    .groupBy('commit_id')
    .execute();
  for (const r of rows) {
    const additions = Number(r.additions);
    const deletions = Number(r.deletions);
    out.set(r.commit_id, { additions, deletions, total: additions + deletions });
  }
  return out;
}

/** GET /projects/:id/repository/commits */
export async function listCommits(ctx: Ctx, input: ListCommitsInput): Promise<Page<CommitEntity | CommitWithStatsEntity>> {
  const project = await findCodeProject(ctx, input.id);
  let start: WalkStart;
  if (input.all) start = { allRefs: true };
  else {
    const refName = input.ref_name || project.default_branch;
    if (refName.startsWith('-') || /[\0\s]/.test(refName)) throw new BadRequestError('ref_name is invalid', { raw: true });
    const resolved = await resolveRevision(ctx.db, project.id, refName);
    if (!resolved) return { items: [], page: input.page, perPage: clampPerPage(input.per_page), total: null, hasNext: false };
    start = { sha: resolved.commit.sha };
  }
  let q = ctx.db
    .withRecursive('anc(sha)', () => ancestryCte(project.id, start, { firstParent: input.first_parent }))
    .selectFrom('repository_commits as c')
    .innerJoin('anc', 'anc.sha', 'c.sha')
    .selectAll('c')
    .where('c.project_id', '=', project.id);
  if (input.since) q = q.where('c.committed_date', '>=', input.since.toISOString());
  if (input.until) q = q.where('c.committed_date', '<=', input.until.toISOString());
  if (input.author) q = q.where(sql<boolean>`${position(ctx.dialect, sql<string>`c.author_name || ' <' || c.author_email || '>'`, input.author)} > 0`);
  if (input.path) {
    const path = input.path.replace(/^\/+|\/+$/g, '');
    const under = `${path}/`;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('repository_commit_changes as ch')
          .select('ch.id')
          .whereRef('ch.commit_id', '=', 'c.id')
          .where((w) =>
            w.or([
              w('ch.path', '=', path),
              w('ch.previous_path', '=', path),
              startsWith('ch.path', under),
              w.and([w('ch.previous_path', 'is not', null), startsWith('ch.previous_path', under)]),
            ]),
          ),
      ),
    );
  }
  // Recording order is a topological order; `default` is newest first by commit date.
  if (input.order === 'default') q = q.orderBy('c.committed_date', 'desc');
  q = q.orderBy('c.id', 'desc');
  return paginate(
    ctx.db,
    q,
    input,
    async (rows: RepositoryCommitRow[]) => {
      const stats = input.with_stats ? await statsOf(ctx, rows.map((r) => r.id)) : undefined;
      return rows.map((row) => {
        const entity = presentCommit(ctx.urls, project, row, { trailers: input.trailers });
        return stats ? { ...entity, stats: stats.get(row.id)! } : entity;
      });
    },
    { count: false },
  );
}

async function findCommit(ctx: Ctx, project: ProjectRow, revision: string): Promise<RepositoryCommitRow> {
  const resolved = await resolveRevision(ctx.db, project.id, revision);
  if (!resolved) throw new NotFoundError('Commit');
  return resolved.commit;
}

/** GET /projects/:id/repository/commits/:sha (a sha, branch or tag). */
export async function getCommit(ctx: Ctx, input: GetCommitInput): Promise<CommitDetailEntity> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await findCommit(ctx, project, input.sha);
  const stats = input.stats ? (await statsOf(ctx, [commit.id])).get(commit.id) : undefined;
  return presentCommitDetail(ctx.urls, project, commit, { stats });
}

export interface CommitRefEntity {
  type: 'branch' | 'tag';
  name: string;
}

/** GET /projects/:id/repository/commits/:sha/refs: branches and tags whose history holds the commit. */
export async function listCommitRefs(ctx: Ctx, input: CommitRefsInput): Promise<Page<CommitRefEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await findCommit(ctx, project, input.sha);
  let q = ctx.db
    .withRecursive('descendants(sha)', () => descendantsCte(project.id, commit.sha))
    .selectFrom('repository_refs as r')
    .select(['r.kind', 'r.name'])
    .where('r.project_id', '=', project.id)
    .where('r.commit_sha', 'in', (eb) => eb.selectFrom('descendants').select('descendants.sha'));
  if (input.type !== 'all') q = q.where('r.kind', '=', input.type);
  q = q.orderBy('r.kind').orderBy(bytewise(ctx.dialect, 'r.name'));
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => ({ type: r.kind, name: r.name })));
}

/** GitLab's `validate_commit_action!`: what each action needs beyond the declared types. */
function checkActions(actions: CreateCommitInput['actions']): void {
  if (!actions.length) throw new BadRequestError('actions is required');
  actions.forEach((action, i) => {
    if (action.action === 'update' && action.content === undefined) throw new BadRequestError(`actions[${i}][content] is required for update action`);
    if (action.action === 'move' && !action.previous_path) throw new BadRequestError(`actions[${i}][previous_path] is required for move action`);
    if (action.action === 'chmod' && action.execute_filemode === undefined) throw new BadRequestError(`actions[${i}][execute_filemode] is required for chmod action`);
  });
}

/**
 * POST /projects/:id/repository/commits: 201 with the commit. 403 `You are not allowed to
 * push into this branch` without push access to `branch`; problems with the actions or
 * branches are 400 with GitLab's messages.
 */
export async function createCommit(ctx: Ctx, input: CreateCommitInput): Promise<CommitDetailEntity> {
  const project = await findCodeProject(ctx, input.id);
  await authorizePush(ctx, project, input.branch);
  checkActions(input.actions);
  const done = await repositoryTransaction(ctx, (trx) =>
    recordCommitIn(trx, ctx, project, {
      branch: input.branch,
      start_branch: input.start_branch,
      start_sha: input.start_sha,
      commit_message: input.commit_message,
      actions: input.actions as CommitAction[],
      author_email: input.author_email,
      author_name: input.author_name,
      force: input.force,
    }),
  );
  await runRefPushed(ctx, project, { kind: 'branch', name: input.branch, message: input.commit_message, before: done.before });
  return presentCommitDetail(ctx.urls, project, done.commit, { stats: input.stats ? done.stats : undefined });
}
