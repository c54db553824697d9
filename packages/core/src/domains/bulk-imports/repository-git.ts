/**
 * The `repository` step of a project migration by git, as GitLab's
 * BulkImports::Projects::Pipelines::RepositoryPipeline: the source project's `http_url_to_repo`
 * is fetched as a mirror (every branch and tag, full history) into the new project's bare
 * repository with the source token as `oauth2:<token>`, then the database's index of the
 * repository is built from git. It runs in stage 1, before merge requests, pipelines and
 * releases (stage 2) replay their records, which name commits by their (now identical) shas.
 *
 * - The token never reaches a command line, a log or an error: git gets it as an
 *   `Authorization` header through GIT_CONFIG_* environment variables, and git's messages are
 *   scrubbed of it before they are kept.
 * - Git makes its own connections, so the importer's outbound policy is applied to them the way
 *   its undici connector applies it: the source's name is resolved once, every address checked
 *   (`egress.refusal`), and git is pinned to the checked address (`http.curloptResolve`), with
 *   redirects off (a redirect could lead elsewhere, header and all).
 * - A source without git over HTTP (an older Forgelet: its clone URL answers 404) is not an
 *   error: the step then imports the source's `forgelet_repository` records as before.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Ctx, Deps } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { GitCommandError } from '../../storage/git.js';
import { applyPushedRefUpdates, type RefUpdate } from '../repository/index.js';
import { SourceNetworkError } from './source-client.js';

/** Why a fetch failed, without the token (GitLab's import failure carries git's message). */
function scrub(text: string, token: string): string {
  let out = text;
  for (const secret of [token, Buffer.from(`oauth2:${token}`).toString('base64')]) if (secret) out = out.split(secret).join('[FILTERED]');
  return out.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}

/** `-c http.curloptResolve=host:port:address`: git connects to the address the policy checked. */
async function pinnedResolve(deps: Deps, url: URL): Promise<string[]> {
  const refusal = await deps.egress.refusal(url.toString());
  if (refusal) throw new SourceNetworkError(`URL is blocked: ${refusal}`, null, true);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return [];
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const { address } = await lookup(host);
  // The address git will use is checked again on its own (a name may resolve differently now).
  const literal = isIP(address) === 6 ? `[${address}]` : address;
  const again = await deps.egress.refusal(`${url.protocol}//${literal}:${port}/`);
  if (again) throw new SourceNetworkError(`URL is blocked: ${again}`, null, true);
  return ['-c', `http.curloptResolve=${host}:${port}:${address}`];
}

export type RepositoryFetchOutcome = { fetched: true; refs: number } | { fetched: false };

/**
 * Fetches the source project's repository into `project`'s and indexes it. `httpUrlToRepo` is
 * the source project's clone URL (REST `http_url_to_repo`); `defaultBranch` its default branch.
 */
export async function fetchRepositoryByGit(
  ctx: Ctx,
  project: ProjectRow,
  source: { httpUrlToRepo: string; token: string; defaultBranch: string | null },
): Promise<RepositoryFetchOutcome> {
  let url: URL;
  try {
    url = new URL(source.httpUrlToRepo);
  } catch {
    return { fetched: false };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { fetched: false };
  url.username = '';
  url.password = '';
  const resolve = await pinnedResolve(ctx, url);
  const git = ctx.git;
  await git.ensure(project.id, project.default_branch);
  const auth = Buffer.from(`oauth2:${source.token}`).toString('base64');
  const env = {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${auth}`,
  };
  try {
    await git.run(
      project.id,
      [
        ...resolve,
        '-c', 'http.followRedirects=false',
        '-c', 'credential.helper=',
        'fetch', '--atomic', '--quiet', '--no-write-fetch-head', '--update-head-ok', '--prune', '--no-tags',
        url.toString(),
        '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*',
      ],
      { env },
    );
  } catch (err) {
    if (!(err instanceof GitCommandError)) throw err;
    // An older Forgelet has no git over HTTP: its clone URL is 404 (git: "... not found").
    if (/\b404\b|not found/i.test(err.stderr) && !/Authentication failed|403/i.test(err.stderr)) return { fetched: false };
    throw new SourceNetworkError(`git fetch of the source repository failed: ${scrub(err.stderr, source.token)}`);
  }
  return { fetched: true, refs: await indexFetchedRefs(ctx, project, source.defaultBranch) };
}

/**
 * After a migration's fetch (by git or from a bundle): the refs now in git become the index,
 * default branch first (it sets the project's default and HEAD). Answers how many refs.
 */
export async function indexFetchedRefs(ctx: Ctx, project: ProjectRow, defaultBranch: string | null): Promise<number> {
  const git = ctx.git;
  const listed = (await git.run(project.id, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags'])).stdout.toString('utf8');
  const updates: RefUpdate[] = [];
  for (const line of listed.split('\n')) {
    const [ref, sha] = line.split(' ');
    if (!ref || !sha) continue;
    const kind = ref.startsWith('refs/heads/') ? 'branch' : 'tag';
    updates.push({ kind, name: ref.slice(kind === 'branch' ? 'refs/heads/'.length : 'refs/tags/'.length), before: null, after: sha });
  }
  const first = defaultBranch;
  updates.sort((a, b) => Number(b.kind === 'branch' && b.name === first) - Number(a.kind === 'branch' && a.name === first));
  if (first && updates.some((u) => u.kind === 'branch' && u.name === first) && project.default_branch !== first) {
    await ctx.db.updateTable('projects').set({ default_branch: first }).where('id', '=', project.id).execute();
    project = { ...project, default_branch: first };
  }
  if (first && updates.some((u) => u.kind === 'branch' && u.name === first)) await git.run(project.id, ['symbolic-ref', 'HEAD', `refs/heads/${first}`]);
  await applyPushedRefUpdates(ctx, project, updates, { imported: true });
  return updates.length;
}
