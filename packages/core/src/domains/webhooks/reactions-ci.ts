/**
 * The webhooks' reactions to CI and deployments, registered by the wiring (forge.ts), each in
 * the transaction of the change, as GitLab's model callbacks fire them:
 * - Pipeline Hook on every change of a pipeline's status (Ci::Pipeline's after_transition);
 * - Job Hook when a job is created, and when it becomes pending, running, success, failed or
 *   canceled (Ci::Build's hooks; not for manual, skipped or created again);
 * - Deployment Hook when a deployment starts running, succeeds, fails or is canceled.
 * Pipeline and job events of a blocked user are not sent (GitLab 15.1).
 */
import type { ProjectRow } from '../../access/project.table.js';
import { usersByIds } from '../../access/users.js';
import type { PipelineHooks } from '../ci/index.js';
import type { DeploymentHooks } from '../delivery/index.js';
import { anyWebhook, emitWebhookEvent } from './emit.js';
import { buildDeploymentPayload, buildJobPayload, buildPipelinePayload, pipelineFacts, type PipelineFacts } from './payloads-ci.js';

const JOB_HOOK_STATUSES = new Set(['pending', 'running', 'success', 'failed', 'canceled']);
const DEPLOYMENT_HOOK_STATUSES = new Set(['running', 'success', 'failed', 'canceled']);

export const webhookPipelineHooks: PipelineHooks = {
  jobsChanged: async (trx, changes, by) => {
    if (!(await anyWebhook(trx))) return;
    const from = new Map(changes.map((c) => [c.id, c.from]));
    const rows = await trx.selectFrom('ci_jobs').selectAll().where('id', 'in', [...from.keys()]).orderBy('id').execute();
    const due = rows.filter((j) => {
      const before = from.get(j.id);
      return before === null || (before !== j.status && JOB_HOOK_STATUSES.has(j.status));
    });
    if (!due.length) return;
    const users = await usersByIds(trx, due.map((j) => j.user_id).filter((id): id is number => id !== null));
    const projects = new Map<number, ProjectRow>();
    const facts = new Map<number, Promise<PipelineFacts>>();
    const now = by.clock.now().toISOString();
    for (const job of due) {
      if (job.user_id !== null && users.get(job.user_id)?.state === 'blocked') continue;
      let project = projects.get(job.project_id);
      if (!project) projects.set(job.project_id, (project = await trx.selectFrom('projects').selectAll().where('id', '=', job.project_id).executeTakeFirstOrThrow()));
      const of = project;
      await emitWebhookEvent(trx, by, {
        project,
        flag: 'job_events',
        trigger: 'job_hooks',
        build: async () => {
          let f = facts.get(job.pipeline_id);
          if (!f) {
            f = trx.selectFrom('ci_pipelines').selectAll().where('id', '=', job.pipeline_id).executeTakeFirstOrThrow().then((p) => pipelineFacts(trx, p, of));
            facts.set(job.pipeline_id, f);
          }
          return buildJobPayload(trx, by.urls, await f, job, now);
        },
      });
    }
  },
  statusChanged: async (trx, _from, pipeline, by) => {
    if (!(await anyWebhook(trx))) return;
    if (pipeline.user_id !== null && (await usersByIds(trx, [pipeline.user_id])).get(pipeline.user_id)?.state === 'blocked') return;
    const project = await trx.selectFrom('projects').selectAll().where('id', '=', pipeline.project_id).executeTakeFirstOrThrow();
    const now = by.clock.now().toISOString();
    await emitWebhookEvent(trx, by, {
      project,
      flag: 'pipeline_events',
      trigger: 'pipeline_hooks',
      build: async () => buildPipelinePayload(trx, by.urls, by.secrets, await pipelineFacts(trx, pipeline, project), now),
    });
  },
};

export const webhookDeploymentHooks: DeploymentHooks = {
  deploymentStatusChanged: async (trx, { deployment, environment, from, at, by }) => {
    if (from === deployment.status || !DEPLOYMENT_HOOK_STATUSES.has(deployment.status)) return;
    if (!(await anyWebhook(trx))) return;
    const project = await trx.selectFrom('projects').selectAll().where('id', '=', deployment.project_id).executeTakeFirstOrThrow();
    await emitWebhookEvent(trx, by, {
      project,
      flag: 'deployment_events',
      trigger: 'deployment_hooks',
      build: () => buildDeploymentPayload(trx, by.urls, { deployment, environment, project, status: deployment.status, changedAt: at }),
    });
  },
};
