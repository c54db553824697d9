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
 * The worker lives only while writes are many (a thread costs ~11 MB of resident memory, a
 * tenth of an idle server's). Every statement that can write on the process's connection calls
 * `wake`; they are counted with a half-life of a second, and a count of WAKE_WRITES (a burst of
 * about that many, or some 35 a second kept up) starts the worker. After IDLE_MS without a commit
 * it checkpoints what is left, closes its connection and exits, and the process's connection
 * checkpoints automatically again. A write now and then (background jobs, a lease renewed every
 * few seconds) leaves the checkpoints to the connection, where one costs little at that pace,
 * rather than starting a thread each time.
 *
 * The worker's code is evaluated from a string (a bundle has no second file to point a Worker
 * at) and loads the same better-sqlite3 as this module, by its resolved path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

const CHECK_EVERY_MS = 100;
/** A worker that has seen no commit for this long exits (ms). */
export const IDLE_MS = 2000;
/** The count of recent writes (halved every second) that starts a worker. */
export const WAKE_WRITES = 50;
/** SQLite's default `wal_autocheckpoint`, restored while no worker runs. */
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
let changedAt = Date.now();
let ended = false;
const end = (message) => {
  if (ended) return;
  ended = true;
  clearInterval(timer);
  db.close();
  if (message) parentPort.postMessage(message);
  parentPort.close();
};
const timer = setInterval(() => {
  const now = version.get();
  if (now !== seen) {
    seen = now;
    changedAt = Date.now();
    checkpoint.get();
  } else if (Date.now() - changedAt >= workerData.idleMs) {
    // What the last look left (a commit between its two reads), then exit.
    checkpoint.get();
    end('idle');
  }
}, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message === 'stop') end(null);
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  /** A statement that can write is about to run on the process's connection: enough of them start a retired worker again. */
  wake(): void;
  /** Closes the worker's connection (before the process's own closes, so that one is the last). */
  stop(): Promise<void>;
}

/** Checkpoints `file` (a WAL database `sqlite` has open) off the event loop while writes are many. */
export function startCheckpointer(sqlite: SqliteDatabase.Database, file: string, busyTimeoutMs: number): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  let current: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let automatic = true;
  let stopping = false;
  /** A worker failed (could not open the file, or died): the connection checkpoints from now on. */
  let failed = false;
  /** Writes seen while no worker runs, halved every second, as of `countedAt` (ms). */
  let writes = 0;
  let countedAt = 0;
  const restore = () => {
    if (automatic || !sqlite.open) return;
    automatic = true;
    sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  const spawn = () => {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { module, file, busyTimeoutMs, everyMs: CHECK_EVERY_MS, idleMs: IDLE_MS },
        // A connection and a timer: a small heap is plenty.
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
        stdout: false,
        stderr: false,
      });
    } catch {
      failed = true;
      return;
    }
    current = worker;
    worker.on('message', (message) => {
      if (worker !== current) return;
      if (message === 'ready' && !stopping && sqlite.open) {
        sqlite.pragma('wal_autocheckpoint = 0');
        automatic = false;
      } else if (message === 'idle') {
        // Before any later write: from here the connection checkpoints until writes wake a new worker.
        current = null;
        restore();
      }
    });
    // A worker that fails (or cannot open the file) leaves checkpoints to the connection again, for good.
    worker.on('error', () => {
      if (worker !== current) return;
      failed = true;
      current = null;
      restore();
    });
    exited = new Promise<void>((resolve) =>
      worker.on('exit', () => {
        // Still current: it exited without retiring ('idle' lets go of it first), so it failed unless stopped.
        if (worker === current) {
          current = null;
          if (!stopping) {
            failed = true;
            restore();
          }
        }
        resolve();
      }),
    );
    // After the listeners (adding one refs the worker again): the worker never keeps the process alive.
    worker.unref();
  };
  return {
    wake() {
      if (current !== null || stopping || failed) return;
      const now = performance.now();
      writes = writes * 0.5 ** ((now - countedAt) / 1000) + 1;
      countedAt = now;
      if (writes < WAKE_WRITES) return;
      writes = 0;
      spawn();
    },
    async stop() {
      if (stopping) return exited;
      stopping = true;
      restore();
      const worker = current;
      if (!worker) return exited;
      worker.postMessage('stop');
      // The worker exits once its connection is closed; a worker stuck in a checkpoint is ended after a while.
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
