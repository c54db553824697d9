/** The epic issues API (GitLab's `ee/lib/api/epic_issues.rb`): where an epic's `_links.epic_issues` points. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NO_MATCHING = { message: 'No matching issue found. Make sure that you are adding a valid issue URL.' };
const NOT_FOUND = { message: '404 Not found' };
const FORBIDDEN = { message: '403 Forbidden' };
/** What `Entities::Issue` adds to `IssueBasic`: absent from the association's `issue`. */
const ISSUE_ONLY = ['has_tasks', 'task_status', '_links', 'references', 'severity', 'subscribed', 'moved_to_id'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: epic issues`, () => {
    let f: TestForgelet;
    let owner: User;
    let guest: User;
    let outsider: User;
    let projectGuest: User;
    let group: any;
    let app: any;
    let lib: any;
    let ext: any;
    let pub: any;
    let pubApp: any;

    before(async () => {
      f = await startTestServer(dialect);
      [owner, guest, outsider, projectGuest] = await createUsers(f, ['eiowner', 'eiguest', 'eiout', 'eiprojguest']);
      group = await createGroup(f, owner.token, { name: 'Plan', path: 'plan' });
      const sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id });
      const other = await createGroup(f, owner.token, { name: 'Other', path: 'other' });
      await addMember(f, 'groups', group.id, guest.id, 10);
      app = await createProject(f, owner.token, { name: 'App', namespace_id: group.id });
      lib = await createProject(f, owner.token, { name: 'Lib', namespace_id: sub.id });
      ext = await createProject(f, owner.token, { name: 'Ext', namespace_id: other.id });
      pub = await createGroup(f, owner.token, { name: 'Pub', path: 'pub', visibility: 'public' });
      pubApp = await createProject(f, owner.token, { name: 'PubApp', namespace_id: pub.id, visibility: 'public' });
      await addMember(f, 'projects', pubApp.id, projectGuest.id, 10);
    });
    after(() => f.stop());

    const epic = async (title: string, body: Record<string, unknown> = {}, g = group) => {
      const r = await f.api('POST', `/groups/${g.id}/epics`, { token: owner.token, body: { title, ...body } });
      expectStatus(r, 201);
      return r.body;
    };
    const issue = async (project: any, body: Record<string, unknown>) => {
      const r = await f.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body });
      expectStatus(r, 201);
      return r.body;
    };
    const assign = (e: any, issueId: number, token = owner.token) => f.api('POST', `/groups/${e.group_id}/epics/${e.iid}/issues/${issueId}`, { token });
    const list = async (e: any, token = owner.token) => {
      const r = await f.api('GET', `/groups/${e.group_id}/epics/${e.iid}/issues`, { token });
      expectStatus(r, 200);
      return r.body;
    };
    const titles = async (e: any, token = owner.token) => (await list(e, token)).map((i: any) => i.title);
    const move = (e: any, linkId: number, body: Record<string, unknown>, token = owner.token) =>
      f.api('PUT', `/groups/${e.group_id}/epics/${e.iid}/issues/${linkId}`, { token, body });

    it("assigns issues of the group's projects: the association, the epic's issues in order, the epic's _links.epic_issues", async () => {
      const e = await epic('Checkout');
      const [a, b] = [await issue(app, { title: 'a', description: '- [x] one\n- [ ] two' }), await issue(lib, { title: 'b' })];
      const linked = await assign(e, a.id);
      expectStatus(linked, 201);
      const single = await f.api('GET', `/projects/${app.id}/issues/${a.iid}`, { token: owner.token });
      const epicNow = await f.api('GET', `/groups/${group.id}/epics/${e.iid}`, { token: owner.token });
      const basic = Object.fromEntries(Object.entries(single.body).filter(([k]) => !ISSUE_ONLY.includes(k)));
      assert.deepEqual(linked.body, { id: linked.body.id, relative_position: 0, epic: { ...epicNow.body, reference: `plan&${e.iid}` }, issue: basic });
      const keys = Object.keys(linked.body.epic);
      assert.equal(keys.indexOf('reference'), keys.indexOf('references') + 1, 'reference follows references, as Entities::Epic exposes it');
      assert.equal((await assign(e, b.id)).status, 201, 'an issue of a subgroup project');

      // _links.epic_issues is a route that answers the epic's issues, newest assignment first.
      const byLink = await f.api('GET', e._links.epic_issues, { token: owner.token });
      expectStatus(byLink, 200);
      assert.deepEqual(byLink.body.map((i: any) => i.title), ['b', 'a']);
      assert.equal(byLink.headers.get('x-total'), '2');
      const first = byLink.body[1];
      assert.equal('subscribed' in first, false, 'the list leaves subscribed out, as GitLab does');
      const { subscribed: _s, ...withoutSubscribed } = single.body;
      assert.deepEqual(first, { ...withoutSubscribed, epic_issue_id: linked.body.id, relative_position: 0 });
      assert.equal(byLink.body[0].relative_position, -500, 'assigned to the start');
      const page2 = await f.api('GET', `/groups/plan/epics/${e.iid}/issues?per_page=1&page=2`, { token: owner.token });
      assert.deepEqual([page2.body.map((i: any) => i.title), page2.headers.get('x-total-pages')], [['a'], '2']);
    });

    it("refusals: 409 already assigned, 404 outside the group's hierarchy, incidents, unknown issue; 422 from the epic's rules", async () => {
      const e = await epic('Refusals');
      const mine = await issue(app, { title: 'mine' });
      expectStatus(await assign(e, mine.id), 201);
      const again = await assign(e, mine.id);
      assert.deepEqual([again.status, again.body], [409, { message: 'Issue(s) already assigned' }]);
      const foreign = await assign(e, (await issue(ext, { title: 'elsewhere' })).id);
      assert.deepEqual([foreign.status, foreign.body], [404, NO_MATCHING]);
      const incident = await assign(e, (await issue(app, { title: 'outage', issue_type: 'incident' })).id);
      assert.deepEqual([incident.status, incident.body], [404, NO_MATCHING]);
      const unknown = await assign(e, 999_999);
      assert.deepEqual([unknown.status, unknown.body], [404, NOT_FOUND]);
      const unknownEpic = await f.api('GET', `/groups/${group.id}/epics/999/issues`, { token: owner.token });
      assert.deepEqual([unknownEpic.status, unknownEpic.body], [403, FORBIDDEN]);
      const anonymous = await f.api('GET', `/groups/${group.id}/epics/${e.iid}/issues`, { token: null });
      assert.deepEqual([anonymous.status, anonymous.body], [401, { message: '401 Unauthorized' }]);
      const hidden = await f.api('GET', `/groups/${group.id}/epics/${e.iid}/issues`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);

      // EpicIssue's validations: a confidential epic takes confidential issues only; an epic holds at most 100 children and issues.
      const secretEpic = await epic('Secret', { confidential: true });
      const plain = await issue(app, { title: 'plain' });
      const refused = await assign(secretEpic, plain.id);
      assert.deepEqual([refused.status, refused.body], [
        422,
        { message: `#${plain.iid} cannot be added: Cannot assign a confidential epic to a non-confidential issue. Make the issue confidential and try again` },
      ]);
      expectStatus(await assign(secretEpic, (await issue(app, { title: 'hush', confidential: true })).id), 201);
      const full = await epic('Full');
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      const base = { group_id: group.id, author_id: owner.id, parent_id: full.id, created_at: now, updated_at: now };
      await db.insertInto('epics').values(Array.from({ length: 99 }, (_, i) => ({ ...base, iid: 10_000 + i, title: `child ${i}`, relative_position: i }))).execute();
      expectStatus(await assign(full, plain.id), 201);
      const more = await issue(app, { title: 'one too many' });
      const tooMany = await assign(full, more.id);
      assert.deepEqual([tooMany.status, tooMany.body], [
        422,
        { message: `#${more.iid} cannot be added: cannot be linked to the epic. This epic already has maximum number of child issues & epics.` },
      ]);
    });

    it('moving to another epic, reordering, removing; confidential issues stay hidden from who cannot read them', async () => {
      const [one, two] = [await epic('One'), await epic('Two')];
      const [x, y, z] = [await issue(app, { title: 'x' }), await issue(app, { title: 'y' }), await issue(app, { title: 'z' })];
      const secret = await issue(app, { title: 'secret', confidential: true });
      for (const i of [x, y, z, secret]) expectStatus(await assign(one, i.id), 201);
      assert.deepEqual(await titles(one), ['secret', 'z', 'y', 'x']);
      const asGuest = await f.api('GET', `/groups/${group.id}/epics/${one.iid}/issues`, { token: guest.token });
      assert.deepEqual([asGuest.body.map((i: any) => i.title), asGuest.headers.get('x-total')], [['z', 'y', 'x'], '3'], 'a Guest does not see the confidential issue, nor counts it');
      assert.deepEqual((await assign(two, secret.id, guest.token)).body, FORBIDDEN, 'nor may move it');

      // A Guest may relate issues it can read: x moves to the other epic, first there.
      const moved = await assign(two, x.id, guest.token);
      expectStatus(moved, 201);
      assert.deepEqual([await titles(one), await titles(two)], [['secret', 'z', 'y'], ['x']]);

      // Reorder: z after y (y ends up before it). The answer is the (first) page, with subscribed.
      const links = Object.fromEntries((await list(one)).map((i: any) => [i.title, i.epic_issue_id]));
      const reordered = await move(one, links.z, { move_before_id: links.y });
      expectStatus(reordered, 200);
      assert.deepEqual(reordered.body.map((i: any) => i.title), ['secret', 'y', 'z']);
      assert.equal(reordered.body[0].subscribed, true, 'the answer to a move shows subscribed (the author takes part)');
      const between = await move(one, links.secret, { move_before_id: links.y, move_after_id: links.z });
      assert.deepEqual(between.body.map((i: any) => i.title), ['y', 'secret', 'z']);
      const paged = await move(one, links.y, { move_after_id: links.secret, per_page: 1, page: 2 });
      assert.deepEqual([paged.body.map((i: any) => i.title), paged.headers.get('x-total')], [['secret'], '3']);
      // An id that is not an association of this epic moves nothing (GitLab answers the list all the same).
      const stray = await move(one, links.z, { move_after_id: moved.body.id });
      assert.deepEqual([stray.status, stray.body.map((i: any) => i.title)], [200, ['y', 'secret', 'z']]);
      const unknownLink = await move(one, moved.body.id, { move_after_id: links.z });
      assert.deepEqual([unknownLink.status, unknownLink.body], [404, NOT_FOUND], 'the association of another epic');
      assert.deepEqual((await move(one, links.secret, { move_before_id: links.z }, guest.token)).body, FORBIDDEN, 'an issue the Guest cannot read');

      // Remove: the former association; then it is gone.
      const removed = await f.api('DELETE', `/groups/${group.id}/epics/${one.iid}/issues/${links.y}`, { token: guest.token });
      expectStatus(removed, 200);
      assert.deepEqual([removed.body.id, removed.body.issue.title, removed.body.epic.iid, removed.body.epic.reference], [links.y, 'y', one.iid, `plan&${one.iid}`]);
      const gone = await f.api('DELETE', `/groups/${group.id}/epics/${one.iid}/issues/${links.y}`, { token: owner.token });
      assert.deepEqual([gone.status, gone.body], [404, NOT_FOUND]);
      const notHere = await f.api('DELETE', `/groups/${group.id}/epics/${two.iid}/issues/${links.z}`, { token: owner.token });
      assert.deepEqual([notHere.status, notHere.body], [404, NOT_FOUND], 'an association of another epic');

      // Deleting the issue or the epic removes its associations.
      expectStatus(await f.api('DELETE', `/projects/${app.id}/issues/${z.iid}`, { token: owner.token }), 204);
      assert.deepEqual(await titles(one), ['secret']);
      expectStatus(await f.api('DELETE', `/groups/${group.id}/epics/${one.iid}`, { token: owner.token }), 204);
      const left = await f.forge.database.db.selectFrom('epic_issues').select('issue_id').where('issue_id', '=', secret.id).execute();
      assert.deepEqual(left, []);
    });

    it('a project Guest outside the group relates issues but moves nothing (no admin_epic_relation on the group)', async () => {
      const e = await epic('Public', {}, pub);
      const [p, q] = [await issue(pubApp, { title: 'p' }), await issue(pubApp, { title: 'q' })];
      expectStatus(await assign(e, p.id, projectGuest.token), 201);
      expectStatus(await assign(e, q.id), 201);
      const links = Object.fromEntries((await list(e)).map((i: any) => [i.title, i.epic_issue_id]));
      const kept = await move(e, links.q, { move_before_id: links.p }, projectGuest.token);
      assert.deepEqual([kept.status, kept.body.map((i: any) => i.title)], [200, ['q', 'p']]);
      const byMember = await move(e, links.q, { move_before_id: links.p });
      assert.deepEqual(byMember.body.map((i: any) => i.title), ['p', 'q']);
    });

    it('issues and child epics share one order: a new one goes first, a move lands between neighbours of either kind', async () => {
      const parent = await epic('Tree');
      const child = await epic('Child');
      const [a, b] = [await issue(app, { title: 'ta' }), await issue(app, { title: 'tb' })];
      const positions = async () => {
        const issues = (await list(parent)).map((i: any) => [i.title, i.relative_position]);
        const children = (await f.api('GET', `/groups/${group.id}/epics/${parent.iid}/epics`, { token: owner.token })).body;
        const row = await f.forge.database.db.selectFrom('epics').select('relative_position').where('id', '=', child.id).executeTakeFirstOrThrow();
        return { issues, children: children.map((c: any) => [c.title, row.relative_position]) };
      };
      expectStatus(await assign(parent, a.id), 201);
      expectStatus(await f.api('POST', `/groups/${group.id}/epics/${parent.iid}/epics/${child.id}`, { token: owner.token }), 201);
      expectStatus(await assign(parent, b.id), 201);
      assert.deepEqual(await positions(), { issues: [['tb', -1000], ['ta', 0]], children: [['Child', -500]] }, 'each goes before all of both kinds');

      const links = Object.fromEntries((await list(parent)).map((i: any) => [i.title, i.epic_issue_id]));
      // tb after ta: nothing follows ta, so tb goes a gap past it.
      expectStatus(await move(parent, links.tb, { move_before_id: links.ta }), 200);
      assert.deepEqual(await positions(), { issues: [['ta', 0], ['tb', 500]], children: [['Child', -500]] });
      // tb right before ta: between ta and what precedes it in the tree, the child epic.
      expectStatus(await move(parent, links.tb, { move_after_id: links.ta }), 200);
      assert.deepEqual(await positions(), { issues: [['tb', -250], ['ta', 0]], children: [['Child', -500]] });
    });

    it("an epic's dates come from its issues' milestones and its children's dates unless fixed", async () => {
      const milestone = async (title: string, body: Record<string, unknown>) => {
        const r = await f.api('POST', `/projects/${app.id}/milestones`, { token: owner.token, body: { title, ...body } });
        expectStatus(r, 201);
        return r.body;
      };
      const [m1, m2] = [await milestone('m1', { start_date: '2030-01-05', due_date: '2030-01-31' }), await milestone('m2', { due_date: '2030-03-15' })];
      const [top, fixed, middle, leaf] = [await epic('Dated'), await epic('Fixed', { start_date: '2030-01-10', end_date: '2030-02-20' }), await epic('Middle'), await epic('Leaf')];
      const link = async (parent: any, child: any) => expectStatus(await f.api('POST', `/groups/${group.id}/epics/${parent.iid}/epics/${child.id}`, { token: owner.token }), 201);
      await link(top, fixed);
      await link(top, middle);
      await link(middle, leaf);
      const i1 = await issue(app, { title: 'in m1', milestone_id: m1.id });
      const onTop = await assign(top, i1.id);
      expectStatus(onTop, 201);
      expectStatus(await assign(leaf, (await issue(app, { title: 'in m2', milestone_id: m2.id })).id), 201);
      const dates = async (e: any) => {
        const r = await f.api('GET', `/groups/${group.id}/epics/${e.iid}`, { token: owner.token });
        const keys = ['start_date', 'start_date_from_inherited_source', 'start_date_from_milestones', 'due_date', 'end_date', 'due_date_from_inherited_source', 'due_date_from_milestones'];
        return Object.fromEntries(keys.map((k) => [k, r.body[k]]));
      };
      const all = (start: string | null, due: string | null) => ({
        start_date: start, start_date_from_inherited_source: start, start_date_from_milestones: start,
        due_date: due, end_date: due, due_date_from_inherited_source: due, due_date_from_milestones: due,
      });
      // Start: m1 (Jan 5) before the fixed child (Jan 10); due: m2 (Mar 15) two levels down, after the fixed child (Feb 20).
      assert.deepEqual(await dates(top), all('2030-01-05', '2030-03-15'));
      assert.deepEqual(await dates(leaf), all(null, '2030-03-15'));
      const listed = await f.api('GET', `/groups/${group.id}/epics?search=Middle`, { token: owner.token });
      assert.deepEqual([listed.body[0].start_date, listed.body[0].due_date], [null, '2030-03-15'], 'lists compute them too');

      // Fixed dates win; the inherited ones stay, *_from_milestones only when a milestone sources them.
      const edited = await f.api('PUT', `/groups/${group.id}/epics/${top.iid}`, { token: owner.token, body: { start_date: '2029-12-01', end_date: '2030-06-30', due_date_is_fixed: true } });
      expectStatus(edited, 200);
      assert.deepEqual(await dates(top), {
        start_date: '2029-12-01', start_date_from_inherited_source: '2030-01-05', start_date_from_milestones: '2030-01-05',
        due_date: '2030-06-30', end_date: '2030-06-30', due_date_from_inherited_source: '2030-03-15', due_date_from_milestones: null,
      });

      // Without the issue in m1 the fixed child sources the start.
      expectStatus(await f.api('DELETE', `/groups/${group.id}/epics/${top.iid}/issues/${onTop.body.id}`, { token: owner.token }), 200);
      expectStatus(await f.api('PUT', `/groups/${group.id}/epics/${top.iid}`, { token: owner.token, body: { start_date_is_fixed: false, due_date_is_fixed: false } }), 200);
      assert.deepEqual(await dates(top), all('2030-01-10', '2030-03-15'));
    });

    it('epics are Premium: 403 on the free tier, served on Premium (epic links need Ultimate, epic issues do not)', async () => {
      const e = await epic('Tiered');
      const config = f.forge.deps.config;
      try {
        config.tier = 'free';
        const r = await f.api('GET', `/groups/${group.id}/epics/${e.iid}/issues`, { token: owner.token });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        config.tier = 'premium';
        expectStatus(await assign(e, (await issue(app, { title: 'premium' })).id), 201);
        assert.deepEqual(await titles(e), ['premium']);
      } finally {
        config.tier = 'ultimate';
      }
    });
  });
}
