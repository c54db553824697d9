/** Parameters of the merge request endpoints, as GitLab's `lib/api/merge_requests.rb` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const MERGE_REQUEST_STATES = ['opened', 'closed', 'locked', 'merged'] as const;

/** Comma-separated or array label titles (`labels=a,b`, `labels[]=a`); an empty string clears them. */
const labelTitles = () => p.array(p.string()).commaSeparated();
/** User id lists: `1,2`, arrays, `0` or empty to clear. */
const userIds = () => p.array(p.integer()).commaSeparated();

/** Fields shared by create and update (GitLab's `optional_params`). */
const optionalFields = {
  description: p.string().optional(),
  assignee_id: p.integer().optional(),
  assignee_ids: userIds().optional(),
  reviewer_ids: userIds().optional(),
  labels: labelTitles().optional(),
  add_labels: labelTitles().optional(),
  remove_labels: labelTitles().optional(),
  milestone_id: p.integer().nullable().optional().describe('The project\'s or an ancestor group\'s milestone; `0`, null or another id leaves it unset (as GitLab).'),
  remove_source_branch: p.boolean().optional(),
  allow_collaboration: p.boolean().optional().describe('Only meaningful for merge requests from forks, which Forgelet does not have.'),
  allow_maintainer_to_push: p.boolean().optional(),
  squash: p.boolean().optional(),
};

export const CreateMergeRequestInput = params({
  id: p.string(),
  title: p.string(),
  source_branch: p.string(),
  target_branch: p.string(),
  target_project_id: p.integer().optional(),
  ...optionalFields,
});
export type CreateMergeRequestInput = InferShape<typeof CreateMergeRequestInput.shape>;

export const UpdateMergeRequestInput = params(
  {
    id: p.string(),
    merge_request_iid: p.integer(),
    title: p.string().nonBlank().optional(),
    target_branch: p.string().nonBlank().optional(),
    state_event: p.enum(['close', 'reopen']).optional(),
    discussion_locked: p.boolean().optional(),
    ...optionalFields,
  },
  {
    atLeastOneOf: [
      [
        'assignee_id', 'assignee_ids', 'reviewer_ids', 'description', 'labels', 'add_labels', 'remove_labels', 'milestone_id',
        'remove_source_branch', 'allow_collaboration', 'allow_maintainer_to_push', 'squash', 'target_branch', 'title',
        'state_event', 'discussion_locked',
      ],
    ],
  },
);
export type UpdateMergeRequestInput = InferShape<typeof UpdateMergeRequestInput.shape>;

export const MergeMergeRequestInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  sha: p.string().optional().describe('Must equal the head of the source branch when given.'),
  squash: p.boolean().optional(),
  should_remove_source_branch: p.boolean().optional(),
  merge_commit_message: p.string().optional().describe('The merge commit\'s message (default: GitLab\'s `Merge branch \'a\' into \'b\'` template).'),
  squash_commit_message: p.string().optional().describe('The squash commit\'s message (default: the title).'),
});
export type MergeMergeRequestInput = InferShape<typeof MergeMergeRequestInput.shape>;

export const MergeRequestRefInput = params({ id: p.string(), merge_request_iid: p.integer() });

/** GET one merge request. */
export const GetMergeRequestInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  include_rebase_in_progress: p.boolean().optional().describe('Adds `rebase_in_progress`: whether a rebase asked for is queued or running.'),
});
export type GetMergeRequestInput = InferShape<typeof GetMergeRequestInput.shape>;

/** PUT …/rebase. */
export const RebaseMergeRequestInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  skip_ci: p.boolean().optional().describe('No pipeline for the rebased source branch.'),
});
export type RebaseMergeRequestInput = InferShape<typeof RebaseMergeRequestInput.shape>;

/** GET /projects/:id/repository/commits/:sha/merge_requests. */
export const CommitMergeRequestsInput = params({
  id: p.string(),
  sha: p.string().describe('A commit sha, or the name of a branch or tag.'),
  state: p.string().optional().describe('`opened`, `closed`, `locked` or `merged`; anything else lists all.'),
  ...paginationParams,
});
export type CommitMergeRequestsInput = InferShape<typeof CommitMergeRequestsInput.shape>;

export const MergeRequestPageInput = params({ id: p.string(), merge_request_iid: p.integer(), ...paginationParams });
export type MergeRequestPageInput = InferShape<typeof MergeRequestPageInput.shape>;

export const MergeRequestVersionInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  version_id: p.integer(),
  unidiff: p.boolean().default(false).describe('Diffs in unified diff format (with `---`/`+++` lines).'),
});
export type MergeRequestVersionInput = InferShape<typeof MergeRequestVersionInput.shape>;

export const MergeRequestChangesInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  access_raw_diffs: p.boolean().default(false).describe('Diffs without the collection limits (GitLab reads them from Gitaly).'),
  unidiff: p.boolean().default(false).describe('Diffs in unified diff format (with `---`/`+++` lines).'),
});
export type MergeRequestChangesInput = InferShape<typeof MergeRequestChangesInput.shape>;

export const MergeRequestDiffsInput = params({
  id: p.string(),
  merge_request_iid: p.integer(),
  unidiff: p.boolean().default(false).describe('Diffs in unified diff format (with `---`/`+++` lines).'),
  ...paginationParams,
});
export type MergeRequestDiffsInput = InferShape<typeof MergeRequestDiffsInput.shape>;
export type MergeRequestRefInput = InferShape<typeof MergeRequestRefInput.shape>;

/** `None`, `Any` or a user id (GitLab's `integer_none_any`). */
const userFilter = () => p.string().regex(/^(\d+|none|any)$/i);

const SCOPES = ['created_by_me', 'created-by-me', 'assigned_to_me', 'assigned-to-me', 'reviews_for_me', 'all'] as const;

/** Filters every merge request list takes (GitLab's `merge_requests_base_params`). */
const listFields = {
  state: p.enum([...MERGE_REQUEST_STATES, 'all']).default('all'),
  order_by: p.enum(['created_at', 'updated_at', 'title']).default('created_at'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  labels: labelTitles().optional(),
  milestone: p.string().optional().describe('A milestone title, or `None`/`Any`/`Upcoming`/`Started`.'),
  author_id: p.integer().optional(),
  author_username: p.username().optional(),
  assignee_id: userFilter().optional(),
  reviewer_id: userFilter().optional(),
  reviewer_username: p.username().optional(),
  source_branch: p.string().optional(),
  target_branch: p.string().optional(),
  search: p.search().optional(),
  in: p.string().regex(/^\s*(title|description)(\s*,\s*(title|description))?\s*$/).optional(),
  wip: p.enum(['yes', 'no']).optional(),
  draft: p.boolean().optional().describe('Forgelet\'s boolean spelling of `wip`.'),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  scope: p.enum(SCOPES).optional(),
  ...paginationParams,
};
const listRules = { mutuallyExclusive: [['author_id', 'author_username'], ['reviewer_id', 'reviewer_username']] };

export const ListMergeRequestsInput = params({ ...listFields, scope: p.enum(SCOPES).default('created_by_me') }, listRules);
export type ListMergeRequestsInput = InferShape<typeof ListMergeRequestsInput.shape>;

export const ListProjectMergeRequestsInput = params({ id: p.string(), iids: p.array(p.integer()).commaSeparated().optional(), ...listFields }, listRules);
export type ListProjectMergeRequestsInput = InferShape<typeof ListProjectMergeRequestsInput.shape>;

export const ListGroupMergeRequestsInput = params({ id: p.string(), non_archived: p.boolean().default(true), ...listFields }, listRules);
export type ListGroupMergeRequestsInput = InferShape<typeof ListGroupMergeRequestsInput.shape>;

/** The filters of any of the three lists (what the shared query builder reads). */
export type MergeRequestFilters = InferShape<typeof ListProjectMergeRequestsInput.shape> | ListMergeRequestsInput | ListGroupMergeRequestsInput;
