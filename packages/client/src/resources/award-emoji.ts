import type { Requester } from '../infrastructure/requester.js';
import { ResourceAwardEmoji, ResourceNoteAwardEmoji } from '../templates/resource-award-emoji.js';

/** `/projects/:id/issues/:issue_iid/award_emoji`. */
export class IssueAwardEmoji extends ResourceAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'issues');
  }
}

/** `/projects/:id/merge_requests/:merge_request_iid/award_emoji`. */
export class MergeRequestAwardEmoji extends ResourceAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'merge_requests');
  }
}

/** `/projects/:id/snippets/:snippet_id/award_emoji`. */
export class SnippetAwardEmoji extends ResourceAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'snippets');
  }
}

/** `/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji`. */
export class IssueNoteAwardEmoji extends ResourceNoteAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'issues');
  }
}

/** `/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji`. */
export class MergeRequestNoteAwardEmoji extends ResourceNoteAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'merge_requests');
  }
}

/** `/projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji`. */
export class SnippetNoteAwardEmoji extends ResourceNoteAwardEmoji {
  constructor(requester: Requester) {
    super(requester, 'snippets');
  }
}
