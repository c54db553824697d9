import { CUSTOM_PERMISSIONS, type CustomPermission } from '../../access/policy.js';
import type { MemberRoleRow } from './member-role.table.js';

/** GitLab's `API::Entities::MemberRole`: every permission flag present, false unless enabled. */
export type MemberRoleEntity = {
  id: number;
  group_id: number | null;
  name: string;
  description: string | null;
  base_access_level: number;
} & Record<CustomPermission, boolean>;

export function enabledPermissions(row: Pick<MemberRoleRow, 'permissions'>): Set<CustomPermission> {
  return new Set(JSON.parse(row.permissions) as CustomPermission[]);
}

export function toMemberRoleEntity(row: MemberRoleRow): MemberRoleEntity {
  const enabled = enabledPermissions(row);
  const entity: Record<string, unknown> = {
    id: row.id,
    group_id: row.namespace_id,
    name: row.name,
    description: row.description,
    base_access_level: row.base_access_level,
  };
  for (const flag of CUSTOM_PERMISSIONS) entity[flag] = enabled.has(flag);
  return entity as MemberRoleEntity;
}
