import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client users, version, auth and errors`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
    });
    after(() => f.stop());

    it('version() answers the GitLab-compatible version', async () => {
      const v = await api.version();
      assert.match(v.version, /^\d+\.\d+\.\d+/);
      assert.match(v.revision, /^forgelet-/);
      assert.equal(v.enterprise, true);
      assert.equal(v.kas.enabled, false);
    });

    it('users.current() is root; the url may carry /api/v4 and a trailing slash', async () => {
      const me = await api.users.current();
      assert.equal(me.username, 'root');
      assert.equal(me.is_admin, true);
      const same = await new Forgelet({ url: `${f.url}/api/v4/`, token: f.rootToken }).users.current();
      assert.equal(same.id, me.id);
      // Node's global fetch fits the injectable fetch type
      const viaGlobal = await new Forgelet({ url: f.url, token: f.rootToken, fetch: globalThis.fetch }).users.current();
      assert.equal(viaGlobal.id, me.id);
    });

    it('users.create, show by id and username, edit, remove', async () => {
      const created = await api.users.create({ username: 'ada', name: 'Ada Lovelace', email: 'ada@example.com', bio: 'math' });
      assert.equal(created.username, 'ada');
      assert.equal(created.email, 'ada@example.com');
      assert.equal(created.bio, 'math');
      assert.equal(created.is_admin, false);

      assert.deepEqual(await api.users.show(created.id), created);
      assert.equal((await api.users.show('ada')).id, created.id);

      const edited = await api.users.edit(created.id, { name: 'Ada King', job_title: 'Analyst', organization: 'Engines' });
      assert.equal(edited.name, 'Ada King');
      assert.equal(edited.work_information, 'Analyst at Engines');
      assert.equal((await api.users.show(created.id)).name, 'Ada King');

      await api.users.remove(created.id);
      const gone = await apiError(api.users.show(created.id));
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 User Not Found' });
    });

    it('users.all() iterates with filters across pages', async () => {
      for (const name of ['u-one', 'u-two', 'u-three']) await f.createUser(name);
      const list = api.users.all({ search: 'u-', order_by: 'username', sort: 'asc', per_page: 2 });
      const names: string[] = [];
      for await (const u of list) names.push(u.username);
      assert.deepEqual(names, ['u-one', 'u-three', 'u-two']);
      assert.equal(list.pagination?.page, 2);
      assert.equal(list.pagination?.total, 3);
      assert.equal(list.pagination?.nextPage, null);
    });

    it('sends Sudo: an admin token with the sudo scope acts as another user', async () => {
      const bob = await f.createUser('sudo-bob');
      const asBob = clientFor(f, { sudo: 'sudo-bob' });
      const me = await asBob.users.current();
      assert.equal(me.id, bob.id);
      assert.equal(me.username, 'sudo-bob');
      assert.equal((await clientFor(f, { sudo: bob.id }).users.current()).id, bob.id);
      const unknown = await apiError(clientFor(f, { sudo: 'nobody-here' }).users.current());
      assert.equal(unknown.status, 404);
      assert.equal(unknown.message, "404 User with ID or username 'nobody-here' Not Found");
    });

    it('sends JOB-TOKEN (and no PRIVATE-TOKEN) for a job token', async () => {
      const { fetch, sent } = recordingFetch();
      // No route takes job tokens yet, so the server does not authenticate this caller.
      const err = await apiError(new Forgelet({ url: f.url, jobToken: 'not-a-job', fetch }).users.current());
      assert.equal(err.status, 401);
      assert.deepEqual(err.body, { message: '401 Unauthorized' });
      assert.equal(sent[0]!.headers['JOB-TOKEN'], 'not-a-job');
      assert.equal(sent[0]!.headers['PRIVATE-TOKEN'], undefined);
    });

    it('ApiError for 404 carries status, GitLab body, message and the request in cause', async () => {
      const err = await apiError(api.groups.show('no/such/group'));
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'ApiError');
      assert.equal(err.status, 404);
      assert.deepEqual(err.body, { message: '404 Group Not Found' });
      assert.equal(err.message, '404 Group Not Found');
      assert.deepEqual(err.cause, { request: { method: 'GET', url: `${f.url}/api/v4/groups/no%2Fsuch%2Fgroup` } });
    });

    it('ApiError for 400: parameter errors use `error`, model errors `message` (stringified)', async () => {
      const missing = await apiError(api.groups.create({ name: 'No path' } as never));
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { error: 'path is missing' });
      assert.equal(missing.message, 'path is missing');
      assert.deepEqual(missing.cause.request, { method: 'POST', url: `${f.url}/api/v4/groups` });

      const bad = await apiError(api.groups.create({ name: 'Bad', path: '-bad.git' }));
      assert.equal(bad.status, 400);
      const expected = { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] };
      assert.deepEqual(bad.body, { message: expected });
      assert.equal(bad.message, JSON.stringify(expected));
    });

    it('ApiError for 401 (bad token), 403 (not admin) and 409 (taken username)', async () => {
      const unauthorized = await apiError(new Forgelet({ url: f.url, token: 'glpat-wrong' }).users.current());
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.message, '401 Unauthorized');

      const carol = await f.createUser('carol');
      const forbidden = await apiError(clientFor(f, { token: carol.token }).users.create({ username: 'x', name: 'x', email: 'x@example.com' }));
      assert.equal(forbidden.status, 403);
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' });

      const taken = await apiError(api.users.create({ username: 'carol', name: 'Carol', email: 'other@example.com' }));
      assert.equal(taken.status, 409);
      assert.equal(taken.message, 'Username has already been taken');
    });

    it('a non-JSON error body is kept as text', async () => {
      const err = await apiError(
        new Forgelet({
          url: f.url,
          fetch: async () => ({ status: 502, headers: new Headers({ 'content-type': 'text/html' }), text: async () => '<h1>Bad Gateway</h1>' }),
        }).version(),
      );
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 502);
      assert.equal(err.body, '<h1>Bad Gateway</h1>');
      assert.equal(err.message, '<h1>Bad Gateway</h1>');
    });

    it('sends PRIVATE-TOKEN, JSON bodies with Content-Type, and DELETE without a body', async () => {
      const { fetch, sent } = recordingFetch();
      const traced = clientFor(f, { fetch });
      const user = await traced.users.create({ username: 'traced', name: 'Traced', email: 'traced@example.com' });
      await traced.users.remove(user.id);
      assert.equal(sent.length, 2);
      const [post, del] = sent;
      assert.equal(post!.method, 'POST');
      assert.equal(post!.headers['PRIVATE-TOKEN'], f.rootToken);
      assert.equal(post!.headers['Content-Type'], 'application/json');
      assert.deepEqual(JSON.parse(post!.body!), { username: 'traced', name: 'Traced', email: 'traced@example.com' });
      assert.equal(del!.method, 'DELETE');
      assert.equal(del!.url, `${f.url}/api/v4/users/${user.id}`);
      assert.equal(del!.body, undefined);
      assert.equal(del!.headers['Content-Type'], undefined);
      assert.equal((await apiError(api.users.show(user.id))).status, 404);
    });
  });
}
