import type { UrlBuilder } from '../../access/context.js';
import type { NamespaceRow } from '../../access/namespace.table.js';

export interface GroupEntity {
  id: number;
  web_url: string;
  name: string;
  path: string;
  description: string;
  visibility: string;
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  project_creation_level: string;
  auto_devops_enabled: boolean | null;
  subgroup_creation_level: string;
  emails_disabled: boolean;
  emails_enabled: boolean;
  mentions_disabled: boolean | null;
  lfs_enabled: boolean;
  default_branch: string | null;
  default_branch_protection: number;
  avatar_url: string | null;
  request_access_enabled: boolean;
  full_name: string;
  full_path: string;
  created_at: string;
  parent_id: number | null;
  organization_id: number;
  shared_runners_setting: string;
  ldap_cn: string | null;
  ldap_access: number | null;
  marked_for_deletion_on: string | null;
  wiki_access_level: string;
}

export function toGroupEntity(row: NamespaceRow, urls: UrlBuilder): GroupEntity {
  return {
    id: row.id,
    web_url: urls.web(`/groups/${row.full_path}`),
    name: row.name,
    path: row.path,
    description: row.description,
    visibility: row.visibility,
    share_with_group_lock: row.share_with_group_lock === 1,
    require_two_factor_authentication: row.require_two_factor_authentication === 1,
    two_factor_grace_period: 48,
    project_creation_level: row.project_creation_level,
    auto_devops_enabled: null,
    subgroup_creation_level: row.subgroup_creation_level,
    emails_disabled: false,
    emails_enabled: true,
    mentions_disabled: null,
    lfs_enabled: row.lfs_enabled === 1,
    default_branch: row.default_branch,
    default_branch_protection: 2,
    avatar_url: null,
    request_access_enabled: row.request_access_enabled === 1,
    full_name: row.full_name,
    full_path: row.full_path,
    created_at: row.created_at,
    parent_id: row.parent_id,
    organization_id: 1,
    shared_runners_setting: 'enabled',
    ldap_cn: null,
    ldap_access: null,
    marked_for_deletion_on: null,
    wiki_access_level: 'enabled',
  };
}

/** The `namespace` object embedded in projects. */
export interface NamespaceEntity {
  id: number;
  name: string;
  path: string;
  kind: 'group' | 'user';
  full_path: string;
  parent_id: number | null;
  avatar_url: string | null;
  web_url: string;
}

export function toNamespaceEntity(row: NamespaceRow, urls: UrlBuilder): NamespaceEntity {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    kind: row.kind as 'group' | 'user',
    full_path: row.full_path,
    parent_id: row.parent_id,
    avatar_url: null,
    web_url: row.kind === 'group' ? urls.web(`/groups/${row.full_path}`) : urls.web(`/${row.full_path}`),
  };
}
