/**
 * Test set-up for code: records commits through the core use case (the repository API has
 * its own tests), so suites about releases, CI or approvals start from known branches.
 */
import { recordCommit, type CommitAction } from '@forgelet/core';
import type { TestForgelet } from './server.js';

/**
 * Commits `files` (path → content; null deletes) on `branch` as `username` (default root),
 * creating the branch from `startBranch` (or as the first branch) when needed. Returns the sha.
 */
export async function commitFiles(
  f: TestForgelet,
  projectId: number,
  branch: string,
  files: Record<string, string | null>,
  options: { username?: string; message?: string; startBranch?: string } = {},
): Promise<string> {
  const ctx = await f.forge.contextFor(options.username ?? 'root');
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
  const branchRow = await ctx.db
    .selectFrom('repository_refs')
    .select('id')
    .where('project_id', '=', projectId)
    .where('kind', '=', 'branch')
    .where('name', '=', branch)
    .executeTakeFirst();
  const actions: CommitAction[] = [];
  for (const [path, content] of Object.entries(files)) {
    let exists = false;
    if (branchRow) {
      exists = Boolean(
        await ctx.db.selectFrom('repository_files').select('id').where('ref_id', '=', branchRow.id).where('path', '=', path).executeTakeFirst(),
      );
    } else if (options.startBranch) {
      const start = await ctx.db
        .selectFrom('repository_refs')
        .innerJoin('repository_files', 'repository_files.ref_id', 'repository_refs.id')
        .select('repository_files.id')
        .where('repository_refs.project_id', '=', projectId)
        .where('repository_refs.kind', '=', 'branch')
        .where('repository_refs.name', '=', options.startBranch)
        .where('repository_files.path', '=', path)
        .executeTakeFirst();
      exists = Boolean(start);
    }
    if (content === null) actions.push({ action: 'delete', file_path: path });
    else actions.push({ action: exists ? 'update' : 'create', file_path: path, content });
  }
  const done = await recordCommit(ctx, project, {
    branch,
    start_branch: branchRow ? undefined : options.startBranch,
    commit_message: options.message ?? `Update ${Object.keys(files).join(', ')}`,
    actions,
  });
  return done.commit.sha;
}
