export { awardEmojiRoutes } from './award-emoji.routes.js';
export { listAwardEmoji, getAwardEmoji, awardEmoji, removeAwardEmoji, type AwardableTarget } from './award-emoji.js';
export type { CreateAwardEmojiInput, ListAwardEmojiInput } from './award-emoji.js';
export type { AwardEmojiEntity, AwardableType } from './award-emoji.entity.js';
export type { AwardEmojiRow } from './award-emoji.table.js';
