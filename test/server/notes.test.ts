import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
type Kind = 'issues' | 'merge_requests' | 'snippets';
const KINDS: Kind[] = ['issues', 'merge_requests', 'snippets'];
const TYPE_OF: Record<Kind, string> = { issues: 'Issue', merge_requests: 'MergeRequest', snippets: 'Snippet' };
const FORBIDDEN = { message: '403 Forbidden' };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const NOTE_NOT_FOUND = { message: '404 Note Not Found' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A noteable as the tests address it: the path segment, the id in the path, and its database id. */
interface Target {
  kind: Kind;
  project: any;
  ref: number;
  dbId: number;
  iid: number | null;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: notes on issues, merge requests and snippets`, () => {
    let f: TestForgelet;
    let maint: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let pub: any; // public project: maint 40, reporter 20, guest 10
    let priv: any; // private project, same members
    let targets: Record<Kind, Target>;
    let iidSeq = 0;

    const db = () => f.forge.database.db;
    const noteCount = async () => Number((await db().selectFrom('notes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const notesPath = (t: Target, suffix = '') => `/projects/${t.project.id}/${t.kind}/${t.ref}/notes${suffix}`;
    const post = async (t: Target, token: string, body: Record<string, unknown>) => {
      const r = await f.api('POST', notesPath(t), { token, body });
      expectStatus(r, 201);
      return r.body;
    };

    /** Issues and merge requests are written straight to the database: their APIs belong to other domains. */
    async function insertIssue(project: any, values: Record<string, unknown> = {}): Promise<Target> {
      const now = new Date().toISOString();
      const iid = ++iidSeq;
      const row = await db()
        .insertInto('issues')
        .values({ project_id: project.id, iid, title: `Issue ${iid}`, description: null, state: 'opened', issue_type: 'issue', confidential: 0, discussion_locked: 0, author_id: 1, created_at: now, updated_at: now, ...values })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { kind: 'issues', project, ref: iid, dbId: row.id, iid };
    }
    async function insertMergeRequest(project: any, values: Record<string, unknown> = {}): Promise<Target> {
      const now = new Date().toISOString();
      const iid = ++iidSeq;
      const row = await db()
        .insertInto('merge_requests')
        .values({
          project_id: project.id, iid, title: `MR ${iid}`, description: null, state: 'opened', source_branch: `feature-${iid}`, target_branch: 'main',
          source_project_id: project.id, author_id: 1, sha: 'a'.repeat(40), draft: 0, squash: 0, should_remove_source_branch: 0, discussion_locked: 0, created_at: now, updated_at: now, ...values,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { kind: 'merge_requests', project, ref: iid, dbId: row.id, iid };
    }
    async function createSnippet(project: any, visibility = 'public'): Promise<Target> {
      const r = await f.api('POST', `/projects/${project.id}/snippets`, { body: { title: 'S', file_name: 's.txt', content: 's', visibility } });
      expectStatus(r, 201);
      return { kind: 'snippets', project, ref: r.body.id, dbId: r.body.id, iid: null };
    }
    const freshTarget = (kind: Kind, project = pub, values: Record<string, unknown> = {}) =>
      kind === 'issues' ? insertIssue(project, values) : kind === 'merge_requests' ? insertMergeRequest(project, values) : createSnippet(project);

    before(async () => {
      f = await startTestServer(dialect);
      [maint, reporter, guest, outsider] = await createUsers(f, ['nmaint', 'nreporter', 'nguest', 'noutsider']);
      const group = await createGroup(f, f.rootToken, { name: 'Talk', path: 'talk', visibility: 'public' });
      pub = await createProject(f, f.rootToken, { name: 'Pub', namespace_id: group.id, visibility: 'public' });
      priv = await createProject(f, f.rootToken, { name: 'Priv', namespace_id: group.id, visibility: 'private' });
      for (const project of [pub, priv]) {
        await addMember(f, 'projects', project.id, maint.id, 40);
        await addMember(f, 'projects', project.id, reporter.id, 20);
        await addMember(f, 'projects', project.id, guest.id, 10);
      }
      targets = { issues: await insertIssue(pub), merge_requests: await insertMergeRequest(pub), snippets: await createSnippet(pub) };
    });
    after(() => f.stop());

    for (const kind of KINDS) {
      it(`${kind}: create, show, list, edit and delete a note, in GitLab's Note shape`, async () => {
        const t = targets[kind];
        const created = await f.api('POST', notesPath(t), { token: reporter.token, body: { body: `Looks good (${kind})` } });
        expectStatus(created, 201);
        const n = created.body;
        assert.match(n.created_at, ISO);
        assert.deepEqual(n, {
          id: n.id,
          type: null,
          body: `Looks good (${kind})`,
          attachment: null,
          author: { id: reporter.id, username: 'nreporter', name: 'nreporter', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/nreporter` },
          created_at: n.created_at,
          updated_at: n.created_at,
          system: false,
          noteable_id: t.dbId,
          noteable_type: TYPE_OF[kind],
          project_id: pub.id,
          resolvable: false,
          confidential: false,
          internal: false,
          imported: false,
          imported_from: 'none',
          noteable_iid: t.iid,
          commands_changes: {},
        });

        const shown = await f.api('GET', notesPath(t, `/${n.id}`), { token: guest.token });
        assert.deepEqual([shown.status, shown.body], [200, n]);
        const byPath = await f.api('GET', `/projects/talk%2Fpub/${kind}/${t.ref}/notes/${n.id}`, { token: outsider.token });
        assert.deepEqual([byPath.status, byPath.body], [200, n], 'a signed-in outsider reads notes of a public project, by encoded path too');
        const anonymous = await f.api('GET', notesPath(t, `/${n.id}`), { token: null });
        assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED], 'GitLab\'s notes API needs a signed-in user, reads included');
        const list = await f.api('GET', notesPath(t), { token: guest.token });
        expectStatus(list, 200);
        assert.ok(list.body.some((x: any) => x.id === n.id));

        const edited = await f.api('PUT', notesPath(t, `/${n.id}`), { token: reporter.token, body: { body: 'Edited' } });
        expectStatus(edited, 200);
        assert.deepEqual({ ...edited.body, updated_at: null }, { ...n, body: 'Edited', updated_at: null });
        assert.ok(edited.body.updated_at >= n.updated_at);
        assert.equal((await f.api('GET', notesPath(t, `/${n.id}`))).body.body, 'Edited');

        const now = new Date().toISOString();
        await db().insertInto('award_emoji').values({ name: 'tada', user_id: guest.id, awardable_type: 'Note', awardable_id: n.id, created_at: now, updated_at: now }).execute();
        const removed = await f.api('DELETE', notesPath(t, `/${n.id}`), { token: reporter.token });
        assert.deepEqual([removed.status, removed.text], [204, '']);
        const awards = await db().selectFrom('award_emoji').select('id').where('awardable_type', '=', 'Note').where('awardable_id', '=', n.id).execute();
        assert.deepEqual(awards, [], 'the note\'s reactions go with it');
        const gone = await f.api('GET', notesPath(t, `/${n.id}`), { token: reporter.token });
        assert.deepEqual([gone.status, gone.body], [404, NOTE_NOT_FOUND]);
      });
    }

    it('lists sort by created_at desc by default, asc on request, or by updated_at, paginated with headers', async () => {
      const t = await insertIssue(pub);
      const made = [];
      for (const day of ['01', '02', '03']) made.push(await post(t, f.rootToken, { body: `day ${day}`, created_at: `2024-01-${day}T10:00:00Z` }));
      assert.deepEqual(made.map((n) => n.created_at), ['2024-01-01T10:00:00.000Z', '2024-01-02T10:00:00.000Z', '2024-01-03T10:00:00.000Z']);
      const bodies = async (query: string) => {
        const r = await f.api('GET', notesPath(t, query), { token: guest.token });
        expectStatus(r, 200);
        return r.body.map((n: any) => n.body);
      };
      assert.deepEqual(await bodies(''), ['day 03', 'day 02', 'day 01']);
      assert.deepEqual(await bodies('?sort=asc'), ['day 01', 'day 02', 'day 03']);
      expectStatus(await f.api('PUT', notesPath(t, `/${made[0].id}`), { body: { body: 'day 01, edited' } }), 200);
      assert.deepEqual(await bodies('?order_by=updated_at'), ['day 01, edited', 'day 03', 'day 02']);
      assert.deepEqual(await bodies('?order_by=updated_at&sort=asc'), ['day 02', 'day 03', 'day 01, edited']);

      const page = await f.api('GET', notesPath(t, '?sort=asc&per_page=2'), { token: guest.token });
      assert.deepEqual(page.body.map((n: any) => n.id), [made[0].id, made[1].id]);
      assert.deepEqual(
        ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => page.headers.get(h)),
        ['1', '2', '3', '2', '2', ''],
      );
      const base = `${f.url}/api/v4${notesPath(t)}`;
      assert.equal(page.headers.get('link'), `<${base}?page=2&per_page=2&sort=asc>; rel="next", <${base}?page=1&per_page=2&sort=asc>; rel="first", <${base}?page=2&per_page=2&sort=asc>; rel="last"`);
      const second = await f.api('GET', `${base}?page=2&per_page=2&sort=asc`, { token: guest.token });
      assert.deepEqual(second.body.map((n: any) => n.id), [made[2].id]);
    });

    it('created_at is kept for admins and Owners only', async () => {
      const t = await insertIssue(pub);
      const byReporter = await post(t, reporter.token, { body: 'backdated?', created_at: '2020-01-01T00:00:00Z' });
      assert.notEqual(byReporter.created_at, '2020-01-01T00:00:00.000Z');
      const byMaintainer = await post(t, maint.token, { body: 'backdated?', created_at: '2020-01-01T00:00:00Z' });
      assert.notEqual(byMaintainer.created_at, '2020-01-01T00:00:00.000Z');
      const byAdmin = await post(t, f.rootToken, { body: 'imported', created_at: '2020-01-01T00:00:00Z' });
      assert.deepEqual([byAdmin.created_at, byAdmin.updated_at], ['2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z']);
      const [owner] = await createUsers(f, ['nowner']);
      await addMember(f, 'projects', pub.id, owner!.id, 50);
      const byOwner = await post(t, owner!.token, { body: 'migrated', created_at: '2021-06-01T12:30:00+02:00' });
      assert.equal(byOwner.created_at, '2021-06-01T10:30:00.000Z');
    });

    it('a Guest comments on a public issue but may not edit or delete another\'s note; Maintainers delete, only the author or an admin edits', async () => {
      const t = await insertIssue(pub);
      const mine = await post(t, guest.token, { body: 'guest comment' });
      assert.equal(mine.author.username, 'nguest');
      const theirs = await post(t, reporter.token, { body: 'reporter comment' });
      for (const [method, body] of [['PUT', { body: 'changed' }], ['DELETE', undefined]] as const) {
        const r = await f.api(method, notesPath(t, `/${theirs.id}`), { token: guest.token, body });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], method);
      }
      const byMaintainer = await f.api('PUT', notesPath(t, `/${theirs.id}`), { token: maint.token, body: { body: 'moderated' } });
      assert.deepEqual([byMaintainer.status, byMaintainer.body], [403, FORBIDDEN], 'only the author edits');
      const byAdmin = await f.api('PUT', notesPath(t, `/${theirs.id}`), { body: { body: 'fixed by admin' } });
      assert.deepEqual([byAdmin.status, byAdmin.body.body, byAdmin.body.author.username], [200, 'fixed by admin', 'nreporter']);
      const ownEdit = await f.api('PUT', notesPath(t, `/${mine.id}`), { token: guest.token, body: { body: 'guest, edited' } });
      assert.deepEqual([ownEdit.status, ownEdit.body.body], [200, 'guest, edited']);
      const deleted = await f.api('DELETE', notesPath(t, `/${theirs.id}`), { token: maint.token });
      expectStatus(deleted, 204);
      const ownDelete = await f.api('DELETE', notesPath(t, `/${mine.id}`), { token: guest.token });
      expectStatus(ownDelete, 204);
    });

    it('non-members: read and comment on a public project\'s issues, merge requests and snippets (GitLab public_user_access); a private project is 404; anonymous calls are 401', async () => {
      const before = await noteCount();
      for (const kind of KINDS) {
        const t = targets[kind];
        const read = await f.api('GET', notesPath(t), { token: outsider.token });
        expectStatus(read, 200);
        const anonymousRead = await f.api('GET', notesPath(t), { token: null });
        assert.deepEqual([anonymousRead.status, anonymousRead.body], [401, UNAUTHORIZED], kind);
        const write = await f.api('POST', notesPath(t), { token: outsider.token, body: { body: 'drive-by' } });
        assert.equal(write.status, 201, `${kind}: ${write.text}`);
        assert.equal(write.body.author.username, outsider.username);
        const anonymous = await f.api('POST', notesPath(t), { token: null, body: { body: 'anon' } });
        assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED], kind);
      }
      const hidden = await insertIssue(priv);
      const note = await post(hidden, reporter.token, { body: 'private talk' });
      for (const token of [outsider.token, null]) {
        for (const [method, suffix, body] of [['GET', '', undefined], ['GET', `/${note.id}`, undefined], ['POST', '', { body: 'x' }]] as const) {
          const r = await f.api(method, notesPath(hidden, suffix), { token, body });
          const expected = token === null ? [401, UNAUTHORIZED] : [404, PROJECT_NOT_FOUND];
          assert.deepEqual([r.status, r.body], expected, `${method} ${suffix} as ${token ? 'outsider' : 'anonymous'}`);
        }
      }
      for (const [method, body] of [['PUT', { body: 'x' }], ['DELETE', undefined]] as const) {
        const r = await f.api(method, notesPath(hidden, `/${note.id}`), { token: outsider.token, body });
        assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND], method);
      }
      assert.equal(await noteCount(), before + KINDS.length + 1);
      const byGuest = await post(hidden, guest.token, { body: 'a member Guest comments on a private issue' });
      assert.equal(byGuest.project_id, priv.id);
    });

    it('internal notes: written by Reporters, hidden from Guests and outsiders (in the list count too)', async () => {
      const t = await insertIssue(pub);
      await post(t, guest.token, { body: 'public remark' });
      const internal = await post(t, reporter.token, { body: 'between us', internal: true });
      assert.deepEqual([internal.internal, internal.confidential], [true, true]);
      const legacy = await post(t, maint.token, { body: 'old param', confidential: true });
      assert.deepEqual([legacy.internal, legacy.confidential], [true, true], '`confidential` is the deprecated name of `internal`');
      const fromGuest = await post(t, guest.token, { body: 'guest tries', internal: true });
      assert.equal(fromGuest.internal, false, 'GitLab drops `internal` for callers below Reporter');

      const list = async (token: string | null) => {
        const r = await f.api('GET', notesPath(t, '?sort=asc'), { token });
        expectStatus(r, 200);
        return { bodies: r.body.map((n: any) => n.body), total: r.headers.get('x-total') };
      };
      assert.deepEqual(await list(reporter.token), { bodies: ['public remark', 'between us', 'old param', 'guest tries'], total: '4' });
      for (const token of [guest.token, outsider.token]) {
        assert.deepEqual(await list(token), { bodies: ['public remark', 'guest tries'], total: '2' });
        const one = await f.api('GET', notesPath(t, `/${internal.id}`), { token });
        assert.deepEqual([one.status, one.body], [404, NOTE_NOT_FOUND]);
      }
      const anonymous = await f.api('GET', notesPath(t, `/${internal.id}`), { token: null });
      assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED], 'anonymous callers never reach notes');
      const mr = await insertMergeRequest(pub);
      assert.equal((await post(mr, reporter.token, { body: 'mr internal', internal: true })).internal, true);
      const snippet = await createSnippet(pub);
      assert.equal((await post(snippet, reporter.token, { body: 'snippet internal?', internal: true })).internal, false, 'snippet notes are never internal');
      const change = await f.api('PUT', notesPath(t, `/${internal.id}`), { token: reporter.token, body: { confidential: false } });
      assert.deepEqual([change.status, change.body], [400, { message: '400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}' }]);
      const same = await f.api('PUT', notesPath(t, `/${internal.id}`), { token: reporter.token, body: { confidential: true, body: 'still between us' } });
      assert.deepEqual([same.status, same.body.internal, same.body.body], [200, true, 'still between us']);
    });

    it('a locked discussion takes Reporter to comment: Guests get 403', async () => {
      for (const kind of ['issues', 'merge_requests'] as const) {
        const t = await freshTarget(kind, pub, { discussion_locked: 1 });
        const before = await noteCount();
        for (const token of [guest.token, outsider.token]) {
          const r = await f.api('POST', notesPath(t), { token, body: { body: 'let me in' } });
          assert.deepEqual([r.status, r.body], [403, FORBIDDEN], kind);
        }
        assert.equal(await noteCount(), before);
        const byReporter = await post(t, reporter.token, { body: 'allowed' });
        assert.equal(byReporter.noteable_id, t.dbId);
        const read = await f.api('GET', notesPath(t), { token: guest.token });
        assert.deepEqual(read.body.map((n: any) => n.body), ['allowed']);
      }
    });

    it('system notes: listed with system true, filtered by activity_filter, never edited or deleted', async () => {
      const t = await insertIssue(pub);
      const comment = await post(t, reporter.token, { body: 'a comment' });
      const now = new Date().toISOString();
      const sys = await db()
        .insertInto('notes')
        .values({ project_id: pub.id, noteable_type: 'Issue', noteable_id: t.dbId, body: 'closed', author_id: reporter.id, system: 1, internal: 0, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      const all = await f.api('GET', notesPath(t, '?sort=asc'));
      assert.deepEqual(all.body.map((n: any) => [n.body, n.system]), [['a comment', false], ['closed', true]]);
      assert.deepEqual((await f.api('GET', notesPath(t, '?activity_filter=only_comments'))).body.map((n: any) => n.id), [comment.id]);
      assert.deepEqual((await f.api('GET', notesPath(t, '?activity_filter=only_activity'))).body.map((n: any) => n.id), [sys.id]);
      for (const [method, token, body] of [['PUT', reporter.token, { body: 'reopened' }], ['PUT', f.rootToken, { body: 'reopened' }], ['DELETE', reporter.token, undefined], ['DELETE', maint.token, undefined]] as const) {
        const r = await f.api(method, notesPath(t, `/${sys.id}`), { token, body });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], method);
      }
      assert.equal((await f.api('GET', notesPath(t, `/${sys.id}`))).body.body, 'closed');
    });

    it('bad input: GitLab\'s 400 messages and nothing written', async () => {
      const t = targets.issues;
      const note = await post(t, reporter.token, { body: 'to be edited' });
      const before = await noteCount();
      const tooLong = 'x'.repeat(1_000_001);
      const cases: [string, string, Record<string, unknown> | undefined, unknown][] = [
        ['POST', notesPath(t), {}, { error: 'body is missing' }],
        ['POST', notesPath(t), { body: '   ' }, { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' }],
        ['POST', notesPath(t), { body: tooLong }, { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' }],
        ['POST', notesPath(t), { body: 'x', internal: 'perhaps' }, { error: 'internal is invalid' }],
        ['POST', notesPath(t), { body: 'x', created_at: 'yesterday' }, { error: 'created_at is invalid' }],
        ['POST', `/projects/${pub.id}/issues/abc/notes`, { body: 'x' }, { error: 'noteable_id is invalid' }],
        ['GET', notesPath(t, '?sort=sideways'), undefined, { error: 'sort does not have a valid value' }],
        ['GET', notesPath(t, '?order_by=id'), undefined, { error: 'order_by does not have a valid value' }],
        ['GET', notesPath(t, '?activity_filter=everything'), undefined, { error: 'activity_filter does not have a valid value' }],
        ['GET', notesPath(t, '/abc'), undefined, { error: 'note_id is invalid' }],
        ['PUT', notesPath(t, `/${note.id}`), { body: '' }, { error: 'body is empty' }],
        ['PUT', notesPath(t, `/${note.id}`), { body: tooLong }, { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' }],
      ];
      for (const [method, path, body, expected] of cases) {
        const r = await f.api(method, path, { token: reporter.token, body });
        assert.deepEqual([r.status, r.body], [400, expected], `${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 40)}`);
      }
      assert.equal(await noteCount(), before);
      assert.equal((await f.api('GET', notesPath(t, `/${note.id}`))).body.body, 'to be edited');
      const atLimit = await post(t, reporter.token, { body: 'é'.repeat(1_000_000) });
      assert.equal(atLimit.body.length, 1_000_000, 'the limit counts characters');
    });

    it('unknown noteables and notes of another noteable are 404 with GitLab\'s names', async () => {
      const t = targets.issues;
      const elsewhere = await post(targets.merge_requests, reporter.token, { body: 'on the MR' });
      const cases: [string, unknown][] = [
        [`/projects/${pub.id}/issues/99999/notes`, { message: '404 Issue Not Found' }],
        [`/projects/${pub.id}/merge_requests/99999/notes`, { message: '404 Merge Request Not Found' }],
        [`/projects/${pub.id}/snippets/99999/notes`, { message: '404 Snippet Not Found' }],
        [`/projects/99999/issues/1/notes`, PROJECT_NOT_FOUND],
        [notesPath(t, `/${elsewhere.id}`), NOTE_NOT_FOUND],
        [notesPath(t, '/99999'), NOTE_NOT_FOUND],
      ];
      for (const [path, expected] of cases) {
        const r = await f.api('GET', path, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [404, expected], path);
      }
      const put = await f.api('PUT', notesPath(t, `/${elsewhere.id}`), { token: reporter.token, body: { body: 'x' } });
      assert.deepEqual([put.status, put.body], [404, NOTE_NOT_FOUND]);
      const del = await f.api('DELETE', notesPath(t, `/${elsewhere.id}`), { token: reporter.token });
      assert.deepEqual([del.status, del.body], [404, NOTE_NOT_FOUND]);
    });

    it('private snippets: their notes are for those who can read the snippet', async () => {
      const t = await createSnippet(pub, 'private');
      const note = await post(t, guest.token, { body: 'members only' });
      const outside = await f.api('GET', notesPath(t, `/${note.id}`), { token: outsider.token });
      assert.deepEqual([outside.status, outside.body], [404, { message: '404 Snippet Not Found' }]);
      const write = await f.api('POST', notesPath(t), { token: outsider.token, body: { body: 'x' } });
      assert.deepEqual([write.status, write.body], [404, { message: '404 Snippet Not Found' }]);
    });
  });
}
