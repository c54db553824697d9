import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: issue lists and filters`, () => {
    let f: TestForgelet;
    let owner: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let one: any; // lg/one, private; guest is a Guest here
    let two: any; // lg/sub/two, private
    let arch: any; // lg/arch, archived
    let www: any; // pubg/www, public
    let secret: any; // pubg/secret, private
    /** Issues by name: o1..o4 in one, t1 in two, a1 in arch, w1 in www, s1 in secret. */
    const is: Record<string, any> = {};

    async function issue(name: string, token: string, project: any, body: Record<string, unknown>, createdAt: string) {
      const r = await f.api('POST', `/projects/${project.id}/issues`, { token, body });
      expectStatus(r, 201);
      // fixed times make the order deterministic
      await f.forge.database.db.updateTable('issues').set({ created_at: createdAt, updated_at: createdAt }).where('id', '=', r.body.id).execute();
      is[name] = r.body;
    }

    /** Names of the issues a list answered, in order. */
    async function names(path: string, token: string | null = owner.token): Promise<string[]> {
      const r = await f.api('GET', path, { token });
      expectStatus(r, 200);
      const byId = new Map(Object.entries(is).map(([k, v]) => [v.id, k]));
      return r.body.map((i: any) => byId.get(i.id) ?? `?${i.id}`);
    }

    before(async () => {
      f = await startTestServer(dialect);
      [owner, reporter, guest, outsider] = await createUsers(f, ['lowner', 'lreporter', 'lguest', 'loutsider']);
      const lg = await createGroup(f, owner.token, { name: 'List Group', path: 'lg' });
      const sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: lg.id });
      const pubg = await createGroup(f, owner.token, { name: 'Pub Group', path: 'pubg', visibility: 'public' });
      one = await createProject(f, owner.token, { name: 'one', namespace_id: lg.id });
      two = await createProject(f, owner.token, { name: 'two', namespace_id: sub.id });
      arch = await createProject(f, owner.token, { name: 'arch', namespace_id: lg.id });
      www = await createProject(f, owner.token, { name: 'www', namespace_id: pubg.id, visibility: 'public' });
      secret = await createProject(f, owner.token, { name: 'secret', namespace_id: pubg.id });
      await addMember(f, 'groups', lg.id, reporter.id, 20);
      await addMember(f, 'projects', one.id, guest.id, 10);

      await issue('o1', guest.token, one, { title: 'Alpha crash', description: 'It CRASHES on start', labels: 'bug,ui', assignee_ids: [reporter.id] }, '2024-01-01T00:00:00.000Z');
      await issue('o2', owner.token, one, { title: 'beta Feature', labels: 'feature', confidential: true, due_date: '2024-03-01', weight: 2 }, '2024-02-01T00:00:00.000Z');
      await issue('o3', owner.token, one, { title: 'Gamma 100% done', issue_type: 'incident', due_date: '2024-02-15' }, '2024-03-01T00:00:00.000Z');
      await issue('o4', owner.token, one, { title: 'Epsilon secret task', confidential: true, assignee_ids: [guest.id], labels: 'ui' }, '2024-03-15T00:00:00.000Z');
      await issue('t1', reporter.token, two, { title: 'delta', labels: 'bug', assignee_ids: [owner.id, reporter.id] }, '2024-04-01T00:00:00.000Z');
      await issue('a1', owner.token, arch, { title: 'archived one' }, '2024-05-01T00:00:00.000Z');
      await issue('w1', owner.token, www, { title: 'public page' }, '2024-06-01T00:00:00.000Z');
      await issue('s1', owner.token, secret, { title: 'hidden in public group' }, '2024-07-01T00:00:00.000Z');
      expectStatus(await f.api('PUT', `/projects/${one.id}/issues/${is.o3.iid}`, { token: owner.token, body: { state_event: 'close' } }), 200);
      await f.forge.database.db.updateTable('issues').set({ updated_at: '2024-08-01T00:00:00.000Z' }).where('id', '=', is.o3.id).execute();
      expectStatus(await f.api('PUT', `/projects/${arch.id}`, { token: owner.token, body: { archived: true } }), 200);
    });
    after(() => f.stop());

    it('project list: state, default order created_at desc, sort and order_by', async () => {
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(base), ['o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names(`${base}?state=opened`), ['o4', 'o2', 'o1']);
      assert.deepEqual(await names(`${base}?state=closed`), ['o3']);
      assert.deepEqual(await names(`${base}?sort=asc`), ['o1', 'o2', 'o3', 'o4']);
      assert.deepEqual(await names(`${base}?order_by=title&sort=asc`), ['o1', 'o2', 'o4', 'o3'], 'titles compare case-insensitively');
      assert.deepEqual(await names(`${base}?order_by=updated_at`), ['o3', 'o4', 'o2', 'o1']);
      assert.deepEqual(await names(`${base}?order_by=due_date&sort=asc`), ['o3', 'o2', 'o1', 'o4'], 'no due date last, ties by id');
      assert.deepEqual(await names(`${base}?order_by=weight`), ['o2', 'o4', 'o3', 'o1'], 'no weight last');
      const bad = await f.api('GET', `${base}?order_by=priority`, { token: owner.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'order_by does not have a valid value' }]);
    });

    it('labels: all of them, None, Any, array form', async () => {
      const group = '/groups/lg/issues';
      assert.deepEqual(await names(`${group}?labels=bug`), ['t1', 'o1']);
      assert.deepEqual(await names(`${group}?labels=bug,ui`), ['o1']);
      assert.deepEqual(await names(`${group}?labels%5B%5D=bug&labels%5B%5D=ui`), ['o1']);
      assert.deepEqual(await names(`${group}?labels=None`), ['o3']);
      assert.deepEqual(await names(`${group}?labels=any`), ['t1', 'o4', 'o2', 'o1']);
      assert.deepEqual(await names(`${group}?labels=nope`), []);
    });

    it('milestone: before any milestone exists, None matches all, Any and titles nothing', async () => {
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(`${base}?milestone=None`), ['o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names(`${base}?milestone=Any`), []);
      assert.deepEqual(await names(`${base}?milestone=v1.0`), []);
    });

    it('search in title and description, case-insensitive, wildcards taken literally', async () => {
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(`${base}?search=CRASH`), ['o1']);
      assert.deepEqual(await names(`${base}?search=crashes&in=title`), []);
      assert.deepEqual(await names(`${base}?search=crashes&in=description`), ['o1']);
      assert.deepEqual(await names(`${base}?search=100%25`), ['o3']);
      assert.deepEqual(await names(`${base}?search=a_`), []);
      assert.deepEqual(await names(`${base}?search=feature+`), []);
      assert.deepEqual(await names(`${base}?search=beta+feature`), ['o2']);
    });

    it('people: author_id, author_username, assignee_id (id, None, Any), assignee_username', async () => {
      const group = '/groups/lg/issues';
      assert.deepEqual(await names(`${group}?author_id=${guest.id}`), ['o1']);
      assert.deepEqual(await names(`${group}?author_username=LREPORTER`), ['t1']);
      assert.deepEqual(await names(`${group}?assignee_id=${reporter.id}`), ['t1', 'o1']);
      assert.deepEqual(await names(`${group}?assignee_id=None`), ['o3', 'o2']);
      assert.deepEqual(await names(`${group}?assignee_id=Any`), ['t1', 'o4', 'o1']);
      assert.deepEqual(await names(`${group}?assignee_username%5B%5D=lowner&assignee_username%5B%5D=lreporter`), ['t1']);
      assert.deepEqual(await names(`${group}?assignee_username=lguest`), ['o4']);
      const both = await f.api('GET', `${group}?author_id=1&author_username=x`, { token: owner.token });
      assert.deepEqual([both.status, both.body], [400, { error: 'author_id, author_username are mutually exclusive' }]);
      const bad = await f.api('GET', `${group}?assignee_id=someone`, { token: owner.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'assignee_id does not have a valid value' }]);
    });

    it('iids, confidential, issue_type, created and updated ranges', async () => {
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(`${base}?iids%5B%5D=${is.o1.iid}&iids%5B%5D=${is.o3.iid}`), ['o3', 'o1']);
      assert.deepEqual(await names(`${base}?confidential=true`), ['o4', 'o2']);
      assert.deepEqual(await names(`${base}?confidential=False`), ['o3', 'o1']);
      assert.deepEqual(await names(`${base}?issue_type=incident`), ['o3']);
      assert.deepEqual(await names(`${base}?created_after=2024-02-01T00:00:00Z&created_before=2024-03-01`), ['o3', 'o2']);
      assert.deepEqual(await names(`${base}?updated_after=2024-07-01`), ['o3']);
      assert.deepEqual(await names(`${base}?updated_before=2024-01-31`), ['o1']);
      const bad = await f.api('GET', `${base}?created_after=yesterday`, { token: owner.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'created_after is invalid' }]);
    });

    it('my_reaction_emoji and the batch-loaded counts', async () => {
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      const award = (user: User, name: string, issueId: number) => ({ name, user_id: user.id, awardable_type: 'Issue', awardable_id: issueId, created_at: now, updated_at: now });
      await db.insertInto('award_emoji').values([
        award(owner, 'thumbsup', is.o1.id), award(reporter, 'thumbsup', is.o1.id), award(guest, 'thumbsdown', is.o1.id),
        award(owner, 'tada', is.o2.id), award(reporter, 'thumbsdown', is.o3.id),
      ]).execute();
      const note = (issueId: number, system: number) => ({ project_id: one.id, noteable_type: 'Issue', noteable_id: issueId, body: 'n', author_id: owner.id, system, internal: 0, created_at: now, updated_at: now });
      await db.insertInto('notes').values([note(is.o1.id, 0), note(is.o1.id, 0), note(is.o1.id, 1), note(is.o3.id, 0)]).execute();
      const r = await f.api('GET', `/projects/${one.id}/issues?sort=asc`, { token: owner.token });
      assert.deepEqual(
        r.body.map((i: any) => [i.iid, i.upvotes, i.downvotes, i.user_notes_count]),
        [[is.o1.iid, 2, 1, 2], [is.o2.iid, 0, 0, 0], [is.o3.iid, 0, 1, 1], [is.o4.iid, 0, 0, 0]],
      );
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(`${base}?my_reaction_emoji=tada`), ['o2']);
      assert.deepEqual(await names(`${base}?my_reaction_emoji=Any`), ['o2', 'o1']);
      assert.deepEqual(await names(`${base}?my_reaction_emoji=None`), ['o4', 'o3']);
      assert.deepEqual(await names(`${base}?order_by=popularity`), ['o1', 'o4', 'o3', 'o2']);
    });

    it('confidential issues: author, assignees, Reporters and admins only, in every list', async () => {
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(base, guest.token), ['o4', 'o3', 'o1'], 'the guest is assigned to o4, not to o2');
      assert.deepEqual(await names(base, reporter.token), ['o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names(base, f.rootToken), ['o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names('/groups/lg/issues', guest.token), ['o4', 'o3', 'o1']);
      assert.deepEqual(await names('/issues?scope=all', guest.token), ['w1', 'o4', 'o3', 'o1']);
      assert.deepEqual(await names('/issues?scope=all', reporter.token), ['w1', 't1', 'o4', 'o3', 'o2', 'o1']);
      const hidden = await f.api('GET', `${base}/${is.o2.iid}`, { token: guest.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Issue Not Found' }]);
      expectStatus(await f.api('GET', `${base}/${is.o4.iid}`, { token: guest.token }), 200);
      const put = await f.api('PUT', `${base}/${is.o2.iid}`, { token: guest.token, body: { title: 'peek' } });
      assert.equal(put.status, 404);
    });

    it('GET /issues: created_by_me by default, assigned_to_me, all; anonymous only with scope=all', async () => {
      assert.deepEqual(await names('/issues', guest.token), ['o1']);
      assert.deepEqual(await names('/issues?scope=assigned_to_me', guest.token), ['o4']);
      assert.deepEqual(await names('/issues?scope=assigned-to-me', reporter.token), ['t1', 'o1']);
      assert.deepEqual(await names('/issues?scope=created_by_me&state=closed', owner.token), ['o3']);
      assert.deepEqual(await names('/issues', owner.token), ['s1', 'w1', 'o4', 'o3', 'o2'], 'archived projects are left out by default');
      assert.deepEqual(await names('/issues?non_archived=false', owner.token), ['s1', 'w1', 'a1', 'o4', 'o3', 'o2']);
      const anon = await f.api('GET', '/issues', { token: null });
      assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }]);
      assert.deepEqual(await names('/issues?scope=all', null), ['w1']);
      assert.deepEqual(await names('/issues?scope=all', outsider.token), ['w1']);
      assert.deepEqual(await names('/issues', outsider.token), []);
    });

    it('GET /groups/:id/issues: subgroups included, unreadable projects and hidden groups left out', async () => {
      assert.deepEqual(await names('/groups/lg/issues', owner.token), ['t1', 'o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names('/groups/lg%2Fsub/issues', owner.token), ['t1']);
      assert.deepEqual(await names('/groups/lg/issues?non_archived=false', owner.token), ['a1', 't1', 'o4', 'o3', 'o2', 'o1']);
      assert.deepEqual(await names('/groups/lg/issues', guest.token), ['o4', 'o3', 'o1'], 'the guest sees project one only');
      assert.deepEqual(await names('/groups/pubg/issues', null), ['w1']);
      assert.deepEqual(await names('/groups/pubg/issues', owner.token), ['s1', 'w1']);
      assert.deepEqual(await names('/groups/lg/issues?scope=created_by_me', reporter.token), ['t1']);
      const hidden = await f.api('GET', '/groups/lg/issues', { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);
      const lists = await f.api('GET', '/groups/lg/issues?per_page=1', { token: owner.token });
      assert.equal(lists.body[0].references.full, 'lg/sub/two#1');
      assert.equal(lists.body[0].web_url, `${f.url}/lg/sub/two/-/issues/1`);
    });

    it('pagination: headers and a Link that repeats the filters', async () => {
      const page = await f.api('GET', '/groups/lg/issues?state=opened&per_page=2', { token: owner.token });
      assert.deepEqual(page.body.map((i: any) => i.id), [is.t1.id, is.o4.id]);
      const h = (n: string) => page.headers.get(n);
      assert.deepEqual([h('x-page'), h('x-per-page'), h('x-total'), h('x-total-pages'), h('x-next-page'), h('x-prev-page')], ['1', '2', '4', '2', '2', '']);
      const next = /<([^>]+)>; rel="next"/.exec(h('link') ?? '')?.[1];
      assert.equal(next, `${f.url}/api/v4/groups/lg/issues?page=2&per_page=2&state=opened`);
      const second = await f.api('GET', next!, { token: owner.token });
      assert.deepEqual(second.body.map((i: any) => i.id), [is.o2.id, is.o1.id]);
      assert.equal(second.headers.get('x-next-page'), '');
      const zero = await f.api('GET', '/groups/lg/issues?per_page=0', { token: owner.token });
      assert.deepEqual([zero.status, zero.body], [400, { error: 'per_page does not have a valid value' }]);
    });

    it('milestone filter with milestones: title (exact), None, Any, Started, Upcoming; on group lists too', async () => {
      const ms = async (kind: 'groups' | 'projects', id: number, body: Record<string, unknown>) => {
        const r = await f.api('POST', `/${kind}/${id}/milestones`, { token: owner.token, body });
        expectStatus(r, 201);
        return r.body;
      };
      const lg = (await f.api('GET', '/groups/lg', { token: owner.token })).body;
      const v1 = await ms('groups', lg.id, { title: 'v1.0', start_date: '2000-01-01', due_date: '2998-01-01' });
      const v2 = await ms('projects', one.id, { title: 'v2.0', start_date: '2990-01-01', due_date: '2999-01-01' });
      await ms('projects', one.id, { title: 'v1.5', due_date: '2998-06-01' });
      const old = await ms('projects', one.id, { title: 'old', start_date: '2000-01-01' });
      expectStatus(await f.api('PUT', `/projects/${one.id}/milestones/${old.id}`, { token: owner.token, body: { state_event: 'close' } }), 200);
      const assign = async (project: any, name: string, milestoneId: number) =>
        expectStatus(await f.api('PUT', `/projects/${project.id}/issues/${is[name].iid}`, { token: owner.token, body: { milestone_id: milestoneId } }), 200);
      await assign(one, 'o1', v1.id);
      await assign(one, 'o2', v2.id);
      await assign(one, 'o4', old.id);
      await assign(two, 't1', v1.id);
      const base = `/projects/${one.id}/issues`;
      assert.deepEqual(await names(`${base}?milestone=v1.0`), ['o1']);
      assert.deepEqual(await names(`${base}?milestone=V1.0`), [], 'titles match exactly');
      assert.deepEqual(await names(`${base}?milestone=none`), ['o3']);
      assert.deepEqual(await names(`${base}?milestone=Any`), ['o4', 'o2', 'o1']);
      assert.deepEqual(await names(`${base}?milestone=Started`), ['o1'], 'active and started; a closed one is not');
      assert.deepEqual(await names(`${base}?milestone=Upcoming`), ['o1'], 'v2.0 is not the earliest upcoming of its project');
      assert.deepEqual(await names(`/groups/lg/issues?milestone=v1.0`), ['t1', 'o1']);
      assert.deepEqual(await names(`/issues?scope=all&milestone=v2.0`), ['o2']);
      const one1 = await f.api('GET', `${base}?milestone=v1.0`, { token: owner.token });
      assert.equal(one1.body[0].milestone.title, 'v1.0');
      assert.equal(one1.body[0].milestone.group_id, lg.id);
    });
  });
}
