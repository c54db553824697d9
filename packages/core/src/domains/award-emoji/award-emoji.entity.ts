import type { UrlBuilder } from '../../access/context.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import type { AwardEmojiRow } from './award-emoji.table.js';

export type AwardableType = 'Issue' | 'MergeRequest' | 'Snippet' | 'Note';

/** GitLab's AwardEmoji entity. */
export interface AwardEmojiEntity {
  id: number;
  /** Emoji name without colons (`thumbsup`). */
  name: string;
  user: UserBasicEntity;
  created_at: string;
  updated_at: string;
  /** Database id of the issue, merge request, snippet or note. */
  awardable_id: number;
  awardable_type: AwardableType;
  /** Image of a custom emoji; always null here (only standard emoji exist). */
  url: string | null;
}

export function toAwardEmojiEntity(row: AwardEmojiRow, user: UserRow, urls: UrlBuilder): AwardEmojiEntity {
  return {
    id: row.id,
    name: row.name,
    user: toUserBasicEntity(user, urls),
    created_at: row.created_at,
    updated_at: row.updated_at,
    awardable_id: row.awardable_id,
    awardable_type: row.awardable_type as AwardableType,
    url: null,
  };
}
