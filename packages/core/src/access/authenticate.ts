/**
 * Resolves request credentials to an actor. Tokens are looked up by their SHA-256 digest.
 * Unknown tokens answer 401 even on public routes; expired and revoked ones answer
 * GitLab's `invalid_token` 401; sudo is honoured for admins with the `sudo` scope.
 */
import { sql } from 'kysely';
import type { Actor, Deps } from './context.js';
import { ANONYMOUS } from './context.js';
import { isoDate } from '../kernel/clock.js';
import { ForbiddenError, InsufficientScopeError, InvalidTokenError, NotFoundError, UnauthorizedError } from '../kernel/errors.js';
import { digestToken } from '../kernel/ids.js';
import { preparedQuery } from '../storage/prepared.js';
import type { Method } from '../kernel/route.js';
import type { UserRow } from './user.table.js';
import { deployTokenUsername } from './deploy-token.table.js';
import { actorFromConsoleSession, type SessionCredentials } from './console-session-auth.js';

export interface Credentials {
  privateToken?: string;
  bearer?: string;
  jobToken?: string;
  basic?: { username: string; password: string };
  /** The `Deploy-Token` header (package routes). */
  deployToken?: string;
  sudo?: string;
  /** The web console's session cookie (used only when no token came with the request). */
  session?: SessionCredentials;
}

/** Resolves a CI job token to an actor; installed by the CI domain. */
export type JobTokenResolver = (deps: Deps, token: string) => Promise<Actor | null>;

const LAST_USED_RESOLUTION_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

const selectTokenWithUser = preparedQuery((db, digest: string) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .selectAll('users')
    .select([
      'access_tokens.id as token_id',
      'access_tokens.scopes as token_scopes',
      'access_tokens.expires_at as token_expires_at',
      'access_tokens.revoked as token_revoked',
      'access_tokens.last_used_at as token_last_used_at',
      'access_tokens.resource_kind as token_resource_kind',
    ])
    .where('access_tokens.token_digest', '=', digest),
  // Revoking, expiring early, deleting or blocking writes to these rows, which drops the cache.
  { cache: true },
);

type TokenRow = Awaited<ReturnType<typeof selectTokenWithUser>>[number];

/** A token row split into its user and its grant, once per cached (frozen) row. */
interface TokenParts {
  user: UserRow;
  scopes: string[];
  kind: 'personal' | 'project' | 'group';
}
const partsByRow = new WeakMap<TokenRow, TokenParts>();

function partsOf(row: TokenRow): TokenParts {
  let parts = partsByRow.get(row);
  if (!parts) {
    const { token_id, token_scopes, token_expires_at, token_revoked, token_last_used_at, token_resource_kind, ...user } = row;
    void token_id, token_expires_at, token_revoked, token_last_used_at;
    parts = { user: user as UserRow, scopes: JSON.parse(token_scopes) as string[], kind: (token_resource_kind ?? 'personal') as TokenParts['kind'] };
    // Rows from the read cache are frozen and come back as the same object until a write.
    if (Object.isFrozen(row)) partsByRow.set(row, parts);
  }
  return parts;
}

export async function actorFromAccessToken(deps: Deps, token: string, expectedUsername?: string): Promise<Actor> {
  const [row] = await selectTokenWithUser(deps.db, digestToken(token));
  if (!row) throw new UnauthorizedError();
  if (expectedUsername !== undefined && expectedUsername.toLowerCase() !== row.username.toLowerCase()) throw new UnauthorizedError();
  if (row.token_revoked) throw new InvalidTokenError('revoked');
  const now = deps.clock.now();
  if (row.token_expires_at && row.token_expires_at <= now.toISOString().slice(0, 10)) throw new InvalidTokenError('expired');
  if (row.state !== 'active') throw new UnauthorizedError();
  // Recorded at a coarse resolution so reads don't turn into a write per request.
  let lastUsed = row.token_last_used_at ? Date.parse(row.token_last_used_at) : NaN;
  if (!(now.getTime() - lastUsed <= LAST_USED_RESOLUTION_MS)) {
    await deps.db.updateTable('access_tokens').set({ last_used_at: now.toISOString() }).where('id', '=', row.token_id).execute();
    lastUsed = now.getTime();
  }
  const parts = partsOf(row);
  // Copies: an actor is the request's own.
  return {
    kind: 'user',
    user: { ...parts.user },
    token: { id: row.token_id, scopes: parts.scopes.slice(), kind: parts.kind },
    isAdmin: row.is_admin === 1,
    tokenUseRecordedUntil: lastUsed + LAST_USED_RESOLUTION_MS,
  };
}

/**
 * Until when (ms since the epoch, on the injected clock) the same credentials would make the
 * same actor with nothing written, provided the database does not change meanwhile: the UTC
 * date, on which token and membership expiry and `last_activity_on` turn, stays the same, and
 * an access token's last use stays recorded. Anonymous requests, and an access token's user
 * (no Sudo); undefined for any other actor (a job, a deploy token, a session, Sudo), whose
 * authentication is to run every time. The server repeats answers until then
 * (server/response-cache.ts).
 */
export function settledUntil(deps: Deps, actor: Actor): number | undefined {
  const now = deps.clock.now().getTime();
  const midnight = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  if (actor.kind === 'anonymous' && !actor.user) return midnight;
  if (actor.kind !== 'user' || actor.tokenUseRecordedUntil === undefined) return undefined;
  return Math.min(midnight, actor.tokenUseRecordedUntil);
}

/**
 * A deploy token (Basic auth on package routes: its username and the token; or the NuGet API
 * key): an actor with no user that reaches only its project, or its group's projects.
 */
export async function actorFromDeployToken(deps: Deps, token: string, expectedUsername?: string): Promise<Actor> {
  const row = await deps.db.selectFrom('deploy_tokens').selectAll().where('token_digest', '=', digestToken(token)).executeTakeFirst();
  if (!row || row.revoked) throw new UnauthorizedError();
  if (expectedUsername !== undefined && expectedUsername !== deployTokenUsername(row)) throw new UnauthorizedError();
  if (row.expires_at && row.expires_at <= deps.clock.now().toISOString()) throw new UnauthorizedError();
  let groupTraversal: string | null = null;
  if (row.group_id !== null) {
    const group = await deps.db.selectFrom('namespaces').select('traversal').where('id', '=', row.group_id).executeTakeFirst();
    if (!group) throw new UnauthorizedError();
    groupTraversal = group.traversal;
  }
  return {
    kind: 'deploy_token',
    user: null,
    token: null,
    isAdmin: false,
    deployToken: { id: row.id, projectId: row.project_id, groupTraversal, scopes: JSON.parse(row.scopes) as string[] },
  };
}

/** An access token, else (on package routes) a deploy token. */
async function actorFromAnyToken(deps: Deps, options: AuthenticateOptions, token: string, username?: string): Promise<Actor> {
  try {
    return await actorFromAccessToken(deps, token, username);
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !options.allowBasic) throw err;
    return actorFromDeployToken(deps, token, username);
  }
}

export interface AuthenticateOptions {
  allowJobToken: boolean;
  allowBasic: boolean;
  jobTokenResolver?: JobTokenResolver;
}

async function resolveJob(deps: Deps, options: AuthenticateOptions, token: string): Promise<Actor> {
  const job = options.jobTokenResolver ? await options.jobTokenResolver(deps, token) : null;
  if (!job) throw new UnauthorizedError();
  return job;
}

export async function authenticate(deps: Deps, creds: Credentials, options: AuthenticateOptions): Promise<Actor> {
  let actor: Actor = ANONYMOUS;
  // Job tokens count only on routes that accept them; elsewhere GitLab ignores them.
  if (creds.privateToken) actor = await actorFromAnyToken(deps, options, creds.privateToken);
  else if (creds.jobToken && options.allowJobToken) {
    actor = await resolveJob(deps, options, creds.jobToken);
  } else if (creds.bearer) {
    // Bearer carries access tokens, and job tokens where the route allows them.
    try {
      actor = await actorFromAccessToken(deps, creds.bearer);
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || !options.allowJobToken) throw err;
      actor = await resolveJob(deps, options, creds.bearer);
    }
  } else if (creds.deployToken && options.allowBasic) {
    actor = await actorFromDeployToken(deps, creds.deployToken);
  } else if (creds.basic && options.allowBasic) {
    const { username, password } = creds.basic;
    actor = username === 'gitlab-ci-token' ? await resolveJob(deps, options, password) : await actorFromAnyToken(deps, options, password, username);
  } else if (creds.session) {
    actor = await actorFromConsoleSession(deps, creds.session);
  }
  if (creds.sudo !== undefined && creds.sudo !== '' && actor.kind === 'user') actor = await applySudo(deps, actor, creds.sudo);
  return actor;
}

/**
 * GitLab's Users::ActivityService, which its API runs after every endpoint that answered
 * without an error, for the request's user (the one Sudo names, a job's user):
 * `last_activity_on` becomes today, written at most once a day.
 */
export async function recordActivity(deps: Deps, actor: Actor): Promise<void> {
  if (!actor.user) return;
  const today = isoDate(deps.clock.now());
  if (actor.user.last_activity_on === today) return;
  await deps.db.updateTable('users').set({ last_activity_on: today }).where('id', '=', actor.user.id).execute();
}

async function applySudo(deps: Deps, actor: Actor, sudo: string): Promise<Actor> {
  if (!actor.isAdmin) throw new ForbiddenError('Must be admin to use sudo');
  if (!actor.token?.scopes.includes('sudo')) throw new InsufficientScopeError('sudo');
  const q = deps.db.selectFrom('users').selectAll();
  const user = /^\d+$/.test(sudo)
    ? await q.where('id', '=', Number(sudo)).executeTakeFirst()
    : await q.where(sql`lower(username)`, '=', sudo.toLowerCase()).executeTakeFirst();
  if (!user) throw new NotFoundError(null, { exact: `404 User with ID or username '${sudo}' Not Found` });
  return { kind: 'user', user, token: actor.token, isAdmin: user.is_admin === 1 };
}

/** Scopes that allow a request: `api` always; `read_api` for reads; route-specific extras. */
export function checkScopes(actor: Actor, method: Method, routeScopes: readonly string[] | undefined): void {
  if (!actor.token || actor.token.kind === 'job') return;
  const allowed = routeScopes ?? (method === 'GET' || method === 'HEAD' ? ['api', 'read_api'] : ['api']);
  if (actor.token.scopes.some((s) => allowed.includes(s))) return;
  throw new InsufficientScopeError(allowed[0] ?? 'api');
}
