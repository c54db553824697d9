import type { UrlBuilder } from '../../access/context.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import type { ResourceStateEventRow } from './state-event.table.js';

export type StateEventResourceType = 'Issue' | 'MergeRequest' | 'Epic';

/** GitLab's ResourceStateEvent entity (`lib/api/entities/resource_state_event.rb`). */
export interface ResourceStateEventEntity {
  id: number;
  /** Null when the user is gone. */
  user: UserBasicEntity | null;
  created_at: string;
  resource_type: StateEventResourceType;
  /** Database id of the issue, merge request or epic. */
  resource_id: number;
  source_commit: string | null;
  source_merge_request_id: number | null;
  /** opened | closed | reopened | merged | locked */
  state: string;
}

function resourceOf(row: ResourceStateEventRow): { resource_type: StateEventResourceType; resource_id: number } {
  if (row.issue_id !== null) return { resource_type: 'Issue', resource_id: row.issue_id };
  if (row.merge_request_id !== null) return { resource_type: 'MergeRequest', resource_id: row.merge_request_id };
  return { resource_type: 'Epic', resource_id: row.epic_id! };
}

export function toResourceStateEventEntity(row: ResourceStateEventRow, user: UserRow | null, urls: UrlBuilder): ResourceStateEventEntity {
  return {
    id: row.id,
    user: user ? toUserBasicEntity(user, urls) : null,
    created_at: row.created_at,
    ...resourceOf(row),
    source_commit: row.source_commit,
    source_merge_request_id: row.source_merge_request_id,
    state: row.state,
  };
}
