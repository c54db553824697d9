/**
 * Push and tag push events as GitLab's Gitlab::DataBuilder::Push writes them for
 * Git::BranchHooksService and Git::TagHooksService: the refs' old and new heads (the blank sha
 * for a created or deleted ref), the pusher, the project, and the pushed commits (the newest 20,
 * oldest first, with the paths each added, modified and removed) with their total count:
 * - a branch update: the commits reachable from the new head and not from the old one;
 * - a new branch: those not reachable from the default branch (all of them for the default
 *   branch itself); a deletion: none;
 * - a tag: its commit (none when deleted), and the annotated tag's message.
 */
import type { Kysely } from 'kysely';
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import type { Database } from '../../storage/database.js';
import type { GitRepositories } from '../../storage/git.js';
import { logCommits } from '../../storage/git-read.js';
import {
  ancestryCte,
  commitWebUrl,
  isProtectedBranch,
  selectBranch,
  selectCommit,
  selectTag,
  type RefUpdate,
  type RepositoryCommitRow,
} from '../repository/index.js';
import { projectHookAttrs } from './payloads.js';
import { xmlschema } from './payloads-system.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

/** Gitlab::Git::SHA1_BLANK_SHA: the `before` of a created ref, the `after` of a deleted one. */
export const BLANK_SHA = '0'.repeat(40);
/** Commits a push payload carries (DataBuilder::Push: "the newest 20"). */
export const PUSH_COMMITS_LIMIT = 20;

type ChangedPaths = { added: string[]; modified: string[]; removed: string[] };

/** Commit#hook_attrs; with the changed paths (Commit#repo_changes) when given. */
export function commitHookAttrs(urls: UrlBuilder, project: Pick<ProjectRow, 'path_with_namespace'>, commit: RepositoryCommitRow, changes?: ChangedPaths): Json {
  return {
    id: commit.sha,
    message: commit.message,
    title: commit.title,
    timestamp: xmlschema(commit.committed_date),
    url: commitWebUrl(urls, project, commit.sha),
    author: { name: commit.author_name, email: commit.author_email },
    ...changes,
  };
}

/** Commit#repo_changes of each commit: a new or renamed file is added (by its new path), a deleted one removed, anything else modified. */
async function changedPaths(db: Db, commitIds: number[]): Promise<Map<number, ChangedPaths>> {
  const out = new Map<number, ChangedPaths>(commitIds.map((id) => [id, { added: [], modified: [], removed: [] }]));
  if (!commitIds.length) return out;
  const rows = await db
    .selectFrom('repository_commit_changes')
    .select(['commit_id', 'path', 'previous_path', 'change'])
    .where('commit_id', 'in', commitIds)
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const paths = out.get(row.commit_id)!;
    if (row.change === 'deleted') paths.removed.push(row.previous_path ?? row.path);
    else if (row.change === 'added' || row.change === 'renamed') paths.added.push(row.path);
    else paths.modified.push(row.path);
  }
  return out;
}

/** The commits a branch update pushed (see the header), the newest PUSH_COMMITS_LIMIT oldest first, and how many in all. */
export async function pushedCommits(db: Db, project: ProjectRow, update: RefUpdate): Promise<{ commits: RepositoryCommitRow[]; total: number }> {
  const after = update.after;
  if (!after) return { commits: [], total: 0 };
  let exclude: string | null = update.before;
  if (!exclude && update.name !== project.default_branch) exclude = (await selectBranch(db, project.id, project.default_branch))?.commit_sha || null;
  const base = () => {
    let q = db
      .withRecursive('anc(sha)', () => ancestryCte(project.id, { sha: after }))
      .withRecursive('old(sha)', () => ancestryCte(project.id, { sha: exclude ?? '' }, { name: 'old' }))
      .selectFrom('repository_commits as c')
      .innerJoin('anc', 'anc.sha', 'c.sha')
      .where('c.project_id', '=', project.id);
    if (exclude) q = q.where('c.sha', 'not in', (eb) => eb.selectFrom('old').select('old.sha'));
    return q;
  };
  const { total } = await base().select((eb) => eb.fn.countAll<string | number>().as('total')).executeTakeFirstOrThrow();
  const newest = await base().selectAll('c').orderBy('c.id', 'desc').limit(PUSH_COMMITS_LIMIT).execute();
  return { commits: newest.reverse(), total: Number(total) };
}

export interface PushPayloadInput {
  by: UserRow;
  project: ProjectRow;
  update: RefUpdate;
}

interface Pushed {
  commits: RepositoryCommitRow[];
  total: number;
  message: string | null;
}

/** What a push carries: the branch's pushed commits, or the tag's commit and message. */
async function pushedOf(db: Db, project: ProjectRow, update: RefUpdate): Promise<Pushed> {
  if (update.kind === 'branch') return { ...(await pushedCommits(db, project, update)), message: null };
  const row = update.after ? await selectTag(db, project.id, update.name) : undefined;
  const commit = row && (await selectCommit(db, project.id, row.commit_sha));
  return { commits: commit ? [commit] : [], total: commit ? 1 : 0, message: row?.message ?? null };
}

/** Gitlab::DataBuilder::Push.build for a ref written through Forgelet (no push options); `pushed` given for a sample. */
export async function buildPushPayload(db: Db, urls: UrlBuilder, { by, project, update }: PushPayloadInput, pushed?: Pushed): Promise<Json> {
  const tag = update.kind === 'tag';
  const { commits, total, message } = pushed ?? (await pushedOf(db, project, update));
  const changes = await changedPaths(db, commits.map((c) => c.id));
  const projectAttrs = await projectHookAttrs(db, urls, project);
  const { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level } = projectAttrs;
  let checkoutSha: string | null = update.after;
  if (tag && update.after) checkoutSha = (await selectTag(db, project.id, update.name))?.commit_sha ?? null;
  return {
    object_kind: tag ? 'tag_push' : 'push',
    event_name: tag ? 'tag_push' : 'push',
    before: update.before ?? BLANK_SHA,
    after: update.after ?? BLANK_SHA,
    ref: `refs/${tag ? 'tags' : 'heads'}/${update.name}`,
    // Forgelet has no protected tags.
    ref_protected: tag ? false : await isProtectedBranch(db, project.id, update.name),
    // The commit checked out: none for a deletion; a tag's commit.
    checkout_sha: checkoutSha,
    message,
    user_id: by.id,
    user_name: by.name,
    user_username: by.username,
    user_email: by.public_email || null,
    user_avatar: null,
    project_id: project.id,
    project: projectAttrs,
    commits: commits.map((c) => commitHookAttrs(urls, project, c, changes.get(c.id))),
    total_commits_count: total,
    push_options: {},
    repository: { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level },
  };
}

/**
 * DataBuilder::Push.build_sample (a hook test): the default branch's last three commits, newest
 * first, from the oldest to the newest, on the default branch or (tag push) the last tag by
 * name; null for an empty repository, whose test sends GitLab's fixed sample.
 */
export async function buildPushSample(db: Db, git: GitRepositories, urls: UrlBuilder, by: UserRow, project: ProjectRow, tag: boolean): Promise<Json | null> {
  const head = await selectBranch(db, project.id, project.default_branch);
  if (!head?.commit_sha) return null;
  // `git log -3` order (GitLab's `repository.commits(ref, limit: 3)`), the rows from the index.
  const order = (await logCommits(git, project.id, { from: [head.commit_sha], maxCount: 3 })).map((c) => c.sha);
  const rows = order.length ? await db.selectFrom('repository_commits').selectAll().where('project_id', '=', project.id).where('sha', 'in', order).execute() : [];
  const bySha = new Map(rows.map((r) => [r.sha, r]));
  const commits = order.map((sha) => bySha.get(sha)).filter((r) => r !== undefined);
  if (!commits.length) return null;
  let name = project.default_branch;
  if (tag) {
    const last = await db.selectFrom('repository_refs').select('name').where('project_id', '=', project.id).where('kind', '=', 'tag').orderBy('name', 'desc').limit(1).executeTakeFirst();
    name = last?.name ?? 'v1.0.0';
  }
  const update: RefUpdate = { kind: tag ? 'tag' : 'branch', name, before: commits.at(-1)!.sha, after: commits[0]!.sha };
  return buildPushPayload(db, urls, { by, project, update }, { commits, total: commits.length, message: null });
}
