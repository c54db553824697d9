/** Custom member roles: instance and top-level group roles; assignment lives in the members API, enforcement in the policy. */
export { memberRolesRoutes } from './member-roles.routes.js';
export {
  listInstanceRoles,
  createInstanceRole,
  updateInstanceRole,
  deleteInstanceRole,
  listGroupRoles,
  createGroupRole,
  updateGroupRole,
  deleteGroupRole,
  memberRolesByIds,
  roleAssignmentErrors,
  MAX_ROLES_PER_GROUP,
  ROLE_ASSIGNED_MESSAGE,
} from './member-roles.js';
export { toMemberRoleEntity, type MemberRoleEntity } from './member-role.entity.js';
export type { CreateRoleInput, UpdateRoleInput } from './member-role.schema.js';
export { ROLE_BASE_LEVELS } from './member-role.schema.js';
export type { MemberRoleRow } from './member-role.table.js';
