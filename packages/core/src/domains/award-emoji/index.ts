export { awardEmojiRoutes } from './award-emoji.routes.js';
export { listAwardEmoji, getAwardEmoji, awardEmoji, removeAwardEmoji, type AwardableTarget } from './award-emoji.js';
/** For the wiring: who finds the awardables (notes, which knows the noteables and their notes). */
export { registerAwardableFinder, type AwardableFinder, type AwardableSegment } from './award-emoji.js';
export type { AwardableKey } from './award-emoji.queries.js';
export type { CreateAwardEmojiInput, ListAwardEmojiInput } from './award-emoji.js';
export type { AwardEmojiEntity, AwardableType } from './award-emoji.entity.js';
export type { AwardEmojiRow } from './award-emoji.table.js';
/** For other domains: upvotes and downvotes of a page of awardables; dropping the reactions of deleted awardables (inside their transaction). */
export { countVotesOf, deleteAwardEmojiOf, type Votes } from './award-emoji.queries.js';
/** For the wiring: reactions to reactions added and removed (webhooks' emoji events). */
export { registerAwardEmojiHooks, type AwardEmojiHooks, type AwardEmojiChange } from './award-emoji-hooks.js';
export { awardEmojiGraphql } from './award-emoji.graphql.js';
