/**
 * A web console session as a credential: the table, the CSRF token derived from the secret,
 * and the actor a session cookie stands for (authenticate.ts resolves it like a token; sign-in
 * and sign-out are in console-sessions.ts).
 */
import type { Generated } from 'kysely';
import type { Actor, Deps } from './context.js';
import { ForbiddenError, UnauthorizedError } from '../kernel/errors.js';
import { digestToken } from '../kernel/ids.js';

export interface ConsoleSessionTable {
  id: Generated<number>;
  user_id: number;
  session_digest: string;
  access_token_id: number | null;
  /** JSON array of the token's scopes; null for a password sign-in. */
  scopes: string | null;
  created_at: string;
  expires_at: string;
}

/** What a browser presents: the cookie's secret, the CSRF header, and whether the request writes. */
export interface SessionCredentials {
  secret: string;
  csrf?: string;
  write: boolean;
}

/** The CSRF token of a session secret (what the page sends back as `X-CSRF-Token` on writes). */
export function consoleCsrfToken(secret: string): string {
  return digestToken(`csrf:${secret}`).slice(0, 40);
}

/** The actor of a session cookie; 401 when unknown, expired or its token no longer valid; 403 on a write without the CSRF token. */
export async function actorFromConsoleSession(deps: Deps, creds: SessionCredentials): Promise<Actor> {
  const row = await deps.db
    .selectFrom('console_sessions')
    .innerJoin('users', 'users.id', 'console_sessions.user_id')
    .leftJoin('access_tokens', 'access_tokens.id', 'console_sessions.access_token_id')
    .selectAll('users')
    .select([
      'console_sessions.access_token_id as session_token_id',
      'console_sessions.scopes as session_scopes',
      'console_sessions.expires_at as session_expires_at',
      'access_tokens.revoked as token_revoked',
      'access_tokens.expires_at as token_expires_at',
    ])
    .where('console_sessions.session_digest', '=', digestToken(creds.secret))
    .executeTakeFirst();
  const now = deps.clock.now();
  if (!row || row.session_expires_at <= now.toISOString() || row.state !== 'active') throw new UnauthorizedError();
  const { session_token_id, session_scopes, session_expires_at, token_revoked, token_expires_at, ...user } = row;
  void session_expires_at;
  if (session_token_id !== null && (token_revoked === null || token_revoked || (token_expires_at && token_expires_at <= now.toISOString().slice(0, 10)))) {
    throw new UnauthorizedError();
  }
  if (creds.write && creds.csrf !== consoleCsrfToken(creds.secret)) throw new ForbiddenError('CSRF token is missing or invalid');
  return {
    kind: 'user',
    user,
    token: session_token_id !== null ? { id: session_token_id, scopes: JSON.parse(session_scopes ?? '[]') as string[], kind: 'personal' } : null,
    isAdmin: user.is_admin === 1,
  };
}

declare module '../storage/database.js' {
  interface Database {
    console_sessions: ConsoleSessionTable;
  }
}
