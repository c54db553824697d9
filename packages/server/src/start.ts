/**
 * Starting Forgelet: on a data directory (SQLite file, blobs, secret key), on PostgreSQL,
 * or fully in memory for tests (`startForgelet()` with no options, port 0).
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  advanceClock,
  ControllableClock,
  createForge,
  createSnapshot,
  PgBlobStore,
  randomToken,
  resetState,
  restoreSnapshot,
  seedWorld,
  staticKeys,
  systemClock,
  type AdvanceEntity,
  type BlobStore,
  type Clock,
  type Egress,
  type Forge,
  type KeySource,
  type SeedResult,
  type SnapshotEntity,
  type Tier,
} from '@forgelet/core';
import { blobStoreFor, parseBlobUrl } from './blob-url.js';
import { ForgeletServer, silentLogger, type Logger } from './server.js';
import { keyFileSource, loadOrCreateKeyFile } from './secret-keys.js';
import type { ConnectionLimits } from './connection.js';

export interface StartOptions {
  port?: number;
  host?: string;
  /** Data directory; omitted or null: everything in memory and a temporary blob dir. */
  dataDir?: string | null;
  /** `postgres://…` or a SQLite path; default `<dataDir>/forgelet.db` or in memory. */
  databaseUrl?: string;
  /**
   * Where blobs go: `file:///abs/dir`, `postgres` (the Forgelet database's tables; PostgreSQL
   * only) or `s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true` (blob-url.ts).
   * Default: `<dataDir>/blobs`, or a temporary folder.
   */
  blobUrl?: string;
  /** A blob store of the embedder's own (takes precedence over blobUrl). */
  blobs?: BlobStore;
  /**
   * Directory of the projects' bare git repositories; processes on several machines point it at
   * one shared path. Default: `<dataDir>/repositories`, or a temporary folder.
   */
  repositoriesDir?: string;
  /** URL clients use; default: the URL the server listens on. */
  externalUrl?: string;
  tier?: Tier;
  /** Root token to ensure (default: a new random one when root is created). */
  rootToken?: string;
  /** 32-byte key for secrets at rest (default: the keys of `<dataDir>/secret.key`, created once). */
  secretKey?: Buffer;
  /** Several keys instead, the first sealing, all opening (FORGELET_SECRET_KEY=<new>,<old>); `from` names them in messages. */
  secretKeys?: { keys: Buffer[]; from: string };
  allowLocalEgress?: boolean;
  /** Outbound HTTP with its own policy (createEgress options such as `lookup` or `allowList`); overrides allowLocalEgress. */
  egress?: Egress;
  /**
   * Test-only endpoints under /api/v4/forgelet (clock, snapshots, reset, seed, tier, faults).
   * Default: on when nothing is stored (no dataDir and no databaseUrl), off otherwise.
   */
  testMode?: boolean;
  /** Fault injection (/api/v4/forgelet/faults) without the rest of test mode. */
  allowFaults?: boolean;
  logger?: Logger;
  clock?: Clock;
  /** Run the background worker loop (default true). */
  workers?: boolean;
  bodyLimitBytes?: number;
  /** Largest multipart file in bytes; a route's own limit (NuGet: 500 MiB) applies when lower. */
  uploadLimitBytes?: number;
  /** Timeouts and the cap on open connections (default: DEFAULT_CONNECTION_LIMITS). */
  connections?: Partial<ConnectionLimits>;
  /** When pipeline schedules run: `exact` (default, the cron's instant) or `gitlab` (GitLab's 10-minute worker ticks). */
  scheduleTiming?: 'exact' | 'gitlab';
  /** The built web console to serve at `/` and `/-/console` (`forgelet serve` passes its own). */
  consoleDir?: string | null;
  /** Bytes of answers kept to repeat cacheable GETs (response-cache.ts); 0: none (default 8 MiB). */
  responseCacheBytes?: number;
}

export interface RunningForgelet {
  url: string;
  /** The root token when this start created or was given it; null otherwise. */
  rootToken: string | null;
  /** True when this start created the root user. */
  rootCreated: boolean;
  forge: Forge;
  server: ForgeletServer;
  dataDir: string | null;
  /** The server's clock: read, set, freeze, and advance (running the jobs that come due). */
  clock: TestClock;
  /** Snapshot of the whole state (database and blobs) under a name. */
  snapshot(name: string): Promise<SnapshotEntity>;
  /** Back to a snapshot's state. */
  restore(name: string): Promise<SnapshotEntity>;
  /** Back to the initial state: only the root user, the root token still valid. */
  reset(): Promise<void>;
  /** Creates a world from a seed document (the format of `forgelet seed`), as parsed YAML or JSON. */
  seed(world: unknown): Promise<SeedResult>;
  stop(): Promise<void>;
}

/** The clock of an embedded Forgelet. */
export interface TestClock extends Clock {
  readonly frozen: boolean;
  /** Sets the time (keeping frozen or running unless told). */
  set(at: Date | string, options?: { frozen?: boolean }): void;
  freeze(): void;
  unfreeze(): void;
  /**
   * Moves the time `seconds` forward; every queued job that comes due on the way runs, in
   * time order, before the promise resolves.
   */
  advance(seconds: number): Promise<AdvanceEntity>;
}

/** Where a data directory keeps things. */
export interface DataDirLayout {
  dir: string;
  database: string;
  blobs: string;
  repositories: string;
  secretKey: string;
}

export function dataDirLayout(dir: string): DataDirLayout {
  const abs = resolve(dir);
  return { dir: abs, database: join(abs, 'forgelet.db'), blobs: join(abs, 'blobs'), repositories: join(abs, 'repositories'), secretKey: join(abs, 'secret.key') };
}

/** Creates the directory and its blob store. */
export function ensureDataDir(layout: DataDirLayout): void {
  mkdirSync(layout.blobs, { recursive: true });
}

/**
 * The keys a process seals and opens secrets with: the given ones, else the data directory's
 * key file (created with a new key on first start, followed when a rotation rewrites it), else
 * none (in memory: a random key for this process alone).
 */
export function secretKeySource(options: Pick<StartOptions, 'secretKey' | 'secretKeys'>, layout: DataDirLayout | null): KeySource | undefined {
  if (options.secretKeys) return staticKeys(options.secretKeys.keys, options.secretKeys.from);
  if (options.secretKey) return staticKeys([options.secretKey]);
  if (!layout) return undefined;
  loadOrCreateKeyFile(layout.secretKey);
  return keyFileSource(layout.secretKey);
}

export async function startForgelet(options: StartOptions = {}): Promise<RunningForgelet> {
  // First: a bad URL is refused before anything is created.
  const blobLocation = options.blobUrl && !options.blobs ? parseBlobUrl(options.blobUrl) : null;
  const layout = options.dataDir ? dataDirLayout(options.dataDir) : null;
  let tempBlobDir: string | null = null;
  if (layout) ensureDataDir(layout);
  else tempBlobDir = await mkdtemp(join(tmpdir(), 'forgelet-'));
  const testMode = options.testMode ?? (!options.dataDir && !options.databaseUrl);
  // Always settable in process (it runs like the system clock until told otherwise).
  const clock = options.clock instanceof ControllableClock ? options.clock : new ControllableClock(options.clock ?? systemClock);
  const dataDir = layout?.dir ?? null;
  const databaseUrl = options.databaseUrl ?? layout?.database ?? ':memory:';
  const wantedToken = options.rootToken ?? (dataDir ? undefined : randomToken('glpat-'));
  const removeTemp = async () => {
    if (tempBlobDir) await rm(tempBlobDir, { recursive: true, force: true });
  };
  const forge = await createForge({
    databaseUrl,
    clock,
    // Blobs in a folder of their own, so snapshots of them (`blobs.snapshots`) sit beside it.
    blobs: options.blobs ?? blobStoreFor(blobLocation, layout?.blobs ?? join(tempBlobDir!, 'blobs')),
    repositories: options.repositoriesDir ?? layout?.repositories ?? join(tempBlobDir!, 'repositories'),
    secretKeys: secretKeySource(options, layout),
    root: { token: wantedToken },
    allowLocalEgress: options.allowLocalEgress,
    egress: options.egress,
    config: {
      externalUrl: options.externalUrl,
      tier: options.tier,
      testMode,
      scheduleTiming: options.scheduleTiming,
      limits: {
        ...(options.bodyLimitBytes !== undefined && { bodyBytes: options.bodyLimitBytes }),
        ...(options.uploadLimitBytes !== undefined && { uploadBytes: options.uploadLimitBytes }),
      },
    },
  }).catch(async (err: unknown) => {
    await removeTemp();
    throw err;
  });
  const boot = forge.root!;
  // Uploads of a process that died mid-write (and that no blob names) go after a day.
  if (forge.deps.blobs instanceof PgBlobStore) await forge.deps.blobs.sweepOrphans().catch(() => {});
  let server: ForgeletServer;
  let url: string;
  try {
    server = new ForgeletServer(forge, {
      logger: options.logger ?? silentLogger,
      linksFromHost: !options.externalUrl,
      allowFaults: options.allowFaults,
      connections: options.connections,
      consoleDir: options.consoleDir,
      responseCacheBytes: options.responseCacheBytes,
    });
    url = await server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (err) {
    await forge.close();
    await removeTemp();
    throw err;
  }
  if (!options.externalUrl) forge.deps.config.externalUrl = url;
  if (options.workers !== false) forge.deps.queue.start();
  return {
    url,
    rootToken: boot.token,
    rootCreated: boot.createdUser,
    forge,
    server,
    dataDir,
    clock: testClock(forge, clock),
    snapshot: (name) => createSnapshot(forge.deps, name),
    restore: (name) => restoreSnapshot(forge.deps, name),
    reset: () => resetState(forge.deps),
    seed: (world) => seedWorld(forge.deps, forge.routes, world),
    async stop() {
      await server.close();
      await removeTemp();
    },
  };
}

function testClock(forge: Forge, clock: ControllableClock): TestClock {
  return {
    now: () => clock.now(),
    get frozen() {
      return clock.frozen;
    },
    set(at, opts = {}) {
      const when = typeof at === 'string' ? new Date(at) : at;
      if (Number.isNaN(when.getTime())) throw new Error(`not a date: ${String(at)}`);
      clock.set(when, opts.frozen ?? clock.frozen);
    },
    freeze: () => clock.freeze(),
    unfreeze: () => clock.unfreeze(),
    advance: (seconds) => advanceClock(forge.deps, seconds * 1000),
  };
}
