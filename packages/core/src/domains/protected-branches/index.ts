/** Protected branches as REST resources; the access question itself is repository/protection.ts. */
export { protectedBranchesRoutes } from './protected-branches.routes.js';
export { listProtectedBranches, getProtectedBranch, createProtectedBranch, updateProtectedBranch, deleteProtectedBranch } from './protected-branches.js';
export { HUMAN_ACCESS_LEVELS, type ProtectedBranchEntity, type ProtectedRefAccessEntity } from './protected-branch.entity.js';
export type {
  AccessEntryInput,
  CreateProtectedBranchInput,
  ListProtectedBranchesInput,
  ProtectedBranchRefInput,
  UpdateProtectedBranchInput,
} from './protected-branch.schema.js';
// for other domains
export { loadAccessEntries } from './protected-branch.entity.js';
