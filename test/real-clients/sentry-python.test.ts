/**
 * sentry-sdk 1.9 (Debian python3-sentry-sdk, run with /usr/bin/python3) against a DSN of the
 * served Forgelet (`bin/forgelet.js serve`, as users start it): sentry_python_app.py sends its
 * events gzipped to the legacy store endpoint with X-Sentry-Auth, and its session as a gzipped
 * envelope. A recording proxy shows the wire; the errors show up grouped.
 *
 * Without sentry-sdk the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { SYSTEM_PYTHON } from './support.js';
import { bodyText, dsnVia, runProgram, startRecordingProxy, type RecordingProxy } from './sentry-support.js';
import { toolSkip } from '../support/tools.js';

const APP = fileURLToPath(new URL('./sentry_python_app.py', import.meta.url));

function probeSentrySdk(): string | null {
  const r = spawnSync(SYSTEM_PYTHON, ['-c', 'import sentry_sdk; print(sentry_sdk.VERSION)'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) return `${SYSTEM_PYTHON} cannot run: ${r.error.message}`;
  if (r.status !== 0) return `${SYSTEM_PYTHON} cannot import sentry_sdk (apt-get install -y python3-sentry-sdk): ${r.stderr.trim().split('\n').pop()}`;
  return null;
}

const skip = toolSkip('sentry-sdk', probeSentrySdk());

for (const dialect of DIALECTS) {
  describe(`${dialect}: sentry-sdk 1.9 (python) sends to a Forgelet DSN`, { skip }, () => {
    let f: ServedForgelet;
    let proxy: RecordingProxy;
    let projectId: number;
    let key: string;
    let version: string;
    const describeRequests = () => proxy.requests.map((r) => `${r.method} ${r.url} ${r.status} ${JSON.stringify(r.headers)}\n${bodyText(r).slice(0, 300)}`).join('\n');

    before(async () => {
      f = await startServed(dialect);
      proxy = await startRecordingProxy(f.url);
      const project = await f.api('POST', '/projects', { body: { name: 'python-app' } });
      projectId = project.body.id;
      const settings = await f.api('PUT', `/projects/${projectId}/error_tracking/settings`, { body: { active: true, integrated: true } });
      assert.equal(settings.status, 200, settings.text);
      key = (await f.api('GET', `/projects/${projectId}/error_tracking/client_keys`)).body[0].public_key;
      const run = await runProgram(SYSTEM_PYTHON, [APP], { SENTRY_DSN: dsnVia(settings.body.gitlab_dsn, proxy.url) });
      version = JSON.parse(run.stdout.trim().split('\n').pop()!).version;
    });
    after(async () => {
      await proxy?.close();
      await f?.stop();
    });

    it('events go gzipped to …/api/<id>/store/ with X-Sentry-Auth; Forgelet answers 200 {"id"}', () => {
      assert.match(version, /^1\.9\./);
      const stores = proxy.requests.filter((r) => r.url.includes('/store/'));
      assert.equal(stores.length, 11, describeRequests());
      for (const r of stores) {
        assert.equal(r.url, `/api/v4/error_tracking/collector/api/${projectId}/store/`);
        assert.equal(r.headers['content-encoding'], 'gzip');
        assert.equal(r.headers['content-type'], 'application/json');
        assert.match(String(r.headers['x-sentry-auth']), new RegExp(`^Sentry sentry_key=${key}, sentry_version=7, sentry_client=sentry\\.python/1\\.9\\.`));
        assert.equal(r.status, 200, describeRequests());
        const event = JSON.parse(bodyText(r));
        assert.deepEqual(JSON.parse(r.response), { id: event.event_id });
        assert.equal(typeof event.timestamp, 'string'); // ISO text, not epoch seconds
      }
    });

    it('the session goes as a gzipped envelope (application/x-sentry-envelope) and is counted for the release', async () => {
      const envelopes = proxy.requests.filter((r) => r.url.includes('/envelope/'));
      assert.ok(envelopes.length >= 1, describeRequests());
      for (const r of envelopes) {
        assert.equal(r.url, `/api/v4/error_tracking/collector/api/${projectId}/envelope/`);
        assert.equal(r.headers['content-type'], 'application/x-sentry-envelope');
        assert.equal(r.headers['content-encoding'], 'gzip');
        assert.equal(r.status, 200, describeRequests());
        assert.ok(bodyText(r).includes('"type":"session"'), bodyText(r));
      }
      const sessions = await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/sessions`);
      assert.equal(sessions.status, 200);
      assert.equal(sessions.body.length, 1, JSON.stringify(sessions.body));
      const { release, environment, sessions: count, errored, crashed } = sessions.body[0];
      assert.deepEqual({ release, environment, count, errored, crashed }, { release: 'shop@3.0.0', environment: 'production', count: 1, errored: 1, crashed: 0 });
    });

    it('ten identical exceptions from three users are one error with 10 occurrences and 3 users; the message is its own error', async () => {
      const list = (await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors`)).body as any[];
      assert.deepEqual(list.map((e) => e.title).sort(), ['ValueError: boom from python', 'hello from python']);
      const boom = list.find((e) => e.title === 'ValueError: boom from python');
      assert.deepEqual([boom.count, boom.user_count, boom.type, boom.message, boom.platform], [10, 3, 'ValueError', 'boom from python', 'python']);
      assert.deepEqual([boom.first_release, boom.last_release], ['shop@3.0.0', 'shop@3.0.0']);
      const top = boom.stack_trace[boom.stack_trace.length - 1];
      assert.equal(top.function, 'checkout');
      assert.ok(top.context.some(([, line]: [number, string]) => line.includes('raise ValueError("boom from python")')), JSON.stringify(top));
      assert.match(boom.culprit, /^checkout\(/);
      const message = list.find((e) => e.title === 'hello from python');
      assert.deepEqual([message.count, message.type, message.message], [1, null, 'hello from python']);
      // Events keep what python sent (ISO timestamps, nulls in module and mechanism).
      const events = await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors/${boom.id}/events?per_page=1`);
      assert.equal(events.headers.get('x-total'), '10');
      assert.equal(events.body[0].payload.exception.values[0].mechanism, null);
    });

    it('an issue created from the error carries its stack trace', async () => {
      const boom = ((await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors?search=boom`)).body as any[])[0];
      const issue = await f.api('POST', `/forgelet/projects/${projectId}/error_tracking/errors/${boom.id}/issue`);
      assert.equal(issue.status, 201, issue.text);
      assert.equal(issue.body.title, 'ValueError: boom from python');
      assert.match(issue.body.description, /### Stack trace\n\n```\nValueError: boom from python\n[\s\S]*  at checkout \([^)]*sentry_python_app\.py:\d+\)\n      raise ValueError\("boom from python"\)\n```/);
    });
  });
}
