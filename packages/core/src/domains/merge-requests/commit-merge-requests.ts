/**
 * GET /projects/:id/repository/commits/:sha/merge_requests (GitLab's API::Commits with
 * MergeRequestsFinder's `commit_sha`, MergeRequest.by_related_commit_sha): the project's merge
 * requests whose newest diff version holds the commit, or that it merged as their merge or
 * squash commit; newest first, paged in the database. The route lives here because the
 * repository domain may not know merge requests.
 */
import type { Ctx } from '../../access/context.js';
import { findProject } from '../../access/lookup.js';
import { authorize } from '../../access/policy.js';
import { ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { resolveRevision } from '../repository/index.js';
import type { MergeRequestEntity } from './merge-request.entity.js';
import type { CommitMergeRequestsInput } from './merge-request.schema.js';
import { presentMergeRequests } from './present-merge-requests.js';

const STATES = new Set(['opened', 'closed', 'locked', 'merged']);

/** 404 for a project the caller cannot see, 403 without `read_merge_request` (GitLab's `authorize!`), then 404 `Commit Not Found`. */
export async function listCommitMergeRequests(ctx: Ctx, input: CommitMergeRequestsInput): Promise<Page<MergeRequestEntity>> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_merge_request', { kind: 'project', project });
  if (!project.merge_requests_enabled) throw new ForbiddenError();
  const resolved = await resolveRevision(ctx.db, project.id, input.sha);
  if (!resolved) throw new NotFoundError('Commit');
  const sha = resolved.commit.sha;
  let q = ctx.db
    .selectFrom('merge_requests as mr')
    .selectAll('mr')
    .where('mr.project_id', '=', project.id)
    .where((eb) =>
      eb.or([
        eb('mr.merge_commit_sha', '=', sha),
        eb('mr.squash_commit_sha', '=', sha),
        eb.exists(
          eb
            .selectFrom('merge_request_diff_commits as c')
            .select('c.sha')
            .where('c.sha', '=', sha)
            .where('c.merge_request_diff_id', '=', eb.selectFrom('merge_request_diffs as d').select((s) => s.fn.max('d.id').as('id')).whereRef('d.merge_request_id', '=', 'mr.id')),
        ),
      ]),
    );
  // IssuableFinder's by_state: an unknown state filters nothing.
  if (input.state && STATES.has(input.state)) q = q.where('mr.state', '=', input.state);
  q = q.orderBy('mr.created_at', 'desc').orderBy('mr.id', 'desc');
  return paginate(ctx.db, q, input, (rows) => presentMergeRequests(ctx, rows, { project: project.id }, [project]));
}
