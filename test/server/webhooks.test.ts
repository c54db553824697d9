/**
 * Project, group and system hooks over HTTP (GitLab's API::ProjectHooks, GroupHooks,
 * SystemHooks): entities, validation, permissions, custom headers and URL variables; and the
 * issue, comment and merge request events delivered to a loopback receiver with GitLab's
 * headers and payloads (fields checked against GitLab's data builders).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, expectStatus, uniq } from './http.js';
import { hookReceiver, type HookReceiver } from './webhooks-support.js';

const PROJECT_HOOK_KEYS = [
  'id', 'url', 'name', 'description', 'created_at', 'push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events',
  'enable_ssl_verification', 'alert_status', 'disabled_until', 'url_variables', 'push_events_branch_filter', 'branch_filter_strategy',
  'custom_webhook_template', 'custom_headers', 'project_id', 'issues_events', 'confidential_issues_events', 'note_events',
  'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'feature_flag_events', 'job_events',
  'releases_events', 'milestone_events', 'emoji_events', 'resource_access_token_events', 'resource_deploy_token_events', 'vulnerability_events',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const dialect of DIALECTS) {
  describe(`${dialect}: webhooks`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let rx: HookReceiver;
    let project: any;
    let dev: { id: number; username: string; token: string };
    let maintainer: { id: number; username: string; token: string };
    const runDue = () => f.forge.deps.queue.runDue();
    const hooks = (p = project.id) => `/projects/${p}/hooks`;

    before(async () => {
      clock = fixedClock('2026-03-02T10:00:00.000Z');
      f = await startTestServer(dialect, { clock, workers: false, testMode: true });
      rx = await hookReceiver();
      project = await createProject(f, f.rootToken, { name: uniq('bot-'), initialize_with_readme: true });
      dev = await f.createUser(uniq('dev'));
      maintainer = await f.createUser(uniq('mnt'));
      await addMember(f, 'projects', project.id, dev.id, 30);
      await addMember(f, 'projects', project.id, maintainer.id, 40);
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    it('adds, shows, lists, edits and deletes project hooks as GitLab (Maintainer; secrets never answered)', async () => {
      const add = await f.api('POST', hooks(), {
        token: maintainer.token,
        body: {
          url: `${rx.url}/crud/{path}`, token: 's3cret', issues_events: true, name: 'bot', description: 'the bot',
          url_variables: [{ key: 'path', value: 'hidden-path' }], custom_headers: [{ key: 'X-Bot', value: 'hidden-value' }],
        },
      });
      expectStatus(add, 201);
      assert.deepEqual(Object.keys(add.body).sort(), [...PROJECT_HOOK_KEYS].sort());
      assert.equal(add.body.url, `${rx.url}/crud/{path}`);
      assert.equal(add.body.push_events, true, 'push events are on by default');
      assert.equal(add.body.issues_events, true);
      assert.equal(add.body.enable_ssl_verification, true);
      assert.equal(add.body.alert_status, 'executable');
      assert.equal(add.body.disabled_until, null);
      assert.deepEqual(add.body.url_variables, [{ key: 'path' }]);
      assert.deepEqual(add.body.custom_headers, [{ key: 'X-Bot' }]);
      assert.equal(add.body.branch_filter_strategy, 'wildcard');
      assert.doesNotMatch(add.text, /s3cret|hidden-path|hidden-value/);
      const id = add.body.id;

      const got = await f.api('GET', `${hooks()}/${id}`, { token: maintainer.token });
      expectStatus(got, 200);
      assert.deepEqual(got.body, add.body);
      const list = await f.api('GET', hooks(), { token: maintainer.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((h: any) => h.id), [id]);
      assert.equal(list.headers.get('x-total'), '1');

      const edit = await f.api('PUT', `${hooks()}/${id}`, { token: maintainer.token, body: { push_events: false, note_events: true } });
      expectStatus(edit, 200);
      assert.equal(edit.body.push_events, false);
      assert.equal(edit.body.note_events, true);
      assert.deepEqual(edit.body.url_variables, [{ key: 'path' }], 'variables stay while the URL stays');

      // Custom headers and URL variables one by one.
      expectStatus(await f.api('PUT', `${hooks()}/${id}/custom_headers/X-Other`, { token: maintainer.token, body: { value: 'v2' } }), 204);
      expectStatus(await f.api('DELETE', `${hooks()}/${id}/custom_headers/X-Bot`, { token: maintainer.token }), 204);
      const missingHeader = await f.api('DELETE', `${hooks()}/${id}/custom_headers/X-Bot`, { token: maintainer.token });
      expectStatus(missingHeader, 404);
      assert.deepEqual(missingHeader.body, { message: '404 Custom header Not Found' });
      expectStatus(await f.api('PUT', `${hooks()}/${id}/url_variables/extra`, { token: maintainer.token, body: { value: 'x' } }), 204);
      const badVar = await f.api('PUT', `${hooks()}/${id}/url_variables/${encodeURIComponent('bad key!')}`, { token: maintainer.token, body: { value: 'x' } });
      expectStatus(badVar, 422);
      assert.deepEqual(badVar.body, { message: 'Illegal key or value' });
      expectStatus(await f.api('DELETE', `${hooks()}/${id}/url_variables/extra`, { token: maintainer.token }), 204);
      const missingVar = await f.api('DELETE', `${hooks()}/${id}/url_variables/extra`, { token: maintainer.token });
      assert.deepEqual([missingVar.status, missingVar.body], [404, { message: '404 URL variable Not Found' }]);
      const shown = (await f.api('GET', `${hooks()}/${id}`, { token: maintainer.token })).body;
      assert.deepEqual(shown.custom_headers, [{ key: 'X-Other' }]);
      assert.deepEqual(shown.url_variables, [{ key: 'path' }]);
      const inUse = await f.api('DELETE', `${hooks()}/${id}/url_variables/path`, { token: maintainer.token });
      assert.deepEqual([inUse.status, inUse.body], [422, { message: 'Could not unset variable' }], 'the URL still uses {path}');

      // A new URL without its variable is refused; with a new URL the old token and variables go.
      const unresolved = await f.api('PUT', `${hooks()}/${id}`, { token: maintainer.token, body: { url: `${rx.url}/{missing}` } });
      assert.deepEqual([unresolved.status, unresolved.body], [422, { message: 'Invalid url given' }]);
      const moved = await f.api('PUT', `${hooks()}/${id}`, { token: maintainer.token, body: { url: `${rx.url}/moved` } });
      expectStatus(moved, 200);
      assert.deepEqual(moved.body.url_variables, []);
      const row = await f.forge.database.db.selectFrom('web_hooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.token_encrypted, null, 'the token is reset with the URL');
      assert.doesNotMatch(row.url_encrypted, /moved/, 'the URL is sealed at rest');

      expectStatus(await f.api('DELETE', `${hooks()}/${id}`, { token: maintainer.token }), 204);
      const gone = await f.api('GET', `${hooks()}/${id}`, { token: maintainer.token });
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Not found' }]);
    });

    it('validates as GitLab: url required and http(s), no empty edit, Maintainer only', async () => {
      const missing = await f.api('POST', hooks(), { body: { issues_events: true } });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'url is missing' }]);
      for (const url of ['ftp://example.com/x', 'not a url', '']) {
        const bad = await f.api('POST', hooks(), { body: { url } });
        assert.deepEqual([bad.status, bad.body], [422, { message: 'Invalid url given' }], url);
      }
      const badFlag = await f.api('POST', hooks(), { body: { url: rx.url, issues_events: 'maybe' } });
      assert.deepEqual([badFlag.status, badFlag.body], [400, { error: 'issues_events is invalid' }]);
      const badFilter = await f.api('POST', hooks(), { body: { url: rx.url, branch_filter_strategy: 'regex', push_events_branch_filter: '(' } });
      assert.deepEqual([badFilter.status, badFilter.body], [422, { message: 'Invalid branch filter given' }]);
      const hook = (await f.api('POST', hooks(), { body: { url: rx.url } })).body;
      const empty = await f.api('PUT', `${hooks()}/${hook.id}`, { body: {} });
      assert.deepEqual([empty.status, empty.body], [400, { message: 'No parameters provided' }]);
      // A URL variable is validated with the URL it fills in.
      const templated = (await f.api('POST', hooks(), { body: { url: 'http://{host}/x', url_variables: [{ key: 'host', value: '127.0.0.1' }] } })).body;
      const badHost = await f.api('PUT', `${hooks()}/${templated.id}/url_variables/host`, { body: { value: 'no such host!' } });
      assert.deepEqual([badHost.status, badHost.body], [422, { message: 'Illegal key or value' }]);
      expectStatus(await f.api('PUT', `${hooks()}/${templated.id}/url_variables/host`, { body: { value: 'localhost' } }), 204);
      expectStatus(await f.api('DELETE', `${hooks()}/${templated.id}`), 204);
      expectStatus(await f.api('GET', hooks(), { token: dev.token }), 403);
      expectStatus(await f.api('POST', hooks(), { token: dev.token, body: { url: rx.url } }), 403);
      const outsider = await f.createUser(uniq('out'));
      const priv = await createProject(f, f.rootToken, { name: uniq('private-'), visibility: 'private' });
      const hidden = await f.api('GET', hooks(priv.id), { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      expectStatus(await f.api('GET', hooks(), { token: null }), 401);
      expectStatus(await f.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}/hooks/${hook.id}`), 200);
      expectStatus(await f.api('DELETE', `${hooks()}/${hook.id}`), 204);
    });

    it('sends issue events with GitLab headers and payloads: open, update with changes, close, reopen; confidential ones apart', async () => {
      const plain = (await f.api('POST', hooks(), {
        body: { url: `${rx.url}/issues`, token: 'tok-1', issues_events: true, push_events: false, custom_headers: [{ key: 'X-Custom', value: 'yes' }] },
      })).body;
      const secret = (await f.api('POST', hooks(), { body: { url: `${rx.url}/confidential`, confidential_issues_events: true, push_events: false } })).body;
      rx.deliveries.length = 0;
      const issue = (await f.api('POST', `/projects/${project.id}/issues`, { token: dev.token, body: { title: 'Bot please', labels: 'bug' } })).body;
      assert.equal(await runDue(), 1);
      assert.equal(rx.deliveries.length, 1);
      const opened = rx.deliveries[0]!;
      assert.equal(opened.path, '/issues');
      const h = opened.headers;
      assert.equal(h['x-gitlab-event'], 'Issue Hook');
      assert.equal(h['x-gitlab-token'], 'tok-1');
      assert.equal(h['x-custom'], 'yes');
      assert.equal(h['content-type'], 'application/json');
      assert.match(String(h['user-agent']), /^GitLab\/\d+\.\d+/);
      assert.match(String(h['x-gitlab-event-uuid']), UUID);
      assert.match(String(h['x-gitlab-webhook-uuid']), UUID);
      assert.match(String(h['idempotency-key']), UUID);
      assert.equal(h['x-gitlab-instance'], f.url);
      const body = opened.body;
      assert.equal(body.object_kind, 'issue');
      assert.equal(body.event_type, 'issue');
      assert.deepEqual(body.user, { id: dev.id, name: dev.username, username: dev.username, avatar_url: null, email: '[REDACTED]' });
      assert.equal(body.project.id, project.id);
      assert.equal(body.project.path_with_namespace, project.path_with_namespace);
      assert.equal(body.project.web_url, project.web_url);
      assert.equal(body.project.git_http_url, project.http_url_to_repo);
      assert.equal(body.project.visibility_level, 0, 'a private project');
      assert.deepEqual(Object.keys(body.repository), ['name', 'url', 'description', 'homepage']);
      const oa = body.object_attributes;
      assert.equal(oa.action, 'open');
      assert.equal(oa.id, issue.id);
      assert.equal(oa.iid, issue.iid);
      assert.equal(oa.title, 'Bot please');
      assert.equal(oa.state, 'opened');
      assert.equal(oa.state_id, 1);
      assert.equal(oa.author_id, dev.id);
      assert.equal(oa.confidential, false);
      assert.equal(oa.url, issue.web_url);
      assert.equal(oa.type, 'Issue');
      assert.deepEqual(oa.assignee_ids, []);
      assert.deepEqual(body.labels.map((l: any) => [l.title, l.type, l.project_id]), [['bug', 'ProjectLabel', project.id]]);
      assert.deepEqual(oa.labels, body.labels);
      assert.deepEqual(body.changes.title, { previous: null, current: 'Bot please' });

      // An update: title, labels and assignees in `changes`.
      await f.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { body: { title: 'Bot, please', labels: 'bug,urgent', assignee_ids: [dev.id] } });
      await runDue();
      const updated = rx.deliveries.at(-1)!.body;
      assert.equal(updated.object_attributes.action, 'update');
      assert.deepEqual(updated.changes.title, { previous: 'Bot please', current: 'Bot, please' });
      assert.deepEqual(updated.changes.labels.previous.map((l: any) => l.title), ['bug']);
      assert.deepEqual(updated.changes.labels.current.map((l: any) => l.title).sort(), ['bug', 'urgent']);
      assert.deepEqual(updated.changes.assignees, { previous: [], current: [updated.assignees[0]] });
      assert.equal(updated.assignees[0].id, dev.id);
      assert.equal(updated.object_attributes.assignee_id, dev.id);
      assert.equal(updated.user.id, 1, 'the actor');

      await f.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { body: { state_event: 'close' } });
      await runDue();
      const closed = rx.deliveries.at(-1)!.body;
      assert.equal(closed.object_attributes.action, 'close');
      assert.deepEqual(closed.changes.state_id, { previous: 1, current: 2 });
      assert.equal(closed.object_attributes.state, 'closed');
      await f.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { body: { state_event: 'reopen' } });
      await runDue();
      assert.equal(rx.deliveries.at(-1)!.body.object_attributes.action, 'reopen');
      assert.ok(rx.deliveries.every((d) => d.path === '/issues'), 'a public issue never reaches the confidential-only hook');

      // A confidential issue goes to confidential issue hooks only.
      const before = rx.deliveries.length;
      await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Hush', confidential: true } });
      await runDue();
      assert.equal(rx.deliveries.length, before + 1);
      const hushed = rx.deliveries.at(-1)!;
      assert.equal(hushed.path, '/confidential');
      assert.equal(hushed.headers['x-gitlab-event'], 'Confidential Issue Hook');
      assert.equal(hushed.body.event_type, 'confidential_issue');
      assert.equal(hushed.headers['x-gitlab-token'], undefined, 'no token, no header');
      for (const hook of [plain, secret]) expectStatus(await f.api('DELETE', `${hooks()}/${hook.id}`), 204);
    });

    it('sends comment events on issues, merge requests and snippets; internal ones as confidential notes', async () => {
      const notes = (await f.api('POST', hooks(), { body: { url: `${rx.url}/notes`, note_events: true, push_events: false } })).body;
      const secret = (await f.api('POST', hooks(), { body: { url: `${rx.url}/internal`, confidential_note_events: true, push_events: false } })).body;
      const issue = (await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Discuss' } })).body;
      rx.deliveries.length = 0;
      const note = (await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: dev.token, body: { body: 'LGTM' } })).body;
      await runDue();
      const d = rx.deliveries.at(-1)!;
      assert.equal(d.path, '/notes');
      assert.equal(d.headers['x-gitlab-event'], 'Note Hook');
      assert.equal(d.body.object_kind, 'note');
      assert.equal(d.body.event_type, 'note');
      assert.equal(d.body.project_id, project.id);
      assert.equal(d.body.object_attributes.id, note.id);
      assert.equal(d.body.object_attributes.note, 'LGTM');
      assert.equal(d.body.object_attributes.noteable_type, 'Issue');
      assert.equal(d.body.object_attributes.action, 'create');
      assert.equal(d.body.object_attributes.url, `${issue.web_url}#note_${note.id}`);
      assert.match(d.body.object_attributes.discussion_id, /^[0-9a-f]{40}$/);
      assert.equal(d.body.issue.iid, issue.iid);
      assert.equal(d.body.issue.title, 'Discuss');
      await f.api('PUT', `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`, { token: dev.token, body: { body: 'LGTM!' } });
      await runDue();
      assert.deepEqual([rx.deliveries.at(-1)!.body.object_attributes.action, rx.deliveries.at(-1)!.body.object_attributes.note], ['update', 'LGTM!']);

      await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: { body: 'staff only', internal: true } });
      await runDue();
      const internal = rx.deliveries.at(-1)!;
      assert.equal(internal.path, '/internal');
      assert.equal(internal.headers['x-gitlab-event'], 'Confidential Note Hook');
      assert.equal(internal.body.event_type, 'confidential_note');

      const snippet = await f.api('POST', `/projects/${project.id}/snippets`, { body: { title: 'snip', file_name: 'a.txt', content: 'x', visibility: 'private' } });
      expectStatus(snippet, 201);
      await f.api('POST', `/projects/${project.id}/snippets/${snippet.body.id}/notes`, { body: { body: 'on a snippet' } });
      await runDue();
      const onSnippet = rx.deliveries.at(-1)!.body;
      assert.equal(onSnippet.object_attributes.noteable_type, 'Snippet');
      assert.equal(onSnippet.snippet.id, snippet.body.id);
      assert.equal(onSnippet.snippet.type, 'ProjectSnippet');
      for (const hook of [notes, secret]) expectStatus(await f.api('DELETE', `${hooks()}/${hook.id}`), 204);
    });

    it('sends merge request events: open, update, approved, unapproved, close, reopen, merge (system hooks too)', async () => {
      const hook = (await f.api('POST', hooks(), { body: { url: `${rx.url}/mr`, merge_requests_events: true, push_events: false } })).body;
      const sys = (await f.api('POST', '/hooks', { body: { url: `${rx.url}/system`, merge_requests_events: true, push_events: false } })).body;
      const branch = uniq('feature-');
      const sha = await commitFiles(f, project.id, branch, { 'bot.txt': 'beep\n' }, { startBranch: 'main' });
      rx.deliveries.length = 0;
      const mr = (await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: 'Beep' } })).body;
      await runDue();
      const paths = rx.deliveries.map((d) => d.path).sort();
      assert.deepEqual(paths, ['/mr', '/system']);
      const projectDelivery = rx.deliveries.find((d) => d.path === '/mr')!;
      const systemDelivery = rx.deliveries.find((d) => d.path === '/system')!;
      assert.equal(projectDelivery.headers['x-gitlab-event'], 'Merge Request Hook');
      assert.equal(systemDelivery.headers['x-gitlab-event'], 'System Hook');
      assert.equal(projectDelivery.headers['x-gitlab-event-uuid'], systemDelivery.headers['x-gitlab-event-uuid'], 'one event, one event UUID');
      assert.notEqual(projectDelivery.headers['x-gitlab-webhook-uuid'], systemDelivery.headers['x-gitlab-webhook-uuid']);
      const oa = projectDelivery.body.object_attributes;
      assert.equal(projectDelivery.body.object_kind, 'merge_request');
      assert.equal(oa.action, 'open');
      assert.equal(oa.iid, mr.iid);
      assert.equal(oa.source_branch, branch);
      assert.equal(oa.target_branch, 'main');
      assert.equal(oa.state, 'opened');
      assert.equal(oa.url, mr.web_url);
      assert.equal(oa.last_commit.id, sha);
      assert.equal(oa.source.id, project.id);
      assert.equal(oa.target.path_with_namespace, project.path_with_namespace);
      assert.equal(oa.work_in_progress, false);

      const actions: string[] = [];
      const step = async () => {
        await runDue();
        actions.push(rx.deliveries.filter((d) => d.path === '/mr').at(-1)!.body.object_attributes.action);
      };
      await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { body: { title: 'Beep boop' } });
      await step();
      assert.deepEqual(rx.deliveries.filter((d) => d.path === '/mr').at(-1)!.body.changes.title, { previous: 'Beep', current: 'Beep boop' });
      expectStatus(await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/approve`, { token: maintainer.token }), 201);
      await step();
      expectStatus(await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/unapprove`, { token: maintainer.token }), 201);
      await step();
      await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { body: { state_event: 'close' } });
      await step();
      await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { body: { state_event: 'reopen' } });
      await step();
      expectStatus(await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`), 200);
      await step();
      assert.deepEqual(actions, ['update', 'approved', 'unapproved', 'close', 'reopen', 'merge']);
      const merged = rx.deliveries.filter((d) => d.path === '/mr').at(-1)!.body;
      assert.equal(merged.object_attributes.state, 'merged');
      assert.equal(merged.object_attributes.state_id, 3);
      assert.equal(merged.object_attributes.merge_user_id, 1);
      expectStatus(await f.api('DELETE', `${hooks()}/${hook.id}`), 204);
      expectStatus(await f.api('DELETE', `/hooks/${sys.id}`), 204);
    });

    it('system hooks: administrators only, the test sends GitLab sample; group hooks: Owner, Premium, take the projects below', async () => {
      expectStatus(await f.api('GET', '/hooks', { token: maintainer.token }), 403);
      const sys = await f.api('POST', '/hooks', { body: { url: `${rx.url}/sys`, token: 't' } });
      expectStatus(sys, 201);
      assert.equal(sys.body.organization_id, 1);
      assert.equal(sys.body.project_id, undefined);
      assert.equal(sys.body.issues_events, undefined);
      const test = await f.api('POST', `/hooks/${sys.body.id}`);
      expectStatus(test, 201);
      assert.equal(test.body.event_name, 'project_create');
      const got = rx.deliveries.at(-1)!;
      assert.equal(got.path, '/sys');
      assert.equal(got.headers['x-gitlab-event'], 'System Hook');
      assert.deepEqual(got.body, test.body);
      expectStatus(await f.api('DELETE', `/hooks/${sys.body.id}`), 204);

      const owner = await f.createUser(uniq('owner'));
      const group = await createGroup(f, f.rootToken, { name: uniq('hooks-'), path: uniq('hooks-') });
      await addMember(f, 'groups', group.id, owner.id, 50);
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      const inGroup = await createProject(f, f.rootToken, { name: uniq('in-group-'), namespace_id: group.id });
      expectStatus(await f.api('POST', `/groups/${group.id}/hooks`, { token: maintainer.token, body: { url: rx.url } }), 403);
      const gh = await f.api('POST', `/groups/${group.id}/hooks`, { token: owner.token, body: { url: `${rx.url}/group`, issues_events: true, member_events: true } });
      expectStatus(gh, 201);
      assert.equal(gh.body.group_id, group.id);
      assert.equal(gh.body.member_events, true);
      assert.equal(gh.body.subgroup_events, false);
      assert.equal(gh.body.project_id, undefined);
      await f.api('POST', `/projects/${inGroup.id}/issues`, { body: { title: 'from below' } });
      await runDue();
      const below = rx.deliveries.at(-1)!;
      assert.equal(below.path, '/group');
      assert.equal(below.body.project.id, inGroup.id);
      const groupTest = await f.api('POST', `/groups/${group.id}/hooks/${gh.body.id}/test/issues_events`, { token: owner.token });
      assert.deepEqual([groupTest.status, groupTest.body], [201, { message: '201 Created' }]);

      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } }), 200);
      try {
        expectStatus(await f.api('GET', `/groups/${group.id}/hooks`, { token: owner.token }), 403);
        const count = rx.deliveries.length;
        await f.api('POST', `/projects/${inGroup.id}/issues`, { body: { title: 'free tier' } });
        await runDue();
        assert.equal(rx.deliveries.length, count, 'group hooks are a Premium feature');
      } finally {
        expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'ultimate' } }), 200);
      }
    });
  });
}
