import { created, noContent, ok, route, type Route } from '../../kernel/route.js';
import {
  CreateGroupRoleInput,
  CreateInstanceRoleInput,
  GroupRefInput,
  GroupRoleRefInput,
  InstanceRoleRefInput,
  UpdateGroupRoleInput,
  UpdateInstanceRoleInput,
} from './member-role.schema.js';
import {
  createGroupRole,
  createInstanceRole,
  deleteGroupRole,
  deleteInstanceRole,
  listGroupRoles,
  listInstanceRoles,
  updateGroupRole,
  updateInstanceRole,
} from './member-roles.js';

const instanceTag = 'member_roles';
const groupTag = 'group_member_roles';

/** Lists are not paginated (GitLab presents every role; a group holds at most ten). */
export const memberRolesRoutes: Route[] = [
  route('GET', '/member_roles', { tier: 'ultimate', auth: 'required', tag: instanceTag, summary: 'Instance-wide custom roles (administrators, Ultimate)' },
    async (ctx) => ok(await listInstanceRoles(ctx))),
  route('POST', '/member_roles', { tier: 'ultimate', auth: 'required', params: CreateInstanceRoleInput, tag: instanceTag, summary: 'Create an instance-wide custom role' },
    async (ctx, input) => created(await createInstanceRole(ctx, input))),
  route('PUT', '/member_roles/:member_role_id', { tier: 'ultimate', auth: 'required', params: UpdateInstanceRoleInput, tag: instanceTag, summary: 'Update the name, description or permissions of an instance-wide custom role' },
    async (ctx, input) => ok(await updateInstanceRole(ctx, input))),
  route('DELETE', '/member_roles/:member_role_id', { tier: 'ultimate', auth: 'required', params: InstanceRoleRefInput, tag: instanceTag, summary: 'Delete an instance-wide custom role (refused while assigned)' },
    async (ctx, input) => {
      await deleteInstanceRole(ctx, input.member_role_id);
      return noContent();
    }),
  route('GET', '/groups/:id/member_roles', { tier: 'ultimate', auth: 'required', params: GroupRefInput, tag: groupTag, summary: "Custom roles of a group's top-level group (Owner, Ultimate)" },
    async (ctx, input) => ok(await listGroupRoles(ctx, input.id))),
  route('POST', '/groups/:id/member_roles', { tier: 'ultimate', auth: 'required', params: CreateGroupRoleInput, tag: groupTag, summary: 'Create a custom role in a top-level group' },
    async (ctx, input) => created(await createGroupRole(ctx, input))),
  route('PUT', '/groups/:id/member_roles/:member_role_id', { tier: 'ultimate', auth: 'required', params: UpdateGroupRoleInput, tag: groupTag, summary: 'Update the name, description or permissions of a group custom role' },
    async (ctx, input) => ok(await updateGroupRole(ctx, input))),
  route('DELETE', '/groups/:id/member_roles/:member_role_id', { tier: 'ultimate', auth: 'required', params: GroupRoleRefInput, tag: groupTag, summary: 'Delete a group custom role (refused while assigned)' },
    async (ctx, input) => {
      await deleteGroupRole(ctx, input.id, input.member_role_id);
      return noContent();
    }),
];
