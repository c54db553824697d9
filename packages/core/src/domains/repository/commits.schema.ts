/** Parameters of the commit endpoints, as GitLab's `API::Commits` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const ListCommitsInput = params({
  id: p.string(),
  ref_name: p.string().optional().describe('Branch, tag or commit; the default branch when absent.'),
  since: p.datetime().optional(),
  until: p.datetime().optional(),
  path: p.string().optional().describe('Commits that changed this file, or something under this directory.'),
  author: p.string().optional().describe('Part of `Name <email>`.'),
  all: p.boolean().optional().describe('Every commit reachable from any branch or tag.'),
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

export const CommitDiffInput = params({ id: p.string(), sha: p.string(), unidiff: p.boolean().default(false).describe('Patches with `---`/`+++` lines.'), ...paginationParams });
export type CommitDiffInput = InferShape<typeof CommitDiffInput.shape>;

export const COMMIT_ACTIONS = ['create', 'delete', 'move', 'update', 'chmod'] as const;

export const CommitActionInput = p.object({
  action: p.enum(COMMIT_ACTIONS),
  file_path: p.string().nonBlank(),
  previous_path: p.string().optional(),
  content: p.string().nullable().optional(),
  encoding: p.enum(['text', 'base64']).optional(),
  last_commit_id: p.string().optional().describe('The commit the caller last saw the file at; another one refuses the commit.'),
  execute_filemode: p.boolean().optional(),
});

export const CreateCommitInput = params(
  {
    id: p.string(),
    branch: p.string().nonBlank().describe('The branch to commit to; a new one starts from `start_branch` or `start_sha`.'),
    commit_message: p.string().nonBlank(),
    actions: p.array(CommitActionInput),
    start_branch: p.string().optional(),
    start_sha: p.string().optional(),
    author_email: p.string().optional(),
    author_name: p.string().optional(),
    stats: p.boolean().default(true),
    force: p.boolean().default(false).describe('Reset `branch` to the start before committing.'),
  },
  { mutuallyExclusive: [['start_branch', 'start_sha']] },
);
export type CreateCommitInput = InferShape<typeof CreateCommitInput.shape>;
