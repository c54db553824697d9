import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createProject, createUsers, expectStatus, insertIssueAndMergeRequest } from './http.js';

type User = { id: number; username: string; token: string };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// GitLab: not_found!("Award Emoji #{errors.to_sentence}") → "404 Award Emoji <message> Not Found".
const INVALID_NAME = { message: '404 Award Emoji Name is not a valid emoji name Not Found' };
const TAKEN = { message: '404 Award Emoji Name has already been taken Not Found' };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const NOT_FOUND = { message: '404 Not found' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

type Segment = 'issues' | 'merge_requests' | 'snippets';
const TYPE_OF: Record<Segment, string> = { issues: 'Issue', merge_requests: 'MergeRequest', snippets: 'Snippet' };

/** Issues, merge requests, snippets and notes written straight to the tables (their APIs land in parallel). */
interface Seeded {
  /** iid (issues, merge requests) or id (snippets) in the path, and the database id. */
  ref: Record<Segment, number>;
  dbId: Record<Segment, number>;
  note: Record<Segment, number>;
}

async function seed(f: TestForgelet, projectId: number, authorId: number, iid: number, options: { snippetVisibility?: string } = {}): Promise<Seeded> {
  const db = f.forge.database.db;
  const now = new Date().toISOString();
  const stamps = { created_at: now, updated_at: now };
  const { issue, mr } = await insertIssueAndMergeRequest(f, projectId, authorId, iid);
  const snippet = await db
    .insertInto('snippets')
    .values({ project_id: projectId, title: `Snippet ${iid}`, file_name: 'a.txt', content: 'x', visibility: options.snippetVisibility ?? 'public', author_id: authorId, ...stamps })
    .returning('id')
    .executeTakeFirstOrThrow();
  const dbId = { issues: issue, merge_requests: mr, snippets: snippet.id };
  const note: Partial<Record<Segment, number>> = {};
  for (const segment of Object.keys(TYPE_OF) as Segment[]) {
    const row = await db
      .insertInto('notes')
      .values({ project_id: projectId, noteable_type: TYPE_OF[segment], noteable_id: dbId[segment], body: 'a comment', author_id: authorId, system: 0, internal: 0, ...stamps })
      .returning('id')
      .executeTakeFirstOrThrow();
    note[segment] = row.id;
  }
  return { ref: { issues: iid, merge_requests: iid, snippets: snippet.id }, dbId, note: note as Record<Segment, number> };
}

const TARGETS = (['issues', 'merge_requests', 'snippets'] as const).flatMap((segment) => [
  { segment, onNote: false, label: segment },
  { segment, onNote: true, label: `notes of ${segment}` },
]);

for (const dialect of DIALECTS) {
  describe(`${dialect}: emoji reactions`, () => {
    let f: TestForgelet;
    let alice: User; // owns both projects
    let bob: User; // signed in, member of nothing
    let guest: User; // Guest of the private project
    let admin: User;
    let open: any; // public project
    let closed: any; // private project
    let pub: Seeded;
    let priv: Seeded;
    let iid = 0;

    const base = (project: any, s: Seeded, segment: Segment, onNote: boolean) =>
      `/projects/${project.id}/${segment}/${s.ref[segment]}${onNote ? `/notes/${s.note[segment]}` : ''}/award_emoji`;

    before(async () => {
      f = await startTestServer(dialect);
      [alice, bob, guest] = await createUsers(f, ['alice', 'bob', 'guest']);
      admin = await f.createUser('boss', { admin: true });
      open = await createProject(f, alice.token, { name: 'open', visibility: 'public' });
      closed = await createProject(f, alice.token, { name: 'closed' });
      await addMember(f, 'projects', closed.id, guest.id, 10);
      pub = await seed(f, open.id, alice.id, ++iid);
      priv = await seed(f, closed.id, alice.id, ++iid, { snippetVisibility: 'private' });
    });
    after(() => f.stop());

    for (const { segment, onNote, label } of TARGETS) {
      it(`${label}: award, list and get (anonymously on public), refuse repeats and unknown names, delete by author or admin`, async () => {
        const s = await seed(f, open.id, alice.id, ++iid);
        const url = base(open, s, segment, onNote);
        const awardableId = onNote ? s.note[segment] : s.dbId[segment];
        const awardableType = onNote ? 'Note' : TYPE_OF[segment];

        const mine = await f.api('POST', url, { token: alice.token, body: { name: 'thumbsup' } });
        expectStatus(mine, 201);
        assert.match(mine.body.created_at, ISO);
        assert.deepEqual(mine.body, {
          id: mine.body.id, name: 'thumbsup', created_at: mine.body.created_at, updated_at: mine.body.created_at,
          awardable_id: awardableId, awardable_type: awardableType, url: null,
          user: { id: alice.id, username: 'alice', name: 'alice', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/alice` },
        });
        const bobs = await f.api('POST', url, { token: bob.token, body: { name: 'tada' } });
        expectStatus(bobs, 201);
        const same = await f.api('POST', url, { token: bob.token, body: { name: 'thumbsup' } });
        expectStatus(same, 201); // another user may give the same emoji

        const list = await f.api('GET', url, { token: null });
        expectStatus(list, 200);
        assert.deepEqual(list.body.map((a: any) => [a.name, a.user.username]), [['thumbsup', 'alice'], ['tada', 'bob'], ['thumbsup', 'bob']]);
        assert.deepEqual(list.body[0], mine.body);
        assert.equal(list.headers.get('x-total'), '3');
        const one = await f.api('GET', `${url}/${bobs.body.id}`, { token: null });
        assert.deepEqual([one.status, one.body], [200, bobs.body]);

        const again = await f.api('POST', url, { token: alice.token, body: { name: 'thumbsup' } });
        assert.deepEqual([again.status, again.body], [404, TAKEN]);
        const unknown = await f.api('POST', url, { token: alice.token, body: { name: 'not_an_emoji' } });
        assert.deepEqual([unknown.status, unknown.body], [404, INVALID_NAME]);

        const foreign = await f.api('DELETE', `${url}/${mine.body.id}`, { token: bob.token });
        assert.deepEqual([foreign.status, foreign.body], [401, UNAUTHORIZED]);
        const own = await f.api('DELETE', `${url}/${mine.body.id}`, { token: alice.token });
        expectStatus(own, 204);
        assert.equal(own.text, '');
        const byAdmin = await f.api('DELETE', `${url}/${bobs.body.id}`, { token: admin.token });
        expectStatus(byAdmin, 204);
        const gone = await f.api('GET', `${url}/${mine.body.id}`);
        assert.deepEqual([gone.status, gone.body], [404, NOT_FOUND]);
        const left = await f.api('GET', url);
        assert.deepEqual(left.body.map((a: any) => [a.name, a.user.username]), [['thumbsup', 'bob']]);
        assert.equal(left.headers.get('x-total'), '1');
      });
    }

    it('private project: hidden from non-members and anonymous callers (404), open to a Guest on issues and snippets, not on merge requests', async () => {
      for (const { segment, onNote } of TARGETS) {
        const url = base(closed, priv, segment, onNote);
        for (const token of [bob.token, null]) {
          const list = await f.api('GET', url, { token });
          assert.deepEqual([list.status, list.body], [404, PROJECT_NOT_FOUND], `${url} as ${token ? 'bob' : 'anonymous'}`);
        }
        const award = await f.api('POST', url, { token: bob.token, body: { name: 'tada' } });
        assert.deepEqual([award.status, award.body], [404, PROJECT_NOT_FOUND]);
      }
      for (const segment of ['issues', 'snippets'] as const) {
        const r = await f.api('POST', base(closed, priv, segment, false), { token: guest.token, body: { name: 'eyes' } });
        expectStatus(r, 201);
        const list = await f.api('GET', base(closed, priv, segment, false), { token: guest.token });
        assert.deepEqual(list.body.map((a: any) => a.name), ['eyes']);
      }
      // Merge requests of private projects need Reporter (they expose code): the shared finder answers 403.
      const mr = await f.api('GET', base(closed, priv, 'merge_requests', false), { token: guest.token });
      assert.deepEqual([mr.status, mr.body], [403, { message: '403 Forbidden' }]);
    });

    it('anonymous callers may not award or delete (401)', async () => {
      const url = base(open, pub, 'issues', false);
      const award = await f.api('POST', url, { token: null, body: { name: 'tada' } });
      assert.deepEqual([award.status, award.body], [401, UNAUTHORIZED]);
      const mine = await f.api('POST', url, { token: alice.token, body: { name: 'rocket' } });
      expectStatus(mine, 201);
      const del = await f.api('DELETE', `${url}/${mine.body.id}`, { token: null });
      assert.deepEqual([del.status, del.body], [401, UNAUTHORIZED]);
    });

    it('names: +1 and -1 are stored as thumbsup and thumbsdown; blank names list both model errors', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const url = base(open, s, 'issues', false);
      const up = await f.api('POST', url, { token: bob.token, body: { name: '+1' } });
      assert.deepEqual([up.status, up.body.name], [201, 'thumbsup']);
      const down = await f.api('POST', url, { token: bob.token, body: { name: '-1' } });
      assert.deepEqual([down.status, down.body.name], [201, 'thumbsdown']);
      const repeat = await f.api('POST', url, { token: bob.token, body: { name: 'thumbsup' } });
      assert.deepEqual([repeat.status, repeat.body], [404, TAKEN]);
      const blank = await f.api('POST', url, { token: bob.token, body: { name: '' } });
      assert.deepEqual([blank.status, blank.body], [404, { message: "404 Award Emoji Name can't be blank and Name is not a valid emoji name Not Found" }]);
      const colons = await f.api('POST', url, { token: bob.token, body: { name: ':tada:' } });
      assert.deepEqual([colons.status, colons.body], [404, INVALID_NAME]);
      const missing = await f.api('POST', url, { token: bob.token, body: {} });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'name is missing' }]);
      const badId = await f.api('GET', `${url}/abc`);
      assert.deepEqual([badId.status, badId.body], [400, { error: 'award_id is invalid' }]);
      const list = await f.api('GET', url);
      assert.deepEqual(list.body.map((a: any) => a.name), ['thumbsup', 'thumbsdown']);
    });

    it('a reaction is only reachable through its own awardable; unknown awardables and notes are 404', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const onIssue = await f.api('POST', base(open, s, 'issues', false), { token: alice.token, body: { name: 'heart' } });
      expectStatus(onIssue, 201);
      for (const other of [base(open, pub, 'issues', false), base(open, s, 'issues', true), base(open, s, 'merge_requests', false)]) {
        const r = await f.api('GET', `${other}/${onIssue.body.id}`);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND], other);
        const d = await f.api('DELETE', `${other}/${onIssue.body.id}`);
        assert.deepEqual([d.status, d.body], [404, NOT_FOUND], other);
      }
      const noIssue = await f.api('GET', `/projects/${open.id}/issues/9999/award_emoji`);
      assert.deepEqual([noIssue.status, noIssue.body], [404, { message: '404 Issue Not Found' }]);
      const noNote = await f.api('GET', `/projects/${open.id}/issues/${s.ref.issues}/notes/999999/award_emoji`);
      assert.deepEqual([noNote.status, noNote.body], [404, { message: '404 Note Not Found' }]);
      // a note of another noteable is not a note of this one
      const wrongNote = await f.api('GET', `/projects/${open.id}/issues/${s.ref.issues}/notes/${s.note.merge_requests}/award_emoji`);
      assert.deepEqual([wrongNote.status, wrongNote.body], [404, { message: '404 Note Not Found' }]);
      const noProject = await f.api('GET', `/projects/999999/issues/1/award_emoji`);
      assert.deepEqual([noProject.status, noProject.body], [404, PROJECT_NOT_FOUND]);
    });

    it('internal notes: reactions hidden below Reporter', async () => {
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      const note = await db
        .insertInto('notes')
        .values({ project_id: closed.id, noteable_type: 'Issue', noteable_id: priv.dbId.issues, body: 'internal', author_id: alice.id, system: 0, internal: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const url = `/projects/${closed.id}/issues/${priv.ref.issues}/notes/${note.id}/award_emoji`;
      expectStatus(await f.api('POST', url, { token: alice.token, body: { name: 'lock' } }), 201);
      const asGuest = await f.api('GET', url, { token: guest.token });
      assert.deepEqual([asGuest.status, asGuest.body], [404, { message: '404 Note Not Found' }]);
      const asOwner = await f.api('GET', url, { token: alice.token });
      assert.deepEqual(asOwner.body.map((a: any) => a.name), ['lock']);
    });

    it('paginates in id order with GitLab headers; the project may be given by its encoded path', async () => {
      const s = await seed(f, open.id, alice.id, ++iid);
      const path = `/projects/${encodeURIComponent(open.path_with_namespace)}/merge_requests/${s.ref.merge_requests}/award_emoji`;
      const names = ['one', 'two', 'three', 'four', 'five'];
      for (const name of names) expectStatus(await f.api('POST', path, { token: bob.token, body: { name } }), 201);
      const page2 = await f.api('GET', `${path}?per_page=2&page=2`, { token: null });
      expectStatus(page2, 200);
      assert.deepEqual(page2.body.map((a: any) => a.name), ['three', 'four']);
      assert.equal(page2.headers.get('x-total'), '5');
      assert.equal(page2.headers.get('x-total-pages'), '3');
      assert.equal(page2.headers.get('x-next-page'), '3');
      assert.equal(page2.headers.get('x-prev-page'), '1');
      assert.match(page2.headers.get('link') ?? '', /rel="next"/);
      const all = await f.api('GET', `${path}?per_page=100`);
      assert.deepEqual(all.body.map((a: any) => a.name), names);
      assert.ok(all.body.every((a: any, i: number) => i === 0 || a.id > all.body[i - 1].id));
    });

    it('DELETE honours If-Unmodified-Since (412 when the reaction is newer)', async () => {
      const url = base(open, pub, 'snippets', false);
      const mine = await f.api('POST', url, { token: alice.token, body: { name: 'cake' } });
      expectStatus(mine, 201);
      const stale = await f.api('DELETE', `${url}/${mine.body.id}`, { token: alice.token, headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.deepEqual([stale.status, stale.body], [412, { message: '412 Precondition Failed' }]);
      const fresh = await f.api('DELETE', `${url}/${mine.body.id}`, { token: alice.token, headers: { 'If-Unmodified-Since': new Date(Date.now() + 60_000).toUTCString() } });
      expectStatus(fresh, 204);
    });
  });
}
