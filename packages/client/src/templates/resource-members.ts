/** Members of a project or group: one template mounted under `projects/:id` and `groups/:id`. */
import type { AddMemberInput, EditMemberInput, ListMembersInput, MemberEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ExactlyOne, ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListMembersParams = ListParams<ListMembersInput>;
/** Exactly one of `user_id` (an id or username) and `username`. */
export type AddMemberParams = Omit<AddMemberInput, 'id' | 'user_id' | 'username'> &
  ExactlyOne<{ user_id: number | NonNullable<AddMemberInput['user_id']>; username: NonNullable<AddMemberInput['username']> }>;
export type EditMemberParams = Omit<EditMemberInput, 'id' | 'user_id'>;

export class ResourceMembers {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  /** Direct members. */
  all(id: ResourceId, params: ListMembersParams = {}): Paginated<MemberEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/members`, params);
  }

  /** Direct and inherited members, each with their highest access level. */
  allInherited(id: ResourceId, params: ListMembersParams = {}): Paginated<MemberEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/members/all`, params);
  }

  show(id: ResourceId, userId: number): Promise<MemberEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/members/${userId}`);
  }

  /** A member whose membership may come from an ancestor group. */
  showInherited(id: ResourceId, userId: number): Promise<MemberEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/members/all/${userId}`);
  }

  add(id: ResourceId, params: AddMemberParams): Promise<MemberEntity> {
    return this.requester.post(endpoint`${this.prefix}/${id}/members`, params);
  }

  edit(id: ResourceId, userId: number, params: EditMemberParams): Promise<MemberEntity> {
    return this.requester.put(endpoint`${this.prefix}/${id}/members/${userId}`, params);
  }

  remove(id: ResourceId, userId: number): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/members/${userId}`);
  }
}
