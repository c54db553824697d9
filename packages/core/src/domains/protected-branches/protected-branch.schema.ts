/** Parameters of `/projects/:id/protected_branches`, as GitLab's API::ProtectedBranches (with the EE params) declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

/** `ProtectedRefAccess.allowed_access_levels`: Developer, Maintainer, Admin, No one. */
export const PUSH_MERGE_LEVELS = [30, 40, 60, 0] as const;
/** Unprotect has no `No one` (a branch nobody could unprotect). */
export const UNPROTECT_LEVELS = [30, 40, 60] as const;

/** One element of `allowed_to_push` / `allowed_to_merge` / `allowed_to_unprotect`. */
function accessEntry<const L extends number>(levels: readonly L[]) {
  return p.object({
    access_level: p.enum(levels).optional(),
    user_id: p.integer().optional(),
    group_id: p.integer().optional(),
    id: p.integer().optional().describe('An existing entry (PATCH): changed, or deleted with `_destroy`.'),
    _destroy: p.boolean().optional(),
  });
}

const allowedTo = {
  allowed_to_push: p.array(accessEntry(PUSH_MERGE_LEVELS)).optional(),
  allowed_to_merge: p.array(accessEntry(PUSH_MERGE_LEVELS)).optional(),
  allowed_to_unprotect: p.array(accessEntry(UNPROTECT_LEVELS)).optional(),
};

export type AccessEntryInput = {
  access_level?: number;
  user_id?: number;
  group_id?: number;
  id?: number;
  _destroy?: boolean;
};

export const ListProtectedBranchesInput = params({
  id: p.string(),
  search: p.search().optional().describe('Part of the name, case-insensitive.'),
  ...paginationParams,
});
export type ListProtectedBranchesInput = InferShape<typeof ListProtectedBranchesInput.shape>;

export const ProtectedBranchRefInput = params({ id: p.string(), name: p.string() });
export type ProtectedBranchRefInput = InferShape<typeof ProtectedBranchRefInput.shape>;

export const CreateProtectedBranchInput = params({
  id: p.string(),
  name: p.string().describe('A branch name or a wildcard (`release/*`).'),
  push_access_level: p.enum(PUSH_MERGE_LEVELS).optional().describe('Defaults to 40 (Maintainers) unless `allowed_to_push` is given.'),
  merge_access_level: p.enum(PUSH_MERGE_LEVELS).optional(),
  unprotect_access_level: p.enum(UNPROTECT_LEVELS).optional(),
  allow_force_push: p.boolean().default(false),
  code_owner_approval_required: p.boolean().optional().describe('Premium and up; ignored below.'),
  ...allowedTo,
});
export type CreateProtectedBranchInput = InferShape<typeof CreateProtectedBranchInput.shape>;

export const UpdateProtectedBranchInput = params({
  id: p.string(),
  name: p.string(),
  allow_force_push: p.boolean().nonBlank().optional(),
  code_owner_approval_required: p.boolean().optional(),
  unprotect_access_level: p.enum(UNPROTECT_LEVELS).optional().describe('Adds an unprotect entry for this level.'),
  ...allowedTo,
});
export type UpdateProtectedBranchInput = InferShape<typeof UpdateProtectedBranchInput.shape>;
