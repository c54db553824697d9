/**
 * Deep offset pages of project lists (`page` × `per_page` ≥ 1,000) are read in two steps, the
 * page's ids and then its rows (kernel/pagination.ts `Deferred`): the same projects, in the
 * same order, as the single query of the shallow pages, whatever the order and the caller.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { queriesDuring } from '../support/queries.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, expectStatus } from './http.js';
import type { Insertable } from 'kysely';
import type { Database } from '../../packages/core/src/storage/database.js';

const N = 1_130;

for (const dialect of DIALECTS) {
  describe(`${dialect}: deep pages of project lists`, () => {
    let f: TestForgelet;
    let group: any;
    let dev: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };

    before(async () => {
      f = await startTestServer(dialect);
      dev = await f.createUser('deepdev');
      outsider = await f.createUser('deepout');
      group = await createGroup(f, f.rootToken, { name: 'Deep', path: 'deep' });
      await addMember(f, 'groups', group.id, dev.id, 30);
      const root = (await f.api('GET', '/user')).body;
      const db = f.forge.deps.db;
      const base = Date.parse('2024-01-01T00:00:00.000Z');
      const rows: Insertable<Database['projects']>[] = [];
      for (let i = 1; i <= N; i++) {
        const num = String(i).padStart(5, '0');
        // Some share a created_at (the id breaks the tie); names run against creation order.
        const at = new Date(base + Math.floor(i / 3) * 60_000).toISOString();
        rows.push({
          namespace_id: group.id, name: `P ${String(N - i).padStart(5, '0')}`, path: `p-${num}`, path_with_namespace: `deep/p-${num}`,
          name_with_namespace: `Deep / P ${num}`, description: '', visibility: i % 4 === 0 ? 'public' : 'private', default_branch: 'main',
          creator_id: root.id, archived: 0, topics: '[]', issues_enabled: 1, merge_requests_enabled: 1, jobs_enabled: 1, wiki_enabled: 1,
          snippets_enabled: 1, created_at: at, updated_at: at, last_activity_at: at,
        });
      }
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += 200) await trx.insertInto('projects').values(rows.slice(i, i + 200)).execute();
      });
    });
    after(() => f.stop());

    /** Every id of a list, page by page (per_page 100), and the SQL of its deepest page. */
    const walk = async (path: string, token: string) => {
      const ids: number[] = [];
      let deepest: string[] = [];
      for (let page = 1; ; page++) {
        const { result: r, queries } = await queriesDuring(f.forge.deps.db, () =>
          f.api('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, { token, headers: { 'Cache-Control': 'no-cache' } }),
        );
        expectStatus(r, 200);
        ids.push(...r.body.map((p: any) => p.id));
        deepest = queries;
        if (!r.headers.get('x-next-page')) break;
      }
      return { ids, deepest };
    };

    /** The same list from one query of all its rows: what the pages must add up to. */
    const expected = async (order: 'created_at' | 'name' | 'id', sort: 'asc' | 'desc', publicOnly = false) => {
      let q = f.forge.deps.db.selectFrom('projects').select('id').where('namespace_id', '=', group.id);
      if (publicOnly) q = q.where('visibility', '=', 'public');
      q = q.orderBy(order, sort);
      if (order !== 'id') q = q.orderBy('id', sort);
      return (await q.execute()).map((r) => r.id);
    };

    it('a group\'s projects, as admin and as a member, in several orders: every project once, in order, deep pages by id first', async () => {
      for (const [order, sort] of [['created_at', 'desc'], ['name', 'asc'], ['id', 'asc']] as const) {
        for (const token of [f.rootToken, dev.token]) {
          const { ids, deepest } = await walk(`/groups/${group.id}/projects?order_by=${order}&sort=${sort}`, token);
          assert.deepEqual(ids, await expected(order, sort), `${order} ${sort}`);
          assert.ok(deepest.some((q) => /"id" in \(select "pr"\."id" as "key"/.test(q)), `the deep page read its ids first:\n${deepest.join('\n')}`);
        }
      }
    });

    it('GET /projects for a caller who sees the public ones only: the same filter on the deep pages', async () => {
      const { ids } = await walk(`/projects?order_by=created_at&sort=desc`, outsider.token);
      const publicIds = await expected('created_at', 'desc', true);
      assert.equal(publicIds.length, Math.floor(N / 4));
      assert.deepEqual(ids.filter((id) => publicIds.includes(id)), publicIds);
      const all = await walk(`/projects?order_by=created_at&sort=desc`, f.rootToken);
      assert.equal(new Set(all.ids).size, all.ids.length, 'no project twice');
      assert.deepEqual(all.ids.filter((id) => publicIds.includes(id)), publicIds, 'and the admin sees them in the same order among the rest');
    });
  });
}
