import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertStateEvent } from '../../packages/core/src/domains/state-events/state-event.queries.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createProject, createUsers, expectStatus, insertIssueAndMergeRequest } from './http.js';

type User = { id: number; username: string; token: string };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const NOT_FOUND = { message: '404 Not found' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

const seed = insertIssueAndMergeRequest;

for (const dialect of DIALECTS) {
  describe(`${dialect}: resource state events`, () => {
    let f: TestForgelet;
    let alice: User;
    let bob: User;
    let guest: User;
    let open: any;
    let closed: any;
    let iid = 0;
    const t = (n: number) => `2024-05-0${n}T10:00:00.000Z`;

    before(async () => {
      f = await startTestServer(dialect);
      [alice, bob, guest] = await createUsers(f, ['alice', 'bob', 'guest']);
      open = await createProject(f, alice.token, { name: 'open', visibility: 'public' });
      closed = await createProject(f, alice.token, { name: 'closed' });
      await addMember(f, 'projects', closed.id, guest.id, 10);
    });
    after(() => f.stop());

    it('issues: close and reopen listed oldest first, each readable by id; whole entities', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const db = f.forge.database.db;
      await insertStateEvent(db, { user_id: alice.id, issue_id: s.issue, merge_request_id: null, epic_id: null, state: 'closed', source_commit: null, source_merge_request_id: null, created_at: t(1) });
      await insertStateEvent(db, { user_id: bob.id, issue_id: s.issue, merge_request_id: null, epic_id: null, state: 'reopened', source_commit: null, source_merge_request_id: null, created_at: t(2) });
      const url = `/projects/${open.id}/issues/${iid}/resource_state_events`;
      const list = await f.api('GET', url, { token: bob.token });
      expectStatus(list, 200);
      assert.equal(list.headers.get('x-total'), '2');
      const user = (u: User) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}` });
      assert.deepEqual(list.body, [
        { id: list.body[0].id, user: user(alice), created_at: t(1), resource_type: 'Issue', resource_id: s.issue, source_commit: null, source_merge_request_id: null, state: 'closed' },
        { id: list.body[1].id, user: user(bob), created_at: t(2), resource_type: 'Issue', resource_id: s.issue, source_commit: null, source_merge_request_id: null, state: 'reopened' },
      ]);
      assert.ok(list.body[1].id > list.body[0].id);
      const one = await f.api('GET', `${url}/${list.body[1].id}`, { token: bob.token });
      assert.deepEqual([one.status, one.body], [200, list.body[1]]);
    });

    it('merge requests: a merge by a commit of another MR, and an event whose user is gone', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const other = await seed(f, open.id, alice.id, ++iid);
      const db = f.forge.database.db;
      await insertStateEvent(db, { user_id: null, issue_id: null, merge_request_id: s.mr, epic_id: null, state: 'closed', source_commit: null, source_merge_request_id: null, created_at: t(3) });
      await insertStateEvent(db, { user_id: alice.id, issue_id: null, merge_request_id: s.mr, epic_id: null, state: 'merged', source_commit: 'c'.repeat(40), source_merge_request_id: other.mr, created_at: t(4) });
      const url = `/projects/${open.id}/merge_requests/${iid - 1}/resource_state_events`;
      const list = await f.api('GET', url, { token: alice.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((e: any) => [e.state, e.user?.username ?? null, e.resource_type, e.resource_id, e.source_commit, e.source_merge_request_id]), [
        ['closed', null, 'MergeRequest', s.mr, null, null],
        ['merged', 'alice', 'MergeRequest', s.mr, 'c'.repeat(40), other.mr],
      ]);
      const one = await f.api('GET', `${url}/${list.body[0].id}`, { token: alice.token });
      assert.deepEqual([one.status, one.body], [200, list.body[0]]);
      // an event of another resource is not found here
      const otherEvents = `/projects/${open.id}/merge_requests/${iid}/resource_state_events`;
      const wrong = await f.api('GET', `${otherEvents}/${list.body[0].id}`, { token: alice.token });
      assert.deepEqual([wrong.status, wrong.body], [404, NOT_FOUND]);
      const missing = await f.api('GET', `${url}/999999`, { token: alice.token });
      assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
    });

    it('a resource never closed or reopened lists [] with headers', async () => {
      await seed(f, open.id, alice.id, ++iid);
      for (const segment of ['issues', 'merge_requests']) {
        const r = await f.api('GET', `/projects/${encodeURIComponent(open.path_with_namespace)}/${segment}/${iid}/resource_state_events`, { token: bob.token });
        assert.deepEqual([r.status, r.body], [200, []]);
        assert.equal(r.headers.get('x-total'), '0');
        assert.equal(r.headers.get('x-total-pages'), '1');
      }
    });

    it('GitLab authenticates every call: anonymous gets 401 even on public projects', async () => {
      await seed(f, open.id, alice.id, ++iid);
      for (const segment of ['issues', 'merge_requests']) {
        const r = await f.api('GET', `/projects/${open.id}/${segment}/${iid}/resource_state_events`, { token: null });
        assert.deepEqual([r.status, r.body], [401, UNAUTHORIZED]);
        const one = await f.api('GET', `/projects/${open.id}/${segment}/${iid}/resource_state_events/1`, { token: null });
        assert.deepEqual([one.status, one.body], [401, UNAUTHORIZED]);
      }
    });

    it('private project: 404 for non-members; a Guest reads issue events but not merge request ones', async () => {
      const s = await seed(f, closed.id, alice.id, ++iid);
      const db = f.forge.database.db;
      await insertStateEvent(db, { user_id: alice.id, issue_id: s.issue, merge_request_id: null, epic_id: null, state: 'closed', source_commit: null, source_merge_request_id: null, created_at: t(5) });
      for (const segment of ['issues', 'merge_requests']) {
        const r = await f.api('GET', `/projects/${closed.id}/${segment}/${iid}/resource_state_events`, { token: bob.token });
        assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND]);
      }
      const issue = await f.api('GET', `/projects/${closed.id}/issues/${iid}/resource_state_events`, { token: guest.token });
      assert.deepEqual(issue.body.map((e: any) => e.state), ['closed']);
      const mr = await f.api('GET', `/projects/${closed.id}/merge_requests/${iid}/resource_state_events`, { token: guest.token });
      assert.deepEqual([mr.status, mr.body], [403, { message: '403 Forbidden' }]);
      const noIssue = await f.api('GET', `/projects/${closed.id}/issues/9999/resource_state_events`, { token: alice.token });
      assert.deepEqual([noIssue.status, noIssue.body], [404, { message: '404 Issue Not Found' }]);
    });

    it('paginates in id order', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const db = f.forge.database.db;
      const states = ['closed', 'reopened', 'closed', 'reopened', 'closed'];
      for (const [i, state] of states.entries()) {
        await insertStateEvent(db, { user_id: alice.id, issue_id: s.issue, merge_request_id: null, epic_id: null, state, source_commit: null, source_merge_request_id: null, created_at: t(i + 1) });
      }
      const url = `/projects/${open.id}/issues/${iid}/resource_state_events`;
      const page = await f.api('GET', `${url}?per_page=2&page=3`, { token: bob.token });
      assert.deepEqual(page.body.map((e: any) => [e.state, e.created_at]), [['closed', t(5)]]);
      assert.deepEqual([page.headers.get('x-total'), page.headers.get('x-total-pages'), page.headers.get('x-next-page')], ['5', '3', '']);
      const bad = await f.api('GET', `${url}/abc`, { token: bob.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'resource_state_event_id is invalid' }]);
    });
  });
}
