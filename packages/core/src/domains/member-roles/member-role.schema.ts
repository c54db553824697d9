import { CUSTOM_PERMISSIONS, type CustomPermission } from '../../access/policy.js';
import { p, params, type Field, type InferShape } from '../../kernel/params.js';

/** Base levels a custom role may build on: Guest, Planner, Reporter, Security Manager, Developer, Maintainer, Owner. */
export const ROLE_BASE_LEVELS = [10, 15, 20, 25, 30, 40, 50] as const;

/** One optional boolean per permission flag (`read_code=true`, Grape's boolean words). */
const flagFields = Object.fromEntries(CUSTOM_PERMISSIONS.map((flag) => [flag, p.boolean().optional()])) as Record<CustomPermission, Field<boolean, true>>;

const roleFields = {
  name: p.string().describe('Required by the spec; an empty or blank name still gets GitLab\'s default `<Base> - custom`.'),
  description: p.string().optional(),
  base_access_level: p.enum(ROLE_BASE_LEVELS),
  ...flagFields,
};

export const CreateInstanceRoleInput = params(roleFields);
export const CreateGroupRoleInput = params({ id: p.string(), ...roleFields });
export type CreateRoleInput = InferShape<typeof CreateInstanceRoleInput.shape>;

const updateFields = {
  member_role_id: p.integer(),
  name: p.string().optional(),
  description: p.string().nullable().optional(),
  base_access_level: p.enum(ROLE_BASE_LEVELS).optional().describe('Immutable: accepted only when it equals the role\'s.'),
  ...flagFields,
};
export const UpdateInstanceRoleInput = params(updateFields);
export const UpdateGroupRoleInput = params({ id: p.string(), ...updateFields });
export type UpdateRoleInput = InferShape<typeof UpdateInstanceRoleInput.shape>;

export const InstanceRoleRefInput = params({ member_role_id: p.integer() });
export const GroupRoleRefInput = params({ id: p.string(), member_role_id: p.integer() });
export const GroupRefInput = params({ id: p.string() });
