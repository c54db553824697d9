/**
 * examples/sentry-errors: app.mjs (the real @sentry/node 10 SDK, in a child process) reports
 * an exception and a message to the DSN dsn.ts got from Forgelet (`forgelet serve`, the built
 * binary as users start it); both show up as errors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../../test/support/databases.js';
import { startServed, type ServedForgelet } from '../../test/support/served.js';
import { enableErrorTracking } from './dsn.js';

const APP = fileURLToPath(new URL('./app.mjs', import.meta.url));

function runApp(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [APP], { env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: examples/sentry-errors`, () => {
    let f: ServedForgelet;
    let api: Forgelet;
    let projectId: number;
    let dsn: string;

    before(async () => {
      f = await startServed(dialect);
      api = new Forgelet({ url: f.url, token: f.rootToken });
      projectId = (await api.projects.create({ name: 'shop' })).id;
      dsn = await enableErrorTracking(f.url, f.rootToken, projectId);
    });
    after(() => f.stop());

    it('dsn.ts enables integrated error tracking and answers the client key DSN', async () => {
      const url = new URL(dsn);
      assert.match(url.username, /^glet_[0-9a-f]{32}$/);
      assert.equal(url.host, new URL(f.url).host);
      assert.equal(url.pathname, `/api/v4/error_tracking/collector/${projectId}`);
      const settings = await api.errorTrackingSettings.show(projectId);
      assert.deepEqual([settings.active, settings.integrated, settings.gitlab_dsn], [true, true, dsn]);
    });

    it('app.mjs sends an exception and a message; the errors API lists both', async () => {
      const run = await runApp({ SENTRY_DSN: dsn });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), 'sent 1 exception and 1 message');

      const errors = await api.errorTrackingErrors.all(projectId, { sort: 'first_seen' }).toArray();
      const byTitle = new Map(errors.map((e) => [e.title, e]));
      assert.deepEqual([...byTitle.keys()].sort(), ['TypeError: cart is empty', 'payment provider slow']);

      const boom = byTitle.get('TypeError: cart is empty')!;
      assert.deepEqual(
        [boom.type, boom.message, boom.platform, boom.status, boom.count, boom.user_count, boom.last_release],
        ['TypeError', 'cart is empty', 'node', 'unresolved', 1, 1, 'shop@1.2.0'],
      );
      // The innermost frame is app.mjs's checkout().
      const top = boom.stack_trace.at(-1)!;
      assert.equal(top.function, 'checkout');
      assert.match(top.filename ?? '', /app\.mjs$/);
      const [event] = await api.errorTrackingErrors.events(projectId, boom.id).toArray();
      assert.deepEqual([event!.level, event!.environment, event!.release, event!.user?.id], ['error', 'production', 'shop@1.2.0', 'u-42']);

      const message = byTitle.get('payment provider slow')!;
      assert.deepEqual([message.type, message.count, message.platform], [null, 1, 'node']);
      const [warning] = await api.errorTrackingErrors.events(projectId, message.id).toArray();
      assert.equal(warning!.level, 'warning');
    });
  });
}

it('examples/sentry-errors: without a DSN the program stops and says why', async () => {
  const run = await runApp({ SENTRY_DSN: '' });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /set SENTRY_DSN/);
});
