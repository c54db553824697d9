/** CI/CD job token scope: inbound allowlists of projects and groups, managed here; the check itself is access/job-token-scope.ts. */
export { jobTokenScopeRoutes } from './job-token-scope.routes.js';
export {
  getJobTokenScope,
  patchJobTokenScope,
  listProjectAllowlist,
  listGroupAllowlist,
  addProjectToAllowlist,
  removeProjectFromAllowlist,
  addGroupToAllowlist,
  removeGroupFromAllowlist,
  type JobTokenScopeEntity,
} from './job-token-scope.js';
