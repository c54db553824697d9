/**
 * New issues written alone (domains/issues/issue.queries.ts `insertNewIssueAlone`): those of
 * one project that arrive together go in one insert (IssueBatch), on both dialects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createProject, expectStatus } from '../server/http.js';
import { queriesDuring } from '../support/queries.js';
import { insertNewIssueAlone } from '../../packages/core/src/domains/issues/issue.queries.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: new issues written alone`, () => {
    let f: TestForgelet;
    let authorId: number;
    before(async () => {
      f = await startTestServer(dialect);
      authorId = (await f.api('GET', '/user')).body.id;
    });
    after(() => f.stop());

    const values = (projectId: number, title: string | null, confidential = 0) => ({
      project_id: projectId, title: title as string, description: null, state: 'opened', issue_type: 'issue', confidential, discussion_locked: 0,
      author_id: authorId, milestone_id: null, due_date: null, weight: null, closed_at: null, closed_by_id: null,
      created_at: '2030-01-01T00:00:00.000Z', updated_at: '2030-01-01T00:00:00.000Z',
    });
    const openCount = async (projectId: number) => (await f.api('GET', `/projects/${projectId}`)).body.open_issues_count;

    it('issues arriving together get the next iids in their order, each its own row', async () => {
      const project = await createProject(f, f.rootToken, { name: 'Batched' });
      const db = f.forge.database.db;
      const { result: rows, queries } = await queriesDuring(db, () =>
        Promise.all(Array.from({ length: 30 }, (_, i) => insertNewIssueAlone(db, values(project.id, `t${i}`, i % 5 === 0 ? 1 : 0)))),
      );
      assert.deepEqual(rows.map((r) => [r.iid, r.title, r.confidential]), Array.from({ length: 30 }, (_, i) => [i + 1, `t${i}`, i % 5 === 0 ? 1 : 0]));
      assert.equal(queries.filter((q) => /insert into "?issues"?/i.test(q)).length, 1, 'one insert for the 30');
      assert.equal(queries.filter((q) => /insert into "?internal_ids"?/i.test(q) || /^\s*with next_iid/i.test(q)).length, 1, 'one iid bump for the 30');
      assert.equal(await openCount(project.id), 24);
    });

    it('a batch with a bad row: the others are written, without a gap, and only the bad one fails', async () => {
      const project = await createProject(f, f.rootToken, { name: 'One bad' });
      const db = f.forge.database.db;
      const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => insertNewIssueAlone(db, values(project.id, i === 4 ? null : `t${i}`))));
      assert.deepEqual(settled.map((s) => s.status), Array.from({ length: 10 }, (_, i) => (i === 4 ? 'rejected' : 'fulfilled')));
      assert.match(String((settled[4] as PromiseRejectedResult).reason), /null|NOT NULL/i);
      const written = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      assert.deepEqual(written.map((r) => r.iid).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const r of written) assert.equal(r.title, `t${settled.findIndex((s) => s.status === 'fulfilled' && s.value.id === r.id)}`);
      assert.equal(await openCount(project.id), 9);
      const next = await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'next' } });
      expectStatus(next, 201);
      assert.equal(next.body.iid, 10);
    });

    it('projects batch apart: each counts its own iids', async () => {
      const [p1, p2] = [await createProject(f, f.rootToken, { name: 'Apart 1' }), await createProject(f, f.rootToken, { name: 'Apart 2' })];
      const db = f.forge.database.db;
      const rows = await Promise.all(Array.from({ length: 12 }, (_, i) => insertNewIssueAlone(db, values(i % 2 ? p2.id : p1.id, `t${i}`))));
      assert.deepEqual(rows.filter((r) => r.project_id === p1.id).map((r) => r.iid), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(rows.filter((r) => r.project_id === p2.id).map((r) => r.iid), [1, 2, 3, 4, 5, 6]);
    });
  });
}
