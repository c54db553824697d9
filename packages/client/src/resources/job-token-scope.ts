import type { JobTokenScopeEntity, ProjectSimpleEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Result of adding to an allowlist. */
export interface JobTokenProjectLink {
  source_project_id: number;
  target_project_id: number;
}
export interface JobTokenGroupLink {
  source_project_id: number;
  target_group_id: number;
}
export interface JobTokenAllowlistedGroup {
  id: number;
  web_url: string;
  name: string;
}

/**
 * CI/CD job token scope of a project (Maintainer): `/projects/:id/job_token_scope`, which
 * projects' and groups' job tokens may act on this project.
 */
export class JobTokenScopes {
  constructor(private readonly requester: Requester) {}

  show(projectId: ResourceId): Promise<JobTokenScopeEntity> {
    return this.requester.get(endpoint`projects/${projectId}/job_token_scope`);
  }

  /** `true` limits access to the allowlist; `false` lets every project's job tokens in. */
  async edit(projectId: ResourceId, enabled: boolean): Promise<void> {
    await this.requester.send('PATCH', this.requester.url(endpoint`projects/${projectId}/job_token_scope`), { enabled });
  }

  /** The project itself and the allowlisted projects. */
  allowlist(projectId: ResourceId, params: { page?: number; per_page?: number } = {}): Paginated<ProjectSimpleEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/job_token_scope/allowlist`, params);
  }

  addProject(projectId: ResourceId, targetProjectId: number): Promise<JobTokenProjectLink> {
    return this.requester.post(endpoint`projects/${projectId}/job_token_scope/allowlist`, { target_project_id: targetProjectId });
  }

  removeProject(projectId: ResourceId, targetProjectId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/job_token_scope/allowlist/${targetProjectId}`);
  }

  groupsAllowlist(projectId: ResourceId, params: { page?: number; per_page?: number } = {}): Paginated<JobTokenAllowlistedGroup> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/job_token_scope/groups_allowlist`, params);
  }

  addGroup(projectId: ResourceId, targetGroupId: number): Promise<JobTokenGroupLink> {
    return this.requester.post(endpoint`projects/${projectId}/job_token_scope/groups_allowlist`, { target_group_id: targetGroupId });
  }

  removeGroup(projectId: ResourceId, targetGroupId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/job_token_scope/groups_allowlist/${targetGroupId}`);
  }
}
