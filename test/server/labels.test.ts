import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const LABEL_NOT_FOUND = { message: '404 Label Not Found' };
const GROUP_NOT_FOUND = { message: '404 Group Not Found' };
const FORBIDDEN = { message: '403 Forbidden' };
const EXISTS = { message: 'Label already exists' };
const AT_LEAST_ONE = { error: 'new_name, color, description, archived are missing, at least one parameter must be provided' };
const enc = encodeURIComponent;

for (const dialect of DIALECTS) {
  describe(`${dialect}: group and project labels`, () => {
    let f: TestForgelet;
    let owner: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let top: any; // private, lbl
    let sub: any; // private, lbl/sub
    let deep: any; // private, lbl/sub/deep
    let app: any; // lbl/app
    let lib: any; // lbl/sub/lib

    const groupPath = (group: string | number) => `/groups/${enc(String(group))}`;
    const labelsPath = (group: string | number) => `${groupPath(group)}/labels`;
    async function createLabel(parent: string, body: Record<string, unknown>, token: string | null = owner.token): Promise<any> {
      const r = await f.api('POST', `${parent}/labels`, { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    async function labelRows(): Promise<any[]> {
      return f.forge.database.db.selectFrom('labels').selectAll().orderBy('id').execute();
    }
    const names = (body: any[]) => body.map((l) => l.name);

    before(async () => {
      f = await startTestServer(dialect);
      [owner, reporter, guest, outsider] = await createUsers(f, ['lowner', 'lreporter', 'lguest', 'loutsider']);
      top = await createGroup(f, owner.token, { name: 'Labels', path: 'lbl' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: top.id });
      deep = await createGroup(f, owner.token, { name: 'Deep', path: 'deep', parent_id: sub.id });
      app = await createProject(f, owner.token, { name: 'App', namespace_id: top.id });
      lib = await createProject(f, owner.token, { name: 'Lib', namespace_id: sub.id });
      await addMember(f, 'groups', top.id, reporter.id, 20);
      await addMember(f, 'groups', top.id, guest.id, 10);
    });
    after(() => f.stop());

    it('create: a CSS color name becomes upper-case hex; the whole entity, Markdown with raw HTML escaped', async () => {
      const r = await f.api('POST', labelsPath('lbl'), {
        token: reporter.token,
        body: { name: '  bug ', color: 'red', description: 'Crash **now** <script>alert(1)</script>' },
      });
      expectStatus(r, 201);
      assert.deepEqual(r.body, {
        id: r.body.id, name: 'bug', color: '#FF0000', text_color: '#FFFFFF', description: 'Crash **now** <script>alert(1)</script>',
        description_html: '<p>Crash <strong>now</strong> &lt;script&gt;alert(1)&lt;/script&gt;</p>',
        open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0, subscribed: false, archived: false,
      });
      assert.equal(r.headers.get('content-type'), 'application/json');
      const grey = await createLabel(groupPath(top.id), { name: 'ui', color: 'LightGray' });
      assert.deepEqual([grey.color, grey.text_color, grey.description, grey.description_html], ['#D3D3D3', '#333333', null, null]);
      const short = await createLabel(groupPath(top.id), { name: 'docs', color: '#eee', archived: true });
      assert.deepEqual([short.color, short.text_color, short.archived], ['#eee', '#333333', true]);
      const six = await createLabel(groupPath(top.id), { name: 'Feature', color: '#d9534f', description: 'New [ideas](javascript:alert(1))' });
      assert.deepEqual([six.color, six.text_color, six.description_html], ['#d9534f', '#FFFFFF', '<p>New <a href="">ideas</a></p>']);
    });

    it('create: bad input is 400 and a known title (any case, ancestors too) 409, with nothing written', async () => {
      const before = await labelRows();
      const cases: [Record<string, unknown>, string, number, unknown][] = [
        [{ color: 'red' }, labelsPath(top.id), 400, { error: 'name is missing' }],
        [{ name: 'x' }, labelsPath(top.id), 400, { error: 'color is missing' }],
        [{ name: 'a,b', color: 'red' }, labelsPath(top.id), 400, { message: { title: ['is invalid'] } }],
        [{ name: '   ', color: 'red' }, labelsPath(top.id), 400, { message: { title: ["can't be blank", 'is invalid'] } }],
        [{ name: 'x'.repeat(256), color: 'nope' }, labelsPath(top.id), 400, { message: { title: ['is too long (maximum is 255 characters)'], color: ['must be a valid color code'] } }],
        [{ name: 'ok', color: '#12345' }, labelsPath(top.id), 400, { message: { color: ['must be a valid color code'] } }],
        [{ name: 'ok', color: 'red', archived: 'maybe' }, labelsPath(top.id), 400, { error: 'archived is invalid' }],
        [{ name: 'BUG', color: 'blue' }, labelsPath(top.id), 409, EXISTS],
        [{ name: 'Bug', color: 'blue' }, labelsPath('lbl/sub'), 409, EXISTS],
        [{ name: 'bug', color: 'blue' }, `/projects/${lib.id}/labels`, 409, EXISTS],
      ];
      for (const [body, path, status, answer] of cases) {
        const r = await f.api('POST', path, { body });
        assert.deepEqual([r.status, r.body], [status, answer], JSON.stringify(body));
      }
      assert.deepEqual(await labelRows(), before);
    });

    it('permissions: Guests read but may not write (403); non-members of the private group get 404; anonymous 401', async () => {
      const created = await f.api('POST', labelsPath(top.id), { token: guest.token, body: { name: 'guestly', color: 'red' } });
      assert.deepEqual([created.status, created.body], [403, FORBIDDEN]);
      const listed = await f.api('GET', labelsPath(top.id), { token: guest.token });
      expectStatus(listed, 200);
      for (const [method, path] of [['GET', labelsPath(top.id)], ['GET', `${labelsPath(top.id)}/bug`], ['POST', labelsPath(top.id)], ['PUT', `${labelsPath(top.id)}/bug`], ['DELETE', `${labelsPath(top.id)}/bug`], ['POST', `${labelsPath(top.id)}/bug/subscribe`]]) {
        const hidden = await f.api(method!, path!, { token: outsider.token, body: method === 'GET' ? undefined : { name: 'x', color: 'red', new_name: 'y' } });
        assert.deepEqual([hidden.status, hidden.body], [404, GROUP_NOT_FOUND], `${method} ${path}`);
        const anonymous = await f.api(method!, path!, { token: null });
        assert.deepEqual([anonymous.status, anonymous.body], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
      }
      const edit = await f.api('PUT', `${labelsPath(top.id)}/bug`, { token: guest.token, body: { color: 'blue' } });
      assert.deepEqual([edit.status, edit.body], [403, FORBIDDEN]);
      const remove = await f.api('DELETE', `${labelsPath(top.id)}/bug`, { token: guest.token });
      assert.deepEqual([remove.status, remove.body], [403, FORBIDDEN]);
      const onProject = await f.api('POST', `/projects/${app.id}/labels`, { token: guest.token, body: { name: 'x', color: 'red' } });
      assert.deepEqual([onProject.status, onProject.body], [403, FORBIDDEN]);
      const hiddenProject = await f.api('GET', `/projects/${app.id}/labels`, { token: outsider.token });
      assert.deepEqual([hiddenProject.status, hiddenProject.body], [404, { message: '404 Project Not Found' }]);
    });

    it('list: ordered by title ignoring case, paged in SQL, without counts unless with_counts', async () => {
      const r = await f.api('GET', `${labelsPath(top.id)}?per_page=2`, { token: guest.token });
      expectStatus(r, 200);
      assert.deepEqual(names(r.body), ['bug', 'docs']);
      assert.deepEqual([r.headers.get('x-total'), r.headers.get('x-total-pages'), r.headers.get('x-next-page')], ['4', '2', '2']);
      assert.equal('open_issues_count' in r.body[0], false);
      const page2 = await f.api('GET', `${labelsPath(top.id)}?per_page=2&page=2`, { token: guest.token });
      assert.deepEqual(names(page2.body), ['Feature', 'ui']);
      const counted = await f.api('GET', `${labelsPath(top.id)}?with_counts=True`, { token: guest.token });
      assert.deepEqual(counted.body[0], {
        id: counted.body[0].id, name: 'bug', color: '#FF0000', text_color: '#FFFFFF', description: 'Crash **now** <script>alert(1)</script>',
        description_html: '<p>Crash <strong>now</strong> &lt;script&gt;alert(1)&lt;/script&gt;</p>',
        open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0, subscribed: false, archived: false,
      });
    });

    it('list filters: search, archived, include_ancestor_groups, include_descendant_groups, only_group_labels', async () => {
      await createLabel(groupPath(sub.id), { name: 'sub-only', color: '#00ff00', description: 'for the backend team' });
      await createLabel(groupPath(deep.id), { name: 'deep-only', color: 'navy' });
      await createLabel(`/projects/${lib.id}`, { name: 'lib-only', color: 'teal' });
      await createLabel(`/projects/${app.id}`, { name: 'app-only', color: 'teal' });
      const list = async (group: string | number, query: string, token = reporter.token) => {
        const r = await f.api('GET', `${labelsPath(group)}?${query}`, { token });
        expectStatus(r, 200);
        return names(r.body);
      };
      assert.deepEqual(await list(sub.id, ''), ['bug', 'docs', 'Feature', 'sub-only', 'ui']);
      assert.deepEqual(await list(sub.id, 'include_ancestor_groups=false'), ['sub-only']);
      assert.deepEqual(await list(sub.id, 'include_ancestor_groups=false&include_descendant_groups=true'), ['deep-only', 'sub-only']);
      assert.deepEqual(await list(sub.id, 'include_ancestor_groups=false&only_group_labels=false'), ['lib-only', 'sub-only']);
      assert.deepEqual(await list(top.id, 'include_descendant_groups=true&only_group_labels=false'),
        ['app-only', 'bug', 'deep-only', 'docs', 'Feature', 'lib-only', 'sub-only', 'ui']);
      assert.deepEqual(await list(top.id, 'only_group_labels=false'), ['app-only', 'bug', 'docs', 'Feature', 'ui'], 'only projects directly in the group');
      assert.deepEqual(await list(top.id, 'archived=true'), ['docs']);
      assert.deepEqual(await list(top.id, 'archived=false'), ['bug', 'Feature', 'ui']);
      assert.deepEqual(await list(sub.id, 'search=BACKEND'), ['sub-only'], 'description matches');
      assert.deepEqual(await list(top.id, 'search=eat'), ['Feature']);
      assert.deepEqual(await list(top.id, 'search=u'), [], 'terms under 3 characters must match a whole field');
      assert.deepEqual(await list(top.id, 'search=UI'), ['ui']);
      assert.deepEqual(await list(top.id, 'search=%25'), []);
      const bad = await f.api('GET', `${labelsPath(top.id)}?with_counts=perhaps`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'with_counts is invalid' }]);
    });

    it('counts come from the issues and merge requests the caller can see', async () => {
      const issue = async (title: string, labels: string, extra: Record<string, unknown> = {}) => {
        const r = await f.api('POST', `/projects/${app.id}/issues`, { token: owner.token, body: { title, labels, ...extra } });
        expectStatus(r, 201);
        return r.body;
      };
      await issue('one', 'bug,ui');
      const two = await issue('two', 'bug');
      await issue('secret', 'bug', { confidential: true });
      expectStatus(await f.api('PUT', `/projects/${app.id}/issues/${two.iid}`, { token: owner.token, body: { state_event: 'close' } }), 200);
      const libIssue = await f.api('POST', `/projects/${lib.id}/issues`, { token: owner.token, body: { title: 'lib', labels: 'bug' } });
      expectStatus(libIssue, 201);
      const mr = await f.api('POST', `/projects/${app.id}/merge_requests`, {
        token: owner.token, body: { source_branch: 'feature/x', target_branch: 'main', title: 'Change', labels: 'bug,ui' },
      });
      expectStatus(mr, 201);
      const counts = async (path: string, token: string, name = 'bug') => {
        const r = await f.api('GET', `${path}?with_counts=true&per_page=100`, { token });
        expectStatus(r, 200);
        const l = r.body.find((x: any) => x.name === name);
        return [l.open_issues_count, l.closed_issues_count, l.open_merge_requests_count];
      };
      assert.deepEqual(await counts(labelsPath(top.id), reporter.token), [3, 1, 1], 'Reporters see the confidential issue; subgroup projects count');
      assert.deepEqual(await counts(labelsPath(top.id), guest.token), [2, 1, 0], 'Guests do not, nor merge requests of private projects');
      assert.deepEqual(await counts(labelsPath(top.id), reporter.token, 'ui'), [1, 0, 1]);
      assert.deepEqual(await counts(labelsPath(sub.id), reporter.token), [1, 0, 0], 'a subgroup counts its own projects');
      assert.deepEqual(await counts(`/projects/${app.id}/labels`, reporter.token), [2, 1, 1]);
      const one = await f.api('GET', `${labelsPath(top.id)}/bug`, { token: guest.token });
      assert.deepEqual([one.body.open_issues_count, one.body.closed_issues_count, one.body.open_merge_requests_count], [2, 1, 0], 'single labels carry counts');
    });

    it('get by id or (URL-encoded) title, any case; 404 Label Not Found', async () => {
      const spaced = await createLabel(groupPath(top.id), { name: 'bug label', color: '#0033CC' });
      for (const ref of [String(spaced.id), 'bug%20label', 'BUG%20LABEL', 'bug%2520label']) {
        const r = await f.api('GET', `${labelsPath('lbl')}/${ref}`, { token: guest.token });
        expectStatus(r, 200);
        assert.equal(r.body.id, spaced.id, ref);
      }
      const fromSub = await f.api('GET', `${labelsPath(sub.id)}/${spaced.id}`, { token: reporter.token });
      expectStatus(fromSub, 200);
      const noAncestors = await f.api('GET', `${labelsPath(sub.id)}/${spaced.id}?include_ancestor_groups=false`, { token: reporter.token });
      assert.deepEqual([noAncestors.status, noAncestors.body], [404, LABEL_NOT_FOUND]);
      const descendant = await f.api('GET', `${labelsPath(top.id)}/deep-only?include_descendant_groups=true`, { token: reporter.token });
      expectStatus(descendant, 200);
      const projectLabel = await f.api('GET', `${labelsPath(top.id)}/app-only?only_group_labels=false`, { token: reporter.token });
      expectStatus(projectLabel, 200);
      for (const ref of ['nope', '999999', 'app-only']) {
        const r = await f.api('GET', `${labelsPath(top.id)}/${ref}`, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [404, LABEL_NOT_FOUND], ref);
      }
    });

    it('update by id or title: new_name, color, description, archived; at least one; 400s write nothing', async () => {
      const label = await createLabel(groupPath(top.id), { name: 'triage', color: 'red' });
      const r = await f.api('PUT', `${labelsPath(top.id)}/${label.id}`, {
        token: reporter.token, body: { new_name: 'Triage', color: 'white', description: '_now_', archived: true },
      });
      expectStatus(r, 200);
      assert.deepEqual(r.body, {
        id: label.id, name: 'Triage', color: '#FFFFFF', text_color: '#333333', description: '_now_', description_html: '<p><em>now</em></p>',
        open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0, subscribed: false, archived: true,
      });
      const byTitle = await f.api('PUT', `${labelsPath(top.id)}/Triage`, { token: reporter.token, body: { archived: false, description: null } });
      assert.deepEqual([byTitle.status, byTitle.body.archived, byTitle.body.description, byTitle.body.description_html], [200, false, null, null]);
      const before = await labelRows();
      const cases: [Record<string, unknown>, number, unknown][] = [
        [{}, 400, AT_LEAST_ONE],
        [{ new_name: 'ui' }, 400, { message: { title: ['has already been taken'] } }],
        [{ new_name: 'fine', color: 'not-a-color' }, 400, { message: { color: ['must be a valid color code'] } }],
        [{ new_name: 'a,b' }, 400, { message: { title: ['is invalid'] } }],
      ];
      for (const [body, status, answer] of cases) {
        const bad = await f.api('PUT', `${labelsPath(top.id)}/${label.id}`, { token: reporter.token, body });
        assert.deepEqual([bad.status, bad.body], [status, answer], JSON.stringify(body));
      }
      assert.deepEqual(await labelRows(), before);
      const ancestor = await f.api('PUT', `${labelsPath(sub.id)}/${label.id}`, { token: reporter.token, body: { color: 'red' } });
      assert.deepEqual([ancestor.status, ancestor.body], [404, LABEL_NOT_FOUND], "a subgroup can't change its parent's labels");
      const missing = await f.api('PUT', `${labelsPath(top.id)}/nope`, { token: reporter.token, body: { color: 'red' } });
      assert.deepEqual([missing.status, missing.body], [404, LABEL_NOT_FOUND]);
    });

    it("deprecated PUT and DELETE /groups/:id/labels with name (python-gitlab's save), URL-encoded names too", async () => {
      await createLabel(groupPath(top.id), { name: 'old name', color: 'red' });
      const renamed = await f.api('PUT', labelsPath(top.id), { token: reporter.token, body: { name: 'old name', new_name: 'new name' } });
      assert.deepEqual([renamed.status, renamed.body.name], [200, 'new name']);
      const encoded = await f.api('PUT', labelsPath(top.id), { token: reporter.token, body: { name: 'new%20name', color: '#00F' } });
      assert.deepEqual([encoded.status, encoded.body.name, encoded.body.color], [200, 'new name', '#00F']);
      const byId = await f.api('PUT', labelsPath(top.id), { token: reporter.token, body: { label_id: encoded.body.id, description: 'via id' } });
      assert.deepEqual([byId.status, byId.body.description], [200, 'via id']);
      const neither = await f.api('PUT', labelsPath(top.id), { token: reporter.token, body: { color: 'red' } });
      assert.deepEqual([neither.status, neither.body], [400, { error: 'label_id, name are missing, exactly one parameter must be provided' }]);
      const nothing = await f.api('PUT', labelsPath(top.id), { token: reporter.token, body: { name: 'new name' } });
      assert.deepEqual([nothing.status, nothing.body], [400, AT_LEAST_ONE]);
      const noName = await f.api('DELETE', labelsPath(top.id), { token: reporter.token });
      assert.deepEqual([noName.status, noName.body], [400, { error: 'name is missing' }]);
      const unknown = await f.api('DELETE', labelsPath(top.id), { token: reporter.token, body: { name: 'missing' } });
      assert.deepEqual([unknown.status, unknown.body], [404, LABEL_NOT_FOUND]);
      const removed = await f.api('DELETE', labelsPath(top.id), { token: reporter.token, body: { name: 'new%20name' } });
      assert.deepEqual([removed.status, removed.text], [204, '']);
      const gone = await f.api('GET', `${labelsPath(top.id)}/new%20name`);
      assert.equal(gone.status, 404);
    });

    it('delete by id or title: 204, its issue links and subscriptions go with it; If-Unmodified-Since', async () => {
      const label = await createLabel(groupPath(top.id), { name: 'doomed', color: 'red' });
      const issue = await f.api('POST', `/projects/${app.id}/issues`, { token: owner.token, body: { title: 'doomed issue', labels: 'doomed' } });
      expectStatus(await f.api('POST', `${labelsPath(top.id)}/${label.id}/subscribe`, { token: guest.token }), 201);
      const stale = await f.api('DELETE', `${labelsPath(top.id)}/${label.id}`, { token: reporter.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
      assert.deepEqual([stale.status, stale.body], [412, { message: '412 Precondition Failed' }]);
      const r = await f.api('DELETE', `${labelsPath(top.id)}/doomed`, { token: reporter.token });
      assert.deepEqual([r.status, r.text], [204, '']);
      const shown = await f.api('GET', `/projects/${app.id}/issues/${issue.body.iid}`);
      assert.deepEqual(shown.body.labels, []);
      const db = f.forge.database.db;
      assert.deepEqual(await db.selectFrom('label_subscriptions').selectAll().where('label_id', '=', label.id).execute(), []);
      const again = await f.api('DELETE', `${labelsPath(top.id)}/${label.id}`, { token: reporter.token });
      assert.deepEqual([again.status, again.body], [404, LABEL_NOT_FOUND]);
    });

    it('subscribe and unsubscribe: 201 with the label, 304 with no body when nothing changes; gitbeaker\'s issue path too', async () => {
      const path = `${labelsPath(top.id)}/ui`;
      const on = await f.api('POST', `${path}/subscribe`, { token: guest.token, body: {} });
      assert.deepEqual([on.status, on.body.name, on.body.subscribed, on.body.open_issues_count], [201, 'ui', true, 1]);
      const twice = await f.api('POST', `${path}/subscribe`, { token: guest.token, body: {} });
      assert.deepEqual([twice.status, twice.text, twice.headers.get('content-type')], [304, '', null]);
      const listed = await f.api('GET', `${labelsPath(top.id)}?search=ui`, { token: guest.token });
      assert.deepEqual(listed.body.map((l: any) => l.subscribed), [true]);
      const other = await f.api('GET', `${labelsPath(top.id)}?search=ui`, { token: reporter.token });
      assert.deepEqual(other.body.map((l: any) => l.subscribed), [false], 'subscriptions are per user');
      const fromSub = await f.api('GET', `${labelsPath(sub.id)}/ui`, { token: guest.token });
      assert.equal(fromSub.body.subscribed, true);
      const off = await f.api('POST', `${path}/unsubscribe`, { token: guest.token });
      assert.deepEqual([off.status, off.body.subscribed], [201, false]);
      const offAgain = await f.api('POST', `${path}/unsubscribe`, { token: guest.token });
      assert.deepEqual([offAgain.status, offAgain.text], [304, '']);
      const id = on.body.id;
      const alias = await f.api('POST', `/groups/${top.id}/issues/${id}/subscribe`, { token: guest.token, body: {} });
      assert.deepEqual([alias.status, alias.body.id, alias.body.subscribed], [201, id, true]);
      assert.equal((await f.api('POST', `/groups/${top.id}/issues/${id}/subscribe`, { token: guest.token })).status, 304);
      const aliasOff = await f.api('POST', `/groups/lbl/issues/ui/unsubscribe`, { token: guest.token });
      assert.deepEqual([aliasOff.status, aliasOff.body.subscribed], [201, false]);
      assert.equal((await f.api('POST', `/groups/lbl/issues/ui/unsubscribe`, { token: guest.token })).status, 304);
      const missing = await f.api('POST', `${labelsPath(top.id)}/nope/subscribe`, { token: guest.token });
      assert.deepEqual([missing.status, missing.body], [404, LABEL_NOT_FOUND]);
    });

    it('project labels: own and group labels with priority and is_project_label; create, update, delete, subscribe', async () => {
      const list = await f.api('GET', `/projects/${lib.id}/labels?with_counts=true`, { token: reporter.token });
      expectStatus(list, 200);
      assert.deepEqual(names(list.body), ['bug', 'bug label', 'docs', 'Feature', 'lib-only', 'sub-only', 'Triage', 'ui']);
      const own = list.body.find((l: any) => l.name === 'lib-only');
      assert.deepEqual([own.priority, own.is_project_label, list.body[0].is_project_label, list.body[0].priority], [null, true, false, null]);
      const near = await f.api('GET', `/projects/${lib.id}/labels?include_ancestor_groups=false`, { token: reporter.token });
      assert.deepEqual(names(near.body), ['lib-only', 'sub-only'], "the project's own group stays");
      const created = await f.api('POST', `/projects/${enc('lbl/sub/lib')}/labels`, { token: reporter.token, body: { name: 'perf', color: 'orange', description: 'slow' } });
      expectStatus(created, 201);
      assert.deepEqual(created.body, {
        id: created.body.id, name: 'perf', color: '#FFA500', text_color: '#FFFFFF', description: 'slow', description_html: '<p>slow</p>',
        open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0, subscribed: false, archived: false, priority: null, is_project_label: true,
      });
      const dup = await f.api('POST', `/projects/${lib.id}/labels`, { token: reporter.token, body: { name: 'PERF', color: 'red' } });
      assert.deepEqual([dup.status, dup.body], [409, EXISTS]);
      const shown = await f.api('GET', `/projects/${lib.id}/labels/perf`, { token: guest.token });
      assert.deepEqual(shown.body, created.body);
      const edited = await f.api('PUT', `/projects/${lib.id}/labels/perf`, { token: reporter.token, body: { new_name: 'performance' } });
      assert.deepEqual([edited.status, edited.body.name], [200, 'performance']);
      const nothing = await f.api('PUT', `/projects/${lib.id}/labels/performance`, { token: reporter.token, body: {} });
      // project labels add `priority` to GitLab's at_least_one_of
      assert.deepEqual([nothing.status, nothing.body], [400, { error: 'new_name, color, description, archived, priority are missing, at least one parameter must be provided' }]);
      const legacy = await f.api('PUT', `/projects/${lib.id}/labels`, { token: reporter.token, body: { name: 'performance', color: 'green' } });
      assert.deepEqual([legacy.status, legacy.body.color], [200, '#008000']);
      const groupLabel = await f.api('PUT', `/projects/${lib.id}/labels/sub-only`, { token: reporter.token, body: { description: 'edited from the project' } });
      assert.deepEqual([groupLabel.status, groupLabel.body.is_project_label], [200, false], "the project's group's labels can be edited with Reporter on it");
      const ancestor = await f.api('PUT', `/projects/${lib.id}/labels/ui`, { token: reporter.token, body: { color: 'red' } });
      assert.deepEqual([ancestor.status, ancestor.body], [404, LABEL_NOT_FOUND]);
      const sub1 = await f.api('POST', `/projects/${lib.id}/labels/ui/subscribe`, { token: guest.token });
      assert.deepEqual([sub1.status, sub1.body.subscribed, sub1.body.is_project_label], [201, true, false]);
      assert.equal((await f.api('POST', `/projects/${lib.id}/labels/ui/subscribe`, { token: guest.token })).status, 304);
      assert.equal((await f.api('POST', `/projects/${lib.id}/labels/ui/unsubscribe`, { token: guest.token })).status, 201);
      assert.equal((await f.api('POST', `/projects/${lib.id}/labels/ui/unsubscribe`, { token: guest.token })).status, 304);
      const guestDelete = await f.api('DELETE', `/projects/${lib.id}/labels/performance`, { token: guest.token });
      assert.deepEqual([guestDelete.status, guestDelete.body], [403, FORBIDDEN]);
      const legacyNeither = await f.api('DELETE', `/projects/${lib.id}/labels`, { token: reporter.token });
      assert.deepEqual([legacyNeither.status, legacyNeither.body], [400, { error: 'label_id, name are missing, exactly one parameter must be provided' }]);
      const removed = await f.api('DELETE', `/projects/${lib.id}/labels`, { token: reporter.token, body: { label_id: created.body.id } });
      assert.deepEqual([removed.status, removed.text], [204, '']);
      const lbl = await createLabel(`/projects/${lib.id}`, { name: 'temp', color: 'red' }, reporter.token);
      assert.equal((await f.api('DELETE', `/projects/${lib.id}/labels/${lbl.id}`, { token: reporter.token })).status, 204);
      assert.deepEqual(names((await f.api('GET', `/projects/${lib.id}/labels?include_ancestor_groups=false`, { token: reporter.token })).body), ['lib-only', 'sub-only']);
    });
  });
}
