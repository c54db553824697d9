import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import {
  AddGroupInput,
  AddProjectInput,
  AllowlistInput,
  PatchScopeInput,
  ProjectRefInput,
  RemoveGroupInput,
  RemoveProjectInput,
  addGroupToAllowlist,
  addProjectToAllowlist,
  getJobTokenScope,
  listGroupAllowlist,
  listProjectAllowlist,
  patchJobTokenScope,
  removeGroupFromAllowlist,
  removeProjectFromAllowlist,
} from './job-token-scope.js';

const tag = 'job token scope';

export const jobTokenScopeRoutes: Route[] = [
  route('GET', '/projects/:id/job_token_scope', { auth: 'required', params: ProjectRefInput, tag, summary: 'CI/CD job token access settings (Maintainer)' },
    async (ctx, input) => ok(await getJobTokenScope(ctx, input))),
  route('PATCH', '/projects/:id/job_token_scope', { auth: 'required', params: PatchScopeInput, tag, summary: 'Restrict (enabled=true) or open job token access to this project' },
    async (ctx, input) => {
      await patchJobTokenScope(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/job_token_scope/allowlist', { auth: 'required', params: AllowlistInput, tag, summary: 'Projects whose job tokens may access this project' },
    async (ctx, input) => paged(await listProjectAllowlist(ctx, input))),
  route('POST', '/projects/:id/job_token_scope/allowlist', { auth: 'required', params: AddProjectInput, tag, summary: 'Allow a project’s job tokens' },
    async (ctx, input) => created(await addProjectToAllowlist(ctx, input))),
  route('DELETE', '/projects/:id/job_token_scope/allowlist/:target_project_id', { auth: 'required', params: RemoveProjectInput, tag, summary: 'Remove a project from the allowlist' },
    async (ctx, input) => {
      await removeProjectFromAllowlist(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/job_token_scope/groups_allowlist', { auth: 'required', params: AllowlistInput, tag, summary: 'Groups whose projects’ job tokens may access this project' },
    async (ctx, input) => paged(await listGroupAllowlist(ctx, input))),
  route('POST', '/projects/:id/job_token_scope/groups_allowlist', { auth: 'required', params: AddGroupInput, tag, summary: 'Allow the job tokens of a group’s projects' },
    async (ctx, input) => created(await addGroupToAllowlist(ctx, input))),
  route('DELETE', '/projects/:id/job_token_scope/groups_allowlist/:target_group_id', { auth: 'required', params: RemoveGroupInput, tag, summary: 'Remove a group from the allowlist' },
    async (ctx, input) => {
      await removeGroupFromAllowlist(ctx, input);
      return noContent();
    }),
];
