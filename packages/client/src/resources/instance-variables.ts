import type { CiInstanceVariableEntity, CreateInstanceVariableInput, UpdateInstanceVariableInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateInstanceVariableParams = Omit<CreateInstanceVariableInput, 'key' | 'value'>;
export type EditInstanceVariableParams = Omit<UpdateInstanceVariableInput, 'key'>;

/** Instance CI/CD variables (administrators): `/admin/ci/variables[/:key]`, for every project's jobs. */
export class InstanceVariables {
  constructor(private readonly requester: Requester) {}

  all(params: PaginationParams = {}): Paginated<CiInstanceVariableEntity> {
    return new Paginated(this.requester, endpoint`admin/ci/variables`, params);
  }

  show(key: string): Promise<CiInstanceVariableEntity> {
    return this.requester.get(endpoint`admin/ci/variables/${key}`);
  }

  create(key: string, value: string, params: CreateInstanceVariableParams = {}): Promise<CiInstanceVariableEntity> {
    return this.requester.post(endpoint`admin/ci/variables`, { key, value, ...params });
  }

  edit(key: string, params: EditInstanceVariableParams): Promise<CiInstanceVariableEntity> {
    return this.requester.put(endpoint`admin/ci/variables/${key}`, params);
  }

  /** 204. */
  remove(key: string): Promise<void> {
    return this.requester.delete(endpoint`admin/ci/variables/${key}`);
  }
}
