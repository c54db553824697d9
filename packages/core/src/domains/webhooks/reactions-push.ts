/**
 * The webhooks' reactions to the repository, releases and milestones (registered by the wiring
 * through each domain's hook list), each in the transaction of the change:
 * - a branch written or deleted: a Push Hook to the project's hooks with `push_events` whose
 *   branch filter takes the branch, their groups' (Premium) and the system hooks with
 *   `push_events`; a tag: a Tag Push Hook (`tag_push_events`), unfiltered;
 * - a release created, updated or deleted: a Release Hook (`releases_events`);
 * - a project milestone created, closed, reopened or deleted: a Milestone Hook
 *   (`milestone_events`); GitLab sends none for group milestones.
 */
import type { MilestoneHooks } from '../milestones/index.js';
import type { ReleaseHooks } from '../releases/index.js';
import type { PushHooks } from '../repository/index.js';
import { anyWebhook, emitWebhookEvent } from './emit.js';
import { buildPushPayload } from './payloads-push.js';
import { buildMilestonePayload, buildReleasePayload } from './payloads-releases.js';

export const webhookPushHooks: PushHooks = {
  refUpdated: async (trx, ctx, project, update) => {
    const by = ctx.actor.user;
    if (!by || !(await anyWebhook(trx))) return;
    // As the transaction sees it: a first commit may have set the default branch.
    const fresh = await trx.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
    const tag = update.kind === 'tag';
    await emitWebhookEvent(trx, ctx, {
      project: fresh,
      system: 'flag',
      flag: tag ? 'tag_push_events' : 'push_events',
      trigger: tag ? 'tag_push_hooks' : 'push_hooks',
      branch: tag ? undefined : update.name,
      build: () => buildPushPayload(trx, ctx.urls, { by, project: fresh, update }),
    });
  },
};

export const webhookReleaseHooks: ReleaseHooks = {
  releaseChanged: async (trx, { action, by, project, release }) => {
    if (!(await anyWebhook(trx))) return;
    await emitWebhookEvent(trx, by, {
      project,
      flag: 'releases_events',
      trigger: 'release_hooks',
      build: () => buildReleasePayload(trx, by.urls, project, release, action),
    });
  },
};

export const webhookMilestoneHooks: MilestoneHooks = {
  milestoneChanged: async (trx, { action, by, milestone, project }) => {
    if (!project || !(await anyWebhook(trx))) return;
    await emitWebhookEvent(trx, by, {
      project,
      flag: 'milestone_events',
      trigger: 'milestone_hooks',
      build: () => buildMilestonePayload(trx, by.urls, project, milestone, action),
    });
  },
};
