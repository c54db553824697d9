/**
 * Emoji reactions: one template mounted under `projects/:id/issues/:issue_iid`,
 * `merge_requests/:merge_request_iid` and `snippets/:snippet_id`, on the awardable itself or
 * on one of its notes (`…/notes/:note_id/award_emoji`).
 */
import type { AwardEmojiEntity, ListAwardEmojiInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type AwardableSegment = 'issues' | 'merge_requests' | 'snippets';
export type ListAwardEmojiParams = ListParams<ListAwardEmojiInput>;

/** Reactions on an issue, merge request or snippet; `awardableId` is the iid (snippets: the id). */
export class ResourceAwardEmoji {
  constructor(
    private readonly requester: Requester,
    private readonly segment: AwardableSegment,
  ) {}

  /** Oldest first. Readable anonymously when the awardable is public. */
  all(projectId: ResourceId, awardableId: number, params: ListAwardEmojiParams = {}): Paginated<AwardEmojiEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/${this.segment}/${awardableId}/award_emoji`, params);
  }

  show(projectId: ResourceId, awardableId: number, awardId: number): Promise<AwardEmojiEntity> {
    return this.requester.get(endpoint`projects/${projectId}/${this.segment}/${awardableId}/award_emoji/${awardId}`);
  }

  /** Reacts with `name` (without colons, e.g. `thumbsup`). An unknown name or a repeat fails with 404, as GitLab answers. */
  award(projectId: ResourceId, awardableId: number, name: string): Promise<AwardEmojiEntity> {
    return this.requester.post(endpoint`projects/${projectId}/${this.segment}/${awardableId}/award_emoji`, { name });
  }

  /** Only the reaction's author or an admin may remove it (others: 401). */
  remove(projectId: ResourceId, awardableId: number, awardId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/${this.segment}/${awardableId}/award_emoji/${awardId}`);
  }
}

/** Reactions on a note (comment) of an issue, merge request or snippet. */
export class ResourceNoteAwardEmoji {
  constructor(
    private readonly requester: Requester,
    private readonly segment: AwardableSegment,
  ) {}

  all(projectId: ResourceId, awardableId: number, noteId: number, params: ListAwardEmojiParams = {}): Paginated<AwardEmojiEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/${this.segment}/${awardableId}/notes/${noteId}/award_emoji`, params);
  }

  show(projectId: ResourceId, awardableId: number, noteId: number, awardId: number): Promise<AwardEmojiEntity> {
    return this.requester.get(endpoint`projects/${projectId}/${this.segment}/${awardableId}/notes/${noteId}/award_emoji/${awardId}`);
  }

  award(projectId: ResourceId, awardableId: number, noteId: number, name: string): Promise<AwardEmojiEntity> {
    return this.requester.post(endpoint`projects/${projectId}/${this.segment}/${awardableId}/notes/${noteId}/award_emoji`, { name });
  }

  remove(projectId: ResourceId, awardableId: number, noteId: number, awardId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/${this.segment}/${awardableId}/notes/${noteId}/award_emoji/${awardId}`);
  }
}
