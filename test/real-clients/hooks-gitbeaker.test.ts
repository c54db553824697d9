/**
 * @gitbeaker/rest 43.8.0 against the served Forgelet: every route of project, group and system
 * hooks. ProjectHooks and GroupHooks have add, all, show, edit and remove; SystemHooks has add,
 * all, test and remove. gitbeaker has no method for the test triggers, custom headers, URL
 * variables, recent deliveries, resend, or a system hook's show and edit (its SystemHooks.show
 * POSTs `hooks/:id`, which is GitLab's test route), so those go through its requester. A local
 * receiver checks the deliveries (GitLab's headers, token, custom headers, URL variable, payload),
 * and a target answering 500: each event sent once, the hook disabled after 4 failures, nothing
 * delivered later.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { gitbeakerFailure } from './support.js';
import { assertGitlabDelivery, FAIL_BODY, T0 } from './hooks-support.js';

type Client = InstanceType<typeof Gitlab>;
type Json = Record<string, any>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitbeaker 43.8 hooks`, () => {
    let f: ServedForgelet;
    let api: Client;
    let rx: HookReceiver;
    let version: string;
    let project: { id: number; path_with_namespace: string };
    let group: { id: number; full_path: string };
    let seed: { iid: number };
    const at = (path: string) => rx.deliveries.filter((d) => d.path === path);

    /** The hook's recent deliveries once there are `atLeast` (running due jobs meanwhile). */
    const events = (base: string, hookId: number, atLeast: number, searchParams?: Record<string, string>) =>
      until(`${atLeast} deliveries of ${base}/hooks/${hookId}`, async () => {
        await f.runDue();
        const list = (await api.requester.get(`${base}/hooks/${hookId}/events`, { searchParams })).body as Json[];
        return list.length >= atLeast ? list : false;
      });

    /** Custom headers and URL variables set and unset through the requester; the key lists the hook shows (`base` '' for system hooks). */
    async function keysRoundTrip(base: string, hookId: number): Promise<Json> {
      const hook = base ? `${base}/hooks/${hookId}` : `hooks/${hookId}`;
      const keys = async () => {
        const h = (await api.requester.get(hook)).body as Json;
        return { custom_headers: h.custom_headers, url_variables: h.url_variables };
      };
      const statuses = [
        (await api.requester.put(`${hook}/custom_headers/X-Extra`, { body: { value: 'extra' } })).status,
        (await api.requester.put(`${hook}/url_variables/spare`, { body: { value: 'v1' } })).status,
      ];
      const withKeys = await keys();
      statuses.push((await api.requester.delete(`${hook}/custom_headers/X-Extra`)).status, (await api.requester.delete(`${hook}/url_variables/spare`)).status);
      return {
        statuses,
        withKeys,
        after: await keys(),
        unsetMissing: await gitbeakerFailure(api.requester.delete(`${hook}/url_variables/spare`)),
        badKey: await gitbeakerFailure(api.requester.put(`${hook}/custom_headers/${encodeURIComponent('bad header')}`, { body: { value: 'x' } })),
      };
    }
    const KEYS_ROUND_TRIP = {
      statuses: [204, 204, 204, 204],
      unsetMissing: { status: 404, message: '404 URL variable Not Found' },
      badKey: { status: 422, message: 'Illegal key or value' },
    };

    before(async () => {
      f = await startServed(dialect, { clock: { now: T0 } });
      api = new Gitlab({ host: f.url, token: f.rootToken });
      rx = await hookReceiver();
      rx.answerAt('/gb-fail', 500, FAIL_BODY);
      version = (await f.api<{ version: string }>('GET', '/version')).body.version;
      group = (await api.Groups.create('Beaker', 'beaker')) as unknown as typeof group;
      project = (await api.Projects.create({ name: 'bot', namespaceId: group.id })) as unknown as typeof project;
      seed = (await api.Issues.create(project.id, 'seed issue')) as unknown as typeof seed;
    });
    after(async () => {
      await f?.stop();
      await rx?.close();
    });

    it('ProjectHooks: add, all, show, edit, remove; test, custom headers, URL variables, deliveries, resend through the requester', async () => {
      const base = `projects/${project.id}`;
      const hook = (await api.ProjectHooks.add(project.path_with_namespace, `${rx.url}/gb/{tenant}`, {
        issuesEvents: true,
        pushEvents: false,
        token: 'gb-token',
        urlVariables: [{ key: 'tenant', value: 'acme' }],
        customHeaders: [{ key: 'X-Gb-Created', value: 'at-create' }],
      } as never)) as Json; // urlVariables and customHeaders are missing from gitbeaker 43.8's types, not from what it sends
      assert.equal(hook.project_id, project.id);
      assert.deepEqual([hook.issues_events, hook.push_events], [true, false]);
      assert.deepEqual([hook.url_variables, hook.custom_headers], [[{ key: 'tenant' }], [{ key: 'X-Gb-Created' }]]);
      assert.equal('token' in hook, false);
      assert.deepEqual((await api.ProjectHooks.all(project.id)).map((h) => h.id), [hook.id]);
      assert.deepEqual(await api.ProjectHooks.show(project.id, hook.id), hook);
      const edited = (await api.ProjectHooks.edit(project.id, hook.id, `${rx.url}/gb/{tenant}`, { noteEvents: true })) as Json;
      assert.deepEqual([edited.note_events, edited.url_variables], [true, [{ key: 'tenant' }]]);
      assert.equal((await api.requester.put(`${base}/hooks/${hook.id}/url_variables/tenant`, { body: { value: 'globex' } })).status, 204);
      assert.equal((await api.requester.put(`${base}/hooks/${hook.id}/custom_headers/X-Gb`, { body: { value: '1' } })).status, 204);

      const issue = (await api.Issues.create(project.id, 'from gitbeaker')) as Json;
      const [first] = await events(base, hook.id, 1);
      const [event] = at('/gb/globex');
      assert.ok(event, 'the issue event reached the URL with the variable filled in');
      assertGitlabDelivery(event, { event: 'Issue Hook', token: 'gb-token', instance: f.url, version });
      assert.deepEqual([event.headers['x-gb'], event.headers['x-gb-created']], ['1', 'at-create']);
      assert.deepEqual([event.body.object_kind, event.body.project.id, event.body.user.username], ['issue', project.id, 'root']);
      assert.deepEqual([event.body.object_attributes.iid, event.body.object_attributes.title, event.body.object_attributes.action], [issue.iid, 'from gitbeaker', 'open']);
      assert.deepEqual([first!.trigger, first!.response_status, first!.request_headers['X-Gitlab-Token']], ['issue_hooks', '200', '[REDACTED]']);

      const tested = await api.requester.post(`${base}/hooks/${hook.id}/test/issues_events`);
      assert.deepEqual([tested.status, tested.body], [201, { message: '201 Created' }]);
      assert.equal(at('/gb/globex')[1]!.body.object_attributes.iid, seed.iid, 'the sample is the first issue');
      const resent = await api.requester.post(`${base}/hooks/${hook.id}/events/${first!.id}/resend`);
      assert.deepEqual([resent.status, resent.body], [201, { response_status: 200 }]);
      const again = at('/gb/globex')[2]!;
      assert.deepEqual(again.body, event.body);
      assert.equal(again.headers['idempotency-key'], event.headers['idempotency-key']);
      assert.equal((await events(base, hook.id, 3)).length, 3);
      assert.deepEqual((await api.requester.get(`${base}/hooks/${hook.id}/events`, { searchParams: { status: 'client_failure' } })).body, []);
      const unknownEvent = await gitbeakerFailure(api.requester.post(`${base}/hooks/${hook.id}/events/999999/resend`));
      assert.deepEqual(unknownEvent, { status: 404, message: '404 Not found' });

      const inUse = await gitbeakerFailure(api.requester.delete(`${base}/hooks/${hook.id}/url_variables/tenant`));
      assert.deepEqual(inUse, { status: 422, message: 'Could not unset variable' });
      assert.deepEqual(await keysRoundTrip(base, hook.id), {
        ...KEYS_ROUND_TRIP,
        withKeys: { custom_headers: [{ key: 'X-Gb-Created' }, { key: 'X-Gb' }, { key: 'X-Extra' }], url_variables: [{ key: 'tenant' }, { key: 'spare' }] },
        after: { custom_headers: [{ key: 'X-Gb-Created' }, { key: 'X-Gb' }], url_variables: [{ key: 'tenant' }] },
      });

      assert.deepEqual(await gitbeakerFailure(api.ProjectHooks.add(project.id, 'ftp://example.com/x')), { status: 422, message: 'Invalid url given' });
      assert.deepEqual(await gitbeakerFailure(api.requester.post(`${base}/hooks/${hook.id}/test/nothing_events`)), {
        status: 400,
        message: 'trigger does not have a valid value',
      });
      await api.ProjectHooks.remove(project.id, hook.id);
      assert.deepEqual(await api.ProjectHooks.all(project.id), []);
      assert.deepEqual(await gitbeakerFailure(api.ProjectHooks.show(project.id, hook.id)), { status: 404, message: '404 Not found' });
    });

    it('GroupHooks: add, all, show, edit, remove; test, deliveries, resend, custom headers, URL variables through the requester', async () => {
      const base = `groups/${group.id}`;
      const hook = (await api.GroupHooks.add(group.full_path, `${rx.url}/gb-group`, { issuesEvents: true, subgroupEvents: true, pushEvents: false, token: 'grp' })) as Json;
      assert.deepEqual([hook.group_id, hook.subgroup_events], [group.id, true]);
      assert.deepEqual((await api.GroupHooks.all(group.id)).map((h) => h.id), [hook.id]);
      assert.deepEqual(await api.GroupHooks.show(group.id, hook.id), hook);
      assert.equal(((await api.GroupHooks.edit(group.id, hook.id, `${rx.url}/gb-group`, { memberEvents: true } as never)) as Json).member_events, true);
      const tested = await api.requester.post(`${base}/hooks/${hook.id}/test/issues_events`);
      assert.deepEqual([tested.status, tested.body], [201, { message: '201 Created' }]);
      const [logged] = await events(base, hook.id, 1);
      assert.deepEqual((await api.requester.post(`${base}/hooks/${hook.id}/events/${logged!.id}/resend`)).body, { response_status: 200 });
      assert.deepEqual((await events(base, hook.id, 2)).map((e) => e.response_status), ['200', '200']);
      const got = at('/gb-group');
      assert.equal(got.length, 2);
      for (const d of got) assertGitlabDelivery(d, { event: 'Issue Hook', token: 'grp', instance: f.url, version });
      assert.equal(got[0]!.body.object_attributes.iid, seed.iid);
      assert.deepEqual(await keysRoundTrip(base, hook.id), {
        ...KEYS_ROUND_TRIP,
        withKeys: { custom_headers: [{ key: 'X-Extra' }], url_variables: [{ key: 'spare' }] },
        after: { custom_headers: [], url_variables: [] },
      });
      await api.GroupHooks.remove(group.id, hook.id);
      assert.deepEqual(await api.GroupHooks.all(group.id), []);
    });

    it('SystemHooks: add, all, test, remove; show, edit, custom headers, URL variables through the requester', async () => {
      const sys = (await api.SystemHooks.add(`${rx.url}/gb-system`, { mergeRequestsEvents: true, pushEvents: false, token: 'sys' } as never)) as Json;
      assert.deepEqual([sys.merge_requests_events, sys.push_events], [true, false]);
      assert.deepEqual((await api.SystemHooks.all()).map((h) => h.id), [sys.id]);
      assert.deepEqual((await api.requester.get(`hooks/${sys.id}`)).body, sys);
      const edited = (await api.requester.put(`hooks/${sys.id}`, { body: { tag_push_events: true, name: 'gb system' } })).body as Json;
      assert.deepEqual([edited.tag_push_events, edited.name], [true, 'gb system']);
      const tested = (await api.SystemHooks.test(sys.id)) as Json;
      assert.equal(tested.event_name, 'project_create');
      const [test] = at('/gb-system');
      assertGitlabDelivery(test!, { event: 'System Hook', token: 'sys', instance: f.url, version });
      assert.deepEqual(test!.body, tested);
      assert.deepEqual(await keysRoundTrip('', sys.id), {
        ...KEYS_ROUND_TRIP,
        withKeys: { custom_headers: [{ key: 'X-Extra' }], url_variables: [{ key: 'spare' }] },
        after: { custom_headers: [], url_variables: [] },
      });
      await api.SystemHooks.remove(sys.id);
      assert.deepEqual(await api.SystemHooks.all(), []);
    });

    it('a target answering 500: each event sent once, temporarily disabled after 4 failures, nothing sent later', async () => {
      const base = `projects/${project.id}`;
      const hook = (await api.ProjectHooks.add(project.id, `${rx.url}/gb-fail`, { issuesEvents: true, pushEvents: false })) as Json;
      for (let i = 0; i < 4; i++) await api.Issues.create(project.id, `fail ${i}`);
      const logged = await events(base, hook.id, 4);
      assert.deepEqual(logged.map((e) => [e.response_status, e.response_body]), Array.from({ length: 4 }, () => ['500', FAIL_BODY]));
      const shown = (await api.ProjectHooks.show(project.id, hook.id)) as Json;
      assert.deepEqual([shown.alert_status, shown.disabled_until], ['temporarily_disabled', '2026-03-02T10:01:00.000Z']);
      await api.Issues.create(project.id, 'while disabled');
      await f.clock.advance(3600); // past the backoff: nothing is retried or caught up
      assert.deepEqual(at('/gb-fail').map((d) => d.body.object_attributes.title), ['fail 0', 'fail 1', 'fail 2', 'fail 3']);
      assert.equal(((await api.ProjectHooks.show(project.id, hook.id)) as Json).alert_status, 'executable');
    });
  });
}
