/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet: every route of project hooks (list, get, create, save/update, delete, test trigger,
 * custom headers, URL variables, recent deliveries with a status filter, resend), group hooks
 * and system hooks (create, list, get, update, test, custom headers, URL variables, delete). What
 * python-gitlab has no method for goes through its http layer (python_gitlab_hooks.py says which).
 * A local receiver checks the real deliveries: GitLab's headers, the token, custom headers, the
 * URL variable filled in, the payload; and a target answering 500: each event sent once, the hook
 * temporarily disabled after 4 failures (alert_status, disabled_until), the backoff doubling, an
 * edit enabling it again.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { assertGitlabDelivery, FAIL_BODY, T0 } from './hooks-support.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_hooks.py', import.meta.url));
const skip = toolSkip('python-gitlab', probePythonGitlab());

const KEYS_STEP = {
  set_header: 204,
  set_variable: 204,
  unset_header: 204,
  unset_variable: 204,
  unset_missing: { type: 'GitlabHttpError', response_code: 404, error_message: '404 Custom header Not Found' },
  bad_key: { type: 'GitlabHttpError', response_code: 422, error_message: 'Illegal key or value' },
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 hooks`, { skip }, () => {
    let f: ServedForgelet;
    let rx: HookReceiver;
    let results: Record<string, PythonStep>;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };
    const at = (path: string) => rx.deliveries.filter((d) => d.path === path);

    before(async () => {
      f = await startServed(dialect, { clock: { now: T0 } });
      rx = await hookReceiver();
      rx.answerAt('/py-fail', 500, FAIL_BODY);
      results = (await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken, RECEIVER_URL: rx.url })).results;
    });
    after(async () => {
      await f?.stop();
      await rx?.close();
    });

    it('project hooks: create, list, get, save, update, custom headers, URL variables, test, deliveries, resend, refusals, delete', async () => {
      const setup = stepOf('setup');
      const s = stepOf('project_hooks');
      assert.equal(s.created.url, `${rx.url}/py/{tenant}`);
      assert.equal(s.created.project_id, setup.project);
      assert.deepEqual([s.created.issues_events, s.created.push_events, s.created.note_events], [true, false, false]);
      assert.deepEqual(s.created.url_variables, [{ key: 'tenant' }]);
      assert.deepEqual(s.created.custom_headers, [{ key: 'X-Py-Created' }]);
      assert.equal('token' in s.created, false, 'the token is never answered');
      assert.doesNotMatch(JSON.stringify(s), /py-token|acme|globex|at-create/, 'no secret value in any answer');
      assert.deepEqual(s.listed, [s.created.id]);
      assert.deepEqual(s.shown, s.created);
      assert.equal(s.saved.note_events, true);
      assert.deepEqual([s.updated.note_events, s.updated.confidential_issues_events], [true, true]);
      assert.deepEqual([s.header_status, s.variable_status], [204, 204]);

      // The issue event, through the URL variable set after creation, with both custom headers.
      const [event, test, resend] = at('/py/globex');
      assert.ok(event && test && resend, `three deliveries to /py/globex (${at('/py/globex').length})`);
      assert.equal(at('/py/acme').length, 0, 'the URL variable set through the API is used');
      const version = (await f.api<{ version: string }>('GET', '/version')).body.version;
      assertGitlabDelivery(event, { event: 'Issue Hook', token: 'py-token', instance: f.url, version });
      assert.equal(event.headers['x-py'], '1');
      assert.equal(event.headers['x-py-created'], 'at-create');
      assert.equal(event.body.object_kind, 'issue');
      assert.equal(event.body.event_type, 'issue');
      assert.equal(event.body.user.username, 'root');
      assert.deepEqual([event.body.project.id, event.body.project.path_with_namespace], [setup.project, setup.project_path]);
      assert.deepEqual(
        [event.body.object_attributes.iid, event.body.object_attributes.title, event.body.object_attributes.action, event.body.object_attributes.state],
        [s.issue_iid, 'from python', 'open', 'opened'],
      );
      // The test sample is built from the first issue; the resend repeats the issue event.
      assert.deepEqual(s.tested, { message: '201 Created' });
      assertGitlabDelivery(test, { event: 'Issue Hook', token: 'py-token', instance: f.url, version });
      assert.equal(test.body.object_attributes.iid, setup.seed_iid);
      assert.deepEqual(s.resent, { response_status: 200 });
      assert.deepEqual(resend.body, event.body);
      assert.equal(resend.headers['idempotency-key'], event.headers['idempotency-key'], 'a resend keeps the Idempotency-Key');
      assert.notEqual(resend.headers['x-gitlab-event-uuid'], event.headers['x-gitlab-event-uuid']);

      // The delivery log, newest first: what was sent (secrets redacted) and what came back.
      assert.deepEqual(s.events.map((e: any) => [e.trigger, e.response_status]), [['issue_hooks', '200'], ['issue_hooks', '200'], ['issue_hooks', '200']]);
      const logged = s.events.at(-1);
      assert.equal(logged.url, `${rx.url}/py/{tenant}`);
      assert.deepEqual(
        [logged.request_headers['X-Gitlab-Token'], logged.request_headers['X-Py'], logged.request_headers['X-Gitlab-Event']],
        ['[REDACTED]', '[REDACTED]', 'Issue Hook'],
      );
      assert.equal(logged.request_data.object_attributes.title, 'from python');
      assert.equal(logged.response_body, '{"ok":true}');
      assert.deepEqual([s.successful, s.server_failure], [3, 0]);

      assert.deepEqual(s.variable_in_use, { type: 'GitlabHttpError', response_code: 422, error_message: 'Could not unset variable' });
      assert.deepEqual(s.keys, {
        ...KEYS_STEP,
        with_keys: { custom_headers: [{ key: 'X-Py-Created' }, { key: 'X-Py' }, { key: 'X-Extra' }], url_variables: [{ key: 'tenant' }, { key: 'spare' }] },
        after: { custom_headers: [{ key: 'X-Py-Created' }, { key: 'X-Py' }], url_variables: [{ key: 'tenant' }] },
      });
      assert.deepEqual(s.unknown_trigger, { type: 'GitlabHttpError', response_code: 400, error_message: 'trigger does not have a valid value' });
      assert.deepEqual(s.missing_url, { type: 'GitlabHttpError', response_code: 400, error_message: 'url is missing' });
      assert.deepEqual(s.bad_url, { type: 'GitlabCreateError', response_code: 422, error_message: 'Invalid url given' });
      assert.deepEqual(s.unknown_event, { type: 'GitlabHttpError', response_code: 404, error_message: '404 Not found' });

      const del = stepOf('delete_project_hook');
      assert.deepEqual(del.after, [`${rx.url}/py-fail`]);
      assert.deepEqual(del.get_deleted, { type: 'GitlabGetError', response_code: 404, error_message: '404 Not found' });
    });

    it('a failing target: each event sent once, disabled after 4 failures in a row, backoff doubling, enabled again by an edit', async () => {
      const s = stepOf('failing_target');
      assert.deepEqual(s.events, Array.from({ length: 4 }, () => ({ trigger: 'issue_hooks', response_status: '500', response_body: FAIL_BODY })));
      // Frozen at T0: 1 minute after the fourth failure.
      assert.deepEqual(s.after_four, { alert_status: 'temporarily_disabled', disabled_until: '2026-03-02T10:01:00.000Z' });
      assert.equal(s.while_disabled, 4, 'the event raised while disabled is not delivered');
      assert.deepEqual(s.test_disabled, { type: 'GitlabHttpError', response_code: 422, error_message: FAIL_BODY });
      assert.equal(s.clock, '2026-03-02T10:02:00.000Z');
      assert.deepEqual(s.after_backoff, { alert_status: 'executable', disabled_until: '2026-03-02T10:01:00.000Z' });
      assert.equal(s.events_after, 6, '4 events, the test, the next event');
      assert.deepEqual(s.after_five, { alert_status: 'temporarily_disabled', disabled_until: '2026-03-02T10:04:00.000Z' }, 'the backoff doubles');
      assert.deepEqual(s.edited, { alert_status: 'executable', disabled_until: null });
      // What reached the target: no event twice, none of the one raised while disabled, even after the backoff.
      const titles = at('/py-fail').map((d) => d.body.object_attributes.title);
      assert.deepEqual(titles, ['fail 0', 'fail 1', 'fail 2', 'fail 3', 'seed issue', 'fail 5']);
    });

    it('group hooks: create, list, get, save, update, test, deliveries, resend, custom headers, URL variables, delete', async () => {
      const setup = stepOf('setup');
      const g = stepOf('group_hooks');
      assert.equal(g.created.group_id, setup.group);
      assert.deepEqual([g.created.subgroup_events, g.created.issues_events], [true, true]);
      assert.deepEqual(g.listed, [g.created.id]);
      assert.equal(g.shown.id, g.created.id);
      assert.equal(g.saved_note_events, true);
      assert.deepEqual([g.updated.member_events, g.updated.note_events], [true, true]);
      assert.deepEqual(g.tested, { message: '201 Created' });
      assert.deepEqual(g.resent, { response_status: 200 });
      assert.deepEqual(g.events, [['issue_hooks', '200'], ['issue_hooks', '200']].map(([trigger, response_status]) => ({ trigger, response_status })));
      assert.deepEqual(g.keys, {
        ...KEYS_STEP,
        with_keys: { custom_headers: [{ key: 'X-Extra' }], url_variables: [{ key: 'spare' }] },
        after: { custom_headers: [], url_variables: [] },
      });
      assert.deepEqual(g.after, []);
      const got = at('/py-group');
      assert.equal(got.length, 2);
      const version = (await f.api<{ version: string }>('GET', '/version')).body.version;
      for (const d of got) assertGitlabDelivery(d, { event: 'Issue Hook', token: 'grp', instance: f.url, version });
      assert.equal(got[0]!.body.object_attributes.iid, setup.seed_iid);
    });

    it('system hooks: create, list, get, update (http layer), test, custom headers, URL variables, delete', async () => {
      const sys = stepOf('system_hooks');
      assert.deepEqual([sys.created.merge_requests_events, sys.created.push_events], [true, false]);
      assert.equal('project_id' in sys.created, false);
      assert.deepEqual(sys.listed, [sys.created.id]);
      assert.deepEqual(sys.shown, sys.created);
      assert.deepEqual([sys.updated.tag_push_events, sys.updated.name], [true, 'py system']);
      assert.equal(sys.tested.event_name, 'project_create');
      assert.deepEqual(sys.keys, {
        ...KEYS_STEP,
        with_keys: { custom_headers: [{ key: 'X-Extra' }], url_variables: [{ key: 'spare' }] },
        after: { custom_headers: [], url_variables: [] },
      });
      assert.deepEqual(sys.after, []);
      assert.deepEqual(sys.get_deleted, { type: 'GitlabGetError', response_code: 404, error_message: '404 Not found' });
      const [test] = at('/py-system');
      const version = (await f.api<{ version: string }>('GET', '/version')).body.version;
      assertGitlabDelivery(test!, { event: 'System Hook', token: 'sys', instance: f.url, version });
      assert.deepEqual(test!.body, sys.tested);
    });
  });
}
