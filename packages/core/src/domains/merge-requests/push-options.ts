/**
 * `git push -o merge_request.*` (GitLab's MergeRequests::PushOptionsHandlerService): for each
 * pushed branch other than the default one, an open merge request from it is updated, or one
 * is created when `merge_request.create` is given. Options mapped: `create`, `target`,
 * `title`, `description` (`\n` read as a line break), `draft`, `remove_source_branch`,
 * `label`/`unlabel`, `assign`/`unassign` (ids or usernames). `merge_when_pipeline_succeeds`/
 * `auto_merge` and `milestone` are accepted and ignored (Forgelet has no auto-merge). Errors do not refuse the push: they come back as GitLab's warning lines.
 */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { isDomainError } from '../../kernel/errors.js';
import type { PushOptions } from '../repository/index.js';
import { selectBranch } from '../repository/index.js';
import { createMergeRequest } from './create-merge-request.js';
import { updateMergeRequest } from './update-merge-request.js';
import { selectMergeRequestUserIds } from './merge-request.queries.js';
import { isDraftTitle } from './merge-request.rules.js';
import type { UpdateMergeRequestInput } from './merge-request.schema.js';

const LIMIT = 10;

/** A pushed branch update: the branch and its new head (deletions are left out by the caller). */
export interface PushedBranch {
  branch: string;
  created: boolean;
}

function list(options: PushOptions['merge_request'], key: string): string[] {
  const v = options?.[key];
  return Array.isArray(v) ? v : [];
}
function single(options: PushOptions['merge_request'], key: string): string | true | undefined {
  const v = options?.[key];
  return Array.isArray(v) ? undefined : v;
}
function flag(options: PushOptions['merge_request'], key: string): boolean | undefined {
  const v = single(options, key);
  return v === undefined ? undefined : v !== 'false' && v !== '0';
}

/** Ids for `assign`/`unassign` values (numeric ids, or usernames looked up). */
async function userIdsOf(ctx: Ctx, values: string[]): Promise<number[]> {
  const ids = values.filter((v) => /^\d+$/.test(v)).map(Number);
  const names = values.filter((v) => !/^\d+$/.test(v)).map((v) => v.toLowerCase());
  if (names.length) {
    const rows = await ctx.db.selectFrom('users').select('id').where(sql`lower(username)`, 'in', names).execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

const draftTitle = (title: string, draft: boolean | undefined) => {
  if (draft === undefined) return title;
  if (draft) return isDraftTitle(title) ? title : `Draft: ${title}`;
  return title.replace(/^\s*(\[draft\]|\(draft\)|draft:|wip:)\s*/i, '');
};

/**
 * Applies the options after the push went in; returns the errors (GitLab's texts), empty when
 * none. `branches` are the pushed, not deleted branches.
 */
export async function applyMergeRequestPushOptions(ctx: Ctx, project: ProjectRow, branches: PushedBranch[], pushOptions: PushOptions): Promise<string[]> {
  const options = pushOptions.merge_request;
  if (!options) return [];
  const errors: string[] = [];
  const targets = branches.filter((b) => b.branch !== project.default_branch);
  if (!ctx.actor.user) errors.push('User is required');
  if (!project.merge_requests_enabled) errors.push(`Merge requests are not enabled for project ${project.path_with_namespace}`);
  if (targets.length > LIMIT) errors.push(`Too many branches pushed (${targets.length} were pushed, limit is ${LIMIT})`);
  const target = single(options, 'target');
  if (typeof target === 'string' && !(await selectBranch(ctx.db, project.id, target))) errors.push(`Target branch ${project.path_with_namespace}:${target} does not exist`);
  if (errors.length) return errors;

  const description = single(options, 'description');
  const title = single(options, 'title');
  const draft = flag(options, 'draft');
  const addLabels = list(options, 'label');
  const removeLabels = list(options, 'unlabel');
  const assign = await userIdsOf(ctx, list(options, 'assign'));
  const unassign = await userIdsOf(ctx, list(options, 'unassign'));
  const removeSource = flag(options, 'remove_source_branch');

  for (const { branch } of targets) {
    try {
      const open = await ctx.db
        .selectFrom('merge_requests')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('source_branch', '=', branch)
        .where('state', '=', 'opened')
        .orderBy('id')
        .executeTakeFirst();
      if (!open) {
        if (!flag(options, 'create')) {
          errors.push(`A merge_request.create push option is required to create a merge request for branch ${branch}`);
          continue;
        }
        // GitLab's BuildService: the title defaults to the branch name, humanized.
        const base = typeof title === 'string' ? title : branch.replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
        const assignees = [...new Set([ctx.actor.user!.id, ...assign])].filter((id) => !unassign.includes(id));
        await createMergeRequest(ctx, {
          id: String(project.id),
          title: draftTitle(base, draft),
          source_branch: branch,
          target_branch: typeof target === 'string' ? target : project.default_branch,
          description: typeof description === 'string' ? description.replace(/\\n/g, '\n') : undefined,
          assignee_ids: assignees,
          add_labels: addLabels.length ? addLabels : undefined,
          remove_source_branch: removeSource,
        });
        continue;
      }
      const update: UpdateMergeRequestInput = { id: String(project.id), merge_request_iid: open.iid };
      if (typeof title === 'string' || draft !== undefined) update.title = draftTitle(typeof title === 'string' ? title : open.title, draft);
      if (typeof description === 'string') update.description = description.replace(/\\n/g, '\n');
      if (typeof target === 'string') update.target_branch = target;
      if (removeSource !== undefined) update.remove_source_branch = removeSource;
      if (addLabels.length) update.add_labels = addLabels;
      if (removeLabels.length) update.remove_labels = removeLabels;
      if (assign.length || unassign.length) {
        const current = await selectMergeRequestUserIds(ctx.db, 'merge_request_assignees', open.id);
        update.assignee_ids = [...new Set([...current, ...assign])].filter((id) => !unassign.includes(id));
      }
      if (Object.keys(update).length > 2) await updateMergeRequest(ctx, update);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      errors.push(...messagesOf(err));
    }
  }
  return errors;
}

/** A domain error's messages as GitLab's `errors.full_messages` (flattened). */
function messagesOf(err: unknown): string[] {
  const body = (err as { body?: { message?: unknown } }).body?.message ?? (err as Error).message;
  if (typeof body === 'string') return [body];
  if (Array.isArray(body)) return body.map(String);
  if (body && typeof body === 'object') return Object.entries(body).flatMap(([k, v]) => (Array.isArray(v) ? v.map((m) => `${k} ${m}`) : [`${k} ${String(v)}`]));
  return ['An unknown error occurred'];
}

/** The iid of the open merge request from each of `branches` (the oldest when several). */
export async function openMergeRequestIids(ctx: Pick<Ctx, 'db'>, projectId: number, branches: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!branches.length) return out;
  const rows = await ctx.db
    .selectFrom('merge_requests')
    .select(['source_branch', 'iid'])
    .where('project_id', '=', projectId)
    .where('source_branch', 'in', branches)
    .where('state', '=', 'opened')
    .orderBy('id', 'desc')
    .execute();
  for (const r of rows) out.set(r.source_branch, r.iid);
  return out;
}
