/** CI/CD job token scope: inbound allowlists of projects and groups, and the job-token check. */
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
  jobTokenAllowed,
  checkJobTokenScope,
  type JobTokenScopeEntity,
} from './job-token-scope.js';
