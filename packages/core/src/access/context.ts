import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { DialectName } from '../storage/dialect.js';
import type { BlobStore } from '../storage/blobs.js';
import type { GitRepositories } from '../storage/git.js';
import type { Queue } from '../storage/queue.js';
import type { UserRow } from './user.table.js';
import type { Clock } from '../kernel/clock.js';
import type { Egress } from '../kernel/egress.js';
import type { SecretBox } from '../kernel/secrets.js';
import type { Tier } from '../kernel/tiers.js';

export interface ForgeConfig {
  /** Base URL clients reach the instance at, without a trailing slash. */
  externalUrl: string;
  tier: Tier;
  testMode: boolean;
  /**
   * When pipeline schedules run: `exact` (default) at the cron's own instant; `gitlab` rounded
   * up to GitLab's scheduling worker ticks (`3-59/10 * * * *` UTC), as `next_run_at` shows there.
   */
  scheduleTiming?: 'exact' | 'gitlab';
  limits: {
    /** JSON and form bodies. */
    bodyBytes: number;
    /** Multipart uploads. */
    uploadBytes: number;
  };
}

export interface UrlBuilder {
  /** `<external>/<path>` for web pages (`web_url`). */
  web(path: string): string;
  /** `<external>/api/v4<path>`. */
  api(path: string): string;
  /** Host (and port) of the external URL. */
  host(): string;
}

/** Everything with a side effect, injected into createForge. */
export interface Deps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  blobs: BlobStore;
  /** Projects' bare git repositories (storage/git.ts). */
  git: GitRepositories;
  secrets: SecretBox;
  egress: Egress;
  config: ForgeConfig;
  queue: Queue;
  urls: UrlBuilder;
}

export type ActorKind = 'anonymous' | 'user' | 'job' | 'deploy_token';

export interface ActorToken {
  id: number;
  scopes: string[];
  kind: 'personal' | 'project' | 'group' | 'job';
}

/** Who makes the request, resolved from its credentials. */
export interface Actor {
  kind: ActorKind;
  user: UserRow | null;
  token: ActorToken | null;
  /** Admin and acting as admin (GitLab admins pass every policy check). */
  isAdmin: boolean;
  /** Set for CI job tokens: the running job, its project and pipeline (job token scope checks use it). */
  job?: { id: number; projectId: number; pipelineId: number };
  /** Set for deploy tokens (no user): the project, or the group (traversal) whose projects it reaches, and its scopes. */
  deployToken?: { id: number; projectId: number | null; groupTraversal: string | null; scopes: string[] };
  /**
   * Set for an access token's user: until when (ms since the epoch, on the injected clock) the
   * token's last use stays recorded closely enough that authenticating it again writes nothing
   * (access/authenticate.ts settledUntil).
   */
  tokenUseRecordedUntil?: number;
}

export const ANONYMOUS: Actor = { kind: 'anonymous', user: null, token: null, isAdmin: false };

/** A use case's view of the world: the dependencies plus the actor. */
export interface Ctx extends Deps {
  actor: Actor;
  /** Per-request memo (resolved access levels, loaded namespaces). */
  cache: Map<string, unknown>;
}

// Handlers declared with `route()` in the kernel get this context.
declare module '../kernel/route.js' {
  interface RouteContext extends Ctx {}
}

export function contextFor(deps: Deps, actor: Actor): Ctx {
  // The deps are the prototype: no copy per request.
  const ctx = Object.create(deps) as Ctx;
  ctx.actor = actor;
  ctx.cache = new Map();
  return ctx;
}

/** `ctx.clock.now()` as ISO text, the stored timestamp format. */
export function nowIso(ctx: { clock: Clock }): string {
  return ctx.clock.now().toISOString();
}
