import type { CreateRoleInput, MemberRoleEntity, UpdateRoleInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** `name`, `base_access_level`, optional `description` and permission flags (omitted flags are off). */
export type CreateMemberRoleParams = CreateRoleInput;
/** Name, description and flags; `base_access_level` only when unchanged (it is immutable). */
export type EditMemberRoleParams = Omit<UpdateRoleInput, 'member_role_id'>;

/**
 * Instance-wide custom roles (administrators, Ultimate): `/member_roles`. Assign one with
 * `member_role_id` on `projectMembers` / `groupMembers` `add` or `edit`.
 */
export class MemberRoles {
  constructor(private readonly requester: Requester) {}

  /** Every instance role, by name (not paginated). */
  all(): Promise<MemberRoleEntity[]> {
    return this.requester.get('member_roles');
  }

  create(params: CreateMemberRoleParams): Promise<MemberRoleEntity> {
    return this.requester.post('member_roles', params);
  }

  edit(memberRoleId: number, params: EditMemberRoleParams): Promise<MemberRoleEntity> {
    return this.requester.put(endpoint`member_roles/${memberRoleId}`, params);
  }

  /** Refused (400) while a membership holds the role. */
  remove(memberRoleId: number): Promise<void> {
    return this.requester.delete(endpoint`member_roles/${memberRoleId}`);
  }
}

/** Custom roles of a top-level group (its Owners, Ultimate): `/groups/:id/member_roles`. */
export class GroupMemberRoles {
  constructor(private readonly requester: Requester) {}

  /** The roles of the group's top-level group, by name (not paginated). */
  all(groupId: ResourceId): Promise<MemberRoleEntity[]> {
    return this.requester.get(endpoint`groups/${groupId}/member_roles`);
  }

  /** A subgroup is refused (400 `Namespace must be top-level namespace`). */
  create(groupId: ResourceId, params: CreateMemberRoleParams): Promise<MemberRoleEntity> {
    return this.requester.post(endpoint`groups/${groupId}/member_roles`, params);
  }

  edit(groupId: ResourceId, memberRoleId: number, params: EditMemberRoleParams): Promise<MemberRoleEntity> {
    return this.requester.put(endpoint`groups/${groupId}/member_roles/${memberRoleId}`, params);
  }

  remove(groupId: ResourceId, memberRoleId: number): Promise<void> {
    return this.requester.delete(endpoint`groups/${groupId}/member_roles/${memberRoleId}`);
  }
}
