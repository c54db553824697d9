import type { GROUP_EXPORT_RELATIONS, PROJECT_EXPORT_RELATIONS } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester, StreamResponse } from '../infrastructure/requester.js';

export type GroupExportRelation = (typeof GROUP_EXPORT_RELATIONS)[number];
export type ProjectExportRelation = (typeof PROJECT_EXPORT_RELATIONS)[number];

/** GitLab's export status entity: `status` 0 started, 1 finished, -1 failed. */
export interface RelationExportStatus {
  relation: string;
  status: -1 | 0 | 1;
  error: string | null;
  updated_at: string;
  batched: boolean;
  batches_count: number;
  total_objects_count: number;
  batches?: { status: number; batch_number: number; objects_count: number; error: string | null; updated_at: string }[];
}

export interface DownloadRelationParams {
  /** With `batch_number`: one batch of a batched relation. */
  batched?: boolean;
  batch_number?: number;
}

/** The source side of direct transfer (`/{groups|projects}/:id/export_relations`), for Owners/Maintainers. */
abstract class RelationExports<R extends string> {
  constructor(
    private readonly requester: Requester,
    private readonly kind: 'groups' | 'projects',
  ) {}

  /** Starts (or restarts) an export of every relation (202). */
  async create(id: ResourceId, params: { batched?: boolean } = {}): Promise<void> {
    await this.requester.post(`${this.kind}/${endpoint`${id}`}/export_relations`, params);
  }

  /** The status of every relation's export. */
  status(id: ResourceId): Promise<RelationExportStatus[]>;
  /** The status of one relation's export. */
  status(id: ResourceId, relation: R): Promise<RelationExportStatus>;
  status(id: ResourceId, relation?: R): Promise<RelationExportStatus[] | RelationExportStatus> {
    return this.requester.get(`${this.kind}/${endpoint`${id}`}/export_relations/status`, relation === undefined ? {} : { relation });
  }

  /** One relation's export (gzipped NDJSON), streamed. */
  download(id: ResourceId, relation: R, params: DownloadRelationParams = {}): Promise<StreamResponse> {
    return this.requester.stream('GET', `${this.kind}/${endpoint`${id}`}/export_relations/download`, { query: { relation, ...params } });
  }
}

/** gitbeaker's `GroupRelationExports`. */
export class GroupRelationExports extends RelationExports<GroupExportRelation> {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}

/** gitbeaker's `ProjectRelationExports`. */
export class ProjectRelationExports extends RelationExports<ProjectExportRelation> {
  constructor(private readonly projectRequester: Requester) {
    super(projectRequester, 'projects');
  }

  /** The bytes of one package file of the `packages` relation (its record's `download_path`), streamed (Forgelet's). */
  downloadPackageFile(id: ResourceId, packageFileId: number): Promise<StreamResponse> {
    return this.projectRequester.stream('GET', `projects/${endpoint`${id}`}/export_relations/package_files/${endpoint`${packageFileId}`}`);
  }
}
