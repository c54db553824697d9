/**
 * Test set-up for code: records commits through the core use case (the repository API has
 * its own tests), so suites about releases, CI or approvals start from known branches. Against
 * the served binary (no core in this process) the same commit goes through the commits API.
 */
import { recordCommit, type CommitAction } from '@forgelet/core';
import type { ServedForgelet } from './served.js';
import type { TestForgelet } from './server.js';

export interface CommitOptions {
  /** The author (default root); over HTTP root's token acts as them through `Sudo`. */
  username?: string;
  message?: string;
  startBranch?: string;
}

/**
 * Commits `files` (path → content; null deletes) on `branch` as `username` (default root),
 * creating the branch from `startBranch` (or as the first branch) when needed. Returns the sha.
 */
export async function commitFiles(
  f: TestForgelet | ServedForgelet,
  projectId: number,
  branch: string,
  files: Record<string, string | null>,
  options: CommitOptions = {},
): Promise<string> {
  if (!('forge' in f)) return commitOverHttp(f, projectId, branch, files, options);
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

/**
 * commitFiles through `POST /projects/:id/repository/commits` (the user must be allowed to push).
 * A `[skip ci]` line after the message keeps it a set-up commit, as in-process: the title is the
 * same and no push pipeline starts.
 */
async function commitOverHttp(
  f: ServedForgelet,
  projectId: number,
  branch: string,
  files: Record<string, string | null>,
  options: CommitOptions,
): Promise<string> {
  const headers: Record<string, string> = options.username && options.username !== 'root' ? { Sudo: options.username } : {};
  const branchStatus = (await f.api('GET', `/projects/${projectId}/repository/branches/${encodeURIComponent(branch)}`, { headers })).status;
  if (branchStatus !== 200 && branchStatus !== 404) throw new Error(`GET branch ${branch}: ${branchStatus}`);
  const startRef = branchStatus === 200 ? branch : options.startBranch;
  const actions: CommitAction[] = [];
  for (const [path, content] of Object.entries(files)) {
    let found = false;
    if (startRef) {
      const head = await f.api('HEAD', `/projects/${projectId}/repository/files/${encodeURIComponent(path)}?ref=${encodeURIComponent(startRef)}`, { headers });
      if (head.status !== 200 && head.status !== 404) throw new Error(`HEAD ${path} at ${startRef}: ${head.status}`);
      found = head.status === 200;
    }
    if (content === null) actions.push({ action: 'delete', file_path: path });
    else actions.push({ action: found ? 'update' : 'create', file_path: path, content });
  }
  const r = await f.api('POST', `/projects/${projectId}/repository/commits`, {
    headers,
    body: {
      branch,
      start_branch: branchStatus === 200 ? undefined : options.startBranch,
      commit_message: `${options.message ?? `Update ${Object.keys(files).join(', ')}`}\n\n[skip ci]`,
      actions,
    },
  });
  if (r.status !== 201) throw new Error(`commit on ${branch} as ${options.username ?? 'root'}: ${r.status} ${r.text}`);
  return r.body.id;
}
