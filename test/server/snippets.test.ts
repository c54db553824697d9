import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const FORBIDDEN = { message: '403 Forbidden' };
const SNIPPET_NOT_FOUND = { message: '404 Snippet Not Found' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`${dialect}: project snippets`, () => {
    let f: TestForgelet;
    let maint: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let pub: any; // public project in a public group; maint 40, reporter 20, guest 10
    let priv: any; // private project in the same group, same members
    let internalProject: any;

    const snippetCount = async () => Number((await f.forge.database.db.selectFrom('snippets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const create = async (project: any, token: string, body: Record<string, unknown>) => {
      const r = await f.api('POST', `/projects/${project.id}/snippets`, { token, body });
      expectStatus(r, 201);
      return r.body;
    };

    before(async () => {
      f = await startTestServer(dialect);
      [maint, reporter, guest, outsider] = await createUsers(f, ['smaint', 'sreporter', 'sguest', 'soutsider']);
      const group = await createGroup(f, f.rootToken, { name: 'Snip', path: 'snip', visibility: 'public' });
      pub = await createProject(f, f.rootToken, { name: 'Pub', namespace_id: group.id, visibility: 'public' });
      priv = await createProject(f, f.rootToken, { name: 'Priv', namespace_id: group.id, visibility: 'private' });
      internalProject = await createProject(f, f.rootToken, { name: 'Inner', namespace_id: group.id, visibility: 'internal' });
      for (const project of [pub, priv, internalProject]) {
        await addMember(f, 'projects', project.id, maint.id, 40);
        await addMember(f, 'projects', project.id, reporter.id, 20);
        await addMember(f, 'projects', project.id, guest.id, 10);
      }
    });
    after(() => f.stop());

    it('a Reporter creates a snippet (content + file_name): 201 with GitLab\'s ProjectSnippet', async () => {
      const r = await f.api('POST', `/projects/${pub.id}/snippets`, {
        token: reporter.token,
        body: { title: 'Hello', description: 'Says hello', visibility: 'public', file_name: 'hello.rb', content: 'puts "hello"\n' },
      });
      expectStatus(r, 201);
      const s = r.body;
      assert.match(s.created_at, ISO);
      const raw = `${f.url}/api/v4/projects/${pub.id}/snippets/${s.id}/raw`;
      assert.deepEqual(s, {
        id: s.id,
        title: 'Hello',
        description: 'Says hello',
        visibility: 'public',
        author: { id: reporter.id, username: 'sreporter', name: 'sreporter', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/sreporter` },
        created_at: s.created_at,
        updated_at: s.created_at,
        project_id: pub.id,
        web_url: `${f.url}/snip/pub/-/snippets/${s.id}`,
        raw_url: raw,
        ssh_url_to_repo: null,
        http_url_to_repo: null,
        file_name: 'hello.rb',
        files: [{ path: 'hello.rb', raw_url: raw }],
        imported: false,
        imported_from: 'none',
      });
      const got = await f.api('GET', `/projects/${pub.id}/snippets/${s.id}`, { token: outsider.token });
      assert.deepEqual([got.status, got.body], [200, s]);
      const byPath = await f.api('GET', `/projects/snip%2Fpub/snippets/${s.id}`, { token: null });
      assert.deepEqual([byPath.status, byPath.body], [200, s], 'anyone reads a public snippet of a public project, by encoded path too');
    });

    it('files[] with one element; visibility defaults to private', async () => {
      const s = await create(pub, maint.token, { title: 'Files form', files: [{ file_path: 'dir/notes.md', content: '# Notes' }] });
      assert.equal(s.visibility, 'private');
      assert.equal(s.file_name, 'dir/notes.md');
      assert.equal(s.description, null);
      assert.deepEqual(s.files, [{ path: 'dir/notes.md', raw_url: s.raw_url }]);
      const raw = await f.api('GET', `/projects/${pub.id}/snippets/${s.id}/raw`, { token: maint.token });
      assert.deepEqual([raw.status, raw.text], [200, '# Notes']);
      const empty = await create(pub, maint.token, { title: 'No name', file_name: '', content: 'x' });
      assert.equal(empty.file_name, 'snippetfile1.txt', 'GitLab names an unnamed file snippetfile1.txt');
    });

    it('raw answers the exact content as text/plain', async () => {
      const content = 'line 1\nline 2 — ünïcode\n\ttabbed\n';
      const s = await create(priv, reporter.token, { title: 'Raw', visibility: 'private', file_name: 'a.txt', content });
      const r = await f.api('GET', `/projects/${priv.id}/snippets/${s.id}/raw`, { token: guest.token });
      expectStatus(r, 200);
      assert.equal(r.headers.get('content-type'), 'text/plain');
      assert.equal(r.headers.get('content-disposition'), 'attachment');
      assert.equal(r.text, content);
      const hidden = await f.api('GET', `/projects/${priv.id}/snippets/${s.id}/raw`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, PROJECT_NOT_FOUND]);
      const missing = await f.api('GET', `/projects/${priv.id}/snippets/999999/raw`, { token: guest.token });
      assert.deepEqual([missing.status, missing.body], [404, SNIPPET_NOT_FOUND]);
    });

    it('bad input: GitLab\'s 400 messages and nothing written', async () => {
      const before = await snippetCount();
      const cases: [Record<string, unknown>, unknown][] = [
        [{ file_name: 'a', content: 'x' }, { error: 'title is missing' }],
        [{ title: '  ', file_name: 'a', content: 'x' }, { error: 'title is empty' }],
        [{ title: 't' }, { error: 'files, content are missing, exactly one parameter must be provided' }],
        [{ title: 't', content: 'x', file_name: 'a', files: [{ file_path: 'b', content: 'y' }] }, { error: 'files, content are mutually exclusive' }],
        [{ title: 't', content: 'x' }, { error: 'file_name is missing' }],
        [{ title: 't', file_name: 'a', content: '' }, { error: 'content is empty' }],
        [{ title: 't', file_name: 'a', content: 'x', visibility: 'secret' }, { error: 'visibility does not have a valid value' }],
        [{ title: 't', files: [{ file_path: 'a' }] }, { error: 'files[0][content] is missing' }],
        [{ title: 't', files: [{ file_path: '../escape', content: 'x' }] }, { error: 'files[0][file_path] is invalid' }],
        [{ title: 'x'.repeat(256), file_name: 'a', content: 'x' }, { error: 'title is expected to have length less than or equal to 255' }],
        [{ title: 't', files: [{ file_path: 'a', content: 'x' }, { file_path: 'b', content: 'y' }] }, { message: '400 Bad request - Only snippets with one file are supported' }],
      ];
      for (const [body, expected] of cases) {
        const r = await f.api('POST', `/projects/${pub.id}/snippets`, { token: reporter.token, body });
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      for (const [project, visibility] of [[priv, 'public'], [priv, 'internal'], [internalProject, 'public']] as const) {
        const r = await f.api('POST', `/projects/${project.id}/snippets`, { token: reporter.token, body: { title: 't', file_name: 'a', content: 'x', visibility } });
        assert.deepEqual(
          [r.status, r.body],
          [400, { message: { visibility_level: [`${visibility} is not allowed in a ${project.visibility} project.`] } }],
          'a snippet may not be more visible than its project',
        );
      }
      const badId = await f.api('GET', `/projects/${pub.id}/snippets/abc`, { token: reporter.token });
      assert.deepEqual([badId.status, badId.body], [400, { error: 'snippet_id is invalid' }]);
      assert.equal(await snippetCount(), before);
    });

    it('who may create: Reporter and up; Guest and outsiders 403; private project hidden; anonymous 401', async () => {
      const before = await snippetCount();
      const body = { title: 't', file_name: 'a', content: 'x' };
      const byGuest = await f.api('POST', `/projects/${pub.id}/snippets`, { token: guest.token, body });
      assert.deepEqual([byGuest.status, byGuest.body], [403, FORBIDDEN]);
      const byOutsider = await f.api('POST', `/projects/${pub.id}/snippets`, { token: outsider.token, body });
      assert.deepEqual([byOutsider.status, byOutsider.body], [403, FORBIDDEN]);
      const hidden = await f.api('POST', `/projects/${priv.id}/snippets`, { token: outsider.token, body });
      assert.deepEqual([hidden.status, hidden.body], [404, PROJECT_NOT_FOUND]);
      const anonymous = await f.api('POST', `/projects/${pub.id}/snippets`, { token: null, body });
      assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED]);
      assert.equal(await snippetCount(), before);
      const byAdmin = await create(priv, f.rootToken, body);
      assert.equal(byAdmin.author.username, 'root');
    });

    it('private snippets are for project members; internal for signed-in users; lists filter them', async () => {
      const project = await createProject(f, f.rootToken, { name: 'Vis', namespace_id: pub.namespace.id, visibility: 'public' });
      await addMember(f, 'projects', project.id, guest.id, 10);
      const priv1 = await create(project, f.rootToken, { title: 'p', file_name: 'p', content: 'p', visibility: 'private' });
      const int1 = await create(project, f.rootToken, { title: 'i', file_name: 'i', content: 'i', visibility: 'internal' });
      const pub1 = await create(project, f.rootToken, { title: 'o', file_name: 'o', content: 'o', visibility: 'public' });
      const ids = async (token: string) => {
        const r = await f.api('GET', `/projects/${project.id}/snippets`, { token });
        expectStatus(r, 200);
        assert.equal(r.headers.get('x-total'), String(r.body.length), 'the count is filtered in SQL too');
        return r.body.map((s: any) => s.id);
      };
      assert.deepEqual(await ids(guest.token), [pub1.id, int1.id, priv1.id], 'newest first');
      assert.deepEqual(await ids(outsider.token), [pub1.id, int1.id]);
      assert.deepEqual(await ids(f.rootToken), [pub1.id, int1.id, priv1.id]);
      const anonymousList = await f.api('GET', `/projects/${project.id}/snippets`, { token: null });
      assert.deepEqual([anonymousList.status, anonymousList.body], [401, UNAUTHORIZED], 'GitLab authenticates the list');

      const read = (id: number, token: string | null) => f.api('GET', `/projects/${project.id}/snippets/${id}`, { token });
      assert.deepEqual([(await read(priv1.id, outsider.token)).status, (await read(priv1.id, outsider.token)).body], [404, SNIPPET_NOT_FOUND]);
      assert.equal((await read(priv1.id, guest.token)).status, 200);
      assert.equal((await read(int1.id, outsider.token)).status, 200);
      assert.deepEqual((await read(int1.id, null)).body, SNIPPET_NOT_FOUND);
      assert.equal((await read(pub1.id, null)).status, 200);
      const rawPrivate = await f.api('GET', `/projects/${project.id}/snippets/${priv1.id}/raw`, { token: outsider.token });
      assert.deepEqual([rawPrivate.status, rawPrivate.body], [404, SNIPPET_NOT_FOUND]);
    });

    it('lists are paginated in SQL with GitLab\'s headers', async () => {
      const project = await createProject(f, f.rootToken, { name: 'Paged', namespace_id: pub.namespace.id, visibility: 'public' });
      const made = [];
      for (const n of [1, 2, 3]) made.push(await create(project, f.rootToken, { title: `s${n}`, file_name: `f${n}`, content: 'c' }));
      const r = await f.api('GET', `/projects/${project.id}/snippets?per_page=2`);
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((s: any) => s.title), ['s3', 's2']);
      assert.deepEqual(
        ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => r.headers.get(h)),
        ['1', '2', '3', '2', '2', ''],
      );
      const base = `${f.url}/api/v4/projects/${project.id}/snippets`;
      assert.equal(r.headers.get('link'), `<${base}?page=2&per_page=2>; rel="next", <${base}?page=1&per_page=2>; rel="first", <${base}?page=2&per_page=2>; rel="last"`);
      const second = await f.api('GET', `/projects/${project.id}/snippets?per_page=2&page=2`);
      assert.deepEqual(second.body.map((s: any) => s.id), [made[0].id]);
    });

    it('the author edits their snippet; Maintainers edit anyone\'s; others 403 or 404', async () => {
      const s = await create(pub, reporter.token, { title: 'Mine', file_name: 'm.txt', content: 'v1', visibility: 'public' });
      const edited = await f.api('PUT', `/projects/${pub.id}/snippets/${s.id}`, {
        token: reporter.token,
        body: { title: 'Mine v2', description: 'now described', content: 'v2', file_name: 'm2.txt', visibility: 'internal' },
      });
      expectStatus(edited, 200);
      assert.deepEqual(
        { ...edited.body, updated_at: null },
        { ...s, title: 'Mine v2', description: 'now described', file_name: 'm2.txt', visibility: 'internal', files: [{ path: 'm2.txt', raw_url: s.raw_url }], updated_at: null },
      );
      assert.ok(edited.body.updated_at >= s.updated_at);
      assert.equal((await f.api('GET', `/projects/${pub.id}/snippets/${s.id}/raw`, { token: reporter.token })).text, 'v2');

      const byMaintainer = await f.api('PUT', `/projects/${pub.id}/snippets/${s.id}`, { token: maint.token, body: { title: 'Moderated' } });
      assert.deepEqual([byMaintainer.status, byMaintainer.body.title, byMaintainer.body.author.username], [200, 'Moderated', 'sreporter']);
      for (const token of [guest.token, outsider.token]) {
        const r = await f.api('PUT', `/projects/${pub.id}/snippets/${s.id}`, { token, body: { title: 'Hijacked' } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      }
      const other = await create(pub, maint.token, { title: 'Maint', file_name: 'x', content: 'x', visibility: 'private' });
      const byReporter = await f.api('PUT', `/projects/${pub.id}/snippets/${other.id}`, { token: reporter.token, body: { title: 'no' } });
      assert.deepEqual([byReporter.status, byReporter.body], [403, FORBIDDEN], 'a Reporter may not edit another\'s snippet');
      const hidden = await f.api('PUT', `/projects/${pub.id}/snippets/${other.id}`, { token: outsider.token, body: { title: 'no' } });
      assert.deepEqual([hidden.status, hidden.body], [404, SNIPPET_NOT_FOUND]);
      const anonymous = await f.api('PUT', `/projects/${pub.id}/snippets/${s.id}`, { token: null, body: { title: 'no' } });
      assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED]);
      assert.equal((await f.api('GET', `/projects/${pub.id}/snippets/${s.id}`)).body.title, 'Moderated');
    });

    it('update: files actions, parameter rules and visibility cap, without partial writes', async () => {
      const s = await create(priv, reporter.token, { title: 'Files', file_name: 'old.txt', content: 'old' });
      const put = (body: Record<string, unknown>) => f.api('PUT', `/projects/${priv.id}/snippets/${s.id}`, { token: reporter.token, body });
      const updated = await put({ files: [{ action: 'update', file_path: 'old.txt', content: 'new' }] });
      expectStatus(updated, 200);
      assert.equal((await f.api('GET', `/projects/${priv.id}/snippets/${s.id}/raw`, { token: reporter.token })).text, 'new');
      const moved = await put({ files: [{ action: 'move', previous_path: 'old.txt', file_path: 'renamed.txt' }] });
      assert.deepEqual([moved.status, moved.body.file_name, moved.body.files[0].path], [200, 'renamed.txt', 'renamed.txt']);

      const cases: [Record<string, unknown>, unknown][] = [
        [{}, { error: 'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided' }],
        [{ title: '' }, { error: 'title is empty' }],
        [{ content: 'x', files: [{ action: 'update', file_path: 'renamed.txt', content: 'y' }] }, { error: 'files, content are mutually exclusive' }],
        [{ file_name: 'x', files: [{ action: 'update', file_path: 'renamed.txt', content: 'y' }] }, { error: 'files, file_name are mutually exclusive' }],
        [{ files: [{ action: 'rename', file_path: 'a' }] }, { error: 'files[0][action] does not have a valid value' }],
        [{ title: 'changed', visibility: 'public' }, { message: { visibility_level: ['public is not allowed in a private project.'] } }],
        [{ title: 'changed', files: [{ action: 'update', file_path: 'nope.txt', content: 'y' }] }, { message: '400 Bad request - Snippet actions have invalid data' }],
        [{ title: 'changed', files: [{ action: 'create', file_path: 'second.txt', content: 'y' }] }, { message: '400 Bad request - Only snippets with one file are supported' }],
      ];
      for (const [body, expected] of cases) {
        const r = await put(body);
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      const after = await f.api('GET', `/projects/${priv.id}/snippets/${s.id}`, { token: reporter.token });
      assert.deepEqual([after.body.title, after.body.visibility, after.body.file_name], ['Files', 'private', 'renamed.txt']);
    });

    it('delete: the author or a Maintainer (204); others 403; the snippet\'s notes and reactions go with it', async () => {
      const mine = await create(pub, reporter.token, { title: 'Doomed', file_name: 'd', content: 'd', visibility: 'public' });
      const note = await f.api('POST', `/projects/${pub.id}/snippets/${mine.id}/notes`, { token: guest.token, body: { body: 'nice' } });
      expectStatus(note, 201);
      const now = new Date().toISOString();
      const award = (awardable_type: string, awardable_id: number) => ({ name: 'thumbsup', user_id: guest.id, awardable_type, awardable_id, created_at: now, updated_at: now });
      await f.forge.database.db.insertInto('award_emoji').values([award('Snippet', mine.id), award('Note', note.body.id)]).execute();
      for (const token of [guest.token, outsider.token]) {
        const r = await f.api('DELETE', `/projects/${pub.id}/snippets/${mine.id}`, { token });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      }
      const byAuthor = await f.api('DELETE', `/projects/${pub.id}/snippets/${mine.id}`, { token: reporter.token });
      assert.deepEqual([byAuthor.status, byAuthor.text], [204, '']);
      const gone = await f.api('GET', `/projects/${pub.id}/snippets/${mine.id}`, { token: reporter.token });
      assert.deepEqual([gone.status, gone.body], [404, SNIPPET_NOT_FOUND]);
      const notes = await f.forge.database.db.selectFrom('notes').select('id').where('noteable_type', '=', 'Snippet').where('noteable_id', '=', mine.id).execute();
      assert.deepEqual(notes, []);
      const awards = await f.forge.database.db
        .selectFrom('award_emoji')
        .select('id')
        .where((eb) => eb.or([eb.and([eb('awardable_type', '=', 'Snippet'), eb('awardable_id', '=', mine.id)]), eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', '=', note.body.id)])]))
        .execute();
      assert.deepEqual(awards, [], 'reactions on the snippet and on its notes go too');
      const again = await f.api('DELETE', `/projects/${pub.id}/snippets/${mine.id}`, { token: reporter.token });
      assert.deepEqual([again.status, again.body], [404, SNIPPET_NOT_FOUND]);

      const other = await create(pub, reporter.token, { title: 'Moderated away', file_name: 'd', content: 'd' });
      const byMaintainer = await f.api('DELETE', `/projects/${pub.id}/snippets/${other.id}`, { token: maint.token });
      expectStatus(byMaintainer, 204);
    });

    it('snippets disabled on the project: 403 as GitLab\'s check_snippets_enabled', async () => {
      const project = await createProject(f, f.rootToken, { name: 'No Snippets', namespace_id: pub.namespace.id, visibility: 'public' });
      const s = await create(project, f.rootToken, { title: 't', file_name: 'a', content: 'x', visibility: 'public' });
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { snippets_enabled: false } }), 200);
      for (const [method, path] of [['GET', ''], ['GET', `/${s.id}`], ['GET', `/${s.id}/raw`], ['POST', ''], ['DELETE', `/${s.id}`]] as const) {
        const r = await f.api(method, `/projects/${project.id}/snippets${path}`, { body: method === 'POST' ? { title: 't', file_name: 'a', content: 'x' } : undefined });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], `${method} ${path}`);
      }
    });
  });
}
