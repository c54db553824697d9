/**
 * @sentry/node 10 (npm) against a Forgelet DSN: a real program (sentry_node_app.mjs, in a child
 * process) reports errors, a message and sessions. The SDK sends envelopes with the key in the
 * query string, no content type and chunked bodies (gzip past 32 KiB); a recording proxy
 * between the SDK and Forgelet shows that, and the errors show up grouped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { rawRequest } from '../server/http.js';
import { bodyText, dsnVia, runProgram, startRecordingProxy, type RecordingProxy } from './sentry-support.js';

const APP = fileURLToPath(new URL('./sentry_node_app.mjs', import.meta.url));

for (const dialect of DIALECTS) {
  describe(`${dialect}: @sentry/node 10 sends to a Forgelet DSN`, () => {
    let f: ServedForgelet;
    let proxy: RecordingProxy;
    let projectId: number;
    let key: string;
    let output: { flushed: boolean; version: string };
    const errors = async () => (await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors?per_page=100`)).body as any[];
    const describeRequests = () => proxy.requests.map((r) => `${r.method} ${r.url} ${r.status} ${JSON.stringify(r.headers)}\n${bodyText(r).slice(0, 400)}`).join('\n');

    before(async () => {
      f = await startServed(dialect);
      proxy = await startRecordingProxy(f.url);
      const project = await f.api('POST', '/projects', { body: { name: 'node-app' } });
      projectId = project.body.id;
      const settings = await f.api('PUT', `/projects/${projectId}/error_tracking/settings`, { body: { active: true, integrated: true } });
      assert.equal(settings.status, 200, settings.text);
      key = (await f.api('GET', `/projects/${projectId}/error_tracking/client_keys`)).body[0].public_key;
      const run = await runProgram(process.execPath, [APP], { SENTRY_DSN: dsnVia(settings.body.gitlab_dsn, proxy.url) });
      output = JSON.parse(run.stdout.trim().split('\n').pop()!);
    });
    after(async () => {
      await proxy?.close();
      await f?.stop();
    });

    it('the SDK (10.x) flushed everything; Forgelet accepted every request with 200', () => {
      assert.equal(output.flushed, true);
      assert.match(output.version, /^10\./);
      assert.ok(proxy.requests.length >= 13, describeRequests());
      for (const r of proxy.requests) assert.equal(r.status, 200, describeRequests());
    });

    it('envelopes to …/api/<id>/envelope/ with the key in the query string, no content type, chunked', () => {
      for (const r of proxy.requests) {
        assert.equal(r.method, 'POST');
        const url = new URL(r.url, 'http://x');
        assert.equal(url.pathname, `/api/v4/error_tracking/collector/api/${projectId}/envelope/`);
        assert.equal(url.searchParams.get('sentry_key'), key);
        assert.equal(url.searchParams.get('sentry_version'), '7');
        assert.equal(r.headers['content-type'], undefined);
        assert.equal(r.headers['x-sentry-auth'], undefined);
        assert.equal(r.headers['transfer-encoding'], 'chunked');
        assert.equal(r.headers['content-length'], undefined);
      }
      const events = proxy.requests.filter((r) => bodyText(r).includes('"type":"event"'));
      assert.equal(events.length, 12);
      // Each event answer carries its id, as Sentry answers.
      for (const r of events) {
        const header = JSON.parse(bodyText(r).split('\n')[0]!);
        assert.deepEqual(JSON.parse(r.response), { id: header.event_id });
      }
      const gzipped = proxy.requests.filter((r) => r.headers['content-encoding'] === 'gzip');
      assert.equal(gzipped.length, 1, 'the > 32 KiB event is gzipped');
      assert.ok(bodyText(gzipped[0]!).includes('big payload'));
    });

    it('ten identical exceptions from three users are one error with 10 occurrences and 3 users; the message is its own error', async () => {
      const list = await errors();
      const boom = list.find((e) => e.title === 'TypeError: boom from node');
      assert.ok(boom, JSON.stringify(list.map((e) => e.title)));
      assert.deepEqual([boom.count, boom.user_count, boom.type, boom.message, boom.platform, boom.status], [10, 3, 'TypeError', 'boom from node', 'node', 'unresolved']);
      assert.deepEqual([boom.first_release, boom.last_release], ['shop@2.0.0', 'shop@2.0.0']);
      const top = boom.stack_trace[boom.stack_trace.length - 1];
      assert.equal(top.function, 'checkout');
      assert.equal(top.in_app, true);
      assert.ok(top.context.some(([, line]: [number, string]) => line.includes("throw new TypeError('boom from node')")), JSON.stringify(top));
      assert.ok(boom.culprit.startsWith('checkout('), boom.culprit);
      const message = list.find((e) => e.title === 'hello from node');
      assert.ok(message);
      assert.deepEqual([message.count, message.type], [1, null]);
      const big = list.find((e) => e.title === 'RangeError: big payload');
      assert.equal(big?.count, 1);
      assert.equal(list.length, 3);
    });

    it('sessions are counted for the release', async () => {
      const sessions = await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/sessions`);
      assert.equal(sessions.status, 200);
      const sent = proxy.requests.filter((r) => bodyText(r).includes('"type":"session'));
      assert.ok(sent.length >= 1, describeRequests());
      assert.equal(sessions.body.length, 1, JSON.stringify(sessions.body));
      assert.equal(sessions.body[0].release, 'shop@2.0.0');
      assert.equal(sessions.body[0].environment, 'production');
      // One process, one session (sent as several updates of one sid); it had errors, it did not crash.
      const { sessions: count, errored, crashed, crash_free_rate } = sessions.body[0];
      assert.deepEqual({ count, errored, crashed, crash_free_rate }, { count: 1, errored: 1, crashed: 0, crash_free_rate: 1 });
    });

    it('once its key is deleted, the SDK request (replayed byte for byte) is refused with 404', async () => {
      const sent = proxy.requests.find((r) => bodyText(r).includes('"type":"event"'))!;
      const keyId = (await f.api('GET', `/projects/${projectId}/error_tracking/client_keys`)).body[0].id;
      assert.equal((await f.api('DELETE', `/projects/${projectId}/error_tracking/client_keys/${keyId}`)).status, 200);
      const { host: _h, connection: _c, ...headers } = sent.headers;
      const replay = await rawRequest(f.url, 'POST', sent.url, { headers: headers as Record<string, string>, body: sent.body, chunked: true });
      assert.deepEqual([replay.status, replay.body], [404, { message: '404 Not Found' }]);
      assert.equal((await errors()).find((e) => e.title === 'TypeError: boom from node').count, 10);
    });
  });
}
