import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { queriesDuring } from '../support/queries.js';

type User = { id: number; username: string; token: string };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FORBIDDEN = { message: '403 Forbidden' };
const ISSUE_NOT_FOUND = { message: '404 Issue Not Found' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

async function createIssue(f: TestForgelet, token: string | null, project: string | number, body: Record<string, unknown>): Promise<any> {
  const r = await f.api('POST', `/projects/${encodeURIComponent(String(project))}/issues`, { token, body });
  expectStatus(r, 201);
  return r.body;
}

/** Rows of every table an issue write touches, read straight from the database. */
async function rowCounts(f: TestForgelet): Promise<Record<string, number>> {
  const db = f.forge.database.db;
  const out: Record<string, number> = {};
  for (const table of ['issues', 'issue_assignees', 'labels', 'label_links', 'resource_state_events', 'internal_ids'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: project issues`, () => {
    let f: TestForgelet;
    let owner: User;
    let reporter: User;
    let guest: User;
    let guest2: User;
    let outsider: User;
    let group: any;
    let sub: any;
    let app: any; // private, wi/app
    let lib: any; // private, wi/sub/lib
    let site: any; // public
    let rootId: number;
    const basic = (u: User) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}` });

    before(async () => {
      f = await startTestServer(dialect);
      rootId = (await f.api('GET', '/user')).body.id;
      [owner, reporter, guest, guest2, outsider] = await createUsers(f, ['iowner', 'ireporter', 'iguest', 'iguest2', 'ioutsider']);
      group = await createGroup(f, owner.token, { name: 'Work Items', path: 'wi' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id });
      app = await createProject(f, owner.token, { name: 'App', namespace_id: group.id });
      lib = await createProject(f, owner.token, { name: 'Lib', namespace_id: sub.id });
      const open = await createGroup(f, owner.token, { name: 'Open', path: 'open', visibility: 'public' });
      site = await createProject(f, owner.token, { name: 'Site', namespace_id: open.id, visibility: 'public' });
      for (const p of [app, site]) {
        await addMember(f, 'projects', p.id, reporter.id, 20);
        await addMember(f, 'projects', p.id, guest.id, 10);
        await addMember(f, 'projects', p.id, guest2.id, 10);
      }
    });
    after(() => f.stop());

    it('a Guest creates an issue: the whole entity', async () => {
      const r = await f.api('POST', `/projects/${app.id}/issues`, {
        token: guest.token,
        body: {
          title: 'Crash on start',
          description: 'Steps\n- [x] open\n- [ ] click',
          labels: 'bug, UI',
          assignee_ids: [reporter.id, outsider.id],
          due_date: '2026-12-01',
          weight: 3,
        },
      });
      expectStatus(r, 201);
      const issue = r.body;
      assert.match(issue.created_at, ISO);
      const api = `${f.url}/api/v4/projects/${app.id}`;
      assert.deepEqual(issue, {
        id: issue.id, iid: 1, project_id: app.id, title: 'Crash on start', description: 'Steps\n- [x] open\n- [ ] click', state: 'opened',
        created_at: issue.created_at, updated_at: issue.created_at, closed_at: null, closed_by: null, labels: ['UI', 'bug'], milestone: null,
        assignees: [basic(reporter)], author: basic(guest), type: 'ISSUE', assignee: basic(reporter), user_notes_count: 0, merge_requests_count: 0,
        upvotes: 0, downvotes: 0, due_date: '2026-12-01', confidential: false, discussion_locked: false, issue_type: 'issue',
        web_url: `${f.url}/wi/app/-/issues/1`,
        time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
        task_completion_status: { count: 2, completed_count: 1 }, weight: 3, has_tasks: true, task_status: '1 of 2 checklist items completed',
        _links: { self: `${api}/issues/1`, notes: `${api}/issues/1/notes`, award_emoji: `${api}/issues/1/award_emoji`, project: api },
        references: { short: '#1', relative: '#1', full: 'wi/app#1' }, severity: 'UNKNOWN', subscribed: true, moved_to_id: null,
      }, 'the outsider cannot read the project, so is not assigned; the author takes part, so is subscribed');
      const shown = await f.api('GET', `/projects/wi%2Fapp/issues/1`, { token: guest.token });
      expectStatus(shown, 200);
      assert.deepEqual(shown.body, issue);
      const listed = await f.api('GET', `/projects/${app.id}/issues`, { token: guest.token });
      assert.deepEqual(listed.body, [issue]);
    });

    it('the created entity is the one a later read answers, whatever the creation set', async () => {
      // Creation presents the issue from what it wrote (no notes, votes or involvement yet):
      // each variant is compared with GET and with the list entry.
      const milestone = await f.api('POST', `/projects/${site.id}/milestones`, { token: owner.token, body: { title: 'v1' } });
      expectStatus(milestone, 201);
      const variants: [User | null, Record<string, unknown>][] = [
        [guest, { title: 'plain' }],
        [owner, { title: 'everything', description: `cc @${guest.username}`, labels: 'x,y', assignee_ids: [reporter.id, guest.id, owner.id], milestone_id: milestone.body.id, confidential: true, due_date: '2027-01-02', weight: 1 }],
        [reporter, { title: 'assigned to self', assignee_id: reporter.id, milestone_id: 0, labels: '' }],
        [null, { title: 'by the admin', assignee_ids: [outsider.id], issue_type: 'incident' }],
      ];
      for (const [user, body] of variants) {
        const token = user?.token ?? f.rootToken;
        const created = await createIssue(f, token, site.id, body);
        const shown = await f.api('GET', `/projects/${site.id}/issues/${created.iid}`, { token });
        expectStatus(shown, 200);
        assert.deepEqual(created, shown.body, `created vs shown: ${body.title}`);
        const listed = await f.api('GET', `/projects/${site.id}/issues?iids[]=${created.iid}`, { token });
        assert.deepEqual(listed.body, [created], `created vs listed: ${body.title}`);
      }
    });

    it('iids count per project; assignee_id and comma lists; minimal body defaults', async () => {
      const a = await createIssue(f, owner.token, lib.id, { title: 'first in lib' });
      const b = await createIssue(f, owner.token, 'wi/sub/lib', { title: 'second in lib', assignee_ids: `${owner.id}`, assignee_id: 0 });
      assert.deepEqual([a.iid, b.iid], [1, 2]);
      assert.deepEqual([a.description, a.labels, a.assignees, a.assignee, a.due_date, a.confidential, a.weight], [null, [], [], null, null, false, null]);
      assert.deepEqual(b.assignees, [], 'assignee_id 0 wins over assignee_ids and clears');
      const c = await createIssue(f, owner.token, lib.id, { title: 'third', assignee_id: reporter.id });
      assert.deepEqual(c.assignees, [], 'the reporter of wi/app cannot read wi/sub/lib');
      const d = await createIssue(f, owner.token, lib.id, { title: 'fourth', assignee_ids: `${owner.id},${rootId}` });
      assert.deepEqual(d.assignees.map((u: any) => u.username).sort(), ['iowner', 'root'], 'admins can read every project');
    });

    it('labels: unknown titles become project labels, known ones (any case, ancestor groups) are reused', async () => {
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      await db.insertInto('labels').values({ project_id: null, group_id: group.id, title: 'Team', color: '#FF0000', description: null, created_at: now, updated_at: now }).execute();
      const first = await createIssue(f, owner.token, lib.id, { title: 'labelled', labels: ['backend,Team', 'backend', ' '] });
      assert.deepEqual(first.labels, ['Team', 'backend']);
      const second = await createIssue(f, owner.token, lib.id, { title: 'labelled again', labels: 'BACKEND,team' });
      assert.deepEqual(second.labels, ['Team', 'backend'], 'existing labels keep their spelling');
      const labels = await db.selectFrom('labels').select(['title', 'color', 'project_id', 'group_id']).where((eb) => eb.or([eb('project_id', '=', lib.id), eb('group_id', '=', group.id)])).orderBy('id').execute();
      assert.deepEqual(labels, [
        { title: 'Team', color: '#FF0000', project_id: null, group_id: group.id },
        { title: 'backend', color: '#428BCA', project_id: lib.id, group_id: null },
      ]);
    });

    it('GET one: by id or path; 404 Issue Not Found; a bad iid is 400', async () => {
      const issue = await createIssue(f, guest.token, app.id, { title: 'findable' });
      expectStatus(await f.api('GET', `/projects/wi%2FAPP/issues/${issue.iid}`, { token: reporter.token }), 200);
      const missing = await f.api('GET', `/projects/${app.id}/issues/9999`, { token: reporter.token });
      assert.deepEqual([missing.status, missing.body], [404, ISSUE_NOT_FOUND]);
      const bad = await f.api('GET', `/projects/${app.id}/issues/abc`, { token: reporter.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'issue_iid is invalid' }]);
      for (const token of [outsider.token, null]) {
        const hidden = await f.api('GET', `/projects/${app.id}/issues/${issue.iid}`, { token });
        assert.deepEqual([hidden.status, hidden.body], [404, PROJECT_NOT_FOUND]);
      }
    });

    it('update: the author edits text, a Reporter everything, other Guests get 403', async () => {
      const issue = await createIssue(f, guest.token, app.id, { title: 'editable', labels: 'one' });
      const own = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, {
        token: guest.token,
        body: { title: 'edited by author', description: 'text', labels: 'ignored', confidential: true, assignee_ids: [guest.id] },
      });
      expectStatus(own, 200);
      assert.deepEqual([own.body.title, own.body.description, own.body.labels, own.body.confidential, own.body.assignees], ['edited by author', 'text', ['one'], false, []],
        'metadata from someone below Reporter is dropped, as GitLab does');
      for (const body of [{ title: 'not mine' }, { state_event: 'close' }, { labels: 'x' }]) {
        const other = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: guest2.token, body });
        assert.deepEqual([other.status, other.body], [403, FORBIDDEN], JSON.stringify(body));
      }
      const hidden = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: outsider.token, body: { title: 'x' } });
      assert.deepEqual([hidden.status, hidden.body], [404, PROJECT_NOT_FOUND]);
      const anon = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: null, body: { title: 'x' } });
      assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }]);

      const byReporter = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, {
        token: reporter.token,
        body: { labels: 'two,three', add_labels: 'four', remove_labels: 'three,unknown', assignee_ids: `${guest.id},${guest2.id}`, issue_type: 'incident', due_date: '2027-01-31', discussion_locked: true, weight: 5 },
      });
      expectStatus(byReporter, 200);
      const b = byReporter.body;
      assert.deepEqual(
        [b.labels, b.assignees.map((u: any) => u.username), b.assignee.username, b.type, b.issue_type, b.due_date, b.discussion_locked, b.weight],
        [['four', 'two'], ['iguest', 'iguest2'], 'iguest', 'INCIDENT', 'incident', '2027-01-31', true, 5],
      );
      const db = f.forge.database.db;
      const removedLabel = await db.selectFrom('labels').select('title').where('project_id', '=', app.id).where('title', '=', 'unknown').executeTakeFirst();
      assert.equal(removedLabel, undefined, 'remove_labels never creates labels');
      const cleared = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: reporter.token, body: { labels: '', assignee_id: 0, due_date: null } });
      assert.deepEqual([cleared.body.labels, cleared.body.assignees, cleared.body.due_date], [[], [], null]);
      const byAssignee = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: guest2.token, body: { title: 'assignees may not edit once unassigned' } });
      assert.equal(byAssignee.status, 403);
    });

    it('updated_at moves only when something changes', async () => {
      const issue = await createIssue(f, reporter.token, app.id, { title: 'stable', labels: 'keep' });
      await new Promise((r) => setTimeout(r, 5));
      const same = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: reporter.token, body: { title: 'stable', labels: 'keep', state_event: 'reopen' } });
      assert.equal(same.body.updated_at, issue.updated_at);
      const changed = await f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token: reporter.token, body: { add_labels: 'more' } });
      assert.ok(changed.body.updated_at > issue.updated_at);
      assert.equal(changed.body.created_at, issue.created_at);
    });

    it('close and reopen record state events, set closed_at/closed_by, and a no-op records nothing', async () => {
      const issue = await createIssue(f, guest.token, app.id, { title: 'to close' });
      const put = (token: string, state_event: string) => f.api('PUT', `/projects/${app.id}/issues/${issue.iid}`, { token, body: { state_event } });
      const closed = await put(guest.token, 'close');
      expectStatus(closed, 200);
      assert.deepEqual([closed.body.state, closed.body.closed_by], ['closed', basic(guest)]);
      assert.match(closed.body.closed_at, ISO);
      assert.equal(closed.body.updated_at, closed.body.closed_at);
      const again = await put(reporter.token, 'close');
      assert.deepEqual([again.body.state, again.body.closed_at, again.body.closed_by.username], ['closed', closed.body.closed_at, 'iguest']);
      const reopened = await put(reporter.token, 'reopen');
      assert.deepEqual([reopened.body.state, reopened.body.closed_at, reopened.body.closed_by], ['opened', null, null]);
      expectStatus(await put(reporter.token, 'reopen'), 200);
      expectStatus(await put(guest.token, 'close'), 200);
      const events = await f.forge.database.db
        .selectFrom('resource_state_events')
        .select(['user_id', 'issue_id', 'merge_request_id', 'state', 'source_commit', 'created_at'])
        .where('issue_id', '=', issue.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(events.map((e) => [e.user_id, e.state, e.merge_request_id, e.source_commit]), [
        [guest.id, 'closed', null, null],
        [reporter.id, 'reopened', null, null],
        [guest.id, 'closed', null, null],
      ]);
      assert.equal(events[0]!.created_at, closed.body.closed_at);
      const bad = await put(reporter.token, 'resolve');
      assert.deepEqual([bad.status, bad.body], [400, { error: 'state_event does not have a valid value' }]);
    });

    it('concurrent requests: distinct iids, one new label, one state event per real change', async () => {
      const race = await createProject(f, owner.token, { name: 'Race', namespace_id: group.id });
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, n) => f.api('POST', `/projects/${race.id}/issues`, { token: owner.token, body: { title: `racer ${n}`, labels: 'Racing' } })),
      );
      for (const r of created) expectStatus(r, 201);
      assert.deepEqual(created.map((r) => r.body.iid).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6]);
      const db = f.forge.database.db;
      const labels = await db.selectFrom('labels').select('title').where('project_id', '=', race.id).execute();
      assert.deepEqual(labels, [{ title: 'Racing' }]);
      const closes = await Promise.all(
        Array.from({ length: 4 }, () => f.api('PUT', `/projects/${race.id}/issues/1`, { token: owner.token, body: { state_event: 'close' } })),
      );
      for (const r of closes) assert.equal(r.body.state, 'closed');
      const events = await db.selectFrom('resource_state_events').select('state').where('issue_id', '=', created.find((r) => r.body.iid === 1)!.body.id).execute();
      assert.deepEqual(events, [{ state: 'closed' }]);
    });

    it('concurrent plain creations (each a write alone): iids 1..n, each answer its own issue, the open count right; they share statements', async () => {
      const busy = await createProject(f, owner.token, { name: 'Busy', namespace_id: group.id });
      const db = f.forge.database.db;
      const n = 24;
      const { result: created, queries } = await queriesDuring(db, () =>
        Promise.all(
          Array.from({ length: n }, (_, i) =>
            f.api('POST', `/projects/${busy.id}/issues`, { ...(i % 2 ? { token: owner.token } : {}), body: { title: `plain ${i}`, confidential: i % 3 === 0 } }),
          ),
        ),
      );
      for (const r of created) expectStatus(r, 201);
      assert.deepEqual(created.map((r) => r.body.iid).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
      const rows = await db.selectFrom('issues').select(['id', 'iid', 'title', 'confidential', 'author_id']).where('project_id', '=', busy.id).execute();
      assert.equal(rows.length, n);
      for (const r of created) {
        const row = rows.find((x) => x.id === r.body.id)!;
        assert.deepEqual([row.iid, row.title, row.author_id, row.confidential === 1], [r.body.iid, r.body.title, r.body.author.id, r.body.confidential]);
      }
      const inserts = queries.filter((q) => /insert into "?issues"?/i.test(q)).length;
      assert.ok(inserts < n, `${inserts} statements inserted ${n} issues`);
      const shown = (await f.api('GET', `/projects/${busy.id}`, { token: owner.token })).body;
      assert.equal(shown.open_issues_count, Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 !== 0).length);
      const next = await createIssue(f, owner.token, busy.id, { title: 'after the rush' });
      assert.equal(next.iid, n + 1);
    });

    it('delete: Owners and admins only, 204, with notes, reactions and label links', async () => {
      const issue = await createIssue(f, guest.token, app.id, { title: 'doomed', labels: 'gone' });
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      const note = await db.insertInto('notes').values({ project_id: app.id, noteable_type: 'Issue', noteable_id: issue.id, body: 'hi', author_id: guest.id, system: 0, internal: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      await db.insertInto('award_emoji').values([
        { name: 'thumbsup', user_id: guest.id, awardable_type: 'Issue', awardable_id: issue.id, created_at: now, updated_at: now },
        { name: 'tada', user_id: guest.id, awardable_type: 'Note', awardable_id: note.id, created_at: now, updated_at: now },
      ]).execute();
      for (const u of [guest, reporter]) {
        const r = await f.api('DELETE', `/projects/${app.id}/issues/${issue.iid}`, { token: u.token });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], u.username);
      }
      const r = await f.api('DELETE', `/projects/${app.id}/issues/${issue.iid}`, { token: owner.token });
      assert.deepEqual([r.status, r.text], [204, '']);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/issues/${issue.iid}`, { token: owner.token })).body, ISSUE_NOT_FOUND);
      const again = await f.api('DELETE', `/projects/${app.id}/issues/${issue.iid}`, { token: owner.token });
      assert.deepEqual([again.status, again.body], [404, ISSUE_NOT_FOUND]);
      assert.equal((await db.selectFrom('notes').select('id').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issue.id).execute()).length, 0);
      assert.equal((await db.selectFrom('award_emoji').select('id').where('awardable_id', 'in', [issue.id, note.id]).execute()).length, 0);
      assert.equal((await db.selectFrom('label_links').select('id').where('target_type', '=', 'Issue').where('target_id', '=', issue.id).execute()).length, 0);
      const byAdmin = await createIssue(f, guest.token, app.id, { title: 'admin deletes' });
      expectStatus(await f.api('DELETE', `/projects/${app.id}/issues/${byAdmin.iid}`), 204);
    });

    it('who may create: Guest and up, and any signed-in user on a public project (GitLab public_user_access); 404 on private; anonymous 401', async () => {
      const onPublic = await f.api('POST', `/projects/${site.id}/issues`, { token: outsider.token, body: { title: 'drive-by' } });
      assert.equal(onPublic.status, 201, onPublic.text);
      assert.equal(onPublic.body.author.username, outsider.username);
      const onPrivate = await f.api('POST', `/projects/${app.id}/issues`, { token: outsider.token, body: { title: 'drive-by' } });
      assert.deepEqual([onPrivate.status, onPrivate.body], [404, PROJECT_NOT_FOUND]);
      const anon = await f.api('POST', `/projects/${site.id}/issues`, { token: null, body: { title: 'drive-by' } });
      assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }]);
      const readOnly = await f.createUser('ireadonly', { scopes: ['read_api'] });
      await addMember(f, 'projects', site.id, readOnly.id, 30);
      const scoped = await f.api('POST', `/projects/${site.id}/issues`, { token: readOnly.token, body: { title: 'read only token' } });
      assert.equal(scoped.status, 403);
      const incident = await createIssue(f, guest.token, site.id, { title: 'guest incident', issue_type: 'incident' });
      assert.equal(incident.issue_type, 'issue', 'creating incidents needs Reporter; GitLab falls back to an issue');
      const real = await createIssue(f, reporter.token, site.id, { title: 'reporter incident', issue_type: 'incident' });
      assert.deepEqual([real.issue_type, real.type], ['incident', 'INCIDENT']);
    });

    it('anonymous callers read issues of public projects', async () => {
      const issue = await createIssue(f, guest.token, site.id, { title: 'public knowledge', labels: 'docs' });
      const list = await f.api('GET', `/projects/${site.id}/issues?labels=docs`, { token: null });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((i: any) => i.id), [issue.id]);
      const one = await f.api('GET', `/projects/open%2Fsite/issues/${issue.iid}`, { token: null });
      assert.equal(one.body.title, 'public knowledge');
      const outsiderList = await f.api('GET', `/projects/${site.id}/issues?labels=docs`, { token: outsider.token });
      assert.deepEqual(outsiderList.body.map((i: any) => i.id), [issue.id]);
      const hidden = await f.api('GET', `/projects/${app.id}/issues`, { token: null });
      assert.deepEqual([hidden.status, hidden.body], [404, PROJECT_NOT_FOUND]);
    });

    it('created_at is honoured for admins and owners only', async () => {
      const at = '2020-02-02T10:00:00.000Z';
      const byOwner = await createIssue(f, owner.token, app.id, { title: 'backdated', created_at: at });
      assert.equal(byOwner.created_at, at);
      const byAdmin = await createIssue(f, f.rootToken, app.id, { title: 'backdated by admin', created_at: at });
      assert.equal(byAdmin.created_at, at);
      const byReporter = await createIssue(f, reporter.token, app.id, { title: 'not backdated', created_at: at });
      assert.notEqual(byReporter.created_at, at);
    });

    it('bad input: 400 with GitLab messages and nothing written', async () => {
      const before = await rowCounts(f);
      const cases: [string, string, unknown, unknown][] = [
        ['POST', `/projects/${app.id}/issues`, { description: 'no title', labels: 'fresh-label' }, { error: 'title is missing' }],
        ['POST', `/projects/${app.id}/issues`, { title: '  ', labels: 'fresh-label' }, { message: { title: ["can't be blank"] } }],
        ['POST', `/projects/${app.id}/issues`, { title: 'x'.repeat(256), labels: 'fresh-label' }, { message: { title: ['is too long (maximum is 255 characters)'] } }],
        ['POST', `/projects/${app.id}/issues`, { title: 't', issue_type: 'epic' }, { error: 'issue_type does not have a valid value' }],
        ['POST', `/projects/${app.id}/issues`, { title: 't', confidential: 'maybe', due_date: 'soon' }, { error: 'confidential is invalid, due_date is invalid' }],
        ['POST', `/projects/${app.id}/issues`, { title: 't', assignee_ids: 'a,b' }, { error: 'assignee_ids is invalid' }],
        ['PUT', `/projects/${app.id}/issues/1`, {}, { error: 'assignee_id, assignee_ids, confidential, description, discussion_locked, due_date, labels, add_labels, remove_labels, milestone_id, state_event, title, issue_type, weight are missing, at least one parameter must be provided' }],
        ['PUT', `/projects/${app.id}/issues/1`, { title: '', labels: 'fresh-label', state_event: 'close' }, { message: { title: ["can't be blank"] } }],
        ['PUT', `/projects/${app.id}/issues/1`, { weight: -1 }, { error: 'weight does not have a valid value' }],
      ];
      for (const [method, path, body, expected] of cases) {
        const r = await f.api(method, path, { token: reporter.token, body });
        assert.deepEqual([r.status, r.body], [400, expected], `${method} ${JSON.stringify(body)}`);
      }
      assert.deepEqual(await rowCounts(f), before);
      const issue = (await f.api('GET', `/projects/${app.id}/issues/1`, { token: reporter.token })).body;
      assert.equal(issue.state, 'opened');
    });

    it('projects with issues disabled: lists are empty, creating is forbidden', async () => {
      const quiet = await createProject(f, owner.token, { name: 'Quiet', namespace_id: group.id });
      const issue = await createIssue(f, owner.token, quiet.id, { title: 'before disabling' });
      expectStatus(await f.api('PUT', `/projects/${quiet.id}`, { token: owner.token, body: { issues_enabled: false } }), 200);
      assert.deepEqual((await f.api('GET', `/projects/${quiet.id}/issues`, { token: owner.token })).body, []);
      assert.deepEqual((await f.api('GET', `/projects/${quiet.id}/issues/${issue.iid}`, { token: owner.token })).body, ISSUE_NOT_FOUND);
      const create = await f.api('POST', `/projects/${quiet.id}/issues`, { token: owner.token, body: { title: 'after' } });
      assert.deepEqual([create.status, create.body], [403, FORBIDDEN]);
    });
  });
}
