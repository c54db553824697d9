import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, expectStatus, rawRequest, snapshotCounts, totalOf, uniq } from './http.js';

const JSON_ONLY = 'application/json';

for (const dialect of DIALECTS) {
  describe(`${dialect}: HTTP conventions`, () => {
    let f: TestForgelet;
    let alice: { id: number; username: string; token: string };
    let group: any;
    let sub: any;
    let project: any;
    let auth: Record<string, string>;

    before(async () => {
      f = await startTestServer(dialect);
      auth = { 'PRIVATE-TOKEN': f.rootToken };
      alice = await f.createUser('alice');
      group = await createGroup(f, f.rootToken, { name: 'Conv Group', path: 'conv' });
      sub = await createGroup(f, f.rootToken, { name: 'Conv Sub', path: 'sub', parent_id: group.id });
      project = await createProject(f, f.rootToken, { name: 'Proj', path: 'p', namespace_id: sub.id });
      await createProject(f, f.rootToken, { name: 'Top', path: 'top', namespace_id: group.id });
    });
    after(() => f.stop());

    it('answers JSON with exactly `application/json` (no charset) for successes and errors', async () => {
      const answers = [
        await f.api('GET', '/user'),
        await f.api('GET', '/users'),
        await f.api('POST', '/groups', { body: { name: 'Ct', path: uniq('ct') } }),
        await f.api('POST', '/groups', { body: {} }),
        await f.api('GET', '/user', { token: null }),
        await f.api('POST', '/users', { token: alice.token, body: {} }),
        await f.api('GET', '/projects/999999'),
        await f.api('GET', '/nope'),
        await f.api('PATCH', '/user'),
      ];
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 201, 400, 401, 403, 404, 404, 405]);
      for (const a of answers) assert.equal(a.headers.get('content-type'), JSON_ONLY, `${a.status} ${a.text}`);
    });

    it('unknown routes answer 404 {"error":"404 Not Found"}', async () => {
      for (const path of ['/api/v4/nope', '/api/v4/projects/1/nope/deeper', '/api/v4', '/api/v5/user', '/nope', '/']) {
        const r = await rawRequest(f.url, 'GET', path, { headers: auth });
        assert.equal(r.status, 404, path);
        assert.equal(r.headers['content-type'], JSON_ONLY);
        assert.deepEqual(r.body, { error: '404 Not Found' }, path);
      }
      const bad = await f.api('GET', '/nope', { token: 'glpat-unknown' });
      assert.deepEqual([bad.status, bad.body], [404, { error: '404 Not Found' }], 'routing comes before authentication');
    });

    it('a known path with another verb answers 405 {"error":"405 Not Allowed"}', async () => {
      for (const [method, path] of [['PATCH', '/user'], ['DELETE', '/user'], ['POST', `/projects/${project.id}`], ['PUT', '/groups'], ['POST', '/users/1']]) {
        const r = await f.api(method!, path!);
        assert.equal(r.status, 405, `${method} ${path}`);
        assert.deepEqual(r.body, { error: '405 Not Allowed' });
      }
    });

    it('malformed JSON answers 400 and writes nothing', async () => {
      const before = await snapshotCounts(f);
      for (const raw of ['{"name": "Broken", "path": ', '{name: "x"}', '[{"name":"A","path":"a"}]', '"just a string"']) {
        const r = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: { ...auth, 'Content-Type': 'application/json' }, body: raw });
        expectStatus(r, 400);
        assert.equal(r.headers['content-type'], JSON_ONLY);
        assert.equal(typeof (r.body.message ?? r.body.error), 'string', r.text);
      }
      assert.deepEqual(await snapshotCounts(f), before);
    });

    it('an empty JSON POST (Content-Length: 0) is parsed as no parameters', async () => {
      const r = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': '0' } });
      expectStatus(r, 400);
      assert.deepEqual(r.body, { error: 'name is missing, path is missing' });
    });

    it('JSON bodies are read with a charset, without a content type, and gzip-encoded', async () => {
      const withCharset = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ name: 'Charset Grüße', path: 'charset' }),
      });
      expectStatus(withCharset, 201);
      assert.equal(withCharset.body.name, 'Charset Grüße');

      const untyped = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: auth, body: JSON.stringify({ name: 'Untyped', path: 'untyped' }) });
      expectStatus(untyped, 201);
      assert.equal(untyped.body.path, 'untyped');

      const gz = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ name: 'Zipped', path: 'zipped', description: 'x'.repeat(3000) })),
      });
      expectStatus(gz, 201);
      assert.equal(gz.body.name, 'Zipped');
      assert.equal(gz.body.description, 'x'.repeat(3000));

      const garbage = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: 'definitely not gzip',
      });
      expectStatus(garbage, 400);
    });

    it('DELETE works the python-gitlab way (JSON type, Content-Length: 0) and the gitbeaker way (body {})', async () => {
      const bob = await f.createUser(uniq('bob'));
      const carol = await f.createUser(uniq('carol'));
      await addMember(f, 'groups', group.id, bob.id, 30);
      await addMember(f, 'groups', group.id, carol.id, 30);

      const py = await rawRequest(f.url, 'DELETE', `/api/v4/groups/${group.id}/members/${bob.id}`, {
        headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': '0', 'User-Agent': 'python-gitlab/3.12.0' },
      });
      expectStatus(py, 204);
      assert.equal(py.text, '');
      assert.equal(py.headers['content-type'], undefined, '204 carries no content type');

      const gb = await rawRequest(f.url, 'DELETE', `/api/v4/groups/${group.id}/members/${carol.id}`, {
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expectStatus(gb, 204);
      assert.equal(gb.text, '');
      assert.equal(gb.headers['content-type'], undefined);

      const pyGet = await rawRequest(f.url, 'GET', `/api/v4/groups/${group.id}/members`, { headers: { ...auth, 'Content-Type': 'application/json' } });
      expectStatus(pyGet, 200);
      const left = await f.api('GET', `/groups/${group.id}/members`);
      assert.deepEqual(left.body.map((m: any) => m.username), ['root'], 'both members are gone');
    });

    it('form bodies: a[]=1&a[]=2 arrays, repeated keys, comma lists, + as space, booleans', async () => {
      const form = (body: string) =>
        rawRequest(f.url, 'POST', `/api/v4/users/${alice.id}/personal_access_tokens`, {
          headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        });
      const brackets = await form('name=form+token&scopes[]=api&scopes[]=read_api');
      expectStatus(brackets, 201);
      assert.equal(brackets.body.name, 'form token');
      assert.deepEqual(brackets.body.scopes, ['api', 'read_api']);

      const encoded = await form('name=enc%20token%2B1&scopes%5B%5D=read_user&scopes%5B%5D=api');
      expectStatus(encoded, 201);
      assert.equal(encoded.body.name, 'enc token+1');
      assert.deepEqual(encoded.body.scopes, ['read_user', 'api']);

      const repeated = await form('name=rep&scopes=api&scopes=read_user');
      expectStatus(repeated, 201);
      assert.deepEqual(repeated.body.scopes, ['api', 'read_user']);

      const comma = await form('name=comma&scopes=api,read_api');
      expectStatus(comma, 201);
      assert.deepEqual(comma.body.scopes, ['api', 'read_api']);

      const g = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `name=Form+Group&path=${uniq('form')}&request_access_enabled=False&lfs_enabled=0&visibility=internal`,
      });
      expectStatus(g, 201);
      assert.equal(g.body.name, 'Form Group');
      assert.equal(g.body.request_access_enabled, false);
      assert.equal(g.body.lfs_enabled, false);
      assert.equal(g.body.visibility, 'internal');
    });

    it('query booleans accept True/false/yes/OFF and refuse other words', async () => {
      const count = async (v: string) => {
        const r = await f.api('GET', `/groups/${group.id}/projects?include_subgroups=${v}`);
        expectStatus(r, 200);
        return r.body.map((p: any) => p.path_with_namespace).sort();
      };
      assert.deepEqual(await count('True'), ['conv/sub/p', 'conv/top']);
      assert.deepEqual(await count('yes'), ['conv/sub/p', 'conv/top']);
      assert.deepEqual(await count('false'), ['conv/top']);
      assert.deepEqual(await count('OFF'), ['conv/top']);
      const bad = await f.api('GET', `/groups/${group.id}/projects?include_subgroups=maybe`);
      expectStatus(bad, 400);
      assert.deepEqual(bad.body, { error: 'include_subgroups is invalid' });
    });

    it('`+` in a query string is a space, `%2B` a plus', async () => {
      const created = await f.api('POST', '/users', { body: { username: 'adaq', name: 'Ada Quux Lovelace', email: 'adaq@example.com' } });
      expectStatus(created, 201);
      const plus = await f.api('GET', '/users?search=quux+lovelace');
      assert.deepEqual(plus.body.map((u: any) => u.username), ['adaq']);
      const pct = await f.api('GET', '/users?search=quux%20lovelace');
      assert.deepEqual(pct.body.map((u: any) => u.username), ['adaq']);
      const literal = await f.api('GET', '/users?search=quux%2Blovelace');
      assert.deepEqual(literal.body, []);
    });

    it('`:id` may be a URL-encoded full path, decoded once and matched case-insensitively', async () => {
      for (const ref of ['conv%2Fsub%2Fp', 'conv%2fsub%2fp', 'CONV%2FSub%2FP', String(project.id)]) {
        const r = await f.api('GET', `/projects/${ref}`);
        expectStatus(r, 200);
        assert.equal(r.body.id, project.id, ref);
      }
      const g = await f.api('GET', '/groups/conv%2Fsub');
      expectStatus(g, 200);
      assert.equal(g.body.id, sub.id);
      const twice = await f.api('GET', '/projects/conv%252Fsub%252Fp');
      assert.deepEqual([twice.status, twice.body], [404, { message: '404 Project Not Found' }]);
      const missing = await f.api('GET', '/groups/conv%2Fnope');
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Group Not Found' }]);
    });

    it('path parameters win over body and query; body wins over query', async () => {
      const a = await createGroup(f, f.rootToken, { name: 'Prec A', path: uniq('preca') });
      const b = await createGroup(f, f.rootToken, { name: 'Prec B', path: uniq('precb') });
      const put = await f.api('PUT', `/groups/${a.id}?id=${b.id}`, { body: { id: b.id, description: 'from body' } });
      expectStatus(put, 200);
      assert.equal(put.body.id, a.id);
      assert.equal((await f.api('GET', `/groups/${a.id}`)).body.description, 'from body');
      assert.equal((await f.api('GET', `/groups/${b.id}`)).body.description, '');

      const path = uniq('bodypath');
      const post = await f.api('POST', `/groups?path=querypath&description=from+query`, { body: { name: 'Merged', path } });
      expectStatus(post, 201);
      assert.equal(post.body.path, path);
      assert.equal(post.body.description, 'from query');
    });

    it('every answer carries X-Request-Id; a sane incoming id is echoed', async () => {
      const seen = new Set<string>();
      for (const [method, path, headers] of [
        ['GET', '/api/v4/user', auth],
        ['GET', '/api/v4/nope', {}],
        ['GET', '/api/v4/user', {}],
        ['GET', '/-/health', {}],
      ] as const) {
        const r = await rawRequest(f.url, method, path, { headers });
        const id = r.headers['x-request-id'];
        assert.match(String(id), /^[0-9a-f]{16}$/, `${path} ${r.status}`);
        seen.add(String(id));
      }
      assert.equal(seen.size, 4, 'a fresh id per request');
      const echoed = await rawRequest(f.url, 'GET', '/api/v4/user', { headers: { ...auth, 'X-Request-Id': 'client-req.42' } });
      assert.equal(echoed.headers['x-request-id'], 'client-req.42');
      const refused = await rawRequest(f.url, 'GET', '/api/v4/user', { headers: { ...auth, 'X-Request-Id': 'bad id with spaces' } });
      assert.match(String(refused.headers['x-request-id']), /^[0-9a-f]{16}$/);
    });

    it('HEAD on a GET route answers the GET headers without a body', async () => {
      const get = await rawRequest(f.url, 'GET', '/api/v4/user', { headers: auth });
      const head = await rawRequest(f.url, 'HEAD', '/api/v4/user', { headers: auth });
      expectStatus(head, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers['content-type'], JSON_ONLY);
      assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.text)));

      const list = await rawRequest(f.url, 'HEAD', '/api/v4/users?per_page=1', { headers: auth });
      expectStatus(list, 200);
      assert.equal(list.text, '');
      assert.equal(list.headers['x-per-page'], '1');
      assert.equal(list.headers['x-total'], String(await totalOf(f, '/users')));

      const anon = await rawRequest(f.url, 'HEAD', '/api/v4/user');
      assert.equal(anon.status, 401);
      assert.equal(anon.text, '');
      const missing = await rawRequest(f.url, 'HEAD', '/api/v4/nope');
      assert.equal(missing.status, 404);
    });

    it('health routes answer without credentials (and ignore bad ones)', async () => {
      for (const headers of [{}, { 'PRIVATE-TOKEN': 'glpat-bogus' }] as Record<string, string>[]) {
        const health = await rawRequest(f.url, 'GET', '/-/health', { headers });
        expectStatus(health, 200);
        assert.equal(health.text, 'GitLab OK');
        assert.match(String(health.headers['content-type']), /^text\/plain/);
        const live = await rawRequest(f.url, 'GET', '/-/liveness', { headers });
        expectStatus(live, 200);
        assert.equal(live.headers['content-type'], JSON_ONLY);
        assert.deepEqual(live.body, { status: 'ok' });
        const ready = await rawRequest(f.url, 'GET', '/-/readiness', { headers });
        expectStatus(ready, 200);
        assert.deepEqual(ready.body, { status: 'ok', master_check: [{ status: 'ok' }] });
      }
    });

    it('202 answers carry {"message":"202 Accepted"}', async () => {
      const g = await createGroup(f, f.rootToken, { name: 'Doomed', path: uniq('doomed') });
      const r = await f.api('DELETE', `/groups/${g.id}`);
      expectStatus(r, 202);
      assert.equal(r.headers.get('content-type'), JSON_ONLY);
      assert.deepEqual(r.body, { message: '202 Accepted' });
    });
  });

  describe(`${dialect}: request body limit`, () => {
    let f: TestForgelet;
    let auth: Record<string, string>;
    const LIMIT = 512;

    before(async () => {
      f = await startTestServer(dialect, { bodyLimitBytes: LIMIT });
      auth = { 'PRIVATE-TOKEN': f.rootToken, 'Content-Type': 'application/json' };
    });
    after(() => f.stop());

    it('a body over the limit answers 413 and writes nothing, however it is framed', async () => {
      const before = await snapshotCounts(f);
      const big = JSON.stringify({ name: 'Big', path: 'big', description: 'x'.repeat(LIMIT) });
      const declared = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: auth, body: big });
      const chunked = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: auth, body: big, chunked: true });
      const form = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `name=Big&path=big&description=${'y'.repeat(LIMIT)}`,
      });
      // small on the wire, over the limit once inflated
      const bomb = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ name: 'Big', path: 'big', description: 'z'.repeat(20 * LIMIT) })),
      });
      for (const r of [declared, chunked, form, bomb]) {
        expectStatus(r, 413);
        assert.equal(r.headers['content-type'], JSON_ONLY);
        assert.deepEqual(r.body, { message: '413 Request Entity Too Large' });
      }
      assert.deepEqual(await snapshotCounts(f), before);
    });

    it('a body within the limit is accepted', async () => {
      const ok = await rawRequest(f.url, 'POST', '/api/v4/groups', { headers: auth, body: JSON.stringify({ name: 'Small', path: 'small' }) });
      expectStatus(ok, 201);
      const gz = await rawRequest(f.url, 'POST', '/api/v4/groups', {
        headers: { ...auth, 'Content-Encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ name: 'Small Zip', path: 'smallzip', description: 'd'.repeat(100) })),
      });
      expectStatus(gz, 201);
    });
  });
}
