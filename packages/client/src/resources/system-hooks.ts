/** System hooks: `/hooks` (administrators). */
import type { CreateSystemHookInput, HookEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateSystemHookParams = CreateSystemHookInput;

export class SystemHooks {
  constructor(private readonly requester: Requester) {}

  all(params: PaginationParams = {}): Paginated<HookEntity> {
    return new Paginated(this.requester, 'hooks', params);
  }

  show(hookId: number): Promise<HookEntity> {
    return this.requester.get(endpoint`hooks/${hookId}`);
  }

  add(params: CreateSystemHookParams): Promise<HookEntity> {
    return this.requester.post('hooks', params);
  }

  edit(hookId: number, params: Partial<CreateSystemHookParams>): Promise<HookEntity> {
    return this.requester.put(endpoint`hooks/${hookId}`, params);
  }

  remove(hookId: number): Promise<void> {
    return this.requester.delete(endpoint`hooks/${hookId}`);
  }

  /** Sends GitLab's sample system event (`project_create`) and answers it. */
  test(hookId: number): Promise<Record<string, unknown>> {
    return this.requester.post(endpoint`hooks/${hookId}`);
  }

  setCustomHeader(hookId: number, key: string, value: string): Promise<void> {
    return this.requester.put(endpoint`hooks/${hookId}/custom_headers/${key}`, { value });
  }

  removeCustomHeader(hookId: number, key: string): Promise<void> {
    return this.requester.delete(endpoint`hooks/${hookId}/custom_headers/${key}`);
  }

  setUrlVariable(hookId: number, key: string, value: string): Promise<void> {
    return this.requester.put(endpoint`hooks/${hookId}/url_variables/${key}`, { value });
  }

  removeUrlVariable(hookId: number, key: string): Promise<void> {
    return this.requester.delete(endpoint`hooks/${hookId}/url_variables/${key}`);
  }
}
