import type { UrlBuilder } from '../../kernel/context.js';
import type { MemberRow } from './member.table.js';
import { toUserBasicEntity, type UserBasicEntity } from './user.entity.js';
import type { UserRow } from './user.table.js';

export interface MemberEntity extends UserBasicEntity {
  access_level: number;
  created_at: string;
  created_by: UserBasicEntity | null;
  expires_at: string | null;
  membership_state: string;
  member_role: { id: number; name: string; description: string | null; base_access_level: number } | null;
}

export function toMemberEntity(
  member: Pick<MemberRow, 'access_level' | 'created_at' | 'expires_at'>,
  user: UserRow,
  createdBy: UserRow | null,
  urls: UrlBuilder,
): MemberEntity {
  return {
    ...toUserBasicEntity(user, urls),
    access_level: member.access_level,
    created_at: member.created_at,
    created_by: createdBy ? toUserBasicEntity(createdBy, urls) : null,
    expires_at: member.expires_at,
    membership_state: 'active',
    member_role: null,
  };
}
