/**
 * What other domains do when a reaction is added or removed, without award emoji naming them
 * (webhooks' emoji events). The wiring (forge.ts) registers each reaction; they run inside the
 * transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { AwardEmojiRow } from './award-emoji.table.js';

export interface AwardEmojiChange {
  /** `award` when added, `revoke` when removed (GitLab's AddService and DestroyService). */
  action: 'award' | 'revoke';
  by: Ctx;
  /** The reaction; on `revoke`, as it was before it was deleted. */
  award: AwardEmojiRow;
}

export interface AwardEmojiHooks {
  awardEmojiChanged?: (trx: Kysely<Database>, change: AwardEmojiChange) => Promise<void>;
}

const registered = new HookList<AwardEmojiHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerAwardEmojiHooks(hooks: AwardEmojiHooks): void {
  registered.register(hooks);
}

export async function runAwardEmojiChanged(trx: Kysely<Database>, change: AwardEmojiChange): Promise<void> {
  for (const h of registered.all()) if (h.awardEmojiChanged) await h.awardEmojiChanged(trx, change);
}
