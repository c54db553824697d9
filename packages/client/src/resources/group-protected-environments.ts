import type {
  ListGroupProtectedEnvironmentsInput,
  ProtectedEnvironmentEntity,
  ProtectGroupEnvironmentInput,
  ProtectionEntryInput,
  UpdateGroupProtectedEnvironmentInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListGroupProtectedEnvironmentsParams = ListParams<ListGroupProtectedEnvironmentsInput>;
/** Exactly one of `user_id`, `group_id`, `access_level` (30, 40, 60). */
export type ProtectionEntry = Omit<ProtectionEntryInput, 'id' | '_destroy' | 'required_approvals'>;
export type ApprovalRuleEntry = Omit<ProtectionEntryInput, 'id' | '_destroy'>;
export type ProtectGroupEnvironmentParams = Partial<Pick<ProtectGroupEnvironmentInput, 'required_approval_count'>> & { approval_rules?: ApprovalRuleEntry[] };
/** Entries without `id` are added, with `id` changed, with `id` and `_destroy: true` removed. */
export type EditGroupProtectedEnvironmentParams = Omit<UpdateGroupProtectedEnvironmentInput, 'id' | 'name'>;
export type ProtectedEnvironmentTier = 'production' | 'staging' | 'testing' | 'development' | 'other';

/**
 * Group-level protected environments (Premium; group Maintainers): `/groups/:id/protected_environments[/:name]`,
 * where the name is a deployment tier protected in every project below the group.
 */
export class GroupProtectedEnvironments {
  constructor(private readonly requester: Requester) {}

  /** In tier order. */
  all(groupId: ResourceId, params: ListGroupProtectedEnvironmentsParams = {}): Paginated<ProtectedEnvironmentEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/protected_environments`, params);
  }

  show(groupId: ResourceId, name: ProtectedEnvironmentTier): Promise<ProtectedEnvironmentEntity> {
    return this.requester.get(endpoint`groups/${groupId}/protected_environments/${name}`);
  }

  /** Users must be Maintainers of the group, groups its subgroups; others are dropped. */
  protect(groupId: ResourceId, name: ProtectedEnvironmentTier, deployAccessLevels: ProtectionEntry[], params: ProtectGroupEnvironmentParams = {}): Promise<ProtectedEnvironmentEntity> {
    return this.requester.post(endpoint`groups/${groupId}/protected_environments`, { name, deploy_access_levels: deployAccessLevels, ...params });
  }

  edit(groupId: ResourceId, name: ProtectedEnvironmentTier, params: EditGroupProtectedEnvironmentParams): Promise<ProtectedEnvironmentEntity> {
    return this.requester.put(endpoint`groups/${groupId}/protected_environments/${name}`, params);
  }

  /** Answers the protection as it was (200). */
  async unprotect(groupId: ResourceId, name: ProtectedEnvironmentTier): Promise<ProtectedEnvironmentEntity> {
    return (await this.requester.send<ProtectedEnvironmentEntity>('DELETE', this.requester.url(endpoint`groups/${groupId}/protected_environments/${name}`))).data;
  }
}
