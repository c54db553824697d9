/** Wires the domains to the injected dependencies. */
import { currentConsoleSession, registerConsoleSessionJobs, signInConsole, signOutConsole, type ConsoleSession } from './access/console-sessions.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllableClock, systemClock, type Clock } from './kernel/clock.js';
import { contextFor, type Actor, type Ctx, type Deps, type ForgeConfig, type UrlBuilder } from './access/context.js';
import { createEgress, type Egress } from './kernel/egress.js';
import { createSecretBox, type KeySource, type SecretBox } from './kernel/secrets.js';
import type { Route } from './kernel/route.js';
import { FsBlobStore, type BlobStore } from './storage/blobs.js';
import { GitRepositories } from './storage/git.js';
import { openDatabase, type DatabaseHandle } from './storage/dialect.js';
import { migrateToLatest } from './storage/migrations/index.js';
import { withStartupLock } from './storage/startup-lock.js';
import { checkSecretKey } from './secret-keys.js';
import { Queue } from './storage/queue.js';
import { bootstrapRoot, registerAccountHooks, type BootstrapResult } from './domains/accounts/index.js';
import {
  authenticate,
  checkScopes,
  recordActivity,
  settledUntil,
  groupRoutes,
  membersRoutes,
  namespaceRoutes,
  deployTokenRoutes,
  projectRoutes,
  tokenRoutes,
  impersonationTokenRoutes,
  userRoutes,
  type Credentials,
  type JobTokenResolver,
} from './domains/accounts/index.js';
import { systemRoutes } from './domains/system/system.routes.js';
import { createOpenApiRoutes } from './domains/system/openapi.routes.js';
import { issueNoteable, issuesGraphql, issuesMergeRequestHooks, issuesPushHooks, issuesRoutes, registerIssueClosingJobs, registerIssueHooks } from './domains/issues/index.js';
import { webhookDeploymentHooks, webhookPipelineHooks } from './domains/webhooks/index.js';
import { registerWebhookJobs, webhookAccountHooks, webhookAwardEmojiHooks, webhookIssueHooks, webhookMergeRequestHooks, webhookMilestoneHooks, webhookNoteHooks, webhookPushHooks, webhookReleaseHooks, webhooksRoutes } from './domains/webhooks/index.js';
import { manualMergePushHooks, mergeRequestsGraphql, mergeRequestNoteable, mergeRequestPipelineHooks, mergeRequestPushHooks, mergeRequestsRoutes, registerApprovalStatus, registerMergeRequestHooks, registerMergeRequestJobs } from './domains/merge-requests/index.js';
import { findAwardableNoteable, notesRoutes, registerNoteHooks, registerNoteable } from './domains/notes/index.js';
import { snippetNoteable, snippetsRoutes } from './domains/snippets/index.js';
import { awardEmojiRoutes, registerAwardableFinder, registerAwardEmojiHooks } from './domains/award-emoji/index.js';
import { labelsGraphql, labelsRoutes } from './domains/labels/index.js';
import { milestonesGraphql, milestonesRoutes, registerMilestoneHooks } from './domains/milestones/index.js';
import { iterationsGraphql, iterationsRoutes, registerIterationJobs } from './domains/iterations/index.js';
import { epicsRoutes } from './domains/epics/index.js';
import { ciPushHooks, ciRoutes, registerPipelineHooks, resolveJobToken } from './domains/ci/index.js';
import { artifactsRoutes, registerArtifactJobs } from './domains/artifacts/index.js';
import { indexPushedRefs, registerPushHooks, registerRefReconcileJobs, replayPendingRepositories, repositoryRoutes } from './domains/repository/index.js';
import { registerReleaseHooks, releasesPushHooks, releasesRoutes } from './domains/releases/index.js';
import { protectedBranchesRoutes, protectedTagsRoutes } from './domains/protected-branches/index.js';
import { approvalsGraphql, approvalStatusesOf, approvalsMergeRequestHooks, approvalsPushHooks, approvalsRoutes, registerApprovalJobs } from './domains/approvals/index.js';
import { pipelineSchedulesRoutes, registerPipelineScheduleJobs } from './domains/pipeline-schedules/index.js';
import { ciVariablesRoutes } from './domains/ci-variables/index.js';
import { createTestHarnessRoutes } from './test-harness/index.js';
import { jobTokenScopeRoutes } from './domains/job-token-scope/index.js';
import { applicationSettingsRoutes } from './domains/application-settings/index.js';
import { closeIngestBuffer, errorTrackingRoutes, registerErrorTrackingJobs } from './domains/error-tracking/index.js';
import { packagesRoutes } from './domains/packages/index.js';
import { deliveryIssueHooks, deliveryPipelineHooks, deliveryRoutes, registerDelivery, registerDeploymentHooks } from './domains/delivery/index.js';
import { memberRolesRoutes } from './domains/member-roles/index.js';
import { bulkImportsRoutes, registerBulkImportJobs } from './domains/bulk-imports/index.js';
import { flowsGraphql, flowsPipelineHooks, flowsRoutes, registerFlowJobs } from './domains/flows/index.js';
import { aiCatalogGraphql } from './domains/ai-catalog/index.js';
import { serveGitHttp, toRefUpdates, type GitHttpAnswer, type GitHttpRequest } from './domains/git-http/index.js';
import { sql } from 'kysely';
import type { GraphQLSchema } from 'graphql';
import { buildGraphqlSchema, type GraphqlModule } from './kernel/graphql.js';
import { executeGraphqlRequest, type GraphqlAnswer } from './kernel/graphql-execute.js';
import { accountsGraphql } from './domains/accounts/index.js';
import { ciGraphql } from './domains/ci/index.js';
import { releasesGraphql } from './domains/releases/index.js';
import { pipelineSchedulesGraphql } from './domains/pipeline-schedules/index.js';
import { deliveryGraphql } from './domains/delivery/index.js';
import { epicsGraphql } from './domains/epics/index.js';
import { errorTrackingGraphql } from './domains/error-tracking/index.js';
import { repositoryGraphql } from './domains/repository/index.js';
import { notesGraphql } from './domains/notes/index.js';
import { awardEmojiGraphql } from './domains/award-emoji/index.js';

export interface ForgeOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:` (default). */
  databaseUrl?: string;
  /** An already opened database (takes precedence over databaseUrl). */
  database?: DatabaseHandle;
  clock?: Clock;
  /** The blob store, or how to make it from the opened database (PgBlobStore); default a temporary directory. */
  blobs?: BlobStore | ((database: DatabaseHandle) => BlobStore);
  /** Where projects' git repositories live: a directory (several processes share it) or a store; default a temporary directory removed at close. */
  repositories?: string | GitRepositories;
  /** 32-byte key for secrets at rest; a random one when omitted (in-memory use). */
  secretKey?: Buffer;
  /** The instance's keys instead (a key file rotations rewrite, or FORGELET_SECRET_KEY's): the first seals, all open. */
  secretKeys?: KeySource;
  secrets?: SecretBox;
  /**
   * Makes sure the root administrator exists (and `token`, when given, is a valid root token),
   * in the first-start work: under the same lock as the migrations, so that several processes
   * starting at once on a new database make one root. The outcome is `forge.root`.
   */
  root?: { token?: string };
  egress?: Egress;
  /** Allow outbound calls to loopback and private networks (tests, local setups). */
  allowLocalEgress?: boolean;
  config?: Partial<Omit<ForgeConfig, 'limits'>> & { limits?: Partial<ForgeConfig['limits']> };
}

export interface Forge {
  deps: Deps;
  database: DatabaseHandle;
  /** Every REST route, in declaration order. */
  routes: Route[];
  /** Every domain's GraphQL declarations (docs/graphql.md), made into one schema on first use. */
  graphqlModules: GraphqlModule[];
  graphqlSchema(): GraphQLSchema;
  /** Answers a GraphQL request body (`POST /api/graphql`, or a GET's query parameters) for an authenticated actor. */
  graphql(actor: Actor, method: string, body: unknown, onInternalError?: (err: unknown) => void): Promise<GraphqlAnswer>;
  authenticate(creds: Credentials, route: Pick<Route, 'jobToken' | 'basicAuth'>): Promise<Actor>;
  checkScopes: typeof checkScopes;
  /** After an endpoint answered without an error: the user's `last_activity_on` (GitLab's API `after` hook). */
  recordActivity(actor: Actor): Promise<void>;
  /** Until when (ms, the injected clock) an answer made for this actor may be given again, the database unchanged; undefined: never (access/authenticate.ts). */
  settledUntil(actor: Actor): number | undefined;
  context(actor: Actor): Ctx;
  /** A context acting as the named user (embedding and scripts); throws when unknown. */
  contextFor(username: string): Promise<Ctx>;
  /** What the first-start work did about root (`options.root`); null when not asked. */
  root: BootstrapResult | null;
  bootstrapRoot(options?: { token?: string }): Promise<BootstrapResult>;
  /** True when the database answers. */
  health(): Promise<boolean>;
  /** Stops workers and closes the database. */
  close(): Promise<void>;
  /** Installed by the CI domain. */
  jobTokenResolver?: JobTokenResolver;
  /** Git smart HTTP (a path `matchGitHttpPath` matched): the reply streams git's output. */
  gitHttp(request: GitHttpRequest): Promise<GitHttpAnswer>;
  /** The web console's sign-in, current session and sign-out (access/console-sessions.ts). */
  console: {
    signIn(input: Partial<{ token: string; login: string; password: string }>): Promise<ConsoleSession>;
    current(secret: string): Promise<Omit<ConsoleSession, 'secret'>>;
    signOut(secret: string): Promise<void>;
  };
}

export const DEFAULT_LIMITS: ForgeConfig['limits'] = { bodyBytes: 10 * 1024 * 1024, uploadBytes: 5 * 1024 * 1024 * 1024 };

export function createUrlBuilder(config: Pick<ForgeConfig, 'externalUrl'>): UrlBuilder {
  let hostOf = { url: '', host: '' };
  return {
    web: (path) => `${config.externalUrl}${path.startsWith('/') ? path : `/${path}`}`,
    api: (path) => `${config.externalUrl}/api/v4${path.startsWith('/') ? path : `/${path}`}`,
    host: () => {
      // The external URL may be set after listen; parse it once per value.
      if (hostOf.url !== config.externalUrl) hostOf = { url: config.externalUrl, host: new URL(config.externalUrl).host };
      return hostOf.host;
    },
  };
}

export async function createForge(options: ForgeOptions = {}): Promise<Forge> {
  const database = options.database ?? openDatabase(options.databaseUrl ?? ':memory:');
  const testMode = options.config?.testMode ?? false;
  // Test mode: a clock the harness can set, freeze and advance.
  const given = options.clock ?? systemClock;
  const clock = testMode && !(given instanceof ControllableClock) ? new ControllableClock(given) : given;
  const config: ForgeConfig = {
    externalUrl: (options.config?.externalUrl ?? 'http://localhost:8080').replace(/\/+$/, ''),
    tier: options.config?.tier ?? 'ultimate',
    testMode,
    scheduleTiming: options.config?.scheduleTiming ?? 'exact',
    limits: { ...DEFAULT_LIMITS, ...options.config?.limits },
  };
  let blobs: BlobStore;
  try {
    blobs = typeof options.blobs === 'function' ? options.blobs(database) : (options.blobs ?? new FsBlobStore(mkdtempSync(join(tmpdir(), 'forgelet-blobs-'))));
  } catch (err) {
    if (!options.database) await database.destroy();
    throw err;
  }
  const deps: Deps = {
    db: database.db,
    dialect: database.dialect,
    clock,
    blobs,
    git: options.repositories instanceof GitRepositories ? options.repositories : new GitRepositories(options.repositories),
    secrets: options.secrets ?? createSecretBox(options.secretKeys ?? options.secretKey ?? randomBytes(32)),
    egress: options.egress ?? createEgress({ allowLocal: options.allowLocalEgress ?? false }),
    config,
    queue: new Queue(database.db, database.dialect, clock),
    urls: createUrlBuilder(config),
  };
  // First-start work, safe when several processes start at once on one database (storage/startup-lock.ts).
  // A key the caller gave is checked against (or, first, recorded as) the key the database's secrets are sealed with.
  const givenKey = options.secrets !== undefined || options.secretKeys !== undefined || options.secretKey !== undefined;
  let root: BootstrapResult | null;
  try {
    root = await withStartupLock(database, async () => {
      await migrateToLatest(database.db);
      // Repositories kept only in tables by an older version become git repositories (migration 028).
      await replayPendingRepositories(deps);
      if (givenKey) await checkSecretKey(database.db, deps.secrets, clock.now().toISOString());
      return options.root ? bootstrapRoot(deps, options.root) : null;
    });
  } catch (err) {
    if (!options.database) await database.destroy();
    throw err;
  }
  // Background work each domain runs through the durable queue.
  registerIterationJobs(deps);
  registerPipelineScheduleJobs(deps);
  registerErrorTrackingJobs(deps);
  registerApprovalJobs(deps);
  registerIssueClosingJobs(deps);
  // Merge request diff versions' patch ids and mergeability checks run on the queue.
  registerMergeRequestJobs(deps);
  registerConsoleSessionJobs(deps);
  // A pipeline advancing moves deployments (which may hold its jobs), then flows, then the
  // merge requests' metrics: in this order, in the pipeline's transaction.
  registerPipelineHooks(deliveryPipelineHooks);
  registerPipelineHooks(flowsPipelineHooks);
  registerPipelineHooks(mergeRequestPipelineHooks);
  // A push resets approvals (in the commit's transaction), then runs its pipeline (after it).
  registerPushHooks(approvalsPushHooks);
  // A push that brings an open merge request's head into its target merges it (before the
  // hooks below see the push, so the merge's own reactions run in the same transaction).
  registerPushHooks(manualMergePushHooks);
  // A moved branch records merge request diff versions and makes the open ones' mergeability unchecked.
  registerPushHooks(mergeRequestPushHooks);
  registerPushHooks(ciPushHooks);
  // A deleted tag takes its release (whose deletion is a release event), then the push goes out to the hooks.
  registerPushHooks(releasesPushHooks);
  registerPushHooks(webhookPushHooks);
  // A push to the default branch and a merge into it close the issues they name ("Closes #N"), queued.
  registerPushHooks(issuesPushHooks);
  registerMergeRequestHooks(issuesMergeRequestHooks);
  registerReleaseHooks(webhookReleaseHooks);
  registerMilestoneHooks(webhookMilestoneHooks);
  // An incident changing refreshes the DORA incident metrics, in the issue's transaction.
  registerIssueHooks(deliveryIssueHooks);
  // Issues, merge requests and comments go out to the hooks that take them, queued in the change's transaction.
  registerIssueHooks(webhookIssueHooks);
  registerMergeRequestHooks(webhookMergeRequestHooks);
  // A new merge request's approvals sync on the queue (approvals_syncing until then).
  registerMergeRequestHooks(approvalsMergeRequestHooks);
  registerNoteHooks(webhookNoteHooks);
  // Reactions, members, groups, projects and users go out to emoji, member, subgroup, project and system hooks.
  registerAwardEmojiHooks(webhookAwardEmojiHooks);
  registerAccountHooks(webhookAccountHooks);
  // Pipelines, jobs and deployments go out to the hooks that take them, after the reactions above.
  registerPipelineHooks(webhookPipelineHooks);
  registerDeploymentHooks(webhookDeploymentHooks);
  // Notes and reactions serve routes under issues, merge requests and snippets, whose domains
  // find them; reactions go on noteables and their notes, which notes finds.
  registerNoteable('issues', issueNoteable);
  registerNoteable('merge_requests', mergeRequestNoteable);
  registerNoteable('snippets', snippetNoteable);
  registerAwardableFinder(findAwardableNoteable);
  // Merge requests show and merge by their approval state, which approvals computes.
  registerApprovalStatus(approvalStatusesOf);
  registerDelivery(deps);
  registerArtifactJobs(deps);
  registerBulkImportJobs(deps);
  registerRefReconcileJobs(deps);
  registerFlowJobs(deps);
  registerWebhookJobs(deps);
  const routes: Route[] = [
    ...systemRoutes, ...userRoutes, ...tokenRoutes, ...impersonationTokenRoutes, ...groupRoutes, ...projectRoutes, ...membersRoutes, ...namespaceRoutes, ...deployTokenRoutes,
    ...memberRolesRoutes,
    ...issuesRoutes, ...mergeRequestsRoutes, ...notesRoutes, ...snippetsRoutes, ...awardEmojiRoutes,
    ...labelsRoutes, ...milestonesRoutes, ...iterationsRoutes, ...epicsRoutes, ...pipelineSchedulesRoutes,
    ...jobTokenScopeRoutes, ...applicationSettingsRoutes,
    ...releasesRoutes, ...protectedBranchesRoutes, ...protectedTagsRoutes, ...approvalsRoutes,
    ...repositoryRoutes,
    ...errorTrackingRoutes,
    ...ciRoutes,
    ...ciVariablesRoutes,
    ...artifactsRoutes,
    ...packagesRoutes,
    ...deliveryRoutes,
    ...bulkImportsRoutes,
    ...flowsRoutes,
    ...webhooksRoutes,
  ];
  // Only in test mode: clock, snapshots, reset, seed, tier (/api/v4/forgelet/…).
  if (testMode) routes.push(...createTestHarnessRoutes(() => routes));
  // The OpenAPI document of every route above (built on first request, cached).
  routes.push(...createOpenApiRoutes(() => routes));
  // GitLab's GraphQL API: each domain's types, queries and mutations, beside its routes.
  const graphqlModules: GraphqlModule[] = [accountsGraphql, labelsGraphql, milestonesGraphql, issuesGraphql, mergeRequestsGraphql, approvalsGraphql, iterationsGraphql, aiCatalogGraphql, flowsGraphql,
    repositoryGraphql, releasesGraphql, ciGraphql, pipelineSchedulesGraphql, deliveryGraphql, epicsGraphql, errorTrackingGraphql,
    notesGraphql, awardEmojiGraphql];
  let schema: GraphQLSchema | undefined;
  const forge: Forge = {
    deps,
    database,
    routes,
    graphqlModules,
    graphqlSchema: () => (schema ??= buildGraphqlSchema(graphqlModules)),
    async graphql(actor, method, body, onInternalError) {
      const who = actor.isAdmin ? 'admin' : actor.user ? 'authenticated' : 'anonymous';
      // A personal, project or group token reads with `api` or `read_api` and writes with `api` only (as REST).
      const scopes = actor.token && actor.token.kind !== 'job' ? actor.token.scopes : null;
      if (scopes && !scopes.some((s) => s === 'api' || s === 'read_api')) return { status: 403, body: { errors: [{ message: 'API not accessible for user' }] } };
      // A CI job token queries as its job's user within the inbound job token scopes (as REST
      // reads), and changes nothing: GitLab lets job tokens write only through the REST
      // endpoints its job token documentation lists.
      const mayMutate = actor.token?.kind !== 'job' && (!scopes || scopes.includes('api'));
      const answer = await executeGraphqlRequest(body, { schema: forge.graphqlSchema(), ctx: contextFor(deps, actor), method, who, mayMutate, onInternalError });
      if (answer.status === 200) await recordActivity(deps, actor);
      return answer;
    },
    jobTokenResolver: resolveJobToken,
    authenticate: (creds, route) =>
      authenticate(deps, creds, { allowJobToken: Boolean(route.jobToken), allowBasic: Boolean(route.basicAuth), jobTokenResolver: forge.jobTokenResolver }),
    checkScopes,
    // A push's moved refs go through the repository domain as API writes do (pipelines, webhooks, merge requests, approvals).
    gitHttp: (request) =>
      serveGitHttp(deps, { jobTokenResolver: forge.jobTokenResolver, pushed: (ctx, project, updates, pushOptions) => indexPushedRefs(ctx, project, toRefUpdates(updates), { pushOptions }) }, request),
    recordActivity: (actor) => recordActivity(deps, actor),
    settledUntil: (actor) => settledUntil(deps, actor),
    console: {
      signIn: (input) => signInConsole(deps, input),
      current: (secret) => currentConsoleSession(deps, secret),
      signOut: (secret) => signOutConsole(deps, secret),
    },
    context: (actor) => contextFor(deps, actor),
    async contextFor(username) {
      const user = await deps.db.selectFrom('users').selectAll().where(sql`lower(username)`, '=', username.toLowerCase()).executeTakeFirst();
      if (!user) throw new Error(`no user ${username}`);
      return contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
    },
    root,
    bootstrapRoot: (opts) => withStartupLock(database, () => bootstrapRoot(deps, opts)),
    async health() {
      try {
        await sql`select 1`.execute(deps.db);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      // Error events handed to the ingest buffer by requests still in flight are written first.
      await closeIngestBuffer(deps);
      await deps.queue.stop();
      await deps.blobs.close?.();
      await deps.git.close();
      await database.destroy();
    },
  };
  return forge;
}
