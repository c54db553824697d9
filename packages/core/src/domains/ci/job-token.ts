/**
 * CI job tokens (`glcbt-`): stored as a digest on the job, valid only while the job runs. The
 * token acts as the user who started the pipeline, on the routes that accept job tokens.
 */
import { selectUserById } from '../../access/users.js';
import type { Actor, Deps } from '../../access/context.js';
import { digestToken } from '../../kernel/ids.js';
import type { JobTokenResolver } from '../../access/authenticate.js';

export const resolveJobToken: JobTokenResolver = async (deps: Deps, token: string): Promise<Actor | null> => {
  const job = await deps.db
    .selectFrom('ci_jobs')
    .select(['id', 'project_id', 'pipeline_id', 'user_id', 'status'])
    .where('token_digest', '=', digestToken(token))
    .executeTakeFirst();
  if (!job || job.status !== 'running' || job.user_id === null) return null;
  const user = await selectUserById(deps.db, job.user_id);
  if (!user || user.state !== 'active') return null;
  return {
    kind: 'job',
    user,
    token: { id: job.id, scopes: [], kind: 'job' },
    // A job token never carries its user's administrator rights.
    isAdmin: false,
    job: { id: job.id, projectId: job.project_id, pipelineId: job.pipeline_id },
  };
};
