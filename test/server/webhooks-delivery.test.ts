/**
 * Webhook delivery as GitLab's WebHookService and WebHooks::AutoDisabling: no retry of a failed
 * event; after 4 failures in a row a hook is temporarily disabled for 1 minute, doubling per
 * further failure, and for good after 40; events are not sent while it is disabled; a
 * successful test or an edit enables it again. The recent deliveries (events) record request
 * and response with GitLab's truncation; a delivery can be resent with its Idempotency-Key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createProject, expectStatus, uniq } from './http.js';
import { hookReceiver, type HookReceiver } from './webhooks-support.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: webhook delivery`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let rx: HookReceiver;
    let project: any;
    const t0 = new Date('2026-03-02T10:00:00.000Z');
    const runDue = () => f.forge.deps.queue.runDue();
    const at = (ms: number) => clock.set(new Date(t0.getTime() + ms), true);
    const openIssue = async (title: string, description?: string) =>
      expectStatus(await f.api('POST', `/projects/${project.id}/issues`, { body: { title, description } }), 201);

    before(async () => {
      clock = fixedClock(t0.toISOString());
      f = await startTestServer(dialect, { clock, workers: false, testMode: true });
      rx = await hookReceiver();
      project = await createProject(f, f.rootToken, { name: uniq('deliver-') });
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    it('disables a failing hook for 1 minute after 4 failures, doubling, never retrying; a test or an edit enables it', async () => {
      const hook = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/flaky`, issues_events: true, token: 'tok' } })).body;
      const state = async () => (await f.api('GET', `/projects/${project.id}/hooks/${hook.id}`)).body;
      rx.answer(500, 'down');
      at(0);
      for (let i = 1; i <= 3; i++) {
        await openIssue(`fail ${i}`);
        await runDue();
        assert.equal((await state()).alert_status, 'executable', `still executable after ${i} failures`);
      }
      assert.equal(rx.deliveries.length, 3, 'each event once: no retry');
      await openIssue('fail 4');
      await runDue();
      let s = await state();
      assert.equal(s.alert_status, 'temporarily_disabled');
      assert.equal(s.disabled_until, new Date(t0.getTime() + 60_000).toISOString());
      // While disabled, events are not sent (nor queued).
      await openIssue('while disabled');
      assert.equal(await runDue(), 0);
      assert.equal(rx.deliveries.length, 4);
      // After the backoff the next event goes out; failing again doubles the backoff.
      at(61_000);
      assert.equal((await state()).alert_status, 'executable');
      await openIssue('fail 5');
      await runDue();
      s = await state();
      assert.equal(s.alert_status, 'temporarily_disabled');
      assert.equal(s.disabled_until, new Date(t0.getTime() + 61_000 + 120_000).toISOString());
      at(61_000 + 121_000);
      await openIssue('fail 6');
      await runDue();
      assert.equal((await state()).disabled_until, new Date(t0.getTime() + 182_000 + 240_000).toISOString());
      const row = await f.forge.database.db.selectFrom('web_hooks').select('recent_failures').where('id', '=', hook.id).executeTakeFirstOrThrow();
      assert.equal(row.recent_failures, 6);

      // A failing test answers 422 with the target's body and leaves it disabled; a successful one enables it.
      const failing = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/test/issues_events`);
      assert.deepEqual([failing.status, failing.body], [422, { message: 'down' }]);
      rx.answer(200, 'fine');
      const test = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/test/issues_events`);
      assert.deepEqual([test.status, test.body], [201, { message: '201 Created' }]);
      s = await state();
      assert.deepEqual([s.alert_status, s.disabled_until], ['executable', null]);
      const sent = rx.deliveries.at(-1)!;
      assert.equal(sent.headers['x-gitlab-event'], 'Issue Hook');
      assert.equal(sent.body.object_kind, 'issue');

      // An edit enables a disabled hook too.
      await f.forge.database.db.updateTable('web_hooks').set({ recent_failures: 10, disabled_until: new Date(t0.getTime() + 86_400_000).toISOString() }).where('id', '=', hook.id).execute();
      assert.equal((await state()).alert_status, 'temporarily_disabled');
      const edited = await f.api('PUT', `/projects/${project.id}/hooks/${hook.id}`, { body: { name: 'fixed' } });
      assert.deepEqual([edited.body.alert_status, edited.body.disabled_until], ['executable', null]);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);
    });

    it('caps the backoff at 24 hours and disables for good on the 40th failure', async () => {
      const hook = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/dead`, issues_events: true } })).body;
      rx.answer(502, 'bad gateway');
      let now = 1_000_000;
      for (let i = 1; i <= 40; i++) {
        at(now);
        await openIssue(`dead ${i}`);
        assert.equal(await runDue(), 1, `failure ${i} is delivered`);
        const row = await f.forge.database.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
        assert.equal(row.recent_failures, i);
        if (i >= 4) {
          const backoff = Math.min(60_000 * 2 ** (i - 4), 86_400_000);
          assert.equal(row.disabled_until, new Date(t0.getTime() + now + backoff).toISOString(), `backoff after failure ${i}`);
          now += backoff + 1000;
        }
      }
      at(now + 10 * 86_400_000);
      const s = (await f.api('GET', `/projects/${project.id}/hooks/${hook.id}`)).body;
      assert.equal(s.alert_status, 'disabled');
      await openIssue('never sent');
      assert.equal(await runDue(), 0);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);
    });

    it('records recent deliveries with request and response (truncated, secrets redacted), filters them, resends one', async () => {
      at(2 * 86_400_000);
      const hook = (await f.api('POST', `/projects/${project.id}/hooks`, {
        body: { url: `${rx.url}/log`, issues_events: true, token: 'tok-secret', custom_headers: [{ key: 'X-Api-Key', value: 'key-secret' }] },
      })).body;
      const big = 'a'.repeat(9000);
      const headers: Record<string, string> = { 'content-type': 'text/plain', 'x-a-long': 'h'.repeat(2000) };
      for (let i = 0; i < 60; i++) headers[`x-extra-${i}`] = String(i);
      rx.answer(200, big, headers);
      await openIssue('logged', 'ops@example.com');
      await runDue();
      const delivered = rx.deliveries.at(-1)!.body;
      rx.answer(404, 'nope');
      await openIssue('not found');
      await runDue();
      const events = await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events`);
      expectStatus(events, 200);
      assert.equal(events.body.length, 2);
      const [latest, first] = events.body;
      assert.deepEqual(Object.keys(first).sort(), ['created_at', 'execution_duration', 'id', 'request_data', 'request_headers', 'response_body', 'response_headers', 'response_status', 'trigger', 'url'].sort());
      assert.equal(first.trigger, 'issue_hooks');
      assert.equal(first.url, `${rx.url}/log`);
      assert.equal(first.response_status, '200');
      assert.equal(latest.response_status, '404');
      assert.equal(latest.response_body, 'nope');
      assert.equal(first.request_headers['X-Gitlab-Token'], '[REDACTED]');
      assert.equal(first.request_headers['X-Api-Key'], '[REDACTED]');
      assert.equal(first.request_headers['X-Gitlab-Event'], 'Issue Hook');
      assert.equal(first.request_data.object_attributes.title, 'logged');
      // Values that are emails are redacted in the log (GitLab's URI::MailTo::EMAIL_REGEXP); SSH URLs are not emails.
      assert.equal(delivered.object_attributes.description, 'ops@example.com');
      assert.equal(first.request_data.object_attributes.description, '[REDACTED]');
      assert.match(delivered.project.git_ssh_url, /^git@.+:.+\.git$/);
      assert.deepEqual(first.request_data.project, delivered.project);
      assert.equal(Buffer.byteLength(first.response_body), 8192);
      assert.ok(first.response_body.endsWith('…'));
      assert.equal(Object.keys(first.response_headers).length, 50);
      assert.equal(Buffer.byteLength(first.response_headers['X-A-Long']), 1024);
      assert.equal(typeof first.execution_duration, 'number');
      assert.doesNotMatch(events.text, /tok-secret|key-secret/);

      const ok = await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events?status=successful`);
      assert.deepEqual(ok.body.map((e: any) => e.id), [first.id]);
      const failed = await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events?status=client_failure,500`);
      assert.deepEqual(failed.body.map((e: any) => e.id), [latest.id]);
      const tooMany = await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events?per_page=21`);
      assert.deepEqual([tooMany.status, tooMany.body], [400, { error: 'per_page does not have a valid value' }]);
      const badStatus = await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events?status=teapot`);
      assert.equal(badStatus.status, 400);

      // Resend: the logged request again, with the same Idempotency-Key and a new webhook UUID.
      rx.answer(202, 'accepted');
      const original = rx.deliveries.at(-1)!;
      const resent = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/events/${latest.id}/resend`);
      assert.deepEqual([resent.status, resent.body], [201, { response_status: 202 }]);
      const again = rx.deliveries.at(-1)!;
      assert.equal(again.headers['idempotency-key'], original.headers['idempotency-key']);
      assert.notEqual(again.headers['x-gitlab-webhook-uuid'], original.headers['x-gitlab-webhook-uuid']);
      assert.equal(again.headers['x-gitlab-token'], 'tok-secret');
      assert.equal(again.headers['x-api-key'], 'key-secret');
      assert.equal(again.body.object_attributes.title, 'not found');
      const missing = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/events/999999/resend`);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);

      // Two days back from the start of today only (GitLab's recent logs).
      at(5 * 86_400_000);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/hooks/${hook.id}/events`)).body, []);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);
    });

    it('a target that refuses connections is logged as an internal error; test triggers need data', async () => {
      const empty = await createProject(f, f.rootToken, { name: uniq('empty-') });
      const closed = await hookReceiver();
      await closed.close(); // a port nobody listens on
      const hook = (await f.api('POST', `/projects/${empty.id}/hooks`, { body: { url: `${closed.url}/closed`, issues_events: true } })).body;
      const none = await f.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/issues_events`);
      assert.deepEqual([none.status, none.body], [422, { message: 'Ensure the project has issues.' }]);
      const notes = await f.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/note_events`);
      assert.deepEqual([notes.status, notes.body], [422, { message: 'Ensure the project has notes.' }]);
      const bad = await f.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/bogus_events`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'trigger does not have a valid value' }]);
      expectStatus(await f.api('POST', `/projects/${empty.id}/issues`, { body: { title: 'x' } }), 201);
      await runDue();
      const [log] = (await f.api('GET', `/projects/${empty.id}/hooks/${hook.id}/events`)).body;
      assert.equal(log.response_status, 'internal error');
      assert.equal(log.response_body, '');
      const test = await f.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/issues_events`);
      assert.equal(test.status, 422);
      assert.match(test.body.message, /ECONNREFUSED/);
    });
  });
}
