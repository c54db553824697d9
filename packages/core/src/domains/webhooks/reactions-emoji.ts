/**
 * The webhooks' reaction to emoji reactions added and removed (registered by the wiring
 * through award emoji's hook list): an Emoji Hook to the project's hooks and its groups'
 * (Premium) with `emoji_events`, in the change's transaction, as GitLab's AwardEmojis services.
 */
import type { AwardEmojiHooks } from '../award-emoji/index.js';
import { anyWebhook, emitWebhookEvent } from './emit.js';
import { awardableProject, buildEmojiPayload } from './payloads-emoji.js';
import { mergeStatusReader } from './reactions.js';

export const webhookAwardEmojiHooks: AwardEmojiHooks = {
  awardEmojiChanged: async (trx, { action, by, award }) => {
    const user = by.actor.user;
    if (!user || !(await anyWebhook(trx))) return;
    const project = await awardableProject(trx, award.awardable_type, award.awardable_id);
    if (!project) return;
    await emitWebhookEvent(trx, by, {
      project,
      flag: 'emoji_events',
      trigger: 'emoji_hooks',
      build: () => buildEmojiPayload(trx, by.urls, { by: user, project, award, action, statusOf: mergeStatusReader(trx, by) }),
    });
  },
};
