import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Not found' };
const DUPLICATE = 'already being used for another group or project milestone.';

for (const dialect of DIALECTS) {
  describe(`${dialect}: milestones`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let reporter: User;
    let developer: User;
    let guest: User;
    let outsider: User;
    let top: any; // ms, private
    let sub: any; // ms/sub
    let other: any; // other, private, unrelated
    let app: any; // ms/app
    let lib: any; // ms/sub/lib

    const enc = (v: string | number) => encodeURIComponent(String(v));
    async function milestone(kind: 'groups' | 'projects', parent: string | number, body: Record<string, unknown>, token = owner.token): Promise<any> {
      const r = await f.api('POST', `/${kind}/${enc(parent)}/milestones`, { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    /** Titles a list answered, in order. */
    async function titles(path: string, token: string | null = owner.token): Promise<string[]> {
      const r = await f.api('GET', path, { token });
      expectStatus(r, 200);
      return r.body.map((m: any) => m.title);
    }
    async function count(table: 'milestones' | 'internal_ids' | 'issues'): Promise<number> {
      const row = await f.forge.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, reporter, developer, guest, outsider] = await createUsers(f, ['mowner', 'mreporter', 'mdeveloper', 'mguest', 'moutsider']);
      top = await createGroup(f, owner.token, { name: 'Milestones', path: 'ms' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: top.id });
      other = await createGroup(f, owner.token, { name: 'Other', path: 'other' });
      app = await createProject(f, owner.token, { name: 'app', namespace_id: top.id });
      lib = await createProject(f, owner.token, { name: 'lib', namespace_id: sub.id });
      await addMember(f, 'groups', top.id, reporter.id, 20);
      await addMember(f, 'groups', top.id, developer.id, 30);
      await addMember(f, 'groups', top.id, guest.id, 10);
    });
    after(() => f.stop());

    describe('group milestone CRUD', () => {
      it('a Reporter creates one: the whole entity; the group path works as :id', async () => {
        const r = await f.api('POST', `/groups/${enc('ms/sub')}/milestones`, {
          token: reporter.token,
          body: { title: '  Crud one ', description: 'first', start_date: '2024-06-01', due_date: '2024-06-30' },
        });
        expectStatus(r, 201);
        assert.deepEqual(r.body, {
          id: r.body.id,
          iid: 1,
          group_id: sub.id,
          title: 'Crud one',
          description: 'first',
          state: 'active',
          created_at: NOW,
          updated_at: NOW,
          due_date: '2024-06-30',
          start_date: '2024-06-01',
          expired: false,
          web_url: `${f.url}/groups/ms/sub/-/milestones/1`,
        });
        assert.deepEqual(Object.keys(r.body), ['id', 'iid', 'group_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url']);
        const got = await f.api('GET', `/groups/${sub.id}/milestones/${r.body.id}`, { token: guest.token });
        expectStatus(got, 200);
        assert.deepEqual(got.body, r.body);
      });

      it('bad input: 400 with GitLab messages and nothing written (no iid used)', async () => {
        const before = { milestones: await count('milestones'), ids: await count('internal_ids') };
        const cases: Array<[Record<string, unknown>, unknown]> = [
          [{ description: 'no title' }, { error: 'title is missing' }],
          [{ title: '   ' }, { message: 'Failed to create milestone {:title=>["can\'t be blank"]}' }],
          [{ title: 'x'.repeat(256) }, { message: 'Failed to create milestone {:title=>["is too long (maximum is 255 characters)"]}' }],
          [{ title: 'Bad dates', start_date: '2024-02-01', due_date: '2024-01-31' }, { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' }],
          [{ title: 'Bad date', due_date: 'soon' }, { error: 'due_date is invalid' }],
          [{ title: 'CRUD ONE' }, { message: `Failed to create milestone {:title=>["${DUPLICATE}"]}` }],
        ];
        for (const [body, expected] of cases) {
          const r = await f.api('POST', `/groups/${sub.id}/milestones`, { body });
          expectStatus(r, 400);
          assert.deepEqual(r.body, expected, JSON.stringify(body));
        }
        assert.deepEqual({ milestones: await count('milestones'), ids: await count('internal_ids') }, before);
        const next = await milestone('groups', sub.id, { title: 'Crud two', start_date: '2024-07-01', due_date: '2024-07-01' });
        assert.equal(next.iid, 2, 'failed creates used no iid; due == start is fine');
      });

      it('titles are unique across a project and its group, a group and its own projects', async () => {
        await milestone('projects', lib.id, { title: 'Lib only' });
        const r1 = await f.api('POST', `/groups/${sub.id}/milestones`, { body: { title: 'Lib only' } });
        assert.deepEqual(r1.body, { message: `Failed to create milestone {:title=>["${DUPLICATE}"]}` });
        const r2 = await f.api('POST', `/projects/${lib.id}/milestones`, { body: { title: 'Crud two' } });
        assert.deepEqual(r2.body, { message: `Failed to create milestone {:title=>["${DUPLICATE}"]}` });
        // GitLab checks the direct group only: the parent group may reuse a subgroup's title
        await milestone('groups', top.id, { title: 'Crud two' });
      });

      it('update: fields, clearing a date, state_event close and activate, errors', async () => {
        const m = await milestone('groups', sub.id, { title: 'To edit', start_date: '2024-05-01', due_date: '2024-05-31' });
        clock.set(new Date('2024-06-15T13:00:00.000Z'), true);
        try {
          const put = (body: Record<string, unknown>, token = reporter.token) => f.api('PUT', `/groups/${sub.id}/milestones/${m.id}`, { token, body });
          let r = await put({ title: 'Edited', description: 'now described', due_date: '' });
          expectStatus(r, 200);
          assert.equal(r.body.title, 'Edited');
          assert.equal(r.body.description, 'now described');
          assert.equal(r.body.due_date, null);
          assert.equal(r.body.start_date, '2024-05-01');
          assert.equal(r.body.updated_at, '2024-06-15T13:00:00.000Z');
          assert.equal(r.body.created_at, NOW);
          r = await put({ state_event: 'close' });
          assert.equal(r.body.state, 'closed');
          r = await put({ state_event: 'close' });
          assert.equal(r.body.state, 'closed');
          r = await put({ state_event: 'activate' });
          assert.equal(r.body.state, 'active');
          r = await put({ state_event: 'reopen' });
          expectStatus(r, 400);
          assert.deepEqual(r.body, { error: 'state_event does not have a valid value' });
          r = await put({});
          assert.deepEqual(r.body, { error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' });
          r = await put({ due_date: '2024-04-01' });
          expectStatus(r, 400);
          assert.deepEqual(r.body, { message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' });
          r = await put({ title: 'crud one', description: 'not written' });
          assert.deepEqual(r.body, { message: `Failed to update milestone {:title=>["${DUPLICATE}"]}` });
          const got = await f.api('GET', `/groups/${sub.id}/milestones/${m.id}`);
          assert.equal(got.body.title, 'Edited');
          assert.equal(got.body.description, 'now described');
          r = await put({ title: 'Edited' }, guest.token);
          assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        } finally {
          clock.set(new Date(NOW), true);
        }
      });

      it('permissions: Guest cannot create (403); non-members see 404; Reporter cannot delete; Developer deletes (204)', async () => {
        let r = await f.api('POST', `/groups/${top.id}/milestones`, { token: guest.token, body: { title: 'Nope' } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        for (const token of [outsider.token, null]) {
          r = await f.api('GET', `/groups/${top.id}/milestones`, { token });
          assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
          r = await f.api('GET', `/projects/${app.id}/milestones`, { token });
          assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
        }
        r = await f.api('POST', `/groups/${top.id}/milestones`, { token: outsider.token, body: { title: 'Nope' } });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
        r = await f.api('POST', `/groups/${top.id}/milestones`, { token: null, body: { title: 'Nope' } });
        assert.equal(r.status, 401);

        const m = await milestone('groups', top.id, { title: 'Doomed' });
        r = await f.api('DELETE', `/groups/${top.id}/milestones/${m.id}`, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        r = await f.api('DELETE', `/groups/${top.id}/milestones/${m.id}`, { token: developer.token });
        assert.equal(r.status, 204);
        assert.equal(r.text, '');
        r = await f.api('GET', `/groups/${top.id}/milestones/${m.id}`);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
        r = await f.api('DELETE', `/groups/${top.id}/milestones/${m.id}`);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      });

      it('a milestone is found under its own group only', async () => {
        const m = await milestone('groups', top.id, { title: 'Top only' });
        let r = await f.api('GET', `/groups/${sub.id}/milestones/${m.id}`);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
        r = await f.api('GET', `/projects/${app.id}/milestones/${m.id}`);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      });
    });

    describe('expired, from the injected clock', () => {
      it('due before today is expired; due today is not; moving the clock changes it', async () => {
        const g = await createGroup(f, owner.token, { name: 'Exp', path: 'exp' });
        const past = await milestone('groups', g.id, { title: 'Past', due_date: '2024-06-14' });
        const today = await milestone('groups', g.id, { title: 'Today', due_date: '2024-06-15' });
        const open = await milestone('groups', g.id, { title: 'Open' });
        assert.deepEqual([past.expired, today.expired, open.expired], [true, false, false]);
        clock.set(new Date('2024-06-16T00:00:01.000Z'), true);
        try {
          const r = await f.api('GET', `/groups/${g.id}/milestones/${today.id}`);
          assert.equal(r.body.expired, true);
          const list = await f.api('GET', `/groups/${g.id}/milestones`);
          assert.deepEqual(list.body.map((m: any) => [m.title, m.expired]), [['Past', true], ['Today', true], ['Open', false]]);
        } finally {
          clock.set(new Date(NOW), true);
        }
      });
    });

    describe('list filters', () => {
      let g: any; // lf, private
      let gs: any; // lf/kid
      let gp: any; // lf/proj
      let kp: any; // lf/kid/kproj
      const m: Record<string, any> = {};
      before(async () => {
        g = await createGroup(f, owner.token, { name: 'LF', path: 'lf' });
        gs = await createGroup(f, owner.token, { name: 'Kid', path: 'kid', parent_id: g.id });
        gp = await createProject(f, owner.token, { name: 'proj', namespace_id: g.id });
        kp = await createProject(f, owner.token, { name: 'kproj', namespace_id: gs.id });
        m.a = await milestone('groups', g.id, { title: 'Release Alpha one', start_date: '2024-01-01', due_date: '2024-01-31' });
        m.b = await milestone('groups', g.id, { title: 'Release Beta two', description: 'The beta TRAIN', start_date: '2024-02-01', due_date: '2024-02-28' });
        m.c = await milestone('groups', g.id, { title: 'Gamma' });
        m.d = await milestone('groups', g.id, { title: 'Delta release', start_date: '2024-03-01' });
        m.e = await milestone('groups', g.id, { title: 'Echo', due_date: '2024-01-31' });
        m.k = await milestone('groups', gs.id, { title: 'Kid sprint', due_date: '2024-01-15' });
        m.p = await milestone('projects', gp.id, { title: 'Proj milestone', due_date: '2024-04-01' });
        m.q = await milestone('projects', kp.id, { title: 'Kid proj milestone' });
        await f.api('PUT', `/groups/${g.id}/milestones/${m.b.id}`, { body: { state_event: 'close' } });
        // distinct update times for updated_before/after
        const db = f.forge.database.db;
        await db.updateTable('milestones').set({ updated_at: '2024-01-01T00:00:00.000Z' }).where('id', '=', m.a.id).execute();
        await db.updateTable('milestones').set({ updated_at: '2024-03-01T00:00:00.000Z' }).where('id', '=', m.c.id).execute();
      });

      const base = () => `/groups/${g.id}/milestones`;

      it('default: every state, by due date (undated last), ties newest first; paginated', async () => {
        assert.deepEqual(await titles(base()), ['Echo', 'Release Alpha one', 'Release Beta two', 'Delta release', 'Gamma']);
        const r = await f.api('GET', `${base()}?per_page=2&page=2`);
        assert.equal(r.headers.get('x-total'), '5');
        assert.equal(r.headers.get('x-total-pages'), '3');
        assert.deepEqual(r.body.map((x: any) => x.title), ['Release Beta two', 'Delta release']);
      });

      it('state, title (exact, case-sensitive), iids', async () => {
        assert.deepEqual(await titles(`${base()}?state=closed`), ['Release Beta two']);
        assert.deepEqual(await titles(`${base()}?state=active`), ['Echo', 'Release Alpha one', 'Delta release', 'Gamma']);
        assert.deepEqual(await titles(`${base()}?state=all`), await titles(base()));
        const bad = await f.api('GET', `${base()}?state=opened`);
        assert.deepEqual([bad.status, bad.body], [400, { error: 'state does not have a valid value' }]);
        assert.deepEqual(await titles(`${base()}?title=Gamma`), ['Gamma']);
        assert.deepEqual(await titles(`${base()}?title=gamma`), []);
        assert.deepEqual(await titles(`${base()}?iids%5B%5D=${m.a.iid}&iids%5B%5D=${m.c.iid}`), ['Release Alpha one', 'Gamma']);
        assert.deepEqual(await titles(`${base()}?iids=${m.a.iid},${m.c.iid}`), ['Release Alpha one', 'Gamma']);
      });

      it('search (title or description) and search_title (every term, any case; python sends +)', async () => {
        assert.deepEqual(await titles(`${base()}?search=train`), ['Release Beta two']);
        assert.deepEqual(await titles(`${base()}?search=RELEASE`), ['Release Alpha one', 'Release Beta two', 'Delta release']);
        assert.deepEqual(await titles(`${base()}?search_title=release+beta`), ['Release Beta two']);
        assert.deepEqual(await titles(`${base()}?search_title=release%20alpha`), ['Release Alpha one']);
        assert.deepEqual(await titles(`${base()}?search_title=alpha+beta`), []);
        assert.deepEqual(await titles(`${base()}?search_title=train`), [], 'search_title ignores descriptions');
        // words under 3 characters are dropped; a query made only of them must equal the title
        assert.deepEqual(await titles(`${base()}?search_title=release+al`), ['Release Alpha one', 'Release Beta two', 'Delta release']);
        assert.deepEqual(await titles(`${base()}?search_title=ec`), []);
      });

      it('updated_before / updated_after', async () => {
        assert.deepEqual(await titles(`${base()}?updated_before=2024-02-01T00:00:00Z`), ['Release Alpha one']);
        assert.deepEqual(await titles(`${base()}?updated_after=2024-02-01T00:00:00Z&updated_before=2024-04-01T00:00:00Z`), ['Gamma']);
        const bad = await f.api('GET', `${base()}?updated_after=yesterday`);
        assert.deepEqual([bad.status, bad.body], [400, { error: 'updated_after is invalid' }]);
      });

      it('containing_date: start <= date <= due, an open end counts, undated never', async () => {
        assert.deepEqual(await titles(`${base()}?containing_date=2024-01-20`), ['Echo', 'Release Alpha one']);
        assert.deepEqual(await titles(`${base()}?containing_date=2024-02-28`), ['Release Beta two']);
        assert.deepEqual(await titles(`${base()}?containing_date=2024-09-01`), ['Delta release']);
      });

      it('start_date and end_date: both or neither; milestones overlapping the range', async () => {
        for (const q of ['start_date=2024-01-01', 'end_date=2024-01-01']) {
          const r = await f.api('GET', `${base()}?${q}`);
          assert.deepEqual([r.status, r.body], [400, { error: 'start_date, end_date provide all or none of parameters' }]);
        }
        assert.deepEqual(await titles(`${base()}?start_date=2024-02-15&end_date=2024-03-05`), ['Release Beta two', 'Delta release']);
        assert.deepEqual(await titles(`${base()}?start_date=2024-01-31&end_date=2024-01-31`), ['Echo', 'Release Alpha one']);
      });

      it('include_ancestors (python: True) adds visible ancestor groups and ignores iids', async () => {
        const kid = `/groups/${gs.id}/milestones`;
        assert.deepEqual(await titles(kid), ['Kid sprint']);
        const withParents = ['Kid sprint', 'Echo', 'Release Alpha one', 'Release Beta two', 'Delta release', 'Gamma'];
        assert.deepEqual(await titles(`${kid}?include_ancestors=True`), withParents);
        assert.deepEqual(await titles(`${kid}?include_parent_milestones=true`), withParents);
        assert.deepEqual(await titles(`${kid}?include_ancestors=true&iids%5B%5D=1`), withParents);
        assert.deepEqual(await titles(`${kid}?iids%5B%5D=1`), ['Kid sprint']);
        const bad = await f.api('GET', `${kid}?include_ancestors=maybe`);
        assert.deepEqual([bad.status, bad.body], [400, { error: 'include_ancestors is invalid' }]);
      });

      it('include_descendants adds subgroups and projects in the hierarchy', async () => {
        assert.deepEqual(await titles(`${base()}?include_descendants=true`), [
          'Kid sprint', 'Echo', 'Release Alpha one', 'Release Beta two', 'Proj milestone', 'Kid proj milestone', 'Delta release', 'Gamma',
        ]);
        const r = await f.api('GET', `${base()}?include_descendants=true&title=Proj%20milestone`);
        assert.deepEqual(r.body, [{ ...m.p }]);
        assert.equal(r.body[0].project_id, gp.id);
        assert.equal(r.body[0].group_id, undefined);
        assert.equal(r.body[0].web_url, `${f.url}/lf/proj/-/milestones/1`);
      });

      it('project milestones: own only, or with the groups above (include_ancestors)', async () => {
        assert.deepEqual(await titles(`/projects/${kp.id}/milestones`), ['Kid proj milestone']);
        assert.deepEqual(await titles(`/projects/${enc('lf/kid/kproj')}/milestones?include_ancestors=true`), [
          'Kid sprint', 'Echo', 'Release Alpha one', 'Release Beta two', 'Kid proj milestone', 'Delta release', 'Gamma',
        ]);
        assert.deepEqual(await titles(`/projects/${kp.id}/milestones?include_ancestors=true&search_title=kid`), ['Kid sprint', 'Kid proj milestone']);
      });
    });

    describe('project milestones CRUD', () => {
      it('create, get, update, delete under a project', async () => {
        const m = await milestone('projects', 'ms/app', { title: 'App 1.0', due_date: '2024-12-31' }, reporter.token);
        assert.equal(m.project_id, app.id);
        assert.equal(m.group_id, undefined);
        assert.equal(m.web_url, `${f.url}/ms/app/-/milestones/${m.iid}`);
        let r = await f.api('GET', `/projects/${app.id}/milestones/${m.id}`, { token: guest.token });
        assert.deepEqual(r.body, m);
        r = await f.api('PUT', `/projects/${app.id}/milestones/${m.id}`, { token: reporter.token, body: { state_event: 'close', title: 'App 1.0 final' } });
        assert.deepEqual([r.body.state, r.body.title], ['closed', 'App 1.0 final']);
        r = await f.api('POST', `/projects/${app.id}/milestones`, { token: guest.token, body: { title: 'Guest' } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        r = await f.api('DELETE', `/projects/${app.id}/milestones/${m.id}`, { token: reporter.token });
        assert.equal(r.status, 403);
        r = await f.api('DELETE', `/projects/${app.id}/milestones/${m.id}`, { token: developer.token });
        assert.equal(r.status, 204);
      });
    });

    describe('issues and merge requests', () => {
      let gm: any; // ms group milestone
      let sm: any; // ms/sub group milestone
      let pm: any; // ms/app project milestone
      let om: any; // other group milestone
      before(async () => {
        gm = await milestone('groups', top.id, { title: 'Group M', start_date: '2024-06-01', due_date: '2024-12-31' });
        sm = await milestone('groups', sub.id, { title: 'Sub M' });
        pm = await milestone('projects', app.id, { title: 'App M' });
        om = await milestone('groups', other.id, { title: 'Other M' });
      });

      it('issues take the project or an ancestor group milestone; the entity carries it; others leave it unset', async () => {
        let r = await f.api('POST', `/projects/${app.id}/issues`, { token: guest.token, body: { title: 'with group m', milestone_id: gm.id } });
        expectStatus(r, 201);
        assert.deepEqual(r.body.milestone, gm);
        const issue = r.body;
        r = await f.api('POST', `/projects/${lib.id}/issues`, { body: { title: 'lib with top m', milestone_id: gm.id } });
        assert.deepEqual(r.body.milestone, gm, 'an ancestor two levels up');
        for (const id of [sm.id, om.id, 999999]) {
          r = await f.api('POST', `/projects/${app.id}/issues`, { body: { title: `foreign ${id}`, milestone_id: id } });
          expectStatus(r, 201);
          assert.equal(r.body.milestone, null);
        }
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: reporter.token, body: { milestone_id: pm.id } });
        assert.deepEqual(r.body.milestone, pm);
        r = await f.api('GET', `/projects/${app.id}/issues/${issue.iid}`);
        assert.deepEqual(r.body.milestone, pm);
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { body: { milestone_id: 0 } });
        assert.equal(r.body.milestone, null);
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { body: { milestone_id: gm.id } });
        assert.deepEqual(r.body.milestone, gm);
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { body: { milestone_id: null, title: 'with group m' } });
        assert.equal(r.body.milestone, null);
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { body: { milestone_id: gm.id } });
        // a Guest author may not change metadata: dropped, as GitLab does
        r = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: guest.token, body: { milestone_id: 0, title: 'renamed by guest' } });
        expectStatus(r, 200);
        assert.deepEqual([r.body.title, r.body.milestone?.id], ['renamed by guest', gm.id]);
        // the list shows it too (batch-loaded)
        const list = await f.api('GET', `/projects/${app.id}/issues?milestone=Group%20M`);
        assert.deepEqual(list.body.map((i: any) => [i.iid, i.milestone?.id]), [[issue.iid, gm.id]]);
      });

      it('merge requests: create and update with a milestone; the entity carries it; the list filters by title', async () => {
        let r = await f.api('POST', `/projects/${app.id}/merge_requests`, {
          token: developer.token,
          body: { title: 'MR with m', source_branch: 'feature-m', target_branch: 'main', milestone_id: pm.id },
        });
        expectStatus(r, 201);
        assert.deepEqual(r.body.milestone, pm);
        const mr = r.body;
        r = await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: developer.token, body: { milestone_id: gm.id } });
        assert.deepEqual(r.body.milestone, gm);
        r = await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: developer.token, body: { milestone_id: om.id } });
        assert.equal(r.body.milestone, null, 'another group’s milestone unsets it');
        r = await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: developer.token, body: { milestone_id: gm.id } });
        const list = await f.api('GET', `/projects/${app.id}/merge_requests?milestone=Group%20M`);
        assert.deepEqual(list.body.map((x: any) => [x.iid, x.milestone?.id]), [[mr.iid, gm.id]]);
        const none = await f.api('GET', `/projects/${app.id}/merge_requests?milestone=None`);
        assert.deepEqual(none.body, []);
        const single = await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`);
        assert.deepEqual(single.body.milestone, gm);
      });

      it('milestone issues and merge requests: a group milestone leaves out subgroups; newest first', async () => {
        const second = await f.api('POST', `/projects/${app.id}/issues`, { body: { title: 'second with group m', milestone_id: gm.id } });
        const r = await f.api('GET', `/groups/${top.id}/milestones/${gm.id}/issues`, { token: guest.token });
        expectStatus(r, 200);
        assert.deepEqual(r.body.map((i: any) => [i.project_id, i.title]), [
          [app.id, 'second with group m'],
          [app.id, 'renamed by guest'],
        ]);
        assert.deepEqual(r.body[0], { ...second.body, subscribed: false }, 'as root created it; the guest takes no part');
        assert.equal(r.headers.get('x-total'), '2');
        const mrs = await f.api('GET', `/groups/${enc('ms')}/milestones/${gm.id}/merge_requests`, { token: reporter.token });
        assert.deepEqual(mrs.body.map((x: any) => [x.title, x.references.relative]), [['MR with m', 'app!1']]);
        // a Guest of a private project may not read its merge requests
        const hidden = await f.api('GET', `/groups/${top.id}/milestones/${gm.id}/merge_requests`, { token: guest.token });
        assert.deepEqual(hidden.body, []);
        const own = await f.api('GET', `/projects/${app.id}/milestones/${pm.id}/issues`);
        assert.deepEqual(own.body, []);
        let missing = await f.api('GET', `/groups/${top.id}/milestones/${pm.id}/issues`);
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
        missing = await f.api('GET', `/groups/${top.id}/milestones/${gm.id}/issues`, { token: outsider.token });
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Group Not Found' }]);
      });

      it('burndown events (Premium): created, closed and reopened per visible issue; 405 below Premium', async () => {
        const created = await f.api('POST', `/projects/${app.id}/issues`, { body: { title: 'burn', milestone_id: gm.id, weight: 3 } });
        clock.set(new Date('2024-06-15T14:00:00.000Z'), true);
        await f.api('PUT', `/projects/${app.id}/issues/${created.body.iid}`, { body: { state_event: 'close' } });
        clock.set(new Date('2024-06-15T15:00:00.000Z'), true);
        await f.api('PUT', `/projects/${app.id}/issues/${created.body.iid}`, { body: { state_event: 'reopen' } });
        clock.set(new Date('2024-06-15T16:00:00.000Z'), true);
        await f.api('PUT', `/projects/${app.id}/issues/${created.body.iid}`, { body: { state_event: 'close' } });
        clock.set(new Date(NOW), true);
        const r = await f.api('GET', `/groups/${top.id}/milestones/${gm.id}/burndown_events`);
        expectStatus(r, 200);
        const burn = r.body.filter((e: any) => e.weight === 3);
        assert.deepEqual(burn, [
          { created_at: NOW, weight: 3, action: 'created' },
          { created_at: '2024-06-15T14:00:00.000Z', weight: 3, action: 'closed' },
          { created_at: '2024-06-15T15:00:00.000Z', weight: 3, action: 'reopened' },
          { created_at: '2024-06-15T16:00:00.000Z', weight: 3, action: 'closed' },
        ]);
        // issues of subgroups count here (Milestone#issues_visible_to_user), four issues carry it
        assert.equal(r.body.filter((e: any) => e.action === 'created').length, 4);
        const undated = await f.api('GET', `/projects/${app.id}/milestones/${pm.id}/burndown_events`);
        assert.deepEqual([undated.status, undated.body], [200, []]);
        const config = f.forge.deps.config;
        config.tier = 'free';
        try {
          const free = await f.api('GET', `/groups/${top.id}/milestones/${gm.id}/burndown_events`);
          assert.deepEqual([free.status, free.body], [405, { message: 'Milestone does not support burndown chart' }]);
        } finally {
          config.tier = 'ultimate';
        }
      });

      it('deleting a milestone unsets it on its issues and merge requests', async () => {
        const doomed = await milestone('projects', app.id, { title: 'Short lived' });
        const issue = await f.api('POST', `/projects/${app.id}/issues`, { body: { title: 'orphan', milestone_id: doomed.id } });
        assert.equal(issue.body.milestone.id, doomed.id);
        const r = await f.api('DELETE', `/projects/${app.id}/milestones/${doomed.id}`);
        assert.equal(r.status, 204);
        const after = await f.api('GET', `/projects/${app.id}/issues/${issue.body.iid}`);
        assert.equal(after.body.milestone, null);
      });
    });
  });
}
