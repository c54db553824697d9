/**
 * Error tracking over HTTP: project settings and client keys (GitLab's REST), the Sentry
 * collector (store and envelope), grouping into errors, the reading and triage extensions,
 * issues from errors, sessions and retention.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest } from './http.js';
import { collectorPath, enableTracking, envelope, eventId, exceptionEvent, messageEvent, NODE_FRAMES, sendEnvelope, store } from './error-tracking.helpers.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:30:00.000Z';
const HOUR = 3600_000;
const PARSE_FAILED = { message: '400 Bad request - Failed to parse sentry request' };
const UNSUPPORTED = { message: '400 Bad request - Unsupported sentry payload' };
const NOT_FOUND = { message: '404 Not Found' };

for (const dialect of DIALECTS) {
  describe(`${dialect}: error tracking`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maintainer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let project: any;

    /** A project with integrated tracking on; its key. */
    async function trackedProject(name: string): Promise<{ project: any; key: string; keyId: number }> {
      const p = await createProject(f, maintainer.token, { name, namespace_id: group.id });
      const { key, keyId } = await enableTracking(f, p.id);
      return { project: p, key, keyId };
    }
    const errorsOf = async (projectId: number, query = '', token = reporter.token) => {
      const r = await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors${query}`, { token });
      expectStatus(r, 200);
      return r;
    };

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [maintainer, reporter, guest, outsider] = await createUsers(f, ['etmaint', 'etreporter', 'etguest', 'etoutsider']);
      group = await createGroup(f, f.rootToken, { name: 'Errors', path: 'errors' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
      project = await createProject(f, maintainer.token, { name: 'shop', namespace_id: group.id, visibility: 'private' });
    });
    after(() => f.stop());

    describe('settings', () => {
      it('GET and PATCH answer 404 "Error Tracking Setting Not Found" before the first PUT', async () => {
        const get = await f.api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token });
        expectStatus(get, 404);
        assert.deepEqual(get.body, { message: '404 Error Tracking Setting Not Found' });
        const patch = await f.api('PATCH', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token, body: { active: true } });
        expectStatus(patch, 404);
        assert.deepEqual(patch.body, { message: '404 Error Tracking Setting Not Found' });
      });

      it('refuses below Maintainer (403), strangers (404) and anonymous callers (401)', async () => {
        const path = `/projects/${project.id}/error_tracking/settings`;
        const byReporter = await f.api('PUT', path, { token: reporter.token, body: { active: true, integrated: true } });
        expectStatus(byReporter, 403);
        assert.deepEqual(byReporter.body, { message: '403 Forbidden' });
        const byOutsider = await f.api('GET', path, { token: outsider.token });
        expectStatus(byOutsider, 404);
        assert.deepEqual(byOutsider.body, { message: '404 Project Not Found' });
        expectStatus(await f.api('GET', path, { token: null }), 401);
        const keys = await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token: reporter.token });
        expectStatus(keys, 403);
      });

      it('validates: integrated is required by PUT, booleans must be booleans, a Sentry backend is refused', async () => {
        const path = `/projects/${project.id}/error_tracking/settings`;
        const missing = await f.api('PUT', path, { token: maintainer.token, body: { active: true } });
        expectStatus(missing, 400);
        assert.deepEqual(missing.body, { error: 'integrated is missing' });
        const invalid = await f.api('PUT', path, { token: maintainer.token, body: { active: 'maybe', integrated: true } });
        expectStatus(invalid, 400);
        assert.deepEqual(invalid.body, { error: 'active is invalid' });
        const blank = await f.api('PUT', path, { token: maintainer.token, body: { active: '', integrated: true } });
        expectStatus(blank, 400);
        assert.deepEqual(blank.body, { error: 'active is empty' });
        const sentry = await f.api('PUT', path, { token: maintainer.token, body: { active: true, integrated: false } });
        expectStatus(sentry, 400);
        assert.match(sentry.body.message, /^400 Bad request - integrated must be true/);
      });

      it('PUT (gitbeaker: query string, empty JSON body) enables integrated tracking and gives the project a key and its DSN', async () => {
        const put = await f.api('PUT', `/projects/${project.id}/error_tracking/settings?active=true&integrated=true`, { token: maintainer.token, body: {} });
        expectStatus(put, 200);
        assert.equal(put.headers.get('content-type'), 'application/json');
        const keys = await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token: maintainer.token });
        expectStatus(keys, 200);
        assert.equal(keys.body.length, 1);
        const key = keys.body[0];
        assert.match(key.public_key, /^glet_[0-9a-f]{32}$/);
        const host = new URL(f.url).host;
        assert.deepEqual(key, { id: key.id, active: true, public_key: key.public_key, sentry_dsn: `http://${key.public_key}@${host}/api/v4/error_tracking/collector/${project.id}` });
        assert.deepEqual(put.body, { active: true, project_name: null, sentry_external_url: null, api_url: null, integrated: true, gitlab_dsn: key.sentry_dsn });
        // Settings read back the same; PATCH toggles `active` and keeps `integrated`.
        const get = await f.api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token });
        assert.deepEqual(get.body, put.body);
        const off = await f.api('PATCH', `/projects/${project.id}/error_tracking/settings/`, { token: maintainer.token, body: { active: false } });
        expectStatus(off, 200);
        assert.deepEqual({ active: off.body.active, integrated: off.body.integrated }, { active: false, integrated: true });
        const on = await f.api('PATCH', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token, body: { active: 'true' } });
        assert.deepEqual({ active: on.body.active, integrated: on.body.integrated, dsn: on.body.gitlab_dsn }, { active: true, integrated: true, dsn: key.sentry_dsn });
        // Enabling again does not add keys.
        const again = await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token: maintainer.token });
        assert.equal(again.body.length, 1);
      });
    });

    describe('client keys', () => {
      it('creates several keys, lists them paginated in id order, deletes one (200 with the key) and refuses unknown ids', async () => {
        const { project: p, keyId } = await trackedProject('keys');
        const base = `/projects/${p.id}/error_tracking/client_keys`;
        const created = await f.api('POST', base, { token: maintainer.token, body: {} });
        expectStatus(created, 201);
        assert.deepEqual(Object.keys(created.body), ['id', 'active', 'public_key', 'sentry_dsn']);
        assert.equal(created.body.active, true);
        const third = await f.api('POST', base, { token: maintainer.token });
        expectStatus(third, 201);
        const page = await f.api('GET', `${base}?per_page=2`, { token: maintainer.token });
        expectStatus(page, 200);
        assert.deepEqual(page.body.map((k: any) => k.id), [keyId, created.body.id]);
        assert.equal(page.headers.get('x-total'), '3');
        assert.equal(page.headers.get('x-next-page'), '2');
        const removed = await f.api('DELETE', `${base}/${created.body.id}`, { token: maintainer.token });
        expectStatus(removed, 200);
        assert.deepEqual(removed.body, created.body);
        const gone = await f.api('DELETE', `${base}/${created.body.id}`, { token: maintainer.token });
        expectStatus(gone, 404);
        assert.deepEqual(gone.body, { message: '404 Not found' });
        // Another project's key is not found through this project.
        const otherKey = (await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`)).body[0];
        expectStatus(await f.api('DELETE', `${base}/${otherKey.id}`, { token: maintainer.token }), 404);
        const bad = await f.api('DELETE', `${base}/abc`, { token: maintainer.token });
        expectStatus(bad, 400);
        assert.deepEqual(bad.body, { error: 'key_id is invalid' });
        // gitbeaker's ErrorTrackingClientKeys.remove: DELETE …/client_keys with {"key_id"} in the body.
        const byBody = await f.api('DELETE', base, { token: maintainer.token, body: { key_id: third.body.id } });
        expectStatus(byBody, 200);
        assert.equal(byBody.body.id, third.body.id);
        const left = await f.api('GET', base, { token: maintainer.token });
        assert.deepEqual(left.body.map((k: any) => k.id), [keyId]);
      });

      it('a deleted key is refused by the collector at once; the other keys still work', async () => {
        const { project: p, key, keyId } = await trackedProject('rotate');
        const fresh = (await f.api('POST', `/projects/${p.id}/error_tracking/client_keys`, { token: maintainer.token })).body;
        expectStatus(await store(f, p.id, key, exceptionEvent()), 200);
        expectStatus(await f.api('DELETE', `/projects/${p.id}/error_tracking/client_keys/${keyId}`, { token: maintainer.token }), 200);
        const refused = await store(f, p.id, key, exceptionEvent());
        expectStatus(refused, 404);
        assert.deepEqual(refused.body, NOT_FOUND);
        expectStatus(await store(f, p.id, fresh.public_key, exceptionEvent()), 200);
        const [error] = (await errorsOf(p.id)).body;
        assert.equal(error.count, 2);
      });
    });

    describe('collector', () => {
      let p: any;
      let key: string;
      before(async () => {
        ({ project: p, key } = await trackedProject('collector'));
      });

      it('store: gzipped JSON with X-Sentry-Auth (sentry-python), trailing slash: 200 {"id": event_id}', async () => {
        const event = exceptionEvent({ type: 'ValueError', value: 'boom from python', platform: 'python', timestamp: '2024-06-15T12:29:58.079810Z' });
        const r = await store(f, p.id, key, event);
        expectStatus(r, 200);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(r.body, { id: event.event_id });
        // The path without the trailing slash, deflate, and the key as a query parameter work too.
        const plain = await rawRequest(f.url, 'POST', `/api/v4/error_tracking/collector/api/${p.id}/store?sentry_key=${key}`, {
          headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify(exceptionEvent({ type: 'ValueError', value: 'boom from python', platform: 'python' })),
        });
        expectStatus(plain, 200);
        expectStatus(await store(f, p.id, key, exceptionEvent({ type: 'ValueError', value: 'boom from python', platform: 'python' }), { deflate: true }), 200);
        // The project may be named by its full path too.
        expectStatus(await store(f, encodeURIComponent(p.path_with_namespace), key, exceptionEvent({ type: 'ValueError', value: 'boom from python', platform: 'python' })), 200);
        const list = (await errorsOf(p.id, '?search=boom+from+python')).body;
        assert.equal(list.length, 1);
        assert.equal(list[0].count, 4);
        assert.equal(list[0].title, 'ValueError: boom from python');
      });

      it('envelope: key in the query, no content type, chunked, no length and no trailing newline (@sentry/node)', async () => {
        const event = exceptionEvent({ type: 'RangeError', value: 'node envelope', timestamp: Date.parse(NOW) / 1000 - 1.5 });
        const body = envelope({ event_id: event.event_id, sent_at: NOW, sdk: { name: 'sentry.javascript.node', version: '10.78.0' } }, [{ type: 'event', payload: event }]);
        const r = await sendEnvelope(f, p.id, key, body);
        expectStatus(r, 200);
        assert.deepEqual(r.body, { id: event.event_id });
        const [error] = (await errorsOf(p.id, '?search=node+envelope')).body;
        assert.equal(error.last_seen, new Date(Date.parse(NOW) - 1500).toISOString());
      });

      it('envelope: items with `length` (holding newlines), a trailing newline, the key from the envelope header dsn', async () => {
        const event = exceptionEvent({ type: 'KeyError', value: 'line one\nline two' });
        const payload = Buffer.from(JSON.stringify(event, null, 2)); // newlines inside the payload
        const body = envelope({ dsn: `http://${key}@example.com/api/v4/error_tracking/collector/${p.id}` }, [{ type: 'event', payload, withLength: true }], true);
        const r = await rawRequest(f.url, 'POST', collectorPath(p.id, 'envelope'), { headers: { 'Content-Type': 'application/x-sentry-envelope', 'Content-Encoding': 'gzip' }, body: gzipSync(body) });
        expectStatus(r, 200);
        const [error] = (await errorsOf(p.id, '?search=line+one')).body;
        assert.deepEqual([error.title, error.message], ['KeyError: line one', 'line one\nline two']);
      });

      it('an event is stored as sent; its stack trace comes from the stored payload, and is kept on its own only when the payload had to be cut', async () => {
        const { project: p, key } = await trackedProject('stored-as-sent');
        const eventsOf = async (errorId: number) => {
          const r = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/${errorId}/events?per_page=5`, { token: reporter.token });
          expectStatus(r, 200);
          return r.body;
        };
        const column = async (eventId: string) =>
          (await f.forge.deps.db.selectFrom('error_tracking_error_events').select(['stack_trace', 'payload']).where('event_id', '=', eventId).executeTakeFirstOrThrow());
        // As sent: the item's JSON text, spaces and key order included.
        const event = exceptionEvent({ type: 'StoredError', value: 'kept as sent' });
        const sent = JSON.stringify(event, null, 1);
        expectStatus(await sendEnvelope(f, p.id, key, envelope({ event_id: event.event_id }, [{ type: 'event', payload: Buffer.from(sent), withLength: true }])), 200);
        const [small] = (await errorsOf(p.id, '?search=kept+as+sent')).body;
        const stored = await column(event.event_id as string);
        assert.equal(stored.payload, sent);
        assert.equal(stored.stack_trace, null, 'not stored twice');
        const [smallEvent] = await eventsOf(small.id);
        assert.deepEqual(smallEvent.stack_trace, small.stack_trace);
        assert.equal(smallEvent.stack_trace.length, NODE_FRAMES.length);
        assert.ok(smallEvent.stack_trace.some((fr: any) => fr.context.length > 1), 'with context lines');
        // An event id from the envelope header is stored in the payload.
        const { event_id: headerId, ...withoutId } = exceptionEvent({ type: 'StoredError', value: 'id from the header' });
        expectStatus(await sendEnvelope(f, p.id, key, envelope({ event_id: headerId }, [{ type: 'event', payload: withoutId }])), 200);
        assert.equal(JSON.parse((await column(headerId as string)).payload).event_id, headerId);
        // Past 256 KB the payload loses breadcrumbs and context lines: the stack trace is kept whole beside it.
        const big = exceptionEvent({ type: 'StoredError', value: 'too big' });
        (big as any).breadcrumbs = { values: Array.from({ length: 300 }, (_, i) => ({ message: `crumb ${i} ${'x'.repeat(1000)}` })) };
        expectStatus(await sendEnvelope(f, p.id, key, envelope({ event_id: big.event_id }, [{ type: 'event', payload: big }])), 200);
        const [cut] = (await errorsOf(p.id, '?search=too+big')).body;
        const cutRow = await column(big.event_id as string);
        assert.equal(JSON.parse(cutRow.payload).breadcrumbs, undefined);
        assert.notEqual(cutRow.stack_trace, null);
        const [cutEvent] = await eventsOf(cut.id);
        assert.deepEqual(cutEvent.stack_trace, cut.stack_trace);
        assert.ok(cutEvent.stack_trace.some((fr: any) => fr.context.length > 1), 'context lines kept');
      });

      it('accepts and drops transactions, attachments, client reports and unknown items; counts sessions', async () => {
        const before = (await errorsOf(p.id)).headers.get('x-total');
        const body = envelope({ event_id: eventId() }, [
          { type: 'transaction', payload: { type: 'transaction', spans: [] } },
          { type: 'attachment', payload: Buffer.from([0, 1, 2, 10, 255]), withLength: true },
          { type: 'client_report', payload: { discarded_events: [] } },
          { type: 'profile', payload: 'not even json' },
          { type: 'session', payload: { sid: 'a'.repeat(32), init: true, status: 'exited', errors: 0, attrs: { release: 'shop@1.0', environment: 'production' } } },
          { type: 'session', payload: { sid: 'b'.repeat(32), init: true, status: 'crashed', errors: 1, attrs: { release: 'shop@1.0', environment: 'production' } } },
          { type: 'sessions', payload: { aggregates: [{ started: NOW, exited: 5, errored: 2 }], attrs: { release: 'shop@1.0', environment: 'production' } } },
        ]);
        const r = await sendEnvelope(f, p.id, key, body);
        expectStatus(r, 200);
        assert.equal((await errorsOf(p.id)).headers.get('x-total'), before);
        const sessions = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/sessions`, { token: reporter.token });
        expectStatus(sessions, 200);
        assert.deepEqual(sessions.body, [
          { release: 'shop@1.0', environment: 'production', sessions: 9, exited: 6, errored: 2, crashed: 1, abnormal: 0, crash_free_rate: 0.8889, first_seen: NOW, last_seen: NOW },
        ]);
        // A session envelope with an empty header and nothing else (sentry-python) is fine too.
        expectStatus(await sendEnvelope(f, p.id, key, Buffer.from('{}\n')), 200);
        // Updates of one session (by sid) count it once, with its latest state; an ended session stays ended.
        const sid = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
        const attrs = { release: 'shop@1.1', environment: 'staging' };
        for (const update of [
          { sid, init: true, status: 'ok', errors: 0, started: '2024-06-15T12:00:00.000Z', attrs },
          { sid, init: false, status: 'ok', errors: 2, attrs },
          { sid, init: false, status: 'exited', errors: 2, attrs },
          { sid, init: false, status: 'ok', errors: 0, attrs }, // late, out of order: ignored
        ]) {
          expectStatus(await sendEnvelope(f, p.id, key, envelope({}, [{ type: 'session', payload: update, withLength: true }], true)), 200);
        }
        const staging = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/sessions?release=shop@1.1`, { token: reporter.token });
        assert.deepEqual(staging.body, [
          { release: 'shop@1.1', environment: 'staging', sessions: 1, exited: 0, errored: 1, crashed: 0, abnormal: 0, crash_free_rate: 1, first_seen: '2024-06-15T12:00:00.000Z', last_seen: NOW },
        ]);
      });

      it('refuses as GitLab does: unknown project 404 "Project Not Found"; disabled tracking, unknown or missing-in-project key 404', async () => {
        for (const ref of ['999999', '99999999999999999999', 'errors%2Fnope']) {
          const unknown = await store(f, ref, key, exceptionEvent());
          assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Project Not Found' }], ref);
        }
        const wrongKey = await store(f, p.id, `glet_${'0'.repeat(32)}`, exceptionEvent());
        expectStatus(wrongKey, 404);
        assert.deepEqual(wrongKey.body, NOT_FOUND);
        // A key of another project is not a key of this one.
        const { key: projectKey } = await enableTracking(f, project.id);
        expectStatus(await store(f, p.id, projectKey, exceptionEvent()), 404);
        // Disabled tracking: 404, whatever the key.
        const { project: off, key: offKey } = await trackedProject('disabled');
        expectStatus(await f.api('PATCH', `/projects/${off.id}/error_tracking/settings`, { token: maintainer.token, body: { active: false } }), 200);
        const disabled = await sendEnvelope(f, off.id, offKey, envelope({}, [{ type: 'event', payload: exceptionEvent() }]));
        expectStatus(disabled, 404);
        assert.deepEqual(disabled.body, NOT_FOUND);
        // A project that never enabled it.
        expectStatus(await store(f, (await createProject(f, maintainer.token, { name: 'never', namespace_id: group.id })).id, key, exceptionEvent()), 404);
        // No key anywhere: GitLab cannot parse the auth header.
        const noKey = await rawRequest(f.url, 'POST', collectorPath(p.id, 'store'), { body: JSON.stringify(exceptionEvent()) });
        expectStatus(noKey, 400);
        assert.deepEqual(noKey.body, PARSE_FAILED);
      });

      it('never answers 500 on malformed input: 400 "Failed to parse sentry request" or "Unsupported sentry payload"', async () => {
        const parseFailures: [string, Buffer, Record<string, string>][] = [
          ['not JSON', Buffer.from('{"exception":'), {}],
          ['bad gzip', Buffer.from('not gzip at all'), { 'Content-Encoding': 'gzip' }],
          ['bad deflate', Buffer.from('nope'), { 'Content-Encoding': 'deflate' }],
        ];
        for (const [what, body, headers] of parseFailures) {
          const r = await rawRequest(f.url, 'POST', collectorPath(p.id, 'store', `sentry_key=${key}`), { headers, body });
          assert.deepEqual([r.status, r.body], [400, PARSE_FAILED], `store: ${what}`);
        }
        const unsupported: [string, unknown][] = [
          ['a JSON array', [1, 2]],
          ['a string', 'hello'],
          ['no exception and no message', { level: 'error' }],
          ['exception values not a list', { exception: { values: 'x' } }],
          ['exception without type or value', { exception: { values: [{ stacktrace: { frames: [] } }] } }],
          ['null', null],
        ];
        for (const [what, event] of unsupported) {
          const r = await store(f, p.id, key, JSON.stringify(event));
          assert.deepEqual([r.status, r.body], [400, UNSUPPORTED], `store: ${what}`);
        }
        const badEnvelopes: [string, Buffer][] = [
          ['empty body', Buffer.alloc(0)],
          ['header not JSON', Buffer.from('nope\n{"type":"event"}\n{}')],
          ['item header not JSON', Buffer.from('{}\n{type:event}\n{}')],
          ['item without type', Buffer.from('{}\n{"length":2}\n{}')],
          ['length past the end', Buffer.from('{}\n{"type":"event","length":999}\n{}')],
          ['negative length', Buffer.from('{}\n{"type":"event","length":-1}\n{}')],
          ['event payload not JSON', Buffer.from('{}\n{"type":"event"}\n{"exception":')],
          ['session payload not JSON', Buffer.from('{}\n{"type":"session"}\n{oops')],
        ];
        for (const [what, body] of badEnvelopes) {
          const r = await sendEnvelope(f, p.id, key, body);
          assert.deepEqual([r.status, r.body], [400, PARSE_FAILED], `envelope: ${what}`);
        }
        const r = await sendEnvelope(f, p.id, key, envelope({}, [{ type: 'event', payload: { level: 'info' } }]));
        assert.deepEqual([r.status, r.body], [400, UNSUPPORTED]);
        // Odd but valid shapes are stored, never a 500: wrong types, NUL bytes, lone surrogates, huge numbers.
        const odd: unknown[] = [
          { message: { formatted: 'formatted text', params: [1] }, user: 'not an object', release: 12, timestamp: 'yesterday', fingerprint: 'x' },
          { exception: [{ type: 'GoError', value: 'go sends a list' }], timestamp: 1e300, tags: [['a', 'b']] },
          { exception: { values: [{ type: 'Nul\u0000Error', value: 'has \u0000 nul and \ud800 lone surrogate', stacktrace: { frames: [null, 1, { lineno: 'x', function: 5, pre_context: [null, 3] }] } }] }, user: { id: { nested: true }, ip_address: '{{auto}}' } },
          { logentry: { message: 'user %s logged in', params: ['bob'] }, fingerprint: [{ weird: 1 }, null, '{{ default }}'], event_id: 'not-hex' },
          { exception: { values: [{ type: 'X'.repeat(100_000), value: 'v'.repeat(200_000) }] }, breadcrumbs: { values: Array.from({ length: 500 }, (_, i) => ({ message: `crumb ${i}`.repeat(50) })) } },
        ];
        for (const [i, event] of odd.entries()) {
          const r = await store(f, p.id, key, event);
          assert.equal(r.status, 200, `odd event ${i}: ${r.text}`);
          const env = await sendEnvelope(f, p.id, key, envelope({}, [{ type: 'event', payload: event }]));
          assert.equal(env.status, 200, `odd envelope ${i}: ${env.text}`);
        }
        const list = await errorsOf(p.id, '?per_page=100');
        assert.ok(list.body.some((e: any) => e.title === 'formatted text'));
        assert.ok(list.body.some((e: any) => e.title === 'GoError: go sends a list'));
        assert.ok(list.body.some((e: any) => e.type === 'NulError'));
      });
    });

    describe('grouping', () => {
      it('ten identical exceptions from three users are one error with 10 occurrences and 3 users; a message is its own error', async () => {
        const { project: p, key } = await trackedProject('grouping');
        const users = [{ id: 'u-1', email: 'one@example.com' }, { username: 'two' }, { email: 'three@example.com' }];
        for (let i = 0; i < 10; i++) {
          const event = exceptionEvent({ user: users[i % 3]!, release: i < 4 ? 'shop@1.0.0' : 'shop@1.1.0', timestamp: Date.parse(NOW) / 1000 - (10 - i) * 60 });
          const r = i % 2 ? await store(f, p.id, key, event) : await sendEnvelope(f, p.id, key, envelope({ event_id: event.event_id }, [{ type: 'event', payload: event }]));
          expectStatus(r, 200);
        }
        expectStatus(await store(f, p.id, key, messageEvent('hello from python')), 200);
        const list = (await errorsOf(p.id)).body;
        assert.equal(list.length, 2);
        const [message, error] = list; // last_seen order: the message came last
        assert.deepEqual(
          { ...error, id: 0, fingerprint: '', frequency: [], stack_trace: [] },
          {
            id: 0,
            fingerprint: '',
            title: 'TypeError: cart is empty',
            type: 'TypeError',
            message: 'cart is empty',
            culprit: 'checkout(checkout)',
            platform: 'node',
            status: 'unresolved',
            count: 10,
            user_count: 3,
            first_seen: new Date(Date.parse(NOW) - 10 * 60_000).toISOString(),
            last_seen: new Date(Date.parse(NOW) - 60_000).toISOString(),
            first_release: 'shop@1.0.0',
            last_release: 'shop@1.1.0',
            frequency: [],
            stack_trace: [],
            issue_iid: null,
          },
        );
        assert.match(error.fingerprint, /^[0-9a-f]{32}$/);
        assert.equal(error.frequency.length, 24);
        assert.deepEqual(error.frequency[23], ['2024-06-15T12:00:00.000Z', 10]);
        assert.deepEqual(error.frequency[0], ['2024-06-14T13:00:00.000Z', 0]);
        assert.deepEqual(error.stack_trace[2], {
          filename: '/app/src/checkout.js',
          abs_path: null,
          function: 'checkout',
          module: 'checkout',
          lineno: 42,
          colno: 11,
          in_app: true,
          context: [[40, 'function checkout(cart) {'], [41, '  const total = sum(cart);'], [42, "  throw new TypeError('cart is empty');"], [43, '}']],
        });
        assert.deepEqual([message.title, message.type, message.message, message.count, message.user_count, message.culprit], ['hello from python', null, 'hello from python', 1, 0, null]);
        const events = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/${error.id}/events?per_page=4`, { token: reporter.token });
        expectStatus(events, 200);
        assert.equal(events.headers.get('x-total'), '10');
        assert.equal(events.body.length, 4);
        assert.equal(events.body[0].timestamp, error.last_seen);
        assert.deepEqual(events.body[0].user, { id: 'u-1', username: null, email: 'one@example.com', ip_address: null });
        assert.equal(events.body[0].release, 'shop@1.1.0');
        assert.equal(events.body[0].payload.exception.values[0].type, 'TypeError');
      });

      it('different in-app frames split errors; line moves do not; SDK fingerprints (with {{ default }}) decide when given', async () => {
        const { project: p, key } = await trackedProject('fingerprints');
        const moved = NODE_FRAMES.map((fr) => ({ ...fr, lineno: (fr.lineno ?? 0) + 7, pre_context: undefined, post_context: undefined }));
        const elsewhere = NODE_FRAMES.map((fr, i) => (i === 2 ? { ...fr, function: 'pay', context_line: 'pay()' } : fr));
        for (const event of [
          exceptionEvent(),
          exceptionEvent({ frames: moved }), // same error: same function and source line, new line numbers
          exceptionEvent({ frames: elsewhere }), // another place
          exceptionEvent({ value: 'another message' }), // another message
          exceptionEvent({ fingerprint: ['checkout-failure'] }),
          exceptionEvent({ value: 'other text', fingerprint: ['checkout-failure'] }), // same custom fingerprint
          exceptionEvent({ fingerprint: ['{{ default }}', 'tenant-a'] }),
          exceptionEvent({ fingerprint: ['{{default}}', 'tenant-a'] }),
          exceptionEvent({ fingerprint: ['{{ default }}', 'tenant-b'] }),
        ]) {
          expectStatus(await store(f, p.id, key, event), 200);
        }
        const counts = (await errorsOf(p.id, '?sort=frequency')).body.map((e: any) => e.count);
        assert.deepEqual(counts, [2, 2, 2, 1, 1, 1]);
      });

      it("an error's stack trace is its newest event's: a newer event's replaces it, one arriving late that is older does not", async () => {
        const { project: p, key } = await trackedProject('stacks');
        const at = (minutesAgo: number) => (Date.parse(NOW) - minutesAgo * 60_000) / 1000;
        const framesCalling = (fn: string) => NODE_FRAMES.map((fr, i) => (i === 2 ? { ...fr, function: fn } : fr));
        const send = async (fn: string, minutesAgo: number) =>
          expectStatus(await store(f, p.id, key, exceptionEvent({ fingerprint: ['one-error'], frames: framesCalling(fn), timestamp: at(minutesAgo) })), 200);
        const stackCalls = async () => {
          const [error] = (await errorsOf(p.id)).body;
          return error.stack_trace[2].function;
        };
        await send('first', 30);
        assert.equal(await stackCalls(), 'first');
        await send('second', 20);
        assert.equal(await stackCalls(), 'second');
        await send('late', 25); // older than the newest: its stack is not the error's
        assert.equal(await stackCalls(), 'second');
        await send('second', 10); // the same stack again
        assert.equal(await stackCalls(), 'second');
        const [error] = (await errorsOf(p.id)).body;
        assert.equal(error.count, 4);
        const issue = await f.api('POST', `/forgelet/projects/${p.id}/error_tracking/errors/${error.id}/issue`, { token: maintainer.token });
        expectStatus(issue, 201);
        assert.match(issue.body.description, /second/);
      });
    });

    describe('reading and triage', () => {
      let p: any;
      let key: string;
      const ids: Record<string, number> = {};
      before(async () => {
        ({ project: p, key } = await trackedProject('triage'));
        const send = async (value: string, times: number, at: number) => {
          for (let i = 0; i < times; i++) expectStatus(await store(f, p.id, key, exceptionEvent({ value, timestamp: at / 1000 })), 200);
        };
        clock.set(new Date(Date.parse(NOW) - 5 * HOUR), true);
        await send('oldest', 1, Date.parse(NOW) - 5 * HOUR);
        clock.set(new Date(NOW), true);
        await send('busiest', 3, Date.parse(NOW) - 3 * HOUR);
        await send('latest', 2, Date.parse(NOW) - HOUR);
        for (const e of (await errorsOf(p.id)).body) ids[e.message] = e.id;
      });

      it('sorts by last_seen (default), first_seen and frequency; filters by search and status; paginates in SQL', async () => {
        const messages = async (query: string) => (await errorsOf(p.id, query)).body.map((e: any) => e.message);
        assert.deepEqual(await messages(''), ['latest', 'busiest', 'oldest']);
        assert.deepEqual(await messages('?sort=first_seen'), ['latest', 'busiest', 'oldest']);
        assert.deepEqual(await messages('?sort=frequency'), ['busiest', 'latest', 'oldest']);
        assert.deepEqual(await messages('?search=BUSI'), ['busiest']);
        assert.deepEqual(await messages('?search=100%25'), []);
        const page = await errorsOf(p.id, '?per_page=1&page=2&sort=frequency');
        assert.deepEqual(page.body.map((e: any) => e.message), ['latest']);
        assert.equal(page.headers.get('x-total'), '3');
        assert.match(page.headers.get('link')!, /sort=frequency/);
        const bad = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors?sort=loudest`, { token: reporter.token });
        expectStatus(bad, 400);
        assert.deepEqual(bad.body, { error: 'sort does not have a valid value' });
        const one = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/${ids.busiest}`, { token: reporter.token });
        expectStatus(one, 200);
        assert.deepEqual(one.body.frequency.filter(([, n]: [string, number]) => n > 0), [['2024-06-15T09:00:00.000Z', 3]]);
        const missing = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/999999`, { token: reporter.token });
        expectStatus(missing, 404);
        assert.deepEqual(missing.body, { message: '404 Error Not Found' });
        // Another project's error is not found here.
        expectStatus(await f.api('GET', `/forgelet/projects/${project.id}/error_tracking/errors/${ids.busiest}`, { token: reporter.token }), 404);
      });

      it('Reporters set the status; a resolved error that happens again is unresolved; Guests and strangers are refused', async () => {
        const path = `/forgelet/projects/${p.id}/error_tracking/errors/${ids.oldest}`;
        const resolved = await f.api('PUT', path, { token: reporter.token, body: { status: 'resolved' } });
        expectStatus(resolved, 200);
        assert.equal(resolved.body.status, 'resolved');
        assert.deepEqual((await errorsOf(p.id, '?status=resolved')).body.map((e: any) => e.message), ['oldest']);
        const ignored = await f.api('PUT', `/forgelet/projects/${p.id}/error_tracking/errors/${ids.latest}`, { token: reporter.token, body: { status: 'ignored' } });
        assert.equal(ignored.body.status, 'ignored');
        expectStatus(await store(f, p.id, key, exceptionEvent({ value: 'oldest' })), 200);
        expectStatus(await store(f, p.id, key, exceptionEvent({ value: 'latest' })), 200);
        const after = await f.api('GET', path, { token: reporter.token });
        assert.deepEqual([after.body.status, after.body.count], ['unresolved', 2]);
        assert.equal((await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/${ids.latest}`, { token: reporter.token })).body.status, 'ignored');
        const invalid = await f.api('PUT', path, { token: reporter.token, body: { status: 'fixed' } });
        expectStatus(invalid, 400);
        assert.deepEqual(invalid.body, { error: 'status does not have a valid value' });
        const byGuest = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors`, { token: guest.token });
        expectStatus(byGuest, 403);
        expectStatus(await f.api('PUT', path, { token: guest.token, body: { status: 'resolved' } }), 403);
        const byOutsider = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors`, { token: outsider.token });
        expectStatus(byOutsider, 404);
        assert.deepEqual(byOutsider.body, { message: '404 Project Not Found' });
        expectStatus(await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors`, { token: null }), 401);
      });

      it('creates an issue from an error: its description holds the stack trace and links back; the error shows issue_iid', async () => {
        const path = `/forgelet/projects/${p.id}/error_tracking/errors/${ids.busiest}`;
        expectStatus(await f.api('POST', `${path}/issue`, { token: guest.token }), 403);
        const r = await f.api('POST', `${path}/issue`, { token: reporter.token });
        expectStatus(r, 201);
        assert.equal(r.body.title, 'TypeError: busiest');
        assert.equal(r.body.author.username, reporter.username);
        const description: string = r.body.description;
        assert.ok(description.includes(`[TypeError: busiest](${f.url}/api/v4${path})`), description);
        assert.ok(description.includes('```\nTypeError: busiest\n  at run (node:internal/main:100:5)\n  at handle (/app/src/server.js:20:3)\n      return checkout(cart);\n  at checkout (/app/src/checkout.js:42:11)\n      throw new TypeError(\'cart is empty\');\n```'), description);
        assert.ok(description.includes('- **Events:** 3'), description);
        const error = await f.api('GET', path, { token: reporter.token });
        assert.equal(error.body.issue_iid, r.body.iid);
        const issue = await f.api('GET', `/projects/${p.id}/issues/${r.body.iid}`, { token: reporter.token });
        assert.equal(issue.body.description, description);
        const again = await f.api('POST', `${path}/issue`, { token: reporter.token });
        expectStatus(again, 409);
        assert.deepEqual(again.body, { message: `An issue already exists for this error: #${r.body.iid}` });
        // Once the issue is deleted the error can have a new one.
        expectStatus(await f.api('DELETE', `/projects/${p.id}/issues/${r.body.iid}`), 204);
        assert.equal((await f.api('GET', path, { token: reporter.token })).body.issue_iid, null);
        expectStatus(await f.api('POST', `${path}/issue`, { token: reporter.token }), 201);
      });
    });

    describe('retention', () => {
      it('the worker purges events older than 90 days and errors not seen for 90 days (injected clock)', async () => {
        const { project: p, key } = await trackedProject('retention');
        clock.set(new Date('2024-07-01T00:00:00.000Z'), true);
        expectStatus(await store(f, p.id, key, exceptionEvent({ value: 'old only' })), 200);
        expectStatus(await store(f, p.id, key, exceptionEvent({ value: 'old and new' })), 200);
        clock.set(new Date('2024-09-15T00:00:00.000Z'), true);
        expectStatus(await store(f, p.id, key, exceptionEvent({ value: 'old and new' })), 200);
        clock.set(new Date('2024-10-04T00:00:00.000Z'), true); // 95 days after the first events
        await f.forge.deps.queue.runDue();
        const list = (await errorsOf(p.id)).body;
        assert.deepEqual(list.map((e: any) => [e.message, e.count]), [['old and new', 2]]);
        const events = await f.api('GET', `/forgelet/projects/${p.id}/error_tracking/errors/${list[0].id}/events`, { token: reporter.token });
        assert.deepEqual(events.body.map((e: any) => e.timestamp), ['2024-09-15T00:00:00.000Z']);
        // The job stays scheduled: a day later it runs again.
        const job = await f.forge.database.db.selectFrom('queue_jobs').select(['run_at', 'status']).where('kind', '=', 'error_tracking.purge').executeTakeFirstOrThrow();
        assert.deepEqual(job, { run_at: '2024-10-05T00:00:00.000Z', status: 'pending' });
        clock.set(new Date(NOW), true);
      });
    });
  });
}
