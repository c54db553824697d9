/**
 * @gitbeaker/rest Migrations against two Forgelet servers on loopback: `create` sends the nested
 * JSON body of REAL-CLIENTS.md §2.5 (a top-level group without its projects, plus a project
 * into an existing group); all/allEntities/show/showEntity read the results back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { seedSourceGroup, waitForImport } from '../support/bulk-imports.js';
import { gitbeakerFailure } from './support.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest Migrations (direct transfer)`, () => {
    let src: TestForgelet;
    let dst: TestForgelet;
    let api: InstanceType<typeof Gitlab>;

    before(async () => {
      [src, dst] = await Promise.all([startTestServer(dialect), startTestServer(dialect)]);
      await seedSourceGroup(src);
      assert.equal((await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } })).status, 201);
      api = new Gitlab({ host: dst.url, token: dst.rootToken });
    });
    after(async () => {
      await Promise.all([src?.stop(), dst?.stop()]);
    });

    it('creates and follows a migration', async () => {
      const created = await api.Migrations.create({ url: src.url, access_token: src.rootToken }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'top-copy', destination_namespace: '', migrate_projects: false } as any,
        { source_type: 'project_entity', source_full_path: 'src-grp/proj', destination_slug: 'proj-copy', destination_namespace: 'into', migrate_memberships: true } as any,
      ]);
      assert.equal(created.status, 'created');
      assert.equal((created as any).source_type, 'gitlab');
      const done = await waitForImport(dst, created.id as number);
      assert.equal(done.status, 'finished');
      const list = await api.Migrations.all({ status: 'finished' as any });
      assert.deepEqual(list.map((m) => m.id), [created.id]);
      const entities = await api.Migrations.allEntities({ bulkImportId: created.id as number });
      const byPath = new Map(entities.map((e: any) => [e.destination_full_path, e]));
      assert.deepEqual([...byPath.keys()].sort(), ['into/proj-copy', 'top-copy', 'top-copy/sub']);
      const top: any = byPath.get('top-copy');
      assert.equal(top.migrate_projects, false);
      assert.deepEqual(top.stats, {
        subgroups: { source: 1, fetched: 1, imported: 1 },
        labels: { source: 1, fetched: 1, imported: 1 },
        milestones: { source: 1, fetched: 1, imported: 1 },
        members: { source: 1, fetched: 1, imported: 1 },
        iterations_cadences: { source: 0, fetched: 0, imported: 0 },
        epics: { source: 0, fetched: 0, imported: 0 },
      });
      const proj: any = byPath.get('into/proj-copy');
      assert.deepEqual(proj.stats.issues, { source: 1, fetched: 1, imported: 1 });
      const shown: any = await api.Migrations.showEntity(created.id as number, proj.id);
      assert.equal(shown.destination_slug, 'proj-copy');
      assert.equal((await api.Migrations.show(created.id as number)).status, 'finished');
      const failed = await api.Migrations.allEntities({ status: 'failed' as any });
      assert.deepEqual(failed, []);
      // The project's group labels did not come along (project import): its issue keeps the label as a project label.
      const issues = await api.Issues.all({ projectId: 'into/proj-copy' });
      assert.deepEqual(issues.map((i: any) => [i.title, i.labels]), [['an issue', ['g-label']]]);
    });

    it('refusals reach gitbeaker as 422 with the message', async () => {
      const failure = await gitbeakerFailure(api.Migrations.create({ url: src.url, access_token: 'glpat-nope' }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'x', destination_namespace: 'into' } as any,
      ]));
      assert.equal(failure.status, 422);
      assert.match(JSON.stringify(failure), /does not have the required 'api' scope/);
    });
  });
}
