/** Protected branches and tags as REST resources; the access questions themselves are repository/protection.ts. */
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
export { protectedTagsRoutes } from './protected-tags.routes.js';
export { listProtectedTags, getProtectedTag, createProtectedTag, deleteProtectedTag, type ProtectedTagEntity } from './protected-tags.js';
export type { CreateProtectedTagInput, ListProtectedTagsInput, ProtectedTagRefInput } from './protected-tag.schema.js';
