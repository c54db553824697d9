/** `projects/:id/repository/{compare,merge_base,contributors,archive,blobs}` (gitbeaker's Repositories). */
import type { ArchiveInput, BlobEntity, CommitEntity, CompareEntity, CompareInput, ContributorEntity, ContributorsInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester, StreamResponse } from '../infrastructure/requester.js';

export type CompareParams = Partial<Omit<CompareInput, 'id' | 'from' | 'to'>>;
export type ListContributorsParams = ListParams<ContributorsInput>;
export type ArchiveParams = Partial<Omit<ArchiveInput, 'id' | 'exclude_paths'>> & { exclude_paths?: string[] };

export class Repositories {
  constructor(private readonly requester: Requester) {}

  /** Commits `from..to` (oldest first) and the diffs from their merge base (`straight: true`: from `from`). */
  compare(projectId: ResourceId, from: string, to: string, params: CompareParams = {}): Promise<CompareEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/compare`, { from, to, ...params });
  }

  /** The common ancestor of two or more refs. */
  mergeBase(projectId: ResourceId, refs: string[]): Promise<CommitEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/merge_base`, { refs });
  }

  /** Authors with their commit counts (`order_by` commits, name or email). */
  allContributors(projectId: ResourceId, params: ListContributorsParams = {}): Paginated<ContributorEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/contributors`, params);
  }

  /** The repository at `sha` (default branch) as an archive, streamed: consume `body` once. */
  showArchive(projectId: ResourceId, params: ArchiveParams = {}): Promise<StreamResponse> {
    const { format = 'tar.gz', exclude_paths, ...query } = params;
    const extra = exclude_paths?.length ? { exclude_paths: exclude_paths.join(',') } : {};
    return this.requester.stream('GET', endpoint`projects/${projectId}/repository/archive.${format}`, { query: { ...query, ...extra } });
  }

  /** A blob by id, base64 content. */
  showBlob(projectId: ResourceId, sha: string): Promise<BlobEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/blobs/${sha}`);
  }

  /** A blob's bytes, streamed: consume `body` once. */
  showBlobRaw(projectId: ResourceId, sha: string): Promise<StreamResponse> {
    return this.requester.stream('GET', endpoint`projects/${projectId}/repository/blobs/${sha}/raw`);
  }
}
