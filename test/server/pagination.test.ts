import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type ApiResponse, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from './http.js';

/** The six X-* headers, as python-gitlab and gitbeaker read them (null when absent). */
function xHeaders(r: ApiResponse) {
  const h = (n: string) => r.headers.get(n);
  return { page: h('x-page'), perPage: h('x-per-page'), total: h('x-total'), totalPages: h('x-total-pages'), next: h('x-next-page'), prev: h('x-prev-page') };
}

/** gitbeaker's parser: exactly `<url>; rel="name"`, comma-separated. */
function parseLink(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(', ')) {
    const m = /^<([^>]+)>; rel="([^"]+)"$/.exec(part);
    assert.ok(m, `malformed Link part: ${part}`);
    out[m[2]!] = m[1]!;
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: offset pagination`, () => {
    let f: TestForgelet;
    let items: any[];
    let ns: any;
    let inner: any;
    const groupsUrl = () => `${f.url}/api/v4/groups`;
    // What every Link for the search below must repeat, keys sorted
    const searchLink = (page: number, perPage = 3) => `${groupsUrl()}?order_by=path&page=${page}&per_page=${perPage}&search=pg%20item&sort=asc`;
    const SEARCH = 'search=pg+item&order_by=path&sort=asc';

    before(async () => {
      f = await startTestServer(dialect);
      items = [];
      // created out of order so that order_by=path is visible
      for (const n of [4, 1, 7, 3, 6, 2, 5]) items.push(await createGroup(f, f.rootToken, { name: `Pg Item ${n}`, path: `pg-item-${n}` }));
      items.sort((a, b) => a.path.localeCompare(b.path));
      await createGroup(f, f.rootToken, { name: 'Unrelated', path: 'unrelated' });
      ns = await createGroup(f, f.rootToken, { name: 'Pg NS', path: 'pgns' });
      inner = await createGroup(f, f.rootToken, { name: 'Inner', path: 'inner', parent_id: ns.id });
      for (const name of ['a', 'b', 'c']) await createProject(f, f.rootToken, { name, namespace_id: inner.id });
    });
    after(() => f.stop());

    it('first page: X-* headers and Link with next, first, last repeating every filter', async () => {
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=3`);
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((g: any) => g.path), ['pg-item-1', 'pg-item-2', 'pg-item-3']);
      assert.deepEqual(xHeaders(r), { page: '1', perPage: '3', total: '7', totalPages: '3', next: '2', prev: '' });
      assert.equal(
        r.headers.get('link'),
        `<${searchLink(2)}>; rel="next", <${searchLink(1)}>; rel="first", <${searchLink(3)}>; rel="last"`,
      );
    });

    it('middle page: prev, next, first, last in that order', async () => {
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=3&page=2`);
      assert.deepEqual(r.body.map((g: any) => g.path), ['pg-item-4', 'pg-item-5', 'pg-item-6']);
      assert.deepEqual(xHeaders(r), { page: '2', perPage: '3', total: '7', totalPages: '3', next: '3', prev: '1' });
      assert.equal(
        r.headers.get('link'),
        `<${searchLink(1)}>; rel="prev", <${searchLink(3)}>; rel="next", <${searchLink(1)}>; rel="first", <${searchLink(3)}>; rel="last"`,
      );
    });

    it('last page: no next page, X-Next-Page is an empty string', async () => {
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=3&page=3`);
      assert.deepEqual(r.body.map((g: any) => g.path), ['pg-item-7']);
      assert.deepEqual(xHeaders(r), { page: '3', perPage: '3', total: '7', totalPages: '3', next: '', prev: '2' });
      assert.equal(r.headers.get('link'), `<${searchLink(2)}>; rel="prev", <${searchLink(1)}>; rel="first", <${searchLink(3)}>; rel="last"`);
    });

    it('a page past the end is [] with headers (no prev, as Kaminari)', async () => {
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=3&page=9`);
      expectStatus(r, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.deepEqual(r.body, []);
      assert.deepEqual(xHeaders(r), { page: '9', perPage: '3', total: '7', totalPages: '3', next: '', prev: '' });
      assert.equal(r.headers.get('link'), `<${searchLink(1)}>; rel="first", <${searchLink(3)}>; rel="last"`);
    });

    it('an empty list has one page', async () => {
      const r = await f.api('GET', '/groups?search=nothing-matches');
      assert.deepEqual(r.body, []);
      assert.deepEqual(xHeaders(r), { page: '1', perPage: '20', total: '0', totalPages: '1', next: '', prev: '' });
      const first = `${groupsUrl()}?page=1&per_page=20&search=nothing-matches`;
      assert.equal(r.headers.get('link'), `<${first}>; rel="first", <${first}>; rel="last"`);
    });

    it('following rel="next" alone (as both clients do) walks every item once, filters kept', async () => {
      let url: string | undefined = `${f.url}/api/v4/groups?${SEARCH}&per_page=2`;
      const seen: string[] = [];
      let pages = 0;
      while (url) {
        const r: ApiResponse = await f.api('GET', url);
        expectStatus(r, 200);
        seen.push(...r.body.map((g: any) => g.path));
        url = parseLink(r.headers.get('link')).next;
        assert.ok(++pages <= 4, 'too many pages');
      }
      assert.equal(pages, 4);
      assert.deepEqual(seen, items.map((g) => g.path));
    });

    it('the Link base is the server URL and the request path, still encoded', async () => {
      const r = await f.api('GET', '/groups/pgns%2Finner/projects?order_by=name&sort=asc&per_page=2');
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((p: any) => p.name), ['a', 'b']);
      const links = parseLink(r.headers.get('link'));
      assert.equal(links.next, `${f.url}/api/v4/groups/pgns%2Finner/projects?order_by=name&page=2&per_page=2&sort=asc`);
      assert.ok(links.next!.startsWith(`${f.url}/`));
      const page2 = await f.api('GET', links.next!);
      assert.deepEqual(page2.body.map((p: any) => p.name), ['c']);
    });

    it('array filters are repeated as k%5B%5D=v', async () => {
      const skip = [items[0].id, items[1].id];
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=2&skip_groups[]=${skip[0]}&skip_groups[]=${skip[1]}`);
      assert.deepEqual(r.body.map((g: any) => g.path), ['pg-item-3', 'pg-item-4']);
      assert.equal(r.headers.get('x-total'), '5');
      assert.equal(
        parseLink(r.headers.get('link')).next,
        `${groupsUrl()}?order_by=path&page=2&per_page=2&search=pg%20item&skip_groups%5B%5D=${skip[0]}&skip_groups%5B%5D=${skip[1]}&sort=asc`,
      );
    });

    it('Link never repeats credentials given as parameters', async () => {
      const r = await f.api('GET', `/groups?${SEARCH}&per_page=3&private_token=${f.rootToken}&sudo=root`, { token: null });
      expectStatus(r, 200);
      assert.equal(r.headers.get('x-total'), '7');
      assert.equal(parseLink(r.headers.get('link')).next, searchLink(2));
      assert.doesNotMatch(r.headers.get('link') ?? '', /private_token|sudo|glpat/);
    });

    it('per_page defaults to 20 and is capped at 100 in headers and links', async () => {
      const d = await f.api('GET', `/groups?${SEARCH}`);
      assert.deepEqual(xHeaders(d), { page: '1', perPage: '20', total: '7', totalPages: '1', next: '', prev: '' });
      const capped = await f.api('GET', `/groups?${SEARCH}&per_page=500`);
      assert.equal(capped.headers.get('x-per-page'), '100');
      assert.equal(parseLink(capped.headers.get('link')).first, searchLink(1, 100));
    });

    it('over 10,000 rows: no X-Total, X-Total-Pages or rel="last", but next still works', async () => {
      const now = new Date().toISOString();
      const rows = Array.from({ length: 10_000 }, (_, i) => ({
        username: `bulk${i}`, name: `Bulk ${i}`, email: `bulk${i}@example.com`, state: 'active', is_admin: 0, bot_kind: null, namespace_id: null,
        bio: '', location: '', public_email: null, website_url: '', job_title: '', organization: '', can_create_group: 1, projects_limit: 10,
        external: 0, created_at: now, updated_at: now, last_activity_on: null,
      }));
      const db = f.forge.database.db;
      for (let i = 0; i < rows.length; i += 1000) await db.insertInto('users').values(rows.slice(i, i + 1000)).execute();

      const r = await f.api('GET', '/users?per_page=2');
      expectStatus(r, 200);
      assert.equal(r.body.length, 2);
      assert.deepEqual(xHeaders(r), { page: '1', perPage: '2', total: null, totalPages: null, next: '2', prev: '' });
      const links = parseLink(r.headers.get('link'));
      assert.deepEqual(Object.keys(links), ['next', 'first']);
      assert.equal(links.next, `${f.url}/api/v4/users?page=2&per_page=2`);
    });
  });
}
