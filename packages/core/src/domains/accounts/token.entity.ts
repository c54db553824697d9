import type { AccessTokenRow } from '../../access/access-token.table.js';

export interface PersonalAccessTokenEntity {
  id: number;
  name: string;
  description: string | null;
  revoked: boolean;
  created_at: string;
  scopes: string[];
  user_id: number;
  last_used_at: string | null;
  active: boolean;
  expires_at: string | null;
  /** Only in the response that creates or rotates the token. */
  token?: string;
}

export interface ResourceAccessTokenEntity extends PersonalAccessTokenEntity {
  access_level: number;
  resource_type: 'project' | 'group';
  resource_id: number;
}

export function isTokenActive(row: AccessTokenRow, today: string): boolean {
  return !row.revoked && (row.expires_at === null || row.expires_at > today);
}

export function toPersonalAccessTokenEntity(row: AccessTokenRow, today: string, token?: string): PersonalAccessTokenEntity {
  const entity: PersonalAccessTokenEntity = {
    id: row.id,
    name: row.name,
    description: row.description,
    revoked: row.revoked === 1,
    created_at: row.created_at,
    scopes: JSON.parse(row.scopes) as string[],
    user_id: row.user_id,
    last_used_at: row.last_used_at,
    active: isTokenActive(row, today),
    expires_at: row.expires_at,
  };
  if (token !== undefined) entity.token = token;
  return entity;
}

export function toResourceAccessTokenEntity(row: AccessTokenRow, today: string, token?: string): ResourceAccessTokenEntity {
  return {
    ...toPersonalAccessTokenEntity(row, today, token),
    access_level: row.access_level ?? 0,
    resource_type: row.resource_kind as 'project' | 'group',
    resource_id: row.resource_id ?? 0,
  };
}
