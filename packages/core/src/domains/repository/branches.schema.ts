/** Parameters of the branch endpoints, as GitLab's `API::Branches` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const BRANCH_SORTS = ['name_asc', 'updated_asc', 'updated_desc'] as const;

export const ListBranchesInput = params({
  id: p.string(),
  search: p.search().optional().describe('`^term` starts with, `term$` ends with, else contains; case-insensitive.'),
  regex: p.string().optional().describe('A regular expression the name must match (RE2 in GitLab, JavaScript syntax here).'),
  sort: p.enum(BRANCH_SORTS).optional(),
  page_token: p.string().optional().describe('Keyset start: branches named after this one (with the name order).'),
  ...paginationParams,
});
export type ListBranchesInput = InferShape<typeof ListBranchesInput.shape>;

export const BranchRefInput = params({ id: p.string(), branch: p.string() });
export type BranchRefInput = InferShape<typeof BranchRefInput.shape>;

export const CreateBranchInput = params({ id: p.string(), branch: p.string().nonBlank(), ref: p.string().nonBlank() });
export type CreateBranchInput = InferShape<typeof CreateBranchInput.shape>;

export const ProjectRepositoryInput = params({ id: p.string() });
export type ProjectRepositoryInput = InferShape<typeof ProjectRepositoryInput.shape>;
