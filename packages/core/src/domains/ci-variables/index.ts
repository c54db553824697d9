/**
 * CI/CD variables of the instance, groups and projects. Below `ci`: the CI domain asks it for a
 * job's variables (job payload) and the values to mask in job logs; this domain knows nothing
 * of pipelines or jobs, only owners, protected refs and environment names.
 */
export { ciVariablesRoutes } from './ci-variables.routes.js';
export {
  listProjectVariables,
  getProjectVariable,
  createProjectVariable,
  updateProjectVariable,
  deleteProjectVariable,
  listGroupVariables,
  getGroupVariable,
  createGroupVariable,
  updateGroupVariable,
  deleteGroupVariable,
  listInstanceVariables,
  getInstanceVariable,
  createInstanceVariable,
  updateInstanceVariable,
  deleteInstanceVariable,
} from './ci-variables.js';
export { variablesForJob, maskedValuesForProject, maskLog, type JobVariablesInput, type RunnerVariable } from './job-variables.js';
export { MASKABLE_RE, MASKABLE_RAW_RE, maskable, scopeMatches } from './variable-rules.js';
export type { CiVariableEntity, CiInstanceVariableEntity } from './ci-variable.entity.js';
export type {
  ListProjectVariablesInput,
  ProjectVariableRefInput,
  CreateProjectVariableInput,
  UpdateProjectVariableInput,
  ListGroupVariablesInput,
  GroupVariableRefInput,
  CreateGroupVariableInput,
  UpdateGroupVariableInput,
  ListInstanceVariablesInput,
  InstanceVariableRefInput,
  CreateInstanceVariableInput,
  UpdateInstanceVariableInput,
  VariableType,
} from './ci-variable.schema.js';
export type { CiVariableRow, CiVariableTable, VariableScope } from './ci-variable.table.js';
