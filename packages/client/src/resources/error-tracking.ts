import type {
  ClientKeyEntity,
  ErrorFrequencyEntity,
  ErrorFrequencyInput,
  ErrorStatus,
  ErrorTrackingErrorEntity,
  ErrorTrackingEventEntity,
  ErrorTrackingSessionEntity,
  ErrorTrackingSettingEntity,
  IssueEntity,
  ListErrorsInput,
  ListSessionsInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListErrorsParams = ListParams<ListErrorsInput>;
export type ListErrorSessionsParams = ListParams<ListSessionsInput>;

/** `/projects/:id/error_tracking/settings` (Maintainer). */
export class ErrorTrackingSettings {
  constructor(private readonly requester: Requester) {}

  /** 404 "Error Tracking Setting Not Found" until the first `create`/`edit`. */
  show(projectId: ResourceId): Promise<ErrorTrackingSettingEntity> {
    return this.requester.get(endpoint`projects/${projectId}/error_tracking/settings`);
  }

  /** PUT: creates or replaces the setting; `active` and `integrated` true give the project a client key. */
  create(projectId: ResourceId, params: { active: boolean; integrated: boolean }): Promise<ErrorTrackingSettingEntity> {
    return this.requester.put(endpoint`projects/${projectId}/error_tracking/settings`, params);
  }

  /** PATCH: changes an existing setting. */
  async edit(projectId: ResourceId, params: { active: boolean; integrated?: boolean }): Promise<ErrorTrackingSettingEntity> {
    const r = await this.requester.send<ErrorTrackingSettingEntity>('PATCH', this.requester.url(endpoint`projects/${projectId}/error_tracking/settings`), params);
    return r.data;
  }
}

/** `/projects/:id/error_tracking/client_keys` (Maintainer): the DSNs SDKs send to. */
export class ErrorTrackingClientKeys {
  constructor(private readonly requester: Requester) {}

  all(projectId: ResourceId, params: PaginationParams = {}): Paginated<ClientKeyEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/error_tracking/client_keys`, params);
  }

  create(projectId: ResourceId): Promise<ClientKeyEntity> {
    return this.requester.post(endpoint`projects/${projectId}/error_tracking/client_keys`, {});
  }

  /** Deletes a key; the collector refuses it at once. Answers the deleted key. */
  async remove(projectId: ResourceId, keyId: number): Promise<ClientKeyEntity> {
    const r = await this.requester.send<ClientKeyEntity>('DELETE', this.requester.url(endpoint`projects/${projectId}/error_tracking/client_keys/${keyId}`));
    return r.data;
  }
}

/**
 * Forgelet's `/forgelet/projects/:id/error_tracking/…` (GitLab has these in GraphQL only):
 * grouped errors, their events, status, issues from errors, sessions per release. Reporter.
 */
export class ErrorTrackingErrors {
  constructor(private readonly requester: Requester) {}

  /** `sort`: last_seen (default), first_seen or frequency; `search`; `status`. */
  all(projectId: ResourceId, params: ListErrorsParams = {}): Paginated<ErrorTrackingErrorEntity> {
    return new Paginated(this.requester, endpoint`forgelet/projects/${projectId}/error_tracking/errors`, params);
  }

  show(projectId: ResourceId, errorId: number): Promise<ErrorTrackingErrorEntity> {
    return this.requester.get(endpoint`forgelet/projects/${projectId}/error_tracking/errors/${errorId}`);
  }

  /** Events per hour over 24 hours (`period` 24h, the default) or per UTC day over 30 days (`30d`). */
  frequency(projectId: ResourceId, errorId: number, params: { period?: ErrorFrequencyInput['period'] } = {}): Promise<ErrorFrequencyEntity> {
    return this.requester.get(endpoint`forgelet/projects/${projectId}/error_tracking/errors/${errorId}/frequency`, params);
  }

  /** Newest first. */
  events(projectId: ResourceId, errorId: number, params: PaginationParams = {}): Paginated<ErrorTrackingEventEntity> {
    return new Paginated(this.requester, endpoint`forgelet/projects/${projectId}/error_tracking/errors/${errorId}/events`, params);
  }

  setStatus(projectId: ResourceId, errorId: number, status: ErrorStatus): Promise<ErrorTrackingErrorEntity> {
    return this.requester.put(endpoint`forgelet/projects/${projectId}/error_tracking/errors/${errorId}`, { status });
  }

  /** An issue whose description holds the error's stack trace and links back to it (409 when it has one). */
  createIssue(projectId: ResourceId, errorId: number): Promise<IssueEntity> {
    return this.requester.post(endpoint`forgelet/projects/${projectId}/error_tracking/errors/${errorId}/issue`, {});
  }

  sessions(projectId: ResourceId, params: ListErrorSessionsParams = {}): Paginated<ErrorTrackingSessionEntity> {
    return new Paginated(this.requester, endpoint`forgelet/projects/${projectId}/error_tracking/sessions`, params);
  }
}
