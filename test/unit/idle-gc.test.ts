import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectWhenIdle } from '../../packages/cli/src/idle-gc.js';

/** A server that only emits 'request' with a response that emits 'close'. */
function fakeServer() {
  const server = new EventEmitter();
  return {
    server: server as unknown as Server,
    begin() {
      const res = new EventEmitter();
      server.emit('request', {}, res);
      return () => res.emit('close');
    },
  };
}

async function until(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(10);
  }
}

describe('forgelet serve: a collection when the server falls idle after work', () => {
  it('collects (twice) once nothing is in flight for idleMs after the heap grew, and only then', async () => {
    const { server, begin } = fakeServer();
    let heap = 100;
    let calls = 0;
    const idle = collectWhenIdle(server, () => (calls += 1), { idleMs: 50, minGrowthBytes: 10, heapBytes: () => heap });
    try {
      // a request in flight: never, however long it lasts and however the heap grows
      const end = begin();
      heap += 50;
      await sleep(200);
      assert.equal(calls, 0);
      // once it ends and the server stays idle: one collection, two passes
      end();
      await until(() => idle.collections === 1);
      assert.equal(calls, 2);
      // work that grew the heap less than minGrowthBytes: nothing
      heap += 5;
      begin()();
      await sleep(200);
      assert.equal(idle.collections, 1);
      // a request that starts within idleMs postpones it until that request ends
      heap += 20;
      const first = begin();
      first();
      const second = begin();
      await sleep(200);
      assert.equal(idle.collections, 1);
      second();
      await until(() => idle.collections === 2);
      assert.equal(calls, 4);
    } finally {
      idle.stop();
    }
    // stopped: requests no longer count or arm it
    heap += 100;
    begin()();
    await sleep(200);
    assert.equal(calls, 4);
  });
});
