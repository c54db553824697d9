/** GitLab's `API::Entities::Branch`. */
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentCommit, type CommitEntity } from './commit.entity.js';
import { ancestorsAmong } from './history.queries.js';
import { loadBranchRules } from './protection.js';
import type { RepositoryCommitRow, RepositoryRefRow } from './repository.table.js';

export interface BranchEntity {
  name: string;
  commit: CommitEntity | null;
  /** Merged into the default branch: its head is an ancestor of (and not the same as) the default head. */
  merged: boolean;
  protected: boolean;
  developers_can_push: boolean;
  developers_can_merge: boolean;
  can_push: boolean;
  default: boolean;
  web_url: string;
}

/** Commits of some shas of a project, by sha. */
export async function commitsBySha(ctx: Ctx, projectId: number, shas: string[]): Promise<Map<string, RepositoryCommitRow>> {
  const wanted = [...new Set(shas.filter(Boolean))];
  if (!wanted.length) return new Map();
  const rows = await ctx.db.selectFrom('repository_commits').selectAll().where('project_id', '=', projectId).where('sha', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.sha, r]));
}

/** A page of branches, with their commits, merge state and protection loaded in a few queries. */
export async function presentBranches(ctx: Ctx, project: ProjectRow, rows: RepositoryRefRow[]): Promise<BranchEntity[]> {
  if (!rows.length) return [];
  const commits = await commitsBySha(ctx, project.id, rows.map((r) => r.commit_sha));
  const defaultHead = (
    await ctx.db
      .selectFrom('repository_refs')
      .select('commit_sha')
      .where('project_id', '=', project.id)
      .where('kind', '=', 'branch')
      .where('name', '=', project.default_branch)
      .executeTakeFirst()
  )?.commit_sha;
  const merged = defaultHead ? await ancestorsAmong(ctx.db, project.id, defaultHead, rows.map((r) => r.commit_sha)) : new Set<string>();
  const rules = await loadBranchRules(ctx, project);
  const out: BranchEntity[] = [];
  for (const row of rows) {
    const commit = commits.get(row.commit_sha);
    out.push({
      name: row.name,
      commit: commit ? presentCommit(ctx.urls, project, commit) : null,
      merged: row.commit_sha !== defaultHead && merged.has(row.commit_sha),
      protected: rules.matching(row.name).length > 0,
      developers_can_push: rules.developersCan(row.name, 'push'),
      developers_can_merge: rules.developersCan(row.name, 'merge'),
      can_push: await rules.can(row.name, 'push'),
      default: row.name === project.default_branch,
      web_url: ctx.urls.web(`/${project.path_with_namespace}/-/tree/${row.name}`),
    });
  }
  return out;
}

export async function presentBranch(ctx: Ctx, project: ProjectRow, row: RepositoryRefRow): Promise<BranchEntity> {
  return (await presentBranches(ctx, project, [row]))[0]!;
}
