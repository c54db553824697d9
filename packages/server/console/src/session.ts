/**
 * The console's session (`/-/console/session`) and the client SDK it makes requests with. The
 * session cookie is `HttpOnly`: this page never sees it; it keeps only the CSRF token, which
 * the client sends on every request (the server needs it on writes).
 */
import { Forgelet } from '@forgelet/client';

export interface SessionUser {
  id: number;
  username: string;
  name: string;
  is_admin: boolean;
}

export interface Session {
  user: SessionUser;
  csrf_token: string;
}

const SESSION_URL = '/-/console/session';

/** The signed-in session, or null (401: nobody signed in). */
export async function currentSession(): Promise<Session | null> {
  const res = await fetch(SESSION_URL, { headers: { Accept: 'application/json' } });
  if (res.status === 401) return null;
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as Session;
}

export type Credentials = { token: string } | { login: string; password: string };

/** Signs in; the error message the server gave when it refuses. */
export async function signIn(credentials: Credentials): Promise<Session> {
  const res = await fetch(SESSION_URL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (res.status === 401) throw new Error('Invalid token, or invalid username or password.');
  if (!res.ok) throw new Error(`Sign-in failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Session;
}

export async function signOut(session: Session): Promise<void> {
  await fetch(SESSION_URL, { method: 'DELETE', headers: { 'X-CSRF-Token': session.csrf_token } });
}

/** The typed client for this page's origin, authenticated by the session cookie. */
export function clientFor(session: Session): Forgelet {
  return new Forgelet({ url: location.origin, headers: { 'X-CSRF-Token': session.csrf_token }, retries: 1 });
}
