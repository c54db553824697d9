/** Webhooks: project, group and system hooks, their deliveries, and the events other domains' changes send to them. */
import type { Route } from '../../kernel/route.js';
import { webhooksRoutes as routes } from './webhooks.routes.js';

/** Routes of this domain. */
export const webhooksRoutes: Route[] = routes;

/** For the wiring: the delivery worker and the reactions to other domains' changes. */
export { registerWebhookJobs } from './emit.js';
export { webhookIssueHooks, webhookMergeRequestHooks, webhookNoteHooks } from './reactions.js';
export { webhookAwardEmojiHooks } from './reactions-emoji.js';
export { webhookAccountHooks } from './reactions-accounts.js';
export { webhookPipelineHooks, webhookDeploymentHooks } from './reactions-ci.js';
export { webhookMilestoneHooks, webhookPushHooks, webhookReleaseHooks } from './reactions-push.js';
/** For other domains' reactions (push, pipelines, …): queue an event for the hooks that take it, and GitLab's payload pieces. */
export { emitWebhookEvent, type WebhookEvent } from './emit.js';
export { projectHookAttrs, userHookAttrs, labelHookAttrs, repositoryOf } from './payloads.js';
export type { HookEntity, ProjectHookEntity, GroupHookEntity, HookLogEntity } from './webhook.entity.js';
export type {
  CreateProjectHookInput,
  UpdateProjectHookInput,
  CreateGroupHookInput,
  UpdateGroupHookInput,
  CreateSystemHookInput,
  UpdateSystemHookInput,
  HookTrigger,
} from './webhook.schema.js';
