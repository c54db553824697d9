/**
 * Connections under hostile input (issue 23): an answer given before the body was read leaves
 * the connection usable or closes it cleanly; a client that goes away is not a server fault;
 * an oversized NuGet upload is GitLab's 400 with nothing kept; filters GitLab bounds are
 * bounded, and no `Link` header grows past what HTTP clients accept.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { chunked, exchangeAndReuse, gzipPast, openConnection, requestHead } from '../support/raw-http.js';
import { storeHead } from './error-tracking.helpers.js';
import { createProject, expectStatus } from './http.js';
import { multipart, pushChunked } from './packages-fixtures.js';

const BODY_LIMIT = 64 * 1024;
const UPLOAD_LIMIT = 256 * 1024;

const gzipOver = (wire: number) => gzipPast(BODY_LIMIT, wire);

for (const dialect of DIALECTS) {
  describe(`${dialect}: connections under hostile input`, () => {
    let f: TestForgelet;
    let project: any;
    const errors: string[] = [];
    const access: string[] = [];

    before(async () => {
      f = await startTestServer(dialect, {
        bodyLimitBytes: BODY_LIMIT,
        uploadLimitBytes: UPLOAD_LIMIT,
        logger: { info: (line) => access.push(line), error: (line, err) => errors.push(`${line} ${err instanceof Error ? err.stack : String(err ?? '')}`) },
      });
      project = await createProject(f, f.rootToken, { name: 'Hostile', path: 'hostile' });
      await f.createUser('alice');
    });
    after(() => f.stop());

    const json = (token: string | null = f.rootToken) => ({ ...(token && { 'PRIVATE-TOKEN': token }), 'Content-Type': 'application/json' });

    it('a gzip body that inflates past the limit answers 413 and the connection stays usable (under 1 MiB on the wire: drained and kept)', async () => {
      const body = gzipOver(512 * 1024);
      const head = requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json(), 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      const r = await exchangeAndReuse(f.url, head, body);
      assert.equal(r.answer.status, 413);
      assert.deepEqual(JSON.parse(r.answer.text), { message: '413 Request Entity Too Large' });
      assert.equal(r.connection, 'reused');
    });

    it('… and a large one gets Connection: close, after which the server reads what is still coming and closes', async () => {
      const body = gzipOver(3 * 1024 * 1024);
      const head = requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json(), 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      const r = await exchangeAndReuse(f.url, head, body);
      assert.equal(r.answer.status, 413);
      assert.equal(r.connection, 'closed');
      // chunked: no length to drain by, so closed
      const c = await exchangeAndReuse(f.url, requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json(), 'Content-Encoding': 'gzip', 'Transfer-Encoding': 'chunked' }), chunked(body));
      assert.deepEqual([c.answer.status, c.connection], [413, 'closed']);
    });

    it('a refusal before the body is read (401, 404) leaves the connection usable', async () => {
      const small = JSON.stringify({ title: 'x'.repeat(1000) });
      const unauthorized = await exchangeAndReuse(f.url, requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json('glpat-nope'), 'Content-Length': small.length }), small);
      assert.deepEqual([unauthorized.answer.status, unauthorized.connection], [401, 'reused']);
      const big = JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) });
      const bigUnauthorized = await exchangeAndReuse(f.url, requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json('glpat-nope'), 'Content-Length': big.length }), big);
      assert.deepEqual([bigUnauthorized.answer.status, bigUnauthorized.connection], [401, 'closed']);
      const unknown = await exchangeAndReuse(f.url, requestHead('POST', '/api/v4/nope', { ...json(), 'Content-Length': small.length }), small);
      assert.deepEqual([unknown.answer.status, unknown.connection], [404, 'reused']);
    });

    it("the error-tracking collector's 404 after a body over the limit leaves the connection usable", async () => {
      for (const wire of [1000, 3 * 1024 * 1024]) {
        const body = gzipOver(wire);
        const r = await exchangeAndReuse(f.url, storeHead(999999, body.length), body);
        assert.equal(r.answer.status, 404);
        assert.deepEqual(JSON.parse(r.answer.text), { message: '404 Project Not Found' });
      }
    });

    it('a NuGet upload past the limit answers 400 "File is too large", stores nothing and leaves no temporary file', async () => {
      const uploads = join(f.forge.deps.blobs.root!, 'uploads');
      const leftovers = () => (existsSync(uploads) ? readdirSync(uploads) : []);
      const r = await pushChunked(f.url, project.id, f.rootToken, 3 * UPLOAD_LIMIT);
      assert.equal(r.answer.status, 400);
      assert.deepEqual(JSON.parse(r.answer.text), { message: '400 Bad request - File is too large' });
      assert.equal(r.connection, 'closed');
      const packages = await f.api('GET', `/projects/${project.id}/packages`);
      expectStatus(packages, 200);
      assert.deepEqual(packages.body, []);
      assert.deepEqual(leftovers(), []);
      // with a declared length (small enough to drain) the connection is kept
      const small = multipart(randomBytes(UPLOAD_LIMIT + 1), { field: 'package', filename: 'package.nupkg' });
      const declared = await exchangeAndReuse(
        f.url,
        requestHead('PUT', `/api/v4/projects/${project.id}/packages/nuget`, { 'PRIVATE-TOKEN': f.rootToken, 'Content-Type': small.contentType, 'Content-Length': small.body.length }),
        small.body,
      );
      assert.deepEqual([declared.answer.status, declared.connection], [400, 'reused']);
      assert.deepEqual(leftovers(), []);
    });

    it('a client that goes away mid-body is logged as 499, not as a 500', async () => {
      const before = access.length;
      const c = await openConnection(f.url);
      await c.write(requestHead('POST', `/api/v4/projects/${project.id}/issues`, { ...json(), 'Content-Length': BODY_LIMIT - 1 }) + '{"title":"cut');
      await new Promise((r) => setTimeout(r, 100));
      c.destroy();
      const deadline = Date.now() + 5000;
      while (!access.slice(before).some((l) => l.includes(`/issues `)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const line = access.slice(before).find((l) => l.includes(`/issues `));
      assert.match(line ?? '', / 499 /);
    });

    it('filters GitLab bounds answer 400 naming the field', async () => {
      const cases: [string, string][] = [
        [`/users?username=${'a'.repeat(10_000)}`, 'username is expected to have length less than or equal to 255'],
        [`/groups?search=${'b'.repeat(10_000)}`, 'search is expected to have length less than or equal to 4096'],
        [`/projects?search=${'c'.repeat(10_000)}`, 'search is expected to have length less than or equal to 4096'],
        [`/projects?search=${encodeURIComponent(Array.from({ length: 65 }, (_, i) => `t${i}`).join(' '))}`, 'search has too many search terms (maximum is 64)'],
        [`/projects/${project.id}/issues?author_username=${'d'.repeat(300)}`, 'author_username is expected to have length less than or equal to 255'],
      ];
      for (const [path, error] of cases) {
        const r = await f.api('GET', path);
        assert.equal(r.status, 400, path.slice(0, 60));
        assert.deepEqual(r.body, { error });
      }
      const ok = await f.api('GET', `/projects?search=${'c'.repeat(4096)}`);
      expectStatus(ok, 200);
    });

    it('a Link header stays within 4,096 characters: the links that fit, next first, else none', async () => {
      const full = await f.api('GET', '/users?per_page=1&page=2');
      expectStatus(full, 200);
      assert.deepEqual(relsOf(full.headers.get('link')), ['prev', 'next', 'first', 'last'].filter((rel) => rel !== 'next' || full.headers.get('x-next-page')));
      // undeclared parameters are repeated too (as GitLab does), so they are what makes a Link long
      const long = await f.api('GET', `/users?per_page=1&order_by=id&sort=asc&note=${'n'.repeat(1500)}`);
      expectStatus(long, 200);
      const link = long.headers.get('link') ?? '';
      assert.ok(link.length <= 4096, `Link of ${link.length} characters`);
      assert.deepEqual(relsOf(link), ['next', 'first']);
      assert.match(link, new RegExp(`note=${'n'.repeat(1500)}`));
      const huge = await f.api('GET', `/users?per_page=1&note=${'n'.repeat(5000)}`);
      expectStatus(huge, 200);
      assert.equal(huge.headers.get('link'), null);
      assert.equal(huge.headers.get('x-next-page'), '2');
    });

    it('ids too large for any row are 404 and integer parameters past the database range 400; NUL bytes are refused (the 500s the fuzz corpus found on PostgreSQL)', async () => {
      const notFound: [string, string][] = [
        ['/projects/2147483648', '404 Project Not Found'],
        ['/groups/99999999999999999999', '404 Group Not Found'],
        ['/users/2147483648', '404 User Not Found'],
        [`/projects/${project.id}/labels/2147483648`, '404 Label Not Found'],
        ['/personal_access_tokens/9223372036854775808', '404 Personal Access Token Not Found'],
      ];
      for (const [path, message] of notFound) {
        const r = await f.api('GET', path);
        assert.deepEqual([r.status, r.body], [404, { message }], path);
      }
      const badRequests: [string, string, string][] = [
        ['GET', `/projects/${project.id}/issues/2147483648`, 'issue_iid does not have a valid value'],
        ['GET', `/projects/${project.id}/issues?iids[]=2147483648`, 'iids does not have a valid value'],
        ['DELETE', `/projects/${project.id}/labels?name=%00`, 'name is invalid'],
        ['GET', `/projects/${project.id}/issues?search=a%00b`, 'search is invalid'],
        ['POST', `/projects/${project.id}/issues?title=a%00b`, 'title is invalid'],
      ];
      for (const [method, path, error] of badRequests) {
        const r = await f.api(method, path);
        assert.deepEqual([r.status, r.body], [400, { error }], `${method} ${path}`);
      }
    });

    it('logged no server error', () => {
      assert.deepEqual(errors, []);
    });
  });
}

function relsOf(link: string | null): string[] {
  return [...(link ?? '').matchAll(/rel="(\w+)"/g)].map((m) => m[1]!);
}
