import type { UrlBuilder } from '../../access/context.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { toNamespaceEntity, type NamespaceEntity } from './group.entity.js';

/**
 * GitLab's `Entities::Namespace` (EE, self-managed: no subscription, so no seat fields):
 * NamespaceBasic plus fields shown by what the caller may do on the namespace.
 */
export interface NamespaceDetailEntity extends NamespaceEntity {
  /** Groups, to their Owners (admin_group). */
  members_count_with_descendants?: number;
  /** Administrators (update_subscription_limit). */
  shared_runners_minutes_limit?: number | null;
  extra_shared_runners_minutes_limit?: number | null;
  additional_purchased_storage_size?: number;
  additional_purchased_storage_ends_on?: string | null;
  /** Always present; null unless the caller may read billing (Owner, admin). */
  billable_members_count: number | null;
  /** Owner or admin (admin_namespace); self-managed GitLab has no plans: `default`. */
  plan?: string;
  trial_ends_on?: string | null;
  trial?: boolean;
}

/** What the caller may see of a namespace, decided by the use case. */
export interface NamespaceView {
  /** Owner of the group / the user namespace's user, or admin. */
  owner: boolean;
  admin: boolean;
  membersCountWithDescendants: number | null;
  billableMembersCount: number | null;
}

export function toNamespaceDetailEntity(row: NamespaceRow, urls: UrlBuilder, view: NamespaceView): NamespaceDetailEntity {
  // Keys in GitLab's order.
  const entity = toNamespaceEntity(row, urls) as NamespaceDetailEntity;
  if (row.kind === 'group' && view.owner && view.membersCountWithDescendants !== null) {
    entity.members_count_with_descendants = view.membersCountWithDescendants;
  }
  if (view.admin) {
    entity.shared_runners_minutes_limit = null;
    entity.extra_shared_runners_minutes_limit = null;
    entity.additional_purchased_storage_size = 0;
    entity.additional_purchased_storage_ends_on = null;
  }
  entity.billable_members_count = view.owner ? view.billableMembersCount : null;
  if (view.owner) {
    entity.plan = 'default';
    entity.trial_ends_on = null;
    entity.trial = false;
  }
  return entity;
}
