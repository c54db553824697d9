import type { BulkImportEntity, BulkImportEntityEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { Requester } from '../infrastructure/requester.js';

export interface BulkImportSourceConfig {
  /** Base URL of the source instance. */
  url: string;
  /** A token of the source instance with `api` scope. */
  access_token: string;
}

export interface BulkImportEntityParams {
  source_type: 'group_entity' | 'project_entity';
  source_full_path: string;
  destination_slug: string;
  /** Full path of an existing group; '' for a new top-level group (group_entity only). */
  destination_namespace: string;
  /** Deprecated: use destination_slug. */
  destination_name?: string;
  migrate_projects?: boolean;
  migrate_memberships?: boolean;
}

export interface ListBulkImportsParams {
  status?: 'created' | 'started' | 'finished' | 'failed';
  sort?: 'asc' | 'desc';
  page?: number;
  per_page?: number;
}

export interface BulkImportFailureRecord {
  relation: string;
  exception_message: string;
  exception_class: string;
  correlation_id_value: string | null;
  source_url: string | null;
  source_title: string | null;
}

/** Direct transfer migrations (`/bulk_imports`), as GitLab's group and project migration API. */
export class BulkImports {
  constructor(private readonly requester: Requester) {}

  /** Starts a migration; the source is checked first (422 with GitLab's message on refusal). */
  create(configuration: BulkImportSourceConfig, entities: BulkImportEntityParams[]): Promise<BulkImportEntity> {
    return this.requester.post(endpoint`bulk_imports`, { configuration, entities });
  }

  all(params: ListBulkImportsParams = {}): Paginated<BulkImportEntity> {
    return new Paginated(this.requester, endpoint`bulk_imports`, params);
  }

  show(id: number): Promise<BulkImportEntity> {
    return this.requester.get(endpoint`bulk_imports/${id}`);
  }

  /** Entities of every migration, or of one when `bulkImportId` is given. */
  allEntities(params: ListBulkImportsParams & { bulkImportId?: number } = {}): Paginated<BulkImportEntityEntity> {
    const { bulkImportId, ...query } = params;
    return new Paginated(this.requester, bulkImportId === undefined ? endpoint`bulk_imports/entities` : endpoint`bulk_imports/${bulkImportId}/entities`, query);
  }

  showEntity(id: number, entityId: number): Promise<BulkImportEntityEntity> {
    return this.requester.get(endpoint`bulk_imports/${id}/entities/${entityId}`);
  }

  failures(id: number, entityId: number): Promise<BulkImportFailureRecord[]> {
    return this.requester.get(endpoint`bulk_imports/${id}/entities/${entityId}/failures`);
  }

  cancel(id: number): Promise<BulkImportEntity> {
    return this.requester.post(endpoint`bulk_imports/${id}/cancel`, {});
  }
}
