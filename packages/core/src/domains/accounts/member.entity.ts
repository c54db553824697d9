import type { UrlBuilder } from '../../access/context.js';
import { toMemberRoleEntity, type MemberRoleEntity } from '../member-roles/index.js';
import type { MemberRoleRow } from '../member-roles/index.js';
import type { MemberRow } from '../../access/member.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';

export interface MemberEntity extends UserBasicEntity {
  access_level: number;
  created_at: string;
  created_by: UserBasicEntity | null;
  expires_at: string | null;
  membership_state: string;
  /** The member's custom role; absent when none (GitLab's `expose_nil: false`). */
  member_role?: MemberRoleEntity;
}

export function toMemberEntity(
  member: Pick<MemberRow, 'access_level' | 'created_at' | 'expires_at'>,
  user: UserRow,
  createdBy: UserRow | null,
  urls: UrlBuilder,
  memberRole?: MemberRoleRow,
): MemberEntity {
  return {
    ...toUserBasicEntity(user, urls),
    access_level: member.access_level,
    created_at: member.created_at,
    created_by: createdBy ? toUserBasicEntity(createdBy, urls) : null,
    expires_at: member.expires_at,
    membership_state: 'active',
    ...(memberRole && { member_role: toMemberRoleEntity(memberRole) }),
  };
}
