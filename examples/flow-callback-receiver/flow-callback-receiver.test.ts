/**
 * examples/flow-callback-receiver: registered as a flow callback, the receiver gets Forgelet's
 * signed deliveries and verifies them; forged, tampered and stale deliveries get 401. The
 * node:crypto verification agrees with the `standardwebhooks` package.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../../test/support/databases.js';
import { startServed, type ServedForgelet } from '../../test/support/served.js';
import { createReceiver, verifyWebhook, type FlowEvent } from './receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const SERVICE_TOKEN = 'receiver-service-token';

const sign = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('verifyWebhook (node:crypto) agrees with the standardwebhooks package', () => {
  const body = JSON.stringify({ type: 'flow.started', event: 'flow.started', event_id: 'msg_1', timestamp: '2024-06-03T00:00:00.000Z', data: { id: 1 } });
  const now = 1_717_372_800;
  const headers = (signature: string, timestamp = now): IncomingHttpHeaders => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });
  const reference = new Webhook(SECRET).sign('msg_1', new Date(now * 1000), body);

  it('accepts what the reference library signs, also among several signatures', () => {
    assert.equal(reference, sign(SECRET, 'msg_1', now, body));
    assert.equal(verifyWebhook(SECRET, headers(reference), body, now).data.id, 1);
    assert.equal(verifyWebhook(SECRET, headers(`v1,AAAA ${reference}`), body, now).type, 'flow.started');
  });

  it('refuses a changed body, another secret, a stale or future timestamp, missing headers', () => {
    assert.throws(() => verifyWebhook(SECRET, headers(reference), body.replace('"id":1', '"id":2'), now), /no matching signature/);
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    assert.throws(() => verifyWebhook(SECRET, headers(sign(other, 'msg_1', now, body)), body, now), /no matching signature/);
    assert.throws(() => verifyWebhook(SECRET, headers(reference), body, now + 301), /timestamp too old/);
    assert.throws(() => verifyWebhook(SECRET, headers(reference), body, now - 301), /timestamp too old/);
    assert.throws(() => verifyWebhook(SECRET, { 'webhook-id': 'msg_1' }, body, now), /missing webhook headers/);
    // The reference library refuses the same things.
    assert.throws(() => new Webhook(SECRET).verify(body.replace('"id":1', '"id":2'), headers(reference) as Record<string, string>));
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: examples/flow-callback-receiver`, () => {
    let f: ServedForgelet;
    let api: Forgelet;
    let server: Server;
    let receiverUrl: string;
    let callbackId: number;
    let projectId: number;
    const events: { event: FlowEvent; webhookId: string }[] = [];
    const rejected: string[] = [];
    const raw: { headers: IncomingHttpHeaders; body: string }[] = [];

    const post = (headers: Record<string, string>, body: string) =>
      fetch(receiverUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

    before(async () => {
      // `forgelet serve` as users start it, on the real clock (the receiver checks
      // webhook-timestamp against its own), with local egress allowed so it may call a receiver
      // on 127.0.0.1.
      f = await startServed(dialect, { testMode: false });
      api = new Forgelet({ url: f.url, token: f.rootToken });
      server = createReceiver({
        secret: SECRET,
        serviceToken: SERVICE_TOKEN,
        onEvent: (event, webhookId) => events.push({ event, webhookId }),
        onRejected: (reason) => rejected.push(reason),
      });
      // Keep every request as received, to forge variants of a genuine one below.
      server.prependListener('request', (req) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => raw.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/flow-events`;
      projectId = (await api.projects.create({ name: 'agents' })).id;
      // Root is an administrator, hence an Owner of the organization, who may register callbacks.
      const callback = await api.agentFlows.createCallback({ url: receiverUrl, name: 'example receiver', signing_token: SECRET, token: SERVICE_TOKEN });
      assert.deepEqual([callback.url, callback.signing_token_set, callback.token_set], [receiverUrl, true, true]);
      callbackId = callback.id;
    });
    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await f.stop();
    });

    it('receives flow.started and flow.completed, verified; Forgelet records the deliveries as delivered', async () => {
      const flow = await api.agentFlows.create({ project_id: projectId, goal: 'Triage new issues', callback_hook_id: callbackId });
      await api.agentFlows.updateStatus(flow.id, 'start');
      await waitFor('flow.started', () => (events.length >= 1 ? true : undefined));
      await api.agentFlows.updateStatus(flow.id, 'finish');
      await waitFor('flow.completed', () => (events.length >= 2 ? true : undefined));

      assert.deepEqual(events.map((e) => [e.event.type, e.event.data.id, e.event.data.status]), [
        ['flow.started', flow.id, 'running'],
        ['flow.completed', flow.id, 'finished'],
      ]);
      for (const e of events) {
        assert.equal(e.event.event_id, e.webhookId);
        assert.equal(e.event.data.instance_url, f.url);
      }
      assert.deepEqual(rejected, []);

      // Forgelet records an attempt once the receiver has answered: wait for both.
      let deliveries = await api.agentFlows.deliveries(callbackId).toArray();
      for (let i = 0; i < 100 && deliveries.some((d) => d.status !== 'delivered'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        deliveries = await api.agentFlows.deliveries(callbackId).toArray();
      }
      assert.deepEqual(
        deliveries.map((d) => [d.event, d.status, d.attempts.map((a) => a.status_code)]).sort(),
        [['flow.completed', 'delivered', [204]], ['flow.started', 'delivered', [204]]],
      );
    });

    it('answers 401 to forged, tampered, stale and tokenless deliveries', async () => {
      const genuine = raw.find((r) => r.headers['webhook-signature'])!;
      const id = String(genuine.headers['webhook-id']);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(genuine.headers['webhook-timestamp']),
        'webhook-signature': String(genuine.headers['webhook-signature']),
        'X-Service-Token': SERVICE_TOKEN,
      };
      const before = events.length;
      const now = Math.floor(Date.now() / 1000);
      const forgedSecret = `whsec_${randomBytes(32).toString('base64')}`;
      const cases: [string, Record<string, string>, string][] = [
        ['tampered body', headers, genuine.body.replace('"running"', '"finished"')],
        ['signed with another secret', { ...headers, 'webhook-timestamp': String(now), 'webhook-signature': sign(forgedSecret, id, now, genuine.body) }, genuine.body],
        ['ten minutes old', { ...headers, 'webhook-timestamp': String(now - 600), 'webhook-signature': sign(SECRET, id, now - 600, genuine.body) }, genuine.body],
        ['unsigned', { 'webhook-id': id, 'webhook-timestamp': String(now), 'X-Service-Token': SERVICE_TOKEN }, genuine.body],
        ['without the service token', { ...headers, 'X-Service-Token': 'guess' }, genuine.body],
      ];
      for (const [what, h, body] of cases) {
        const res = await post(h, body);
        assert.equal(res.status, 401, what);
      }
      assert.deepEqual(rejected, ['no matching signature', 'no matching signature', 'timestamp too old or too new', 'missing webhook headers', 'wrong service token']);
      assert.equal(events.length, before);
      // The genuine delivery itself still verifies (within five minutes of its timestamp).
      assert.equal((await post(headers, genuine.body)).status, 204);
    });
  });
}
