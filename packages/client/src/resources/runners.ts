import type {
  CreateRunnerInput,
  ListProjectRunnersInput,
  RegisterRunnerInput,
  RunnerDetailsEntity,
  RunnerEntity,
  RunnerManagerEntity,
  RunnerRegistrationEntity,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateRunnerParams = Omit<CreateRunnerInput, 'tag_list'> & { tag_list?: string[] | string };
export type RegisterRunnerParams = Omit<RegisterRunnerInput, 'tag_list'> & { tag_list?: string[] | string };
export type ListProjectRunnersParams = Omit<ListParams<ListProjectRunnersInput>, 'tag_list'> & { tag_list?: string[] | string };

/** Runners: created by users, or registered and verified by the runner itself with its token. */
export class Runners {
  constructor(private readonly requester: Requester) {}

  /** `POST /user/runners`: instance (admins), group (Owners) or project (Maintainers); the `glrt-` token is shown once. */
  create(params: CreateRunnerParams): Promise<RunnerRegistrationEntity> {
    return this.requester.post('user/runners', params);
  }

  show(runnerId: number): Promise<RunnerDetailsEntity> {
    return this.requester.get(endpoint`runners/${runnerId}`);
  }

  /** The runner's processes (by `system_id`), each with the version, platform and address it last reported. */
  managers(runnerId: number): Promise<RunnerManagerEntity[]> {
    return this.requester.get(endpoint`runners/${runnerId}/managers`);
  }

  /** Runners that may run the project's jobs: its own, its groups', the instance's (Maintainers). */
  allForProject(projectId: ResourceId, params: ListProjectRunnersParams = {}): Paginated<RunnerEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/runners`, params);
  }

  /** Legacy registration with a project's `runners_token`. */
  register(params: RegisterRunnerParams): Promise<RunnerRegistrationEntity> {
    return this.requester.post('runners', params);
  }

  /** Resolves when the runner token is valid (403 otherwise); `systemId` names the runner process. */
  async verify(token: string, systemId?: string): Promise<void> {
    await this.requester.post('runners/verify', systemId === undefined ? { token } : { token, system_id: systemId });
  }

  /** The runner of the token removes itself. */
  unregister(token: string): Promise<void> {
    return this.requester.delete(`runners?token=${encodeURIComponent(token)}`);
  }
}
