/**
 * Project and group hooks: one template for `projects/:id/hooks` and `groups/:id/hooks`
 * (Premium), with custom headers, URL variables, test deliveries, recent deliveries and resend.
 */
import type { CreateGroupHookInput, CreateProjectHookInput, GroupHookEntity, HookLogEntity, HookTrigger, ProjectHookEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateProjectHookParams = Omit<CreateProjectHookInput, 'id'>;
export type EditProjectHookParams = Partial<CreateProjectHookParams>;
export type CreateGroupHookParams = Omit<CreateGroupHookInput, 'id'>;
export type EditGroupHookParams = Partial<CreateGroupHookParams>;
/** `status`: codes, or `successful`, `client_failure`, `server_failure`; `per_page` at most 20. */
export interface ListHookEventsParams extends PaginationParams {
  status?: string[];
}

export class ResourceHooks<Entity extends ProjectHookEntity | GroupHookEntity, Create extends object> {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  all(id: ResourceId, params: PaginationParams = {}): Paginated<Entity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/hooks`, params);
  }

  show(id: ResourceId, hookId: number): Promise<Entity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/hooks/${hookId}`);
  }

  /** `url` is required; the `token`, URL variable values and custom header values are never answered. */
  add(id: ResourceId, params: Create): Promise<Entity> {
    return this.requester.post(endpoint`${this.prefix}/${id}/hooks`, params);
  }

  /** Changes what is given and enables a disabled hook again. */
  edit(id: ResourceId, hookId: number, params: Partial<Create>): Promise<Entity> {
    return this.requester.put(endpoint`${this.prefix}/${id}/hooks/${hookId}`, params);
  }

  remove(id: ResourceId, hookId: number): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/hooks/${hookId}`);
  }

  /** Sends a sample of the event now (even to a disabled hook); fails with 422 and the target's answer otherwise. */
  test(id: ResourceId, hookId: number, trigger: HookTrigger): Promise<{ message: string }> {
    return this.requester.post(endpoint`${this.prefix}/${id}/hooks/${hookId}/test/${trigger}`);
  }

  setCustomHeader(id: ResourceId, hookId: number, key: string, value: string): Promise<void> {
    return this.requester.put(endpoint`${this.prefix}/${id}/hooks/${hookId}/custom_headers/${key}`, { value });
  }

  removeCustomHeader(id: ResourceId, hookId: number, key: string): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/hooks/${hookId}/custom_headers/${key}`);
  }

  setUrlVariable(id: ResourceId, hookId: number, key: string, value: string): Promise<void> {
    return this.requester.put(endpoint`${this.prefix}/${id}/hooks/${hookId}/url_variables/${key}`, { value });
  }

  removeUrlVariable(id: ResourceId, hookId: number, key: string): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/hooks/${hookId}/url_variables/${key}`);
  }

  /** Recent deliveries (two days), newest first, with request and response. */
  events(id: ResourceId, hookId: number, params: ListHookEventsParams = {}): Paginated<HookLogEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/hooks/${hookId}/events`, params);
  }

  /** Sends a recorded delivery again (same Idempotency-Key); answers the target's status. */
  resend(id: ResourceId, hookId: number, hookLogId: number): Promise<{ response_status: number }> {
    return this.requester.post(endpoint`${this.prefix}/${id}/hooks/${hookId}/events/${hookLogId}/resend`);
  }
}
