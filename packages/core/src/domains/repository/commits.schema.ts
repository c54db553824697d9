/** Parameters of the commit endpoints, as GitLab's `API::Commits` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const ListCommitsInput = params({
  id: p.string(),
  /** Branch, tag or commit; the default branch when absent. */
  ref_name: p.string().optional(),
  since: p.datetime().optional(),
  until: p.datetime().optional(),
  /** Commits that changed this file, or something under this directory. */
  path: p.string().optional(),
  /** Part of `Name <email>`. */
  author: p.string().optional(),
  /** Every commit reachable from any branch or tag. */
  all: p.boolean().optional(),
  with_stats: p.boolean().optional(),
  first_parent: p.boolean().optional(),
  order: p.enum(['default', 'topo']).default('default'),
  trailers: p.boolean().default(false),
  ...paginationParams,
});
export type ListCommitsInput = InferShape<typeof ListCommitsInput.shape>;

export const GetCommitInput = params({ id: p.string(), sha: p.string(), stats: p.boolean().default(true) });
export type GetCommitInput = InferShape<typeof GetCommitInput.shape>;

export const CommitRefsInput = params({ id: p.string(), sha: p.string(), type: p.enum(['branch', 'tag', 'all']).default('all'), ...paginationParams });
export type CommitRefsInput = InferShape<typeof CommitRefsInput.shape>;

export const COMMIT_ACTIONS = ['create', 'delete', 'move', 'update', 'chmod'] as const;

export const CommitActionInput = p.object({
  action: p.enum(COMMIT_ACTIONS),
  file_path: p.string().nonBlank(),
  previous_path: p.string().optional(),
  content: p.string().nullable().optional(),
  encoding: p.enum(['text', 'base64']).optional(),
  /** The commit the caller last saw the file at; another one refuses the commit. */
  last_commit_id: p.string().optional(),
  execute_filemode: p.boolean().optional(),
});

export const CreateCommitInput = params(
  {
    id: p.string(),
    /** The branch to commit to; a new one starts from `start_branch` or `start_sha`. */
    branch: p.string().nonBlank(),
    commit_message: p.string().nonBlank(),
    actions: p.array(CommitActionInput),
    start_branch: p.string().optional(),
    start_sha: p.string().optional(),
    author_email: p.string().optional(),
    author_name: p.string().optional(),
    stats: p.boolean().default(true),
    /** Reset `branch` to the start before committing. */
    force: p.boolean().default(false),
  },
  { mutuallyExclusive: [['start_branch', 'start_sha']] },
);
export type CreateCommitInput = InferShape<typeof CreateCommitInput.shape>;
