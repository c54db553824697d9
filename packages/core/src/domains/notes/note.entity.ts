import type { UrlBuilder } from '../../access/context.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import type { NoteRow } from './note.table.js';

/** GitLab's Note (a plain comment: no diff position, never resolvable here). */
export interface NoteEntity {
  id: number;
  /** DiscussionNote / DiffNote in GitLab; plain notes have null. */
  type: null;
  body: string;
  attachment: null;
  author: UserBasicEntity;
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_id: number;
  noteable_type: string;
  project_id: number;
  resolvable: boolean;
  confidential: boolean;
  internal: boolean;
  imported: boolean;
  imported_from: string;
  /** The iid of an issue or merge request; null for snippets. */
  noteable_iid: number | null;
  commands_changes: Record<string, unknown>;
}

export function toNoteEntity(row: NoteRow, author: UserRow, noteableIid: number | null, urls: UrlBuilder): NoteEntity {
  return {
    id: row.id,
    type: null,
    body: row.body,
    attachment: null,
    author: toUserBasicEntity(author, urls),
    created_at: row.created_at,
    updated_at: row.updated_at,
    system: row.system === 1,
    noteable_id: row.noteable_id,
    noteable_type: row.noteable_type,
    project_id: row.project_id,
    resolvable: false,
    confidential: row.internal === 1,
    internal: row.internal === 1,
    imported: false,
    imported_from: 'none',
    noteable_iid: noteableIid,
    commands_changes: {},
  };
}
