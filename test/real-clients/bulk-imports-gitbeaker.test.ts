/**
 * @gitbeaker/rest against the outbound calls of the served binary: two `forgelet serve`
 * processes on loopback, and a receiver in this process.
 * - Migrations: `create` sends the nested JSON body of REAL-CLIENTS.md §2.5 (a top-level group
 *   without its projects, plus a project into an existing group); the destination fetches
 *   from the source; all/allEntities/show/showEntity read the results back.
 * - Flow callbacks (no gitbeaker class: its generic requester, REAL-CLIENTS.md §2.4): a
 *   callback registered on the destination, a flow started and finished; the receiver gets
 *   `flow.started` and `flow.completed`, signed per Standard Webhooks (verified with the
 *   `standardwebhooks` package) and carrying the service token.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gitlab } from '@gitbeaker/rest';
import { Webhook } from 'standardwebhooks';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { seedSourceGroup, waitForImport } from '../support/bulk-imports.js';
import { gitbeakerFailure } from './support.js';
import { basic, getRaw, nupkg, putPackage } from '../server/packages-fixtures.js';

const SIGNING = `whsec_${randomBytes(32).toString('base64')}`;
const SERVICE_TOKEN = 'gb-service-token';

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest Migrations (direct transfer) and flow callbacks from the served binary`, () => {
    let src: ServedForgelet;
    let dst: ServedForgelet;
    let api: InstanceType<typeof Gitlab>;
    let packageFile: Buffer;
    const hits: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end('ok');
      });
    });

    before(async () => {
      [src, dst] = await Promise.all([startServed(dialect), startServed(dialect), new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))]);
      const { project } = await seedSourceGroup(src);
      // A package of a few MiB: the destination streams its file from the source's package file route.
      packageFile = await nupkg({ id: 'Moved.Lib', version: '2.0.0' }, { payload: randomBytes(3 * 1024 * 1024) });
      assert.equal((await putPackage(src, `/projects/${project.id}/packages/nuget`, packageFile, { Authorization: basic('root', src.rootToken) })).status, 201);
      assert.equal((await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } })).status, 201);
      api = new Gitlab({ host: dst.url, token: dst.rootToken });
    });
    after(async () => {
      await Promise.all([src?.stop(), dst?.stop(), new Promise<void>((r) => receiver.close(() => r()))]);
    });

    it('creates and follows a migration', async () => {
      const created = await api.Migrations.create({ url: src.url, access_token: src.rootToken }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'top-copy', destination_namespace: '', migrate_projects: false } as any,
        { source_type: 'project_entity', source_full_path: 'src-grp/proj', destination_slug: 'proj-copy', destination_namespace: 'into', migrate_memberships: true } as any,
      ]);
      assert.equal(created.status, 'created');
      assert.equal((created as any).source_type, 'gitlab');
      const done = await waitForImport(dst, created.id as number, 60_000);
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
      assert.deepEqual(proj.stats.packages, { source: 1, fetched: 1, imported: 1 });
      const back = await getRaw(dst, `/projects/${encodeURIComponent('into/proj-copy')}/packages/nuget/download/moved.lib/2.0.0/moved.lib.2.0.0.nupkg`, { Authorization: basic('root', dst.rootToken) });
      assert.equal(back.status, 200);
      assert.ok(back.bytes.equals(packageFile), 'the package file arrives byte for byte');
    });

    it('refusals reach gitbeaker as 422 with the message', async () => {
      const failure = await gitbeakerFailure(api.Migrations.create({ url: src.url, access_token: 'glpat-nope' }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'x', destination_namespace: 'into' } as any,
      ]));
      assert.equal(failure.status, 422);
      assert.match(JSON.stringify(failure), /does not have the required 'api' scope/);
    });

    it('a flow callback registered through the requester receives flow.started and flow.completed, signed and with the service token', async () => {
      const requester = api.Migrations.requester;
      const port = (receiver.address() as AddressInfo).port;
      const hook = await requester.post<Record<string, any>>('ai/agent_workflows/flow_callbacks', {
        body: { url: `http://127.0.0.1:${port}/hook`, name: 'gb receiver', signing_token: SIGNING, token: SERVICE_TOKEN },
      });
      assert.equal(hook.status, 201);
      assert.equal(JSON.stringify(hook.body).includes(SIGNING), false, 'the signing token is never answered');
      const project = await api.Projects.create({ name: 'flows' });
      const started = await requester.post<Record<string, any>>('ai/agent_workflows/workflows', {
        body: { project_id: String(project.id), goal: 'g', callback_hook_id: hook.body.id, start_workflow: true },
      });
      assert.deepEqual([started.status, started.body.status], [201, 'running']);
      const flowId = started.body.id;
      const finished = await requester.patch<Record<string, any>>(`ai/agent_workflows/workflows/${flowId}`, { body: { status_event: 'finish' } });
      assert.equal(finished.body.status, 'finished');

      // Delivered by the destination's background worker, in order.
      await until('both callbacks', async () => hits.length >= 2);
      const events = hits.map((hit) => {
        assert.equal(hit.headers['x-service-token'], SERVICE_TOKEN);
        assert.equal(hit.headers['content-type'], 'application/json');
        return new Webhook(SIGNING).verify(hit.body, hit.headers as Record<string, string>) as any;
      });
      assert.deepEqual(events.map((e) => [e.type, e.data.id, e.data.status, e.data.instance_url]), [
        ['flow.started', flowId, 'running', dst.url],
        ['flow.completed', flowId, 'finished', dst.url],
      ]);
      assert.throws(() => new Webhook(SIGNING).verify(hits[0]!.body.replace('running', 'finished'), hits[0]!.headers as Record<string, string>), 'a tampered body fails verification');
      const deliveries = await until('the deliveries to be recorded', async () => {
        const r = await requester.get<Record<string, any>[]>(`ai/agent_workflows/flow_callbacks/${hook.body.id}/deliveries`, {});
        return r.body.length === 2 && r.body.every((d) => d.status === 'delivered') && r.body;
      });
      assert.deepEqual(
        deliveries.map((d) => [d.event, d.attempts.map((a: any) => [a.status_code, a.error])]).sort(),
        [['flow.completed', [[200, null]]], ['flow.started', [[200, null]]]],
      );
    });
  });
}
