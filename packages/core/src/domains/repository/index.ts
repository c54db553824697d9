/** Repository refs without git: commits, branches, tags, the latest files per ref, protected branches. */
export {
  resolveRevision,
  readFileAtRevision,
  readFileOnRef,
  listFilesOnRef,
  selectBranch,
  selectTag,
  selectRef,
  selectCommit,
  repositoryIsEmpty,
  gitBlobSha,
  branchPatternMatches,
  SHA_RE,
  type ResolvedRef,
  type FileAtRef,
} from './refs.js';
export {
  recordCommit,
  recordCommitIn,
  authorizePush,
  createBranchIn,
  createTagIn,
  insertRef,
  moveMergeRequestHeads,
  newCommitSha,
  validRefName,
  validFilePath,
  type CommitAction,
  type CommitActionName,
  type CommitInput,
  type RecordedCommit,
} from './write-commit.js';
export { canOnBranch, protectionsOf, isProtectedBranch, type ProtectedAction } from './protection.js';
export { presentCommit, presentCommitDetail, commitWebUrl, type CommitEntity, type CommitDetailEntity, type CommitStats } from './commit.entity.js';
export type { RepositoryCommitRow, RepositoryRefRow, RepositoryFileRow, ProtectedBranchRow, RefKind } from './repository.table.js';
