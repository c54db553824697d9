import type { UrlBuilder } from './context.js';
import type { UserRow } from './user.table.js';

/** GitLab's UserBasic. */
export interface UserBasicEntity {
  id: number;
  username: string;
  name: string;
  state: string;
  locked: boolean;
  avatar_url: string | null;
  web_url: string;
}

/** GitLab's User (public profile). */
export interface UserEntity extends UserBasicEntity {
  created_at: string;
  bio: string;
  location: string;
  public_email: string | null;
  website_url: string;
  organization: string;
  job_title: string;
  bot: boolean;
  work_information: string | null;
}

/** GitLab's UserPublic / UserWithAdmin: what the user themself and admins see. */
export interface UserDetailEntity extends UserEntity {
  email: string;
  last_activity_on: string | null;
  projects_limit: number;
  can_create_group: boolean;
  can_create_project: boolean;
  external: boolean;
  two_factor_enabled: boolean;
  private_profile: boolean;
  namespace_id: number | null;
  is_admin?: boolean;
}

export function toUserBasicEntity(row: UserRow, urls: UrlBuilder): UserBasicEntity {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    state: row.state,
    locked: false,
    avatar_url: null,
    web_url: urls.web(`/${row.username}`),
  };
}

export function toUserEntity(row: UserRow, urls: UrlBuilder): UserEntity {
  const work = [row.job_title, row.organization].filter(Boolean).join(' at ');
  return {
    ...toUserBasicEntity(row, urls),
    created_at: row.created_at,
    bio: row.bio,
    location: row.location,
    public_email: row.public_email,
    website_url: row.website_url,
    organization: row.organization,
    job_title: row.job_title,
    bot: row.bot_kind !== null,
    work_information: work || null,
  };
}

export function toUserDetailEntity(row: UserRow, urls: UrlBuilder, options: { admin: boolean }): UserDetailEntity {
  const entity: UserDetailEntity = {
    ...toUserEntity(row, urls),
    email: row.email,
    last_activity_on: row.last_activity_on,
    projects_limit: row.projects_limit,
    can_create_group: row.can_create_group === 1,
    can_create_project: row.projects_limit > 0,
    external: row.external === 1,
    two_factor_enabled: false,
    private_profile: false,
    namespace_id: row.namespace_id,
  };
  if (options.admin) entity.is_admin = row.is_admin === 1;
  return entity;
}
