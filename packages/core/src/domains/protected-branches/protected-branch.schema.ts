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
    /** An existing entry (PATCH): changed, or deleted with `_destroy`. */
    id: p.integer().optional(),
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
  /** Part of the name, case-insensitive. */
  search: p.search().optional(),
  ...paginationParams,
});
export type ListProtectedBranchesInput = InferShape<typeof ListProtectedBranchesInput.shape>;

export const ProtectedBranchRefInput = params({ id: p.string(), name: p.string() });
export type ProtectedBranchRefInput = InferShape<typeof ProtectedBranchRefInput.shape>;

export const CreateProtectedBranchInput = params({
  id: p.string(),
  /** A branch name or a wildcard (`release/*`). */
  name: p.string(),
  /** Defaults to 40 (Maintainers) unless `allowed_to_push` is given. */
  push_access_level: p.enum(PUSH_MERGE_LEVELS).optional(),
  merge_access_level: p.enum(PUSH_MERGE_LEVELS).optional(),
  unprotect_access_level: p.enum(UNPROTECT_LEVELS).optional(),
  allow_force_push: p.boolean().default(false),
  /** Premium and up; ignored below. */
  code_owner_approval_required: p.boolean().optional(),
  ...allowedTo,
});
export type CreateProtectedBranchInput = InferShape<typeof CreateProtectedBranchInput.shape>;

export const UpdateProtectedBranchInput = params({
  id: p.string(),
  name: p.string(),
  allow_force_push: p.boolean().nonBlank().optional(),
  code_owner_approval_required: p.boolean().optional(),
  /** Adds an unprotect entry for this level. */
  unprotect_access_level: p.enum(UNPROTECT_LEVELS).optional(),
  ...allowedTo,
});
export type UpdateProtectedBranchInput = InferShape<typeof UpdateProtectedBranchInput.shape>;
