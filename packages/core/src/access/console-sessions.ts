/**
 * Web console sessions. Signing in with a personal access token or a username and password
 * gives a random session secret (the browser keeps it in an `HttpOnly` cookie); the database
 * keeps only its SHA-256 digest, like tokens. A session acts as its user with the same policy
 * as the API: signed in with a token, it carries that token's scopes and ends when the token is
 * revoked or expires; signed in with a password, it has a web session's full rights (no scope
 * check), as in GitLab.
 *
 * Writes made with a session need its CSRF token (`X-CSRF-Token`), derived from the secret, so
 * a page on another origin can neither read nor forge it.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { Actor, Deps } from './context.js';
import { ValidationError, UnauthorizedError } from '../kernel/errors.js';
import { digestToken, randomToken } from '../kernel/ids.js';
import { actorFromAccessToken } from './authenticate.js';
import { verifyUserPassword } from './passwords.js';
import { actorFromConsoleSession, consoleCsrfToken } from './console-session-auth.js';

export { type SessionCredentials } from './console-session-auth.js';

/** How long a console session lasts (GitLab's default session expiry: one week). */
export const CONSOLE_SESSION_TTL_MS = 7 * 24 * 3600_000;

export interface ConsoleSession {
  /** The cookie value, given once. */
  secret: string;
  csrfToken: string;
  expiresAt: string;
  user: { id: number; username: string; name: string; is_admin: boolean };
}

function sessionUser(actor: Actor): ConsoleSession['user'] {
  const u = actor.user!;
  return { id: u.id, username: u.username, name: u.name, is_admin: u.is_admin === 1 };
}

/** The queued job that deletes expired sessions. */
export const SESSION_SWEEP_JOB = 'console_sessions.sweep';

/** Deletes the sessions that have expired at `now`; answers how many. */
export async function sweepConsoleSessions(db: Kysely<Database>, now: Date): Promise<number> {
  const done = await db.deleteFrom('console_sessions').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
  return Number(done.numDeletedRows ?? 0);
}

/**
 * Registers the sweep: it deletes expired sessions, then comes back when the next session
 * expires (sign-in queues it for its own expiry when none is pending).
 */
export function registerConsoleSessionJobs(deps: Deps): void {
  deps.queue.register(SESSION_SWEEP_JOB, async (_payload, { now }) => {
    await sweepConsoleSessions(deps.db, now);
    const next = await deps.db.selectFrom('console_sessions').select('expires_at').orderBy('expires_at').limit(1).executeTakeFirst();
    return next ? { retryAt: new Date(next.expires_at) } : undefined;
  });
}

/** Signs in with a personal access token or a username (or email) and password; 401 when they do not match. */
export async function signInConsole(deps: Deps, input: Partial<{ token: string; login: string; password: string }>): Promise<ConsoleSession> {
  let actor: Actor;
  let tokenId: number | null = null;
  let scopes: string[] | null = null;
  if (typeof input.token === 'string' && input.token !== '') {
    actor = await actorFromAccessToken(deps, input.token);
    if (actor.token?.kind !== 'personal') throw new UnauthorizedError();
    tokenId = actor.token.id;
    scopes = actor.token.scopes;
  } else if (typeof input.login === 'string' && input.login !== '' && typeof input.password === 'string') {
    const login = input.login.toLowerCase();
    const user = await deps.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb.or([eb(sql`lower(username)`, '=', login), eb(sql`lower(email)`, '=', login)]))
      .executeTakeFirst();
    if (!user || user.state !== 'active' || !(await verifyUserPassword(deps.db, user.id, input.password))) throw new UnauthorizedError();
    actor = { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 };
  } else {
    throw new ValidationError([{ field: 'token, login', message: 'are missing, exactly one parameter must be provided' }]);
  }
  const secret = randomToken('', 32);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CONSOLE_SESSION_TTL_MS).toISOString();
  await deps.db.transaction().execute(async (trx) => {
    // Signing in sweeps what has expired, and makes sure the sweep job runs when this session expires.
    await sweepConsoleSessions(trx, now);
    await trx
      .insertInto('console_sessions')
      .values({
        user_id: actor.user!.id,
        session_digest: digestToken(secret),
        access_token_id: tokenId,
        scopes: scopes ? JSON.stringify(scopes) : null,
        created_at: now.toISOString(),
        expires_at: expiresAt,
      })
      .execute();
    await deps.queue.enqueue(trx, SESSION_SWEEP_JOB, {}, { runAt: new Date(expiresAt), uniqueKey: SESSION_SWEEP_JOB });
  });
  return { secret, csrfToken: consoleCsrfToken(secret), expiresAt, user: sessionUser(actor) };
}

/** The signed-in session (for a page reload): its user and CSRF token. */
export async function currentConsoleSession(deps: Deps, secret: string): Promise<Omit<ConsoleSession, 'secret'>> {
  const actor = await actorFromConsoleSession(deps, { secret, write: false });
  const row = await deps.db.selectFrom('console_sessions').select('expires_at').where('session_digest', '=', digestToken(secret)).executeTakeFirstOrThrow();
  return { csrfToken: consoleCsrfToken(secret), expiresAt: row.expires_at, user: sessionUser(actor) };
}

/** Signs out: the session is deleted (nothing happens for an unknown one). */
export async function signOutConsole(deps: Deps, secret: string): Promise<void> {
  await deps.db.deleteFrom('console_sessions').where('session_digest', '=', digestToken(secret)).execute();
}

