import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FORBIDDEN = { message: '403 Forbidden' };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const GROUP_NOT_FOUND = { message: '404 Group Not Found' };
const DEPTH = 'This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor.';

async function createEpic(f: TestForgelet, token: string, group: number | string, body: Record<string, unknown>): Promise<any> {
  const r = await f.api('POST', `/groups/${encodeURIComponent(String(group))}/epics`, { token, body });
  expectStatus(r, 201);
  return r.body;
}

/** Rows of every table an epic write touches. */
async function rowCounts(f: TestForgelet): Promise<Record<string, number>> {
  const db = f.forge.database.db;
  const out: Record<string, number> = {};
  for (const table of ['epics', 'labels', 'label_links', 'resource_state_events'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: group epics and epic links`, () => {
    let f: TestForgelet;
    let owner: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any; // private "pl"
    let open: any; // public "openpl"
    const basic = (u: User) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}` });
    const ids = async (path: string, token = owner.token) => {
      const r = await f.api('GET', path, { token });
      expectStatus(r, 200);
      return r.body.map((e: any) => e.id);
    };

    before(async () => {
      f = await startTestServer(dialect);
      [owner, reporter, guest, outsider] = await createUsers(f, ['eowner', 'ereporter', 'eguest', 'eoutsider']);
      group = await createGroup(f, owner.token, { name: 'Planning', path: 'pl' });
      await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id }); // private "pl/sub"
      open = await createGroup(f, owner.token, { name: 'Open', path: 'openpl', visibility: 'public' });
      for (const g of [group, open]) {
        await addMember(f, 'groups', g.id, reporter.id, 20);
        await addMember(f, 'groups', g.id, guest.id, 10);
      }
    });
    after(() => f.stop());

    it('create, get, list with filters, update labels and dates, delete: whole entities', async () => {
      const created = await f.api('POST', '/groups/pl/epics', {
        token: reporter.token,
        body: { title: 'Roadmap', description: 'The plan', labels: 'beta, alpha', start_date: '2024-03-01', end_date: '2024-06-30', color: '#ABC' },
      });
      expectStatus(created, 201);
      const e = created.body;
      assert.match(e.created_at, ISO);
      assert.deepEqual(e, {
        id: e.id, iid: e.iid, color: '#aabbcc', group_id: group.id, parent_id: null, parent_iid: null, title: 'Roadmap', description: 'The plan',
        confidential: false, author: basic(reporter),
        start_date: '2024-03-01', start_date_is_fixed: true, start_date_fixed: '2024-03-01', start_date_from_inherited_source: null, start_date_from_milestones: null,
        end_date: '2024-06-30', due_date: '2024-06-30', due_date_is_fixed: true, due_date_fixed: '2024-06-30', due_date_from_inherited_source: null, due_date_from_milestones: null,
        state: 'opened', web_edit_url: `${f.url}/groups/pl/-/epics/${e.iid}/edit`, web_url: `${f.url}/groups/pl/-/epics/${e.iid}`,
        references: { short: `&${e.iid}`, relative: `&${e.iid}`, full: `pl&${e.iid}` },
        created_at: e.created_at, updated_at: e.created_at, closed_at: null, labels: ['alpha', 'beta'], upvotes: 0, downvotes: 0,
        _links: { self: `${f.url}/api/v4/groups/${group.id}/epics/${e.iid}`, epic_issues: `${f.url}/api/v4/groups/${group.id}/epics/${e.iid}/issues`, group: `${f.url}/api/v4/groups/${group.id}`, parent: null },
      });
      // unknown titles became labels of the epic's group
      const labels = await f.forge.database.db.selectFrom('labels').select(['title', 'group_id', 'project_id']).where('title', 'in', ['alpha', 'beta']).orderBy('title').execute();
      assert.deepEqual(labels, [{ title: 'alpha', group_id: group.id, project_id: null }, { title: 'beta', group_id: group.id, project_id: null }]);

      const got = await f.api('GET', `/groups/${group.id}/epics/${e.iid}`, { token: guest.token });
      assert.deepEqual([got.status, got.body], [200, e]);

      const other = await createEpic(f, owner.token, 'pl', { title: 'Another thing', confidential: true });
      const inSub = await createEpic(f, owner.token, 'pl/sub', { title: 'Sub plan' });
      assert.deepEqual(inSub.references, { short: `&${inSub.iid}`, relative: `&${inSub.iid}`, full: `pl/sub&${inSub.iid}` });
      // guests don't see confidential epics; subgroups are included by default
      assert.deepEqual(await ids('/groups/pl/epics', guest.token), [inSub.id, e.id]);
      assert.deepEqual(await ids('/groups/pl/epics'), [inSub.id, other.id, e.id]);
      assert.deepEqual(await ids('/groups/pl/epics?include_descendant_groups=false&order_by=title&sort=asc'), [other.id, e.id]);
      assert.deepEqual(await ids('/groups/pl/epics?labels=alpha,beta'), [e.id]);
      assert.deepEqual(await ids('/groups/pl/epics?search=PLAN'), [inSub.id, e.id]);
      assert.deepEqual(await ids(`/groups/pl/epics?author_id=${reporter.id}`), [e.id]);
      assert.deepEqual(await ids('/groups/pl%2Fsub/epics?include_ancestor_groups=true&sort=asc'), [e.id, other.id, inSub.id]);
      const relative = await f.api('GET', '/groups/pl/epics?include_descendant_groups=true&search=Sub', { token: owner.token });
      assert.equal(relative.body[0].references.relative, `pl/sub&${inSub.iid}`);
      assert.equal(relative.headers.get('x-total'), '1');

      const updated = await f.api('PUT', `/groups/pl/epics/${e.iid}`, {
        token: reporter.token,
        body: { title: 'Roadmap 2', add_labels: 'gamma', remove_labels: 'alpha', start_date_is_fixed: false },
      });
      expectStatus(updated, 200);
      assert.deepEqual(
        [updated.body.title, updated.body.labels, updated.body.start_date, updated.body.start_date_fixed, updated.body.start_date_is_fixed],
        ['Roadmap 2', ['beta', 'gamma'], null, '2024-03-01', false],
      );
      const none = await f.api('PUT', `/groups/pl/epics/${e.iid}`, { token: reporter.token, body: { epic_iid: e.iid } });
      assert.equal(none.status, 400);
      assert.match(none.body.error, /are missing, at least one parameter must be provided$/);

      const byGuest = await f.api('PUT', `/groups/pl/epics/${e.iid}`, { token: guest.token, body: { title: 'x' } });
      assert.deepEqual([byGuest.status, byGuest.body], [403, FORBIDDEN]);
      const delByReporter = await f.api('DELETE', `/groups/pl/epics/${e.iid}`, { token: reporter.token });
      assert.deepEqual([delByReporter.status, delByReporter.body], [403, FORBIDDEN]);
      const del = await f.api('DELETE', `/groups/pl/epics/${e.iid}`, { token: owner.token });
      assert.deepEqual([del.status, del.text], [204, '']);
      const gone = await f.api('GET', `/groups/pl/epics/${e.iid}`, { token: owner.token });
      assert.deepEqual([gone.status, gone.body], [403, FORBIDDEN]);
      // a guest can't read a confidential epic: 403, as for an unknown one
      const hidden = await f.api('GET', `/groups/pl/epics/${other.iid}`, { token: guest.token });
      assert.deepEqual([hidden.status, hidden.body], [403, FORBIDDEN]);
    });

    it('access: anonymous reads public groups; private groups are 404 to outsiders; writes need Reporter', async () => {
      const e = await createEpic(f, owner.token, 'openpl', { title: 'Public epic' });
      const anon = await f.api('GET', `/groups/openpl/epics/${e.iid}`, { token: null });
      assert.equal(anon.status, 200);
      const anonList = await f.api('GET', '/groups/pl/epics', { token: null });
      assert.deepEqual([anonList.status, anonList.body], [404, GROUP_NOT_FOUND]);
      const outsiderList = await f.api('GET', '/groups/pl/epics', { token: outsider.token });
      assert.deepEqual([outsiderList.status, outsiderList.body], [404, GROUP_NOT_FOUND]);
      const anonCreate = await f.api('POST', '/groups/openpl/epics', { token: null, body: { title: 'x' } });
      assert.deepEqual([anonCreate.status, anonCreate.body], [401, UNAUTHORIZED]);
      const guestCreate = await f.api('POST', '/groups/openpl/epics', { token: guest.token, body: { title: 'x' } });
      assert.deepEqual([guestCreate.status, guestCreate.body], [403, FORBIDDEN]);
    });

    it('bad input answers 400 and writes nothing', async () => {
      const before = await rowCounts(f);
      const missing = await f.api('POST', '/groups/pl/epics', { token: owner.token, body: { labels: 'never-made' } });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'title is missing' }]);
      const blank = await f.api('POST', '/groups/pl/epics', { token: owner.token, body: { title: ' ', labels: 'never-made' } });
      assert.deepEqual([blank.status, blank.body], [400, { message: { title: ["can't be blank"] } }]);
      const color = await f.api('POST', '/groups/pl/epics', { token: owner.token, body: { title: 'x', color: 'nope', labels: 'never-made' } });
      assert.deepEqual([color.status, color.body], [400, { message: { color: ['must be a valid color code'] } }]);
      const date = await f.api('POST', '/groups/pl/epics', { token: owner.token, body: { title: 'x', start_date: 'soon' } });
      assert.deepEqual([date.status, date.body], [400, { error: 'start_date is invalid' }]);
      assert.deepEqual(await rowCounts(f), before);

      // a confidential parent refuses a public child: nothing of the update is kept
      const parent = await createEpic(f, owner.token, 'pl', { title: 'Secret', confidential: true });
      const child = await f.api('POST', `/groups/pl/epics/${parent.iid}/epics`, { token: owner.token, body: { title: 'Kid' } });
      expectStatus(child, 201);
      const kid = (await f.api('GET', `/groups/pl/epics/${child.body.iid}`)).body;
      assert.equal(kid.confidential, true);
      const snapshot = await rowCounts(f);
      const refused = await f.api('PUT', `/groups/pl/epics/${kid.iid}`, { token: owner.token, body: { title: 'Renamed', confidential: false, labels: 'never-made' } });
      assert.deepEqual([refused.status, refused.body], [400, { message: { confidential: ['A non-confidential epic cannot be assigned to a confidential parent epic'] } }]);
      assert.deepEqual(await rowCounts(f), snapshot);
      assert.deepEqual((await f.api('GET', `/groups/pl/epics/${kid.iid}`)).body, kid);
      const publicChild = await f.api('POST', `/groups/pl/epics/${parent.iid}/epics`, { token: owner.token, body: { title: 'Kid 2', confidential: false } });
      assert.deepEqual([publicChild.status, publicChild.body], [400, { message: { confidential: ['A non-confidential epic cannot be assigned to a confidential parent epic'] } }]);
    });

    it('close and reopen record state events, read by the epic id', async () => {
      const e = await createEpic(f, owner.token, 'pl', { title: 'Closable' });
      const closed = await f.api('PUT', `/groups/pl/epics/${e.iid}`, { token: reporter.token, body: { state_event: 'close' } });
      expectStatus(closed, 200);
      assert.equal(closed.body.state, 'closed');
      assert.match(closed.body.closed_at, ISO);
      const again = await f.api('PUT', `/groups/pl/epics/${e.iid}`, { token: reporter.token, body: { state_event: 'close' } });
      expectStatus(again, 200);
      const reopened = await f.api('PUT', `/groups/pl/epics/${e.iid}`, { token: owner.token, body: { state_event: 'reopen' } });
      assert.deepEqual([reopened.body.state, reopened.body.closed_at], ['opened', null]);
      assert.deepEqual(await ids('/groups/pl/epics?state=closed'), []);

      const url = `/groups/pl/epics/${e.id}/resource_state_events`;
      const list = await f.api('GET', url, { token: guest.token });
      expectStatus(list, 200);
      assert.equal(list.headers.get('x-total'), '2');
      assert.deepEqual(
        list.body.map((ev: any) => [ev.state, ev.resource_type, ev.resource_id, ev.user.id, ev.source_commit, ev.source_merge_request_id]),
        [['closed', 'Epic', e.id, reporter.id, null, null], ['reopened', 'Epic', e.id, owner.id, null, null]],
      );
      const one = await f.api('GET', `${url}/${list.body[1].id}`, { token: guest.token });
      assert.deepEqual([one.status, one.body], [200, list.body[1]]);
      // through an ancestor group too; the iid is not the key
      assert.equal((await f.api('GET', `/groups/${group.id}/epics/${e.id}/resource_state_events`)).status, 200);
      const byIid = await f.api('GET', `/groups/pl/epics/${e.iid}/resource_state_events/${list.body[0].id}`);
      assert.deepEqual([byIid.status, byIid.body], [e.iid === e.id ? 200 : 404, e.iid === e.id ? list.body[0] : { message: '404 Not found' }]);
      const anon = await f.api('GET', url, { token: null });
      assert.deepEqual([anon.status, anon.body], [401, UNAUTHORIZED]);
      const outsiderList = await f.api('GET', url, { token: outsider.token });
      assert.deepEqual([outsiderList.status, outsiderList.body], [404, GROUP_NOT_FOUND]);
      const missing = await f.api('GET', `${url}/999999`);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
    });

    it('a three-level tree built, reordered and re-parented; cycles refused', async () => {
      const top = await createEpic(f, owner.token, 'pl', { title: 'Top' });
      const links = `/groups/pl/epics/${top.iid}/epics`;
      // create a child: 201 with the linked-epic entity
      const madeB = await f.api('POST', links, { token: guest.token, body: { title: 'B' } });
      expectStatus(madeB, 201);
      const b = madeB.body;
      assert.deepEqual(b, {
        id: b.id, iid: b.iid, title: 'B', group_id: group.id, parent_id: top.id, has_children: false, has_issues: false,
        reference: `&${b.iid}`, url: `${f.url}/groups/pl/-/epics/${b.iid}`, relation_url: `${f.url}/groups/pl/-/epics/${top.iid}/links/${b.id}`,
      });
      const c = await createEpic(f, owner.token, 'pl', { title: 'C' });
      const d = await createEpic(f, owner.token, 'pl/sub', { title: 'D' });
      const assignC = await f.api('POST', `${links}/${c.id}`, { token: guest.token });
      expectStatus(assignC, 201);
      assert.deepEqual([assignC.body.id, assignC.body.parent_id, assignC.body.parent_iid, assignC.body._links.parent], [c.id, top.id, top.iid, `${f.url}/api/v4/groups/${group.id}/epics/${top.iid}`]);
      expectStatus(await f.api('POST', `${links}/${d.id}`, { token: guest.token }), 201);
      // each assigned child goes first
      assert.deepEqual(await ids(links, guest.token), [d.id, c.id, b.id]);
      const twice = await f.api('POST', `${links}/${c.id}`, { token: guest.token });
      assert.deepEqual([twice.status, twice.body], [409, { message: 'This epic cannot be added. It is already assigned to the parent epic.' }]);

      // reorder: between two siblings, after one, before one
      const between = await f.api('PUT', `${links}/${d.id}`, { token: guest.token, body: { move_before_id: c.id, move_after_id: b.id } });
      expectStatus(between, 200);
      assert.deepEqual(between.body.map((e: any) => e.id), [c.id, d.id, b.id]);
      const afterB = await f.api('PUT', `${links}/${c.id}`, { token: guest.token, body: { move_before_id: b.id } });
      assert.deepEqual(afterB.body.map((e: any) => e.id), [d.id, b.id, c.id]);
      const first = await f.api('PUT', `${links}/${c.id}`, { token: guest.token, body: { move_after_id: d.id } });
      assert.deepEqual(first.body.map((e: any) => e.id), [c.id, d.id, b.id]);
      // many moves into the same gap stay ordered (positions are rebalanced when they run out)
      let order: number[] = first.body.map((e: any) => e.id);
      for (let i = 0; i < 12; i++) {
        const [p0, q0, r0] = order;
        const r = await f.api('PUT', `${links}/${r0}`, { token: guest.token, body: { move_before_id: p0, move_after_id: q0 } });
        order = r.body.map((e: any) => e.id);
        assert.deepEqual(order, [p0, r0, q0]);
      }
      const notChild = await f.api('PUT', `${links}/${top.id}`, { token: guest.token, body: { move_before_id: b.id } });
      assert.deepEqual([notChild.status, notChild.body], [404, { message: 'Epic not found for given params' }]);
      const badSibling = await f.api('PUT', `${links}/${b.id}`, { token: guest.token, body: { move_before_id: top.id } });
      assert.deepEqual([badSibling.status, badSibling.body], [422, { message: 'Epic not found for given params' }]);

      // third level under B, then C moves from Top to B
      const e = await createEpic(f, owner.token, 'pl', { title: 'E' });
      expectStatus(await f.api('POST', `/groups/pl/epics/${b.iid}/epics/${e.id}`, { token: guest.token }), 201);
      const moved = await f.api('POST', `/groups/pl/epics/${b.iid}/epics/${c.id}`, { token: guest.token });
      assert.deepEqual([moved.status, moved.body.parent_id], [201, b.id]);
      assert.deepEqual(await ids(links), [d.id, b.id]);
      assert.deepEqual(await ids(`/groups/pl/epics/${b.iid}/epics`), [c.id, e.id]);
      const withKids = await f.api('POST', links, { token: owner.token, body: { title: 'F' } });
      expectStatus(withKids, 201);

      // cycles: Top under its grandchild, B under itself
      const cycle = await f.api('POST', `/groups/pl/epics/${e.iid}/epics/${top.id}`, { token: owner.token });
      assert.deepEqual([cycle.status, cycle.body], [409, { message: 'This epic cannot be added. It is already an ancestor of the parent epic.' }]);
      const self = await f.api('POST', `/groups/pl/epics/${b.iid}/epics/${b.id}`, { token: owner.token });
      assert.deepEqual([self.status, self.body], [409, { message: 'This epic cannot be added. An epic cannot be added to itself.' }]);
      const cycleByUpdate = await f.api('PUT', `/groups/pl/epics/${top.iid}`, { token: owner.token, body: { parent_id: c.id } });
      assert.deepEqual([cycleByUpdate.status, cycleByUpdate.body], [400, { message: { parent: ['This epic cannot be added. It is already an ancestor of the parent epic.'] } }]);

      // unassign answers the former child; then it is not a child any more
      const removed = await f.api('DELETE', `/groups/pl/epics/${b.iid}/epics/${e.id}`, { token: guest.token });
      assert.deepEqual([removed.status, removed.body.id, removed.body.parent_id, removed.body.parent_iid], [200, e.id, null, null]);
      const again = await f.api('DELETE', `/groups/pl/epics/${b.iid}/epics/${e.id}`, { token: guest.token });
      assert.deepEqual([again.status, again.body], [404, { message: 'No Epic found for given params' }]);
      const unknown = await f.api('POST', `${links}/999999`, { token: guest.token });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'No matching epic found. Make sure that you are adding a valid epic URL.' }]);
      const unknownParent = await f.api('GET', '/groups/pl/epics/9999/epics', { token: guest.token });
      assert.deepEqual([unknownParent.status, unknownParent.body], [403, FORBIDDEN]);
    });

    it('depth: seven levels at most, for assigning and for creating', async () => {
      let parent = await createEpic(f, owner.token, 'pl', { title: 'L1' });
      const chain = [parent];
      for (let level = 2; level <= 7; level++) {
        const r = await f.api('POST', `/groups/pl/epics/${parent.iid}/epics`, { token: owner.token, body: { title: `L${level}` } });
        expectStatus(r, 201);
        parent = r.body;
        chain.push(parent);
      }
      const loose = await createEpic(f, owner.token, 'pl', { title: 'Loose' });
      const tooDeep = await f.api('POST', `/groups/pl/epics/${parent.iid}/epics/${loose.id}`, { token: owner.token });
      assert.deepEqual([tooDeep.status, tooDeep.body], [409, { message: DEPTH }]);
      const created = await f.api('POST', `/groups/pl/epics/${parent.iid}/epics`, { token: owner.token, body: { title: 'L8' } });
      assert.deepEqual([created.status, created.body], [400, { message: { parent: [DEPTH] } }]);
      // a two-level subtree fits under level 5, not under level 6
      const pair = await createEpic(f, owner.token, 'pl', { title: 'Pair' });
      expectStatus(await f.api('POST', `/groups/pl/epics/${pair.iid}/epics`, { token: owner.token, body: { title: 'Pair child' } }), 201);
      const under6 = await f.api('POST', `/groups/pl/epics/${chain[5].iid}/epics/${pair.id}`, { token: owner.token });
      assert.deepEqual([under6.status, under6.body], [409, { message: DEPTH }]);
      expectStatus(await f.api('POST', `/groups/pl/epics/${chain[4].iid}/epics/${pair.id}`, { token: owner.token }), 201);
    });

    it('epic links: authentication, 404 for outsiders of private groups, 403 without Guest', async () => {
      const priv = await createEpic(f, owner.token, 'pl', { title: 'Private parent' });
      const pub = await createEpic(f, owner.token, 'openpl', { title: 'Public parent' });
      const anon = await f.api('GET', `/groups/openpl/epics/${pub.iid}/epics`, { token: null });
      assert.deepEqual([anon.status, anon.body], [401, UNAUTHORIZED]);
      const hidden = await f.api('GET', `/groups/pl/epics/${priv.iid}/epics`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, GROUP_NOT_FOUND]);
      expectStatus(await f.api('GET', `/groups/openpl/epics/${pub.iid}/epics`, { token: outsider.token }), 200);
      const write = await f.api('POST', `/groups/openpl/epics/${pub.iid}/epics`, { token: outsider.token, body: { title: 'x' } });
      assert.deepEqual([write.status, write.body], [403, FORBIDDEN]);
      // a child from a group the caller can't see is not found
      const foreign = await f.api('POST', `/groups/openpl/epics/${pub.iid}/epics/${priv.id}`, { token: outsider.token });
      assert.deepEqual([foreign.status, foreign.body], [403, FORBIDDEN]);
      await addMember(f, 'groups', open.id, outsider.id, 10);
      const foreign2 = await f.api('POST', `/groups/openpl/epics/${pub.iid}/epics/${priv.id}`, { token: outsider.token });
      assert.deepEqual([foreign2.status, foreign2.body], [404, { message: 'No matching epic found. Make sure that you are adding a valid epic URL.' }]);
    });

    it("gitbeaker's EpicLinks paths: /links, title in the query string", async () => {
      const top = await createEpic(f, owner.token, 'pl', { title: 'Via links' });
      const links = `/groups/${group.id}/epics/${top.iid}/links`;
      const made = await f.api('POST', `${links}?title=Child%20one`, { token: owner.token, body: { confidential: true } });
      expectStatus(made, 201);
      assert.deepEqual([made.body.title, made.body.parent_id], ['Child one', top.id]);
      assert.equal((await f.api('GET', `/groups/pl/epics/${made.body.iid}`)).body.confidential, true);
      const other = await createEpic(f, owner.token, 'pl', { title: 'Other' });
      expectStatus(await f.api('POST', `${links}/${other.id}`, { token: owner.token, body: {} }), 201);
      const listed = await f.api('GET', links, { token: owner.token });
      assert.deepEqual(listed.body.map((e: any) => e.id), [other.id, made.body.id]);
      const reordered = await f.api('PUT', `${links}/${other.id}`, { token: owner.token, body: { move_before_id: made.body.id } });
      assert.deepEqual(reordered.body.map((e: any) => e.id), [made.body.id, other.id]);
      const removed = await f.api('DELETE', `${links}/${other.id}`, { token: owner.token, body: {} });
      assert.deepEqual([removed.status, removed.body.parent_id], [200, null]);
    });
  });

  describe(`${dialect}: epics by tier`, () => {
    let premium: TestForgelet;
    let free: TestForgelet;
    before(async () => {
      [premium, free] = await Promise.all([startTestServer(dialect, { tier: 'premium' }), startTestServer(dialect, { tier: 'free' })]);
    });
    after(async () => {
      await Promise.all([premium.stop(), free.stop()]);
    });

    it('premium: epics work, epic links (multi-level epics) answer 403', async () => {
      const g = await createGroup(premium, premium.rootToken, { name: 'T', path: 'tp' });
      const e = await createEpic(premium, premium.rootToken, g.id, { title: 'Epic' });
      const other = await createEpic(premium, premium.rootToken, g.id, { title: 'Other' });
      for (const [method, path] of [
        ['GET', `/groups/tp/epics/${e.iid}/epics`],
        ['POST', `/groups/tp/epics/${e.iid}/epics/${other.id}`],
        ['POST', `/groups/tp/epics/${e.iid}/epics?title=x`],
        ['PUT', `/groups/tp/epics/${e.iid}/epics/${other.id}`],
        ['DELETE', `/groups/tp/epics/${e.iid}/epics/${other.id}`],
        ['GET', `/groups/tp/epics/${e.iid}/links`],
      ] as const) {
        const r = await premium.api(method, path);
        assert.deepEqual([method, path, r.status, r.body], [method, path, 403, FORBIDDEN]);
      }
      const withParent = await premium.api('POST', '/groups/tp/epics', { body: { title: 'x', parent_id: e.id } });
      assert.deepEqual([withParent.status, withParent.body], [403, FORBIDDEN]);
      const closed = await premium.api('PUT', `/groups/tp/epics/${e.iid}`, { body: { state_event: 'close' } });
      expectStatus(closed, 200);
      const events = await premium.api('GET', `/groups/tp/epics/${e.id}/resource_state_events`);
      assert.deepEqual(events.body.map((ev: any) => ev.state), ['closed']);
    });

    it('free: epic routes answer 403 (404 for hidden groups), epic state events 404', async () => {
      const g = await createGroup(free, free.rootToken, { name: 'T', path: 'tf' });
      for (const [method, path] of [
        ['GET', '/groups/tf/epics'],
        ['POST', '/groups/tf/epics'],
        ['GET', '/groups/tf/epics/1'],
        ['PUT', '/groups/tf/epics/1'],
        ['DELETE', '/groups/tf/epics/1'],
        ['GET', '/groups/tf/epics/1/epics'],
      ] as const) {
        const r = await free.api(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: { title: 'x' } });
        assert.deepEqual([method, path, r.status, r.body], [method, path, 403, FORBIDDEN]);
      }
      const missingGroup = await free.api('GET', '/groups/nope/epics');
      assert.deepEqual([missingGroup.status, missingGroup.body], [404, GROUP_NOT_FOUND]);
      const events = await free.api('GET', `/groups/${g.id}/epics/1/resource_state_events`);
      assert.deepEqual([events.status, events.body], [404, { message: '404 Not found' }]);
    });
  });
}
