/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT
 * that takes the WAL past 1,000 pages: that COMMIT copies the pages into the database file
 * and, with `synchronous = NORMAL`, waits for two fsyncs, all on the event loop, where every
 * request waits with it (Sentry ingest: 14% of its throughput, bench `error-ingest`).
 *
 * Here a worker thread with a connection of its own checkpoints instead: every CHECK_EVERY_MS
 * it reads `data_version`, which moves when another connection (this process's, or another
 * process's) has committed, and then runs a PASSIVE checkpoint, which copies what it can
 * without waiting for, or blocking, any reader or writer. The process's connection turns its
 * automatic checkpoints off once the worker has opened the file, and back on if the worker
 * fails. When the last connection to the file closes, SQLite checkpoints and removes the WAL
 * as before: `stop` closes the worker's connection first.
 *
 * The worker's code is evaluated from a string (a bundle has no second file to point a Worker
 * at) and loads the same better-sqlite3 as this module, by its resolved path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

const CHECK_EVERY_MS = 100;
/** SQLite's default `wal_autocheckpoint`, restored if the worker fails. */
const AUTOCHECKPOINT_PAGES = 1000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('synchronous = NORMAL');
const version = db.prepare('pragma data_version').pluck();
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
let seen = version.get();
const timer = setInterval(() => {
  const now = version.get();
  if (now === seen) return;
  seen = now;
  checkpoint.get();
}, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  /** Closes the worker's connection (before the process's own closes, so that one is the last). */
  stop(): Promise<void>;
}

/** Starts checkpointing `file` (a WAL database `sqlite` has open) off the event loop. */
export function startCheckpointer(sqlite: SqliteDatabase.Database, file: string, busyTimeoutMs: number): Checkpointer {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file, busyTimeoutMs, everyMs: CHECK_EVERY_MS },
      // A connection and a timer: a small heap is plenty.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      stdout: false,
      stderr: false,
    });
  } catch {
    return { stop: async () => {} };
  }
  let automatic = true;
  let stopping = false;
  const restore = () => {
    if (automatic || !sqlite.open) return;
    automatic = true;
    sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (message) => {
    if (message !== 'ready' || stopping || !sqlite.open) return;
    sqlite.pragma('wal_autocheckpoint = 0');
    automatic = false;
  });
  // A worker that fails (or cannot open the file) leaves checkpoints to the connection again.
  worker.on('error', restore);
  const exited = new Promise<void>((resolve) =>
    worker.on('exit', () => {
      if (!stopping) restore();
      resolve();
    }),
  );
  // After the listeners (adding one refs the worker again): the worker never keeps the process alive.
  worker.unref();
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      restore();
      worker.postMessage('stop');
      // The worker exits once its connection is closed; a worker stuck in a checkpoint is ended after a while.
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
