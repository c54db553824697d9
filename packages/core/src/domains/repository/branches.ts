/**
 * Branches: GitLab's `API::Branches` (list, show, HEAD, create, delete, delete merged).
 * Lists page in SQL ordered by name byte by byte; `regex` filters the names in memory first.
 */
import { repositoryTransaction } from './git-write.js';
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentBranch, presentBranches, type BranchEntity } from './branch.entity.js';
import type { BranchRefInput, CreateBranchInput, ListBranchesInput } from './branches.schema.js';
import { ancestryCte, bytewise, nameSearch } from './history.queries.js';
import { loadBranchRules } from './protection.js';
import { repositoryIsEmpty, selectBranch, selectCommit } from './refs.js';
import { findCodeProject, findPushProject } from './repository-access.js';
import type { RepositoryRefRow } from './repository.table.js';
import { createBranchIn, deleteRefIn, recordCommitIn, validRefName } from './write-commit.js';
import { runRefPushed } from './push-hooks.js';

const notFound = () => new NotFoundError('Branch');

/** GitLab's `find_branch!`: 400 for a name git refuses, 404 for a missing branch. */
async function findBranch(ctx: Ctx, project: ProjectRow, name: string): Promise<RepositoryRefRow> {
  if (!validRefName(name)) throw new BadRequestError('The branch refname is invalid', { raw: true });
  const row = await selectBranch(ctx.db, project.id, name);
  if (!row) throw notFound();
  return row;
}

/** GET /projects/:id/repository/branches */
export async function listBranches(ctx: Ctx, input: ListBranchesInput): Promise<Page<BranchEntity>> {
  const project = await findCodeProject(ctx, input.id);
  let q = ctx.db.selectFrom('repository_refs as r').selectAll('r').where('r.project_id', '=', project.id).where('r.kind', '=', 'branch');
  if (input.search) q = q.where(nameSearch('r.name', input.search));
  if (input.regex !== undefined) {
    // GitLab compiles with RE2: lookarounds and backreferences are invalid there too.
    let re: RegExp | undefined;
    if (!/\(\?<?[=!]|\\[1-9]/.test(input.regex) && input.regex.length <= 1024) {
      try {
        re = new RegExp(input.regex);
      } catch {
        re = undefined;
      }
    }
    if (!re) throw new BadRequestError('Regex is invalid', { raw: true });
    const names = (await ctx.db.selectFrom('repository_refs').select('name').where('project_id', '=', project.id).where('kind', '=', 'branch').execute())
      .map((r) => r.name)
      .filter((n) => re!.test(n));
    q = names.length ? q.where('r.name', 'in', names) : q.where(sql<boolean>`1 = 0`);
  }
  const byName = bytewise(ctx.dialect, 'r.name');
  if (input.page_token) q = q.where(sql<boolean>`${byName} > ${input.page_token}`);
  const sort = input.sort ?? 'name_asc';
  if (sort !== 'name_asc') {
    q = q
      .leftJoin('repository_commits as c', (j) => j.onRef('c.sha', '=', 'r.commit_sha').on('c.project_id', '=', project.id))
      .orderBy('c.committed_date', sort === 'updated_asc' ? 'asc' : 'desc');
  }
  q = q.orderBy(byName);
  return paginate(ctx.db, q, input, (rows) => presentBranches(ctx, project, rows));
}

/** GET /projects/:id/repository/branches/:branch */
export async function getBranch(ctx: Ctx, input: BranchRefInput): Promise<BranchEntity> {
  const project = await findCodeProject(ctx, input.id);
  return presentBranch(ctx, project, await findBranch(ctx, project, input.branch));
}

/** HEAD /projects/:id/repository/branches/:branch: 204 when it exists, else 404. */
export async function branchExists(ctx: Ctx, input: BranchRefInput): Promise<void> {
  const project = await findCodeProject(ctx, input.id);
  if (!(await selectBranch(ctx.db, project.id, input.branch))) throw notFound();
}

/**
 * POST /projects/:id/repository/branches (Developer). In an empty repository GitLab first
 * commits an empty README.md to the default branch, so `ref` can name it. A branch matching a
 * protection rule needs push or merge access to it.
 */
export async function createBranch(ctx: Ctx, input: CreateBranchInput): Promise<BranchEntity> {
  const project = await findPushProject(ctx, input.id);
  const rules = await loadBranchRules(ctx, project);
  const refused =
    rules.matching(input.branch).length > 0 && !(await rules.can(input.branch, 'push')) && !(await rules.can(input.branch, 'merge'));
  const row = await repositoryTransaction(ctx, async (trx) => {
    if (await repositoryIsEmpty(trx, project.id)) {
      await recordCommitIn(trx, ctx, project, {
        branch: project.default_branch,
        commit_message: 'Add README.md',
        actions: [{ action: 'create', file_path: 'README.md', content: '' }],
      });
    }
    return createBranchIn(trx, ctx, project, input.branch, input.ref, {
      refusal: refused ? 'You are not allowed to create protected branches on this project.' : undefined,
    });
  });
  const fresh = (await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst()) ?? project;
  await runRefPushed(ctx, fresh, { kind: 'branch', name: input.branch });
  return presentBranch(ctx, fresh, row);
}

/**
 * DELETE /projects/:id/repository/branches/:branch (Developer): 204. The default branch and,
 * below Maintainer, protected branches are refused with GitLab's pre-receive messages (400).
 */
export async function deleteBranch(ctx: Ctx, input: BranchRefInput, options: { unmodifiedSince?: Date } = {}): Promise<void> {
  const project = await findPushProject(ctx, input.id);
  const branch = await findBranch(ctx, project, input.branch);
  const commit = await selectCommit(ctx.db, project.id, branch.commit_sha);
  if (options.unmodifiedSince && commit && new Date(commit.authored_date).getTime() > options.unmodifiedSince.getTime()) throw new PreconditionError();
  if (branch.name === project.default_branch) throw new BadRequestError('The default branch of a project cannot be deleted.', { raw: true });
  const rules = await loadBranchRules(ctx, project);
  if (rules.matching(branch.name).length && !(await can(ctx, 'admin_protected_branch', { kind: 'project', project }))) {
    throw new BadRequestError(
      'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
      { raw: true },
    );
  }
  await repositoryTransaction(ctx, (trx) => deleteRefIn(trx, ctx, project, branch));
}

/**
 * DELETE /projects/:id/repository/merged_branches (Developer): 202. Removes the branches
 * merged into the default branch, except the default branch and protected ones (GitLab runs
 * this in the background; here it is done before answering).
 */
export async function deleteMergedBranches(ctx: Ctx, ref: string): Promise<void> {
  // As GitLab: 404 for a project the caller cannot read, 403 for anonymous callers of a public one.
  await findCodeProject(ctx, ref);
  if (!ctx.actor.user) throw new ForbiddenError();
  const project = await findPushProject(ctx, ref);
  const head = await selectBranch(ctx.db, project.id, project.default_branch);
  if (!head?.commit_sha) return;
  const merged = await ctx.db
    .withRecursive('anc(sha)', () => ancestryCte(project.id, { sha: head.commit_sha }))
    .selectFrom('repository_refs as r')
    .selectAll('r')
    .where('r.project_id', '=', project.id)
    .where('r.kind', '=', 'branch')
    .where('r.name', '!=', project.default_branch)
    .where('r.commit_sha', '!=', head.commit_sha)
    .where('r.commit_sha', 'in', (eb) => eb.selectFrom('anc').select('anc.sha'))
    .execute();
  const rules = await loadBranchRules(ctx, project);
  const doomed = merged.filter((b) => !rules.matching(b.name).length);
  // One removal per branch, as GitLab's DeleteBranchService runs for each (one push event each).
  if (doomed.length) await repositoryTransaction(ctx, async (trx) => {
    for (const branch of doomed) await deleteRefIn(trx, ctx, project, branch);
  });
}
