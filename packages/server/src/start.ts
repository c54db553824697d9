/**
 * Starting Forgelet: on a data directory (SQLite file, blobs, secret key), on PostgreSQL,
 * or fully in memory for tests (`startForgelet()` with no options, port 0).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createForge, FsBlobStore, randomToken, type Clock, type Forge, type Tier } from '@forgelet/core';
import { ForgeletServer, silentLogger, type Logger } from './server.js';

export interface StartOptions {
  port?: number;
  host?: string;
  /** Data directory; omitted or null: everything in memory and a temporary blob dir. */
  dataDir?: string | null;
  /** `postgres://…` or a SQLite path; default `<dataDir>/forgelet.db` or in memory. */
  databaseUrl?: string;
  /** URL clients use; default: the URL the server listens on. */
  externalUrl?: string;
  tier?: Tier;
  /** Root token to ensure (default: a new random one when root is created). */
  rootToken?: string;
  /** 32-byte key for secrets at rest (default: `<dataDir>/secret.key`, created once). */
  secretKey?: Buffer;
  allowLocalEgress?: boolean;
  testMode?: boolean;
  logger?: Logger;
  clock?: Clock;
  /** Run the background worker loop (default true). */
  workers?: boolean;
  bodyLimitBytes?: number;
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
  stop(): Promise<void>;
}

/** Where a data directory keeps things. */
export interface DataDirLayout {
  dir: string;
  database: string;
  blobs: string;
  secretKey: string;
}

export function dataDirLayout(dir: string): DataDirLayout {
  const abs = resolve(dir);
  return { dir: abs, database: join(abs, 'forgelet.db'), blobs: join(abs, 'blobs'), secretKey: join(abs, 'secret.key') };
}

/** Creates the directory and its blob store. */
export function ensureDataDir(layout: DataDirLayout): void {
  mkdirSync(layout.blobs, { recursive: true });
}

/** Reads the 32-byte base64 key, creating it (mode 0600) on first use. */
export function loadOrCreateSecretKey(file: string): Buffer {
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
}

export async function startForgelet(options: StartOptions = {}): Promise<RunningForgelet> {
  const layout = options.dataDir ? dataDirLayout(options.dataDir) : null;
  let tempBlobDir: string | null = null;
  if (layout) ensureDataDir(layout);
  else tempBlobDir = await mkdtemp(join(tmpdir(), 'forgelet-'));
  const dataDir = layout?.dir ?? null;
  const databaseUrl = options.databaseUrl ?? layout?.database ?? ':memory:';
  const forge = await createForge({
    databaseUrl,
    clock: options.clock,
    blobs: new FsBlobStore(layout?.blobs ?? tempBlobDir!),
    secretKey: options.secretKey ?? (layout ? loadOrCreateSecretKey(layout.secretKey) : randomBytes(32)),
    allowLocalEgress: options.allowLocalEgress,
    config: {
      externalUrl: options.externalUrl,
      tier: options.tier,
      testMode: options.testMode,
      ...(options.bodyLimitBytes !== undefined && { limits: { bodyBytes: options.bodyLimitBytes } }),
    },
  });
  const wantedToken = options.rootToken ?? (dataDir ? undefined : randomToken('glpat-'));
  let boot;
  let server: ForgeletServer;
  let url: string;
  try {
    boot = await forge.bootstrapRoot({ token: wantedToken });
    server = new ForgeletServer(forge, { logger: options.logger ?? silentLogger, linksFromHost: !options.externalUrl });
    url = await server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (err) {
    await forge.close();
    if (tempBlobDir) await rm(tempBlobDir, { recursive: true, force: true });
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
    async stop() {
      await server.close();
      if (tempBlobDir) await rm(tempBlobDir, { recursive: true, force: true });
    },
  };
}
