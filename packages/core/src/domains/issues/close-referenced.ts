/**
 * Automatic issue closing, as GitLab does it after a push and after a merge:
 *  - a push that moves the default branch closes the issues its new commits' messages close
 *    (ProcessCommitWorker: up to 100 commits, the merge commits GitLab made for merge requests
 *    left out), each state event carrying the commit as `source_commit`;
 *  - a merge request merged into the default branch closes the issues its title and
 *    description close (MergeRequests::PostMergeService), the state event carrying it as
 *    `source_merge_request_id`.
 * Both run as queued jobs, as GitLab's workers do. The push's transaction reads the new
 * commits' messages and queues a job only when one of them names an issue to close; the
 * merge's transaction queues one for the merge request.
 * The person is the one who pushed or merged, who must be able to update the issue
 * (Issues::CloseWorker: `update_issue`; GitLab now closes as the pusher, not the commit author).
 */
import { sql, type Kysely } from 'kysely';
import { contextFor, nowIso, type Ctx, type Deps } from '../../access/context.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import type { ProjectRow } from '../../access/project.table.js';
import { can } from '../../access/policy.js';
import { selectProjectByRef } from '../../access/lookup.js';
import { selectUserById } from '../../access/users.js';
import type { Database } from '../../storage/database.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { findMergeRequest, presentMergeRequests, type MergeRequestEntity, type MergeRequestHooks, type MergeRequestRow } from '../merge-requests/index.js';
import { closingMergeRequestsQuery } from './closing-issue.queries.js';
import type { PushHooks } from '../repository/index.js';
import { recordStateEvent } from '../state-events/index.js';
import { closingReferences, type IssueReference } from './closing-references.js';
import { canReadIssue, findIssue } from './find-issue.js';
import { toIssueBasicEntity, type IssueBasicEntity } from './issue.entity.js';
import { issueChanged } from './issue-hooks.js';
import { presentIssues } from './present-issues.js';
import { closeIssueById, countOpenIssueChange, lockIssueById, selectAssigneeIds, selectIssueById } from './issue.queries.js';
import type { IssueRow } from './issue.table.js';

export const CLOSE_BY_COMMITS_JOB = 'issues.close_by_commits';
export const CLOSE_BY_MERGE_REQUEST_JOB = 'issues.close_by_merge_request';

/** GitLab's PROCESS_COMMIT_LIMIT: the newest commits of a push whose messages are read. */
export const PROCESS_COMMIT_LIMIT = 100;

interface CommitsPayload {
  project_id: number;
  user_id: number;
  /** The pushed commits that name issues to close, oldest first. */
  commits: Array<{ sha: string; merge: boolean; refs: IssueReference[] }>;
}

interface MergeRequestPayload {
  merge_request_id: number;
  user_id: number;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * Push hook (`refUpdated`, in the writer's transaction): when the default branch moves, the new
 * commits' messages are read (one `git log`; the objects are in the repository already) and,
 * if any of them closes an issue, the closing is queued.
 */
export async function queueClosingByPush(
  trx: Kysely<Database>,
  ctx: Ctx,
  project: ProjectRow,
  update: { kind: 'branch' | 'tag'; name: string; before: string | null; after: string | null },
): Promise<void> {
  const user = ctx.actor.user;
  if (update.kind !== 'branch' || update.after === null || !SHA.test(update.after) || user === null) return;
  const current = await trx.selectFrom('projects').select('default_branch').where('id', '=', project.id).executeTakeFirst();
  if (!current || current.default_branch !== update.name) return;
  const commits = [];
  for (const commit of await pushedCommits(ctx, project.id, update.before, update.after)) {
    const refs = closingReferences(commit.message, ctx.urls.web(''), namespaceOf(project));
    if (refs.length) commits.push({ sha: commit.sha, merge: commit.merge, refs });
  }
  if (!commits.length) return;
  const payload: CommitsPayload = { project_id: project.id, user_id: user.id, commits };
  await ctx.queue.enqueue(trx, CLOSE_BY_COMMITS_JOB, payload);
}

/** Merge request hook (in the merge's transaction): a merge queues the closing of the issues its text closes. */
export async function queueClosingByMerge(trx: Kysely<Database>, by: Ctx, mergeRequestId: number): Promise<void> {
  const user = by.actor.user;
  if (!user) return;
  const payload: MergeRequestPayload = { merge_request_id: mergeRequestId, user_id: user.id };
  await by.queue.enqueue(trx, CLOSE_BY_MERGE_REQUEST_JOB, payload);
}

async function contextOfUser(deps: Deps, userId: number): Promise<Ctx | null> {
  const user = await selectUserById(deps.db, userId);
  if (!user || user.state !== 'active') return null;
  return contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
}

/** The full path of the namespace a project is in (`group/sub` of `group/sub/app`). */
const namespaceOf = (project: ProjectRow) => project.path_with_namespace.slice(0, project.path_with_namespace.lastIndexOf('/'));

/** GitLab's `update_issue`: Reporter (admin_issue), or the issue's author or an assignee who can still read it. */
async function canUpdateIssue(ctx: Ctx, project: ProjectRow, issue: IssueRow): Promise<boolean> {
  const subject = { kind: 'project' as const, project };
  if (!project.issues_enabled || !(await can(ctx, 'read_issue', subject))) return false;
  if (await can(ctx, 'admin_issue', subject)) return true;
  const userId = ctx.actor.user?.id;
  return userId !== undefined && (issue.author_id === userId || (await selectAssigneeIds(ctx.db, issue.id)).includes(userId));
}

/**
 * Closes the open issues `refs` name (relative to `project`), as `ctx`'s user, each in its own
 * transaction with a state event naming `source`. Answers the ids of the issues it closed.
 */
export async function closeReferencedIssues(
  ctx: Ctx,
  project: ProjectRow,
  refs: IssueReference[],
  source: { commit?: string; mergeRequestId?: number },
): Promise<number[]> {
  const closed: number[] = [];
  const user = ctx.actor.user!;
  for (const ref of refs) {
    const target = ref.projectPath === null ? project : await selectProjectByRef(ctx, ref.projectPath);
    if (!target) continue;
    const issue = await ctx.db.selectFrom('issues').selectAll().where('project_id', '=', target.id).where('iid', '=', ref.iid).executeTakeFirst();
    if (!issue || issue.state !== 'opened' || !(await canUpdateIssue(ctx, target, issue))) continue;
    const now = nowIso(ctx);
    const done = await ctx.db.transaction().execute(async (trx) => {
      const before = (await lockIssueById(trx, issue.id)) ?? issue;
      const previous = { labelIds: [], assigneeIds: await selectAssigneeIds(trx, issue.id) };
      if (!(await closeIssueById(trx, issue.id, user.id, now))) return false; // closed meanwhile
      await recordStateEvent(trx, { type: 'Issue', id: issue.id }, 'closed', user.id, now, source);
      await recordProjectActivity(trx, target, now);
      const after = await selectIssueById(trx, issue.id);
      await countOpenIssueChange(trx, before, after);
      await issueChanged(trx, before, after, { by: ctx, previous });
      return true;
    });
    if (done) closed.push(issue.id);
  }
  return closed;
}

/**
 * The issues a merge request names as closing, resolved in `db` (a transaction or the
 * database): existing issues, in the order named, whoever may see them (readers filter).
 * None unless it targets the default branch (GitLab's MergeRequest#closes_issues).
 */
async function closingIssuesOf(db: Kysely<Database>, urls: Deps['urls'], project: ProjectRow, mr: Pick<MergeRequestRow, 'title' | 'description' | 'target_branch'>) {
  if (mr.target_branch !== project.default_branch) return [];
  const out: Array<{ project: ProjectRow; issue: IssueRow }> = [];
  for (const ref of closingReferences(`${mr.title}\n${mr.description ?? ''}`, urls.web(''), namespaceOf(project))) {
    const target = ref.projectPath === null ? project : await selectProjectByRef({ db }, ref.projectPath);
    if (!target) continue;
    const issue = await db.selectFrom('issues').selectAll().where('project_id', '=', target.id).where('iid', '=', ref.iid).executeTakeFirst();
    if (issue && !out.some((o) => o.issue.id === issue.id)) out.push({ project: target, issue });
  }
  return out;
}

/**
 * Keeps `merge_request_closing_issues` for a merge request opened or edited, in its transaction
 * (GitLab's cache_merge_request_closes_issues!). Merged and closed ones keep what they had.
 */
async function cacheClosingIssues(trx: Kysely<Database>, by: Ctx, mr: MergeRequestRow): Promise<void> {
  const project = await selectProjectByRef({ db: trx }, mr.project_id);
  if (!project) return;
  const issues = await closingIssuesOf(trx, by.urls, project, mr);
  await trx.deleteFrom('merge_request_closing_issues').where('merge_request_id', '=', mr.id).execute();
  if (issues.length) {
    const now = nowIso(by);
    await trx.insertInto('merge_request_closing_issues').values(issues.map(({ issue }) => ({ merge_request_id: mr.id, issue_id: issue.id, created_at: now }))).execute();
  }
}

/** The commits of a push, oldest first: sha, whether it has several parents, message. */
async function pushedCommits(deps: Deps, projectId: number, before: string | null, after: string) {
  const range = before && SHA.test(before) && !/^0+$/.test(before) ? [after, `^${before}`] : [after];
  const out = await deps.git.run(projectId, ['log', '--format=%H%x1f%P%x1f%B%x1e', `--max-count=${PROCESS_COMMIT_LIMIT}`, '--end-of-options', ...range, '--']);
  return out.stdout
    .toString('utf8')
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.includes('\x1f'))
    .map((record) => {
      const [sha, parents, message] = record.split('\x1f');
      return { sha: sha!, merge: (parents ?? '').trim().split(' ').length > 1, message: message ?? '' };
    })
    .reverse();
}

async function closeByCommits(deps: Deps, payload: CommitsPayload): Promise<void> {
  if (!Array.isArray(payload?.commits)) return;
  const project = await selectProjectByRef(deps, payload.project_id);
  const ctx = project ? await contextOfUser(deps, payload.user_id) : null;
  if (!project || !ctx) return;
  for (const commit of payload.commits) {
    // GitLab's own merge commits: the merge request closes what it names (closeByMergeRequest).
    if (commit.merge) {
      const mergedBy = await deps.db.selectFrom('merge_requests').select('id').where('project_id', '=', project.id).where('merge_commit_sha', '=', commit.sha).executeTakeFirst();
      if (mergedBy) continue;
    }
    await closeReferencedIssues(ctx, project, commit.refs, { commit: commit.sha });
  }
}

async function closeByMergeRequest(deps: Deps, payload: MergeRequestPayload): Promise<void> {
  const mr = await deps.db.selectFrom('merge_requests').selectAll().where('id', '=', payload?.merge_request_id ?? 0).executeTakeFirst();
  if (!mr || mr.state !== 'merged') return;
  const project = await selectProjectByRef(deps, mr.project_id);
  const ctx = project ? await contextOfUser(deps, payload.user_id) : null;
  if (!project || !ctx || mr.target_branch !== project.default_branch) return;
  const refs = closingReferences(`${mr.title}\n${mr.description ?? ''}`, deps.urls.web(''), namespaceOf(project));
  await closeReferencedIssues(ctx, project, refs, { mergeRequestId: mr.id });
}

/** Registers the closing jobs on the queue (call once per forge). */
export function registerIssueClosingJobs(deps: Deps): void {
  deps.queue.register(CLOSE_BY_COMMITS_JOB, async (payload: CommitsPayload) => closeByCommits(deps, payload));
  deps.queue.register(CLOSE_BY_MERGE_REQUEST_JOB, async (payload: MergeRequestPayload) => closeByMergeRequest(deps, payload));
}

/** The issues' reaction to pushes, registered by the wiring (the repository's push hooks). */
export const issuesPushHooks: PushHooks = { refUpdated: queueClosingByPush };

/** The issues' reaction to merges, registered by the wiring (the merge requests' hooks). */
export const issuesMergeRequestHooks: MergeRequestHooks = {
  mergeRequestChanged: async (trx, change) => {
    if (change.action === 'merge') await queueClosingByMerge(trx, change.by, change.after.id);
    else if (change.action === 'open' || change.action === 'update' || change.action === 'reopen') await cacheClosingIssues(trx, change.by, change.after);
  },
};

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/closes_issues: the issues the merge
 * request's title and description close once it is merged into the default branch (none for
 * another target, as GitLab's `MergeRequest#closes_issues`), those the caller can read, paged
 * in the database in the order they are named.
 */
export async function listMergeRequestClosingIssues(ctx: Ctx, projectRef: string, iid: number, page: PageRequest): Promise<Page<IssueBasicEntity>> {
  const { project, mergeRequest } = await findMergeRequest(ctx, projectRef, iid);
  const ids: number[] = [];
  for (const { project: target, issue } of await closingIssuesOf(ctx.db, ctx.urls, project, mergeRequest)) {
    if (!target.issues_enabled || !(await can(ctx, 'read_issue', { kind: 'project', project: target }))) continue;
    if (await canReadIssue(ctx, target, issue)) ids.push(issue.id);
  }
  // In the order named: the position of each id. No ids: nothing matches (and a CASE needs a WHEN).
  const base = ctx.db.selectFrom('issues').selectAll();
  const q = ids.length
    ? base.where(sql<boolean>`id in (${sql.join(ids)})`).orderBy(sql`case id ${sql.join(ids.map((id, i) => sql`when ${id} then ${i}`), sql` `)} else 0 end`)
    : base.where(sql<boolean>`1 = 0`).orderBy('id');
  return paginate(ctx.db, q, page, async (rows) => (await presentIssues(ctx, rows as IssueRow[])).map(toIssueBasicEntity));
}

/**
 * GET /projects/:id/issues/:issue_iid/closed_by: the project's merge requests that close the
 * issue once merged (GitLab: MergeRequestBasic, from merge_requests_closing_issues), paged.
 */
export async function listClosingMergeRequests(ctx: Ctx, projectRef: string, iid: number, page: PageRequest): Promise<Page<MergeRequestEntity>> {
  const { project, issue } = await findIssue(ctx, projectRef, iid);
  const readable = Boolean(project.merge_requests_enabled) && (await can(ctx, 'read_merge_request', { kind: 'project', project }));
  const q = closingMergeRequestsQuery(ctx, issue.id).where('mr.project_id', '=', project.id).where(readable ? sql<boolean>`1 = 1` : sql<boolean>`1 = 0`);
  return paginate(ctx.db, q, page, (rows) => presentMergeRequests(ctx, rows as MergeRequestRow[], { project: project.id }, [project]));
}
