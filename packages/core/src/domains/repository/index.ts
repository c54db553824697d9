/** Projects' repositories: git reads (files, tree, commits, diffs, compare, blame, archive), writes, and the index of refs and commits the SQL users join. */
import type { Route } from '../../kernel/route.js';
import { branchesRoutes } from './branches.routes.js';
import { commitsRoutes } from './commits.routes.js';
import { filesRoutes } from './files.routes.js';
import { repositoriesRoutes } from './repositories.routes.js';
import { tagsRoutes } from './tags.routes.js';
import { treeRoutes } from './tree.routes.js';

/** Routes of this domain: branches, tags, commits, files, tree, compare, merge base, contributors, archive. */
export const repositoryRoutes: Route[] = [...branchesRoutes, ...tagsRoutes, ...commitsRoutes, ...filesRoutes, ...treeRoutes, ...repositoriesRoutes];

export { registerPushHooks, type PushHooks, type PushedRef, type RefUpdate } from './push-hooks.js';
export { parsePushOptions, pushOptionPairs, pushOptionSet, type PushOptions } from './push-options.js';
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
  insertCommitRow,
  authorizePush,
  createBranchIn,
  createTagIn,
  insertRef,
  deleteRefIn,
  moveMergeRequestHeads,
  validRefName,
  validFilePath,
  isHexBranchName,
  type CommitAction,
  type CommitActionName,
  type CommitInput,
  type RecordedCommit,
} from './write-commit.js';
export { repositoryTransaction } from './git-write.js';
export { applyPushedRefUpdates, advanceBranchIn } from './git-index.js';
export { indexPushedRefs, reconcileRefs, refDifferences, registerRefReconcileJobs } from './refs-reconcile.js';
export { writeCommitWithTree, type Ident } from './git-write.js';
export {
  diffCommits,
  diffCommit,
  rawDiff,
  parseRawDiff,
  diffLimits,
  presentDiff,
  unidiff,
  EMPTY_TREE_SHA,
  type DiffEntity,
  type DiffLimits,
  type DiffRequest,
  type DiffCollection,
  type RawDiffEntry,
} from './diffs.js';
export { replayPendingRepositories, replayRepositoryIn, replayIfPending } from './git-replay.js';
export { canOnBranch, canUpdateBranch, protectionsOf, isProtectedBranch, loadBranchRules, type ProtectedAction, type BranchRules } from './protection.js';
export {
  presentCommit,
  presentCommitDetail,
  commitWebUrl,
  type CommitEntity,
  type CommitDetailEntity,
  type CommitWithStatsEntity,
  type CommitStats,
} from './commit.entity.js';
export { ancestryCte, ancestorsAmong } from './history.queries.js';
export { presentBranch, presentBranches, type BranchEntity } from './branch.entity.js';
export { presentTags, type TagEntity } from './tag.entity.js';
export { listBranches, getBranch, createBranch, deleteBranch, deleteMergedBranches } from './branches.js';
export { listTags, getTag, createTag, deleteTag } from './tags.js';
export { listCommits, getCommit, listCommitRefs, getCommitDiff, createCommit, commitFields, type CommitRefEntity } from './commits.js';
export { getFile, headFile, getRawFile, getBlob, getRawBlob, writeFile, type BlobEntity, type FileEntity, type FileMetadata, type FileCommitEntity } from './files.js';
export { listTree, ListTreeInput, type TreeEntryEntity } from './tree.js';
export { compare, mergeBase as getMergeBase, listContributors, type CompareEntity, type ContributorEntity, type CompareInput, type ContributorsInput, type MergeBaseInput } from './compare.js';
export { blameFile, type BlameRangeEntity } from './blame.js';
export { getArchive, type ArchiveInput } from './archive.js';
export type { ListBranchesInput, BranchRefInput, CreateBranchInput } from './branches.schema.js';
export type { ListTagsInput, TagRefInput, CreateTagInput } from './tags.schema.js';
export type { ListCommitsInput, GetCommitInput, CommitRefsInput, CommitDiffInput, CreateCommitInput } from './commits.schema.js';
export type { GetFileInput, RawFileInput, WriteFileInput, DeleteFileInput, BlameInput, BlobInput } from './files.schema.js';
export type { RepositoryCommitRow, RepositoryRefRow, RepositoryFileRow, ProtectedBranchRow, RefKind, RepositoryCommitChangeRow } from './repository.table.js';
// for other domains
export { readmePathOf, readmePathsOf } from './readme.js';
export { canUnprotectRule, canCreateTag, tagProtectionsOf, TAG_MESSAGES } from './protection.js';
export type { ProtectedBranchAccessLevelRow, ProtectedTagRow, ProtectedTagCreateAccessLevelRow } from './repository.table.js';
export { repositoryGraphql } from './repository.graphql.js';
