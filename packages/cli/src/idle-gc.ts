/**
 * One full garbage collection when `forgelet serve` falls idle after work.
 *
 * V8 collects its old generation when it fills, and after a burst its memory reducer would shrink
 * the heap, but it starts only 8 s after a full collection that grew the heap by 10 MB, and only
 * while the allocation rate stays low: after a load or a large upload the garbage of the burst,
 * and the request buffers it keeps alive (allocated outside the V8 heap), stayed for 30 s or for
 * good (issue 25 measured 146 MB five seconds after a load, 170 MB left by a 2 GB upload).
 * Browsers collect in idle time; Node has no idle hook, so the server tells V8 itself: once no
 * request has been in flight for `idleMs`, and the heap (its resident pages and the buffers its
 * objects hold) grew by `minGrowthBytes` since the last such collection, it collects twice (the second pass compacts
 * what the first left sparse). It runs only when the process was started with --expose-gc (the
 * `forgelet` launcher is); it never runs during a request.
 */
import type { Server } from 'node:http';
import { getHeapStatistics } from 'node:v8';

export interface IdleGcOptions {
  /** How long no request may be in flight before collecting (default 1000 ms). */
  idleMs?: number;
  /** Growth of the heap (resident pages) and its external memory since the last idle collection that warrants one (default 4 MiB). */
  minGrowthBytes?: number;
  /** The heap's size and the external memory it holds, in bytes (default: v8.getHeapStatistics()). */
  heapBytes?: () => number;
}

export interface IdleGc {
  /** Idle collections so far. */
  readonly collections: number;
  stop(): void;
}

/**
 * The heap's resident pages and the external memory its objects hold. Not the used size: a
 * collection late in a burst lowers that while the pages the burst grew stay.
 */
const v8HeapBytes = () => {
  const s = getHeapStatistics();
  return s.total_physical_size + s.external_memory;
};

/** Watches `server`'s requests and calls `gc` when it falls idle after enough work. */
export function collectWhenIdle(server: Server, gc: () => void, options: IdleGcOptions = {}): IdleGc {
  const idleMs = options.idleMs ?? 1000;
  const minGrowth = options.minGrowthBytes ?? 4 * 1024 * 1024;
  const heapBytes = options.heapBytes ?? v8HeapBytes;
  let inFlight = 0;
  let collections = 0;
  let afterLast = heapBytes();
  const timer = setTimeout(() => {
    if (inFlight > 0 || heapBytes() - afterLast < minGrowth) return;
    gc();
    gc();
    collections += 1;
    afterLast = heapBytes();
  }, idleMs);
  timer.unref(); // its first run finds nothing to do; each request that leaves none in flight re-arms it
  const onRequest = (_req: unknown, res: NodeJS.EventEmitter) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) timer.refresh();
    });
  };
  server.on('request', onRequest);
  return {
    get collections() {
      return collections;
    },
    stop() {
      server.off('request', onRequest);
      clearTimeout(timer);
    },
  };
}
