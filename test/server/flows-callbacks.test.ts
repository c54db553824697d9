/**
 * Flow callback delivery: lifecycle events signed per Standard Webhooks (verified with the
 * `standardwebhooks` package) and carrying the service token; durable retries with backoff
 * driven by a stepped clock; giving up after the last attempt; a restart mid-way; a name
 * rebound to a local address after registration refused at connect time, recorded, not retried.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { backoffAfter, createEgress, fixedClock, MAX_DELIVERY_ATTEMPTS, type ControllableClock, type ResolvedAddress } from '@forgelet/core';
import { startForgelet } from '@forgelet/server';
import { createTestDatabaseUrl, DIALECTS, type Dialect } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createProject, expectStatus } from './http.js';

const SIGNING = `whsec_${randomBytes(32).toString('base64')}`;
const SERVICE_TOKEN = 'svc-token-123';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback answering the scripted statuses in turn (then the last one). */
async function receiver(statuses: number[]): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = statuses[Math.min(hits.length - 1, statuses.length - 1)]!;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function verify(hit: Hit): any {
  assert.equal(hit.headers['x-service-token'], SERVICE_TOKEN);
  assert.equal(hit.headers['content-type'], 'application/json');
  assert.match(String(hit.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
  return new Webhook(SIGNING).verify(hit.body, hit.headers as Record<string, string>);
}

/** A database that outlives the servers on it. */
async function durableDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabaseUrl('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-flows-'));
  return { url: join(dir, 'forgelet.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts near the real time: receivers check `webhook-timestamp` against their own clock (±5 minutes). */
const start = () => new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);

for (const dialect of DIALECTS) {
  describe(`${dialect}: flow callback delivery`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let t0: Date;
    let project: any;

    before(async () => {
      t0 = start();
      clock = fixedClock(t0.toISOString());
      f = await startTestServer(dialect, { clock, workers: false });
      project = await createProject(f, f.rootToken, { name: 'hooks' });
    });
    after(() => f.stop());

    const at = (ms: number) => clock.set(new Date(t0.getTime() + ms), true);
    const runDue = () => f.forge.deps.queue.runDue();
    async function register(url: string): Promise<number> {
      const r = await f.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url, name: 'recv', signing_token: SIGNING, token: SERVICE_TOKEN } });
      expectStatus(r, 201);
      return r.body.id;
    }
    async function flow(hook: number, startIt = true): Promise<any> {
      const r = await f.api('POST', '/ai/agent_workflows/workflows', { body: { project_id: String(project.id), goal: 'g', callback_hook_id: hook, start_workflow: startIt } });
      expectStatus(r, 201);
      return r.body;
    }
    const move = (id: number, event: string) => f.api('PATCH', `/ai/agent_workflows/workflows/${id}`, { body: { status_event: event } });

    it('delivers flow.started, flow.completed and flow.failed, each verified by standardwebhooks', async () => {
      at(0);
      const recv = await receiver([200]);
      try {
        const hook = await register(recv.url);
        const a = await flow(hook);
        assert.equal(a.status, 'running');
        assert.equal(recv.hits.length, 0); // delivered by the queue, not inline
        assert.equal(await runDue(), 1);
        expectStatus(await move(a.id, 'pause'), 200); // no event
        expectStatus(await move(a.id, 'resume'), 200);
        expectStatus(await move(a.id, 'finish'), 200);
        const b = await flow(hook, false);
        expectStatus(await move(b.id, 'start'), 200);
        expectStatus(await move(b.id, 'drop'), 200);
        const c = await flow(hook, false);
        expectStatus(await move(c.id, 'stop'), 200); // no event
        await runDue();
        const events = recv.hits.map(verify);
        assert.deepEqual(events.map((e) => [e.type, e.data.id, e.data.status]), [
          ['flow.started', a.id, 'running'],
          ['flow.completed', a.id, 'finished'],
          ['flow.started', b.id, 'running'],
          ['flow.failed', b.id, 'failed'],
        ]);
        for (const [i, e] of events.entries()) {
          assert.equal(e.event, e.type);
          assert.equal(e.event_id, recv.hits[i]!.headers['webhook-id']);
          assert.equal(e.timestamp, t0.toISOString());
          assert.equal(e.data.instance_url, f.url);
          assert.equal(recv.hits[i]!.headers['webhook-timestamp'], String(t0.getTime() / 1000));
        }
        assert.equal(new Set(recv.hits.map((h) => h.headers['webhook-id'])).size, 4);
        // A tampered body fails verification.
        assert.throws(() => new Webhook(SIGNING).verify(recv.hits[0]!.body.replace('running', 'finished'), recv.hits[0]!.headers as Record<string, string>));
      } finally {
        await recv.close();
      }
    });

    it('retries 500, 500 with backoff, stops at the 200 and never delivers again', async () => {
      at(0);
      const recv = await receiver([500, 500, 200]);
      try {
        const hook = await register(recv.url);
        await flow(hook);
        await runDue();
        assert.equal(recv.hits.length, 1);
        await runDue();
        assert.equal(recv.hits.length, 1); // not due yet
        at(backoffAfter(1) - 1000);
        await runDue();
        assert.equal(recv.hits.length, 1);
        at(backoffAfter(1));
        await runDue();
        assert.equal(recv.hits.length, 2);
        at(backoffAfter(1) + backoffAfter(2));
        await runDue();
        assert.equal(recv.hits.length, 3);
        at(3 * 86_400_000);
        await runDue();
        assert.equal(recv.hits.length, 3);
        assert.equal(new Set(recv.hits.map((h) => h.headers['webhook-id'])).size, 1);
        assert.deepEqual(recv.hits.map((h) => h.headers['webhook-timestamp']), [0, backoffAfter(1), backoffAfter(1) + backoffAfter(2)].map((ms) => String((t0.getTime() + ms) / 1000)));
        verify(recv.hits[0]!);
        verify(recv.hits[2]!);
        const d = await f.api('GET', `/ai/agent_workflows/flow_callbacks/${hook}/deliveries`);
        expectStatus(d, 200);
        assert.equal(d.body.length, 1);
        assert.equal(d.body[0].status, 'delivered');
        assert.equal(d.body[0].event, 'flow.started');
        assert.equal(d.body[0].next_attempt_at, null);
        assert.deepEqual(d.body[0].attempts.map((a: any) => [a.attempt, a.status_code, a.error]), [[1, 500, 'HTTP 500'], [2, 500, 'HTTP 500'], [3, 200, null]]);
      } finally {
        await recv.close();
      }
    });

    it('gives up after the last attempt, about a day later, recording each', async () => {
      at(0);
      const recv = await receiver([503]);
      try {
        const hook = await register(recv.url);
        await flow(hook);
        let elapsed = 0;
        for (let n = 1; n <= MAX_DELIVERY_ATTEMPTS; n++) {
          await runDue();
          assert.equal(recv.hits.length, n);
          elapsed += backoffAfter(n);
          at(elapsed);
        }
        const lastAttemptAfter = elapsed - backoffAfter(MAX_DELIVERY_ATTEMPTS);
        assert.ok(lastAttemptAfter > 20 * 3_600_000 && lastAttemptAfter < 30 * 3_600_000, String(lastAttemptAfter));
        at(10 * 86_400_000);
        await runDue();
        assert.equal(recv.hits.length, MAX_DELIVERY_ATTEMPTS);
        const d = await f.api('GET', `/ai/agent_workflows/flow_callbacks/${hook}/deliveries`);
        assert.equal(d.body[0].status, 'failed');
        assert.equal(d.body[0].attempts.length, MAX_DELIVERY_ATTEMPTS);
        assert.ok(d.body[0].attempts.every((a: any) => a.status_code === 503 && a.error === 'HTTP 503'));
      } finally {
        await recv.close();
      }
    });

    it('refuses at delivery a name that resolved to a public address at registration and to a local one since, and does not retry', async () => {
      // A listener where the rebound name now points: nothing may reach it.
      const local = createNetServer((s) => s.destroy());
      let connections = 0;
      local.on('connection', () => connections++);
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
      const port = (local.address() as AddressInfo).port;
      const answers: ResolvedAddress[][] = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
      let lookups = 0;
      const egress = createEgress({ allowLocal: false, lookup: async () => answers[Math.min(lookups++, 1)]! });
      const g = await startTestServer(dialect, { clock: fixedClock(t0.toISOString()), workers: false, egress });
      try {
        const p = await createProject(g, g.rootToken, { name: 'private-hooks' });
        const hook = await g.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: `https://rebind.example:${port}/hook`, token: 'x' } });
        expectStatus(hook, 201);
        assert.equal(lookups, 1);
        expectStatus(await g.api('POST', '/ai/agent_workflows/workflows', { body: { project_id: String(p.id), callback_hook_id: hook.body.id, start_workflow: true } }), 201);
        assert.equal(await g.forge.deps.queue.runDue(), 1);
        assert.equal(await g.forge.deps.queue.runDue(new Date(t0.getTime() + 5 * 86_400_000)), 0);
        const d = await g.api('GET', `/ai/agent_workflows/flow_callbacks/${hook.body.id}/deliveries`);
        assert.equal(d.body[0].status, 'failed');
        assert.deepEqual(d.body[0].attempts.map((a: any) => [a.attempt, a.status_code, a.error]), [[1, null, 'URL is blocked: Requests to localhost are not allowed (127.0.0.1)']]);
        assert.equal(connections, 0);
      } finally {
        await g.stop();
        await new Promise<void>((r) => local.close(() => r()));
      }
    });
  });

  describe(`${dialect}: flow callback delivery across a restart`, () => {
    let db: { url: string; drop(): Promise<void> };
    before(async () => {
      db = await durableDatabase(dialect);
    });
    after(() => db.drop());

    it('a server stopped mid-retry loses nothing: the next one on the database delivers', async () => {
      const t0 = start();
      const secretKey = randomBytes(32);
      const rootToken = 'glpat-flows-restart-root';
      const recv = await receiver([500, 200]);
      try {
        const opts = { databaseUrl: db.url, workers: false, secretKey, rootToken, allowLocalEgress: true };
        const a = await startForgelet({ ...opts, clock: fixedClock(t0.toISOString()) });
        const call = async (base: string, method: string, path: string, body?: unknown) => {
          const res = await fetch(`${base}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': rootToken, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
          return { status: res.status, body: await res.json() as any };
        };
        const project = await call(a.url, 'POST', '/projects', { name: 'restart' });
        assert.equal(project.status, 201);
        const hook = await call(a.url, 'POST', '/ai/agent_workflows/flow_callbacks', { url: recv.url, signing_token: SIGNING, token: SERVICE_TOKEN });
        assert.equal(hook.status, 201);
        const fl = await call(a.url, 'POST', '/ai/agent_workflows/workflows', { project_id: String(project.body.id), callback_hook_id: hook.body.id, start_workflow: true });
        assert.equal(fl.status, 201);
        await a.forge.deps.queue.runDue();
        assert.equal(recv.hits.length, 1);
        await a.stop();

        const b = await startForgelet({ ...opts, clock: fixedClock(new Date(t0.getTime() + backoffAfter(1)).toISOString()) });
        try {
          assert.equal(await b.forge.deps.queue.runDue(), 1);
          assert.equal(recv.hits.length, 2);
          assert.equal(recv.hits[0]!.headers['webhook-id'], recv.hits[1]!.headers['webhook-id']);
          const event = verify(recv.hits[1]!);
          assert.equal(event.type, 'flow.started');
          assert.equal(event.data.id, fl.body.id);
          const d = await call(b.url, 'GET', `/ai/agent_workflows/flow_callbacks/${hook.body.id}/deliveries`);
          assert.deepEqual(d.body[0].attempts.map((x: any) => x.status_code), [500, 200]);
          assert.equal(await b.forge.deps.queue.runDue(new Date(t0.getTime() + 3 * 86_400_000)), 0);
          assert.equal(recv.hits.length, 2);
        } finally {
          await b.stop();
        }
      } finally {
        await recv.close();
      }
    });
  });
}
