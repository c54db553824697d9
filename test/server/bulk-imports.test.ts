/**
 * Direct transfer between two Forgelet servers on loopback: validation and source checks
 * (nothing created on refusal), a group with two subgroups and three projects (labels,
 * milestones, issues with notes) copied with matching counts and equal read-backs, users
 * mapped by email, a relation failing on the source (500 on its export) recorded while the
 * rest imports, and cancel.
 */
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from './http.js';
import { commitFiles } from '../support/repository.js';
import { basic, getRaw, nupkg, putPackage } from './packages-fixtures.js';

const TOKEN_MESSAGE = "Import aborted as the provided personal access token does not have the required 'api' scope or is no longer valid.";
const enc = encodeURIComponent;

async function waitFor(f: TestForgelet, id: number, states = ['finished', 'failed', 'canceled'], timeoutMs = 90_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await f.api('GET', `/bulk_imports/${id}`);
    expectStatus(r, 200);
    if (states.includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`migration ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function all(f: TestForgelet, path: string): Promise<any[]> {
  const r = await f.api('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100`);
  expectStatus(r, 200);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: bulk imports (direct transfer)`, () => {
    let src: TestForgelet;
    let dst: TestForgelet;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };
    let dstAlice: { id: number; token: string };
    const projects: Record<string, any> = {};
    let nupkgFile: Buffer;

    before(async () => {
      [src, dst] = await Promise.all([startTestServer(dialect, { allowFaults: true }), startTestServer(dialect)]);
      alice = await src.createUser('alice');
      bob = await src.createUser('bob');
      dstAlice = await dst.createUser('alice');
      const acme = await createGroup(src, src.rootToken, { name: 'Acme Corp', path: 'acme', description: 'the top', visibility: 'internal' });
      const one = await createGroup(src, src.rootToken, { name: 'One', path: 'one', parent_id: acme.id });
      const two = await createGroup(src, src.rootToken, { name: 'Two', path: 'two', parent_id: acme.id });
      for (const [gid, title] of [[acme.id, 'bug'], [acme.id, 'feature']] as const) {
        expectStatus(await src.api('POST', `/groups/${gid}/labels`, { body: { name: title, color: '#FF0000', description: `${title} label` } }), 201);
      }
      expectStatus(await src.api('POST', `/groups/${acme.id}/milestones`, { body: { title: 'G1', due_date: '2024-12-01' } }), 201);
      expectStatus(await src.api('POST', `/groups/${acme.id}/milestones`, { body: { title: 'G2' } }), 201);
      expectStatus(await src.api('POST', `/groups/${one.id}/labels`, { body: { name: 'one-label', color: '#00FF00' } }), 201);
      for (const u of [alice, bob]) expectStatus(await src.api('POST', `/groups/${acme.id}/members`, { body: { user_id: u.id, access_level: 40 } }), 201);
      // Epics: E2 under E1 (same group), E3 in subgroup one under E1 (parent in the group above), labeled.
      const e1 = await src.api('POST', `/groups/${acme.id}/epics`, { token: alice.token, body: { title: 'E1', description: 'top epic', labels: 'bug' } });
      expectStatus(e1, 201);
      expectStatus(await src.api('POST', `/groups/${acme.id}/epics`, { token: bob.token, body: { title: 'E2', parent_id: e1.body.id } }), 201);
      expectStatus(await src.api('POST', `/groups/${one.id}/epics`, { body: { title: 'E3', parent_id: e1.body.id } }), 201);
      for (const [name, ns] of [['app', acme.id], ['lib', one.id], ['web', two.id]] as const) {
        const p = await createProject(src, src.rootToken, { name: name.toUpperCase(), path: name, namespace_id: ns, description: `${name} project`, visibility: 'private' });
        projects[name] = p;
        expectStatus(await src.api('POST', `/projects/${p.id}/labels`, { body: { name: `${name}-only`, color: '#0000FF' } }), 201);
        const ms = await src.api('POST', `/projects/${p.id}/milestones`, { body: { title: `${name} v1`, start_date: '2024-01-01', due_date: '2024-02-01' } });
        expectStatus(ms, 201);
        const i1 = await src.api('POST', `/projects/${p.id}/issues`, { token: alice.token, body: { title: `${name} first`, description: 'by alice', labels: `bug,${name}-only`, milestone_id: ms.body.id } });
        expectStatus(i1, 201);
        const i2 = await src.api('POST', `/projects/${p.id}/issues`, { token: bob.token, body: { title: `${name} second`, description: 'by bob', labels: 'feature' } });
        expectStatus(i2, 201);
        expectStatus(await src.api('POST', `/projects/${p.id}/issues/${i1.body.iid}/notes`, { token: bob.token, body: { body: 'bob says hi' } }), 201);
        expectStatus(await src.api('POST', `/projects/${p.id}/issues/${i1.body.iid}/notes`, { token: alice.token, body: { body: 'alice answers' } }), 201);
        expectStatus(await src.api('PUT', `/projects/${p.id}/issues/${i2.body.iid}`, { body: { state_event: 'close' } }), 200);
      }
      // app: a release with links and a milestone, a schedule with a variable, reactions.
      const app = projects.app;
      await commitFiles(src, app.id, 'main', { 'README.md': 'hello' });
      expectStatus(await src.api('POST', `/projects/${app.id}/releases`, { body: { tag_name: 'v1.0', ref: 'main', name: 'First', description: 'notes', milestones: ['app v1'], assets: { links: [{ name: 'bin', url: 'https://example.com/bin', link_type: 'package' }] } } }), 201);
      await commitFiles(src, app.id, 'feature', { 'src/a.ts': 'export {}' }, { startBranch: 'main' });
      const mr = await src.api('POST', `/projects/${app.id}/merge_requests`, { token: alice.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Add a', labels: 'feature', milestone_id: undefined } });
      expectStatus(mr, 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/merge_requests/${mr.body.iid}/notes`, { token: bob.token, body: { body: 'looks good' } }), 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/merge_requests/${mr.body.iid}/award_emoji`, { token: alice.token, body: { name: 'rocket' } }), 201);
      nupkgFile = await nupkg({ id: 'Acme.Lib', version: '1.2.3', description: 'a lib' }, { payload: Buffer.from('payload bytes') });
      expectStatus(await putPackage(src, `/projects/${app.id}/packages/nuget`, nupkgFile, { Authorization: basic('root', src.rootToken) }), 201);
      const sched = await src.api('POST', `/projects/${app.id}/pipeline_schedules`, { body: { description: 'nightly', ref: 'main', cron: '0 1 * * *' } });
      expectStatus(sched, 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/pipeline_schedules/${sched.body.id}/variables`, { body: { key: 'TOKEN', value: 's3cret' } }), 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/issues/1/award_emoji`, { token: alice.token, body: { name: 'thumbsup' } }), 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/issues/1/award_emoji`, { token: bob.token, body: { name: 'heart' } }), 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/snippets`, { token: alice.token, body: { title: 'snip', file_name: 'a.txt', content: 'hello snippet', visibility: 'private' } }), 201);
      expectStatus(await src.api('POST', `/projects/${app.id}/protected_branches`, { body: { name: 'release/*', push_access_level: 30, merge_access_level: 40, allow_force_push: true } }), 201);
      // A manual iteration cadence with two iterations.
      const cadence = await src.api('POST', `/forgelet/groups/${acme.id}/iteration_cadences`, { body: { title: 'Sprints', automatic: false, start_date: '2024-01-01' } });
      expectStatus(cadence, 201);
      for (const [start, due] of [['2024-01-01', '2024-01-14'], ['2024-01-15', '2024-01-28']]) {
        expectStatus(await src.api('POST', `/forgelet/groups/${acme.id}/iterations`, { body: { cadence_id: cadence.body.id, start_date: start, due_date: due } }), 201);
      }
      await createGroup(dst, dst.rootToken, { name: 'Landing', path: 'landing' });
    });

    after(async () => {
      await Promise.all([src?.stop(), dst?.stop()]);
    });

    const body = (over: Record<string, unknown> = {}, entity: Record<string, unknown> = {}) => ({
      configuration: { url: src.url, access_token: src.rootToken },
      entities: [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme-copy', destination_namespace: 'landing', ...entity }],
      ...over,
    });

    it('refuses bad starts with 400/422 and creates nothing', async () => {
      const cases: [unknown, number, unknown][] = [
        [{ entities: body().entities }, 400, undefined],
        [body({}, { source_type: 'repo_entity' }), 400, undefined],
        [body({ configuration: { url: `${src.url}/some/path`, access_token: src.rootToken } }), 422, { message: 'Invalid source URL. Enter only the base URL of the source GitLab instance.' }],
        [body({ configuration: { url: src.url, access_token: 'glpat-wrong' } }), 422, { message: TOKEN_MESSAGE }],
        [body({}, { destination_namespace: 'nowhere' }), 422, { message: "Import failed. Destination 'nowhere' is invalid, or you don't have permission." }],
        [body({}, { destination_namespace: 'root' }), 422, { message: "Import failed. Destination 'root' is invalid, or you don't have permission." }],
        [body({}, { destination_slug: 'landing', destination_namespace: '' }), 422, { message: "Import aborted as 'landing' already exists. Change the destination and try again." }],
        [body({}, { source_full_path: 'acme/missing' }), 422, { message: "Import failed. 'acme/missing' not found." }],
        [body({}, { source_type: 'project_entity', source_full_path: 'acme/app', destination_namespace: '' }), 422, { message: "Import failed. Destination '' is invalid, or you don't have permission." }],
      ];
      for (const [b, status, expected] of cases) {
        const r = await dst.api('POST', '/bulk_imports', { body: b });
        expectStatus(r, status);
        if (expected) assert.deepEqual(r.body, expected);
      }
      // A token without api scope on the source.
      const readOnly = await src.createUser('reader', { scopes: ['read_api'] });
      const r = await dst.api('POST', '/bulk_imports', { body: body({ configuration: { url: src.url, access_token: readOnly.token } }) });
      expectStatus(r, 422);
      assert.deepEqual(r.body, { message: TOKEN_MESSAGE });
      assert.deepEqual(await all(dst, '/bulk_imports'), []);
      assert.deepEqual(await all(dst, '/bulk_imports/entities'), []);
    });

    it('serves relation exports as gzipped NDJSON (batched) to an owner only', async () => {
      const p = projects.app;
      const outsider = await src.createUser('outsider');
      expectStatus(await src.api('POST', `/projects/${p.id}/export_relations`, { token: outsider.token }), 404);
      expectStatus(await src.api('GET', `/projects/${p.id}/export_relations/status`, { token: outsider.token }), 404);
      const start = await src.api('POST', `/projects/${p.id}/export_relations?batched=true`);
      expectStatus(start, 202);
      const status = await src.api('GET', `/projects/${p.id}/export_relations/status?relation=issues`);
      expectStatus(status, 200);
      assert.equal(status.body.status, 1);
      assert.equal(status.body.total_objects_count, 2);
      const dl = await fetch(`${src.url}/api/v4/projects/${p.id}/export_relations/download?relation=issues&batched=true&batch_number=1`, { headers: { 'PRIVATE-TOKEN': src.rootToken } });
      assert.equal(dl.status, 200);
      const { gunzipSync } = await import('node:zlib');
      const lines = gunzipSync(Buffer.from(await dl.arrayBuffer())).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => l.title), ['app first', 'app second']);
      // GitLab's record shapes: users by id, notes with their author's name, nested label and milestone.
      assert.equal(lines[0].author_id, alice.id);
      assert.equal(lines[0].milestone.title, 'app v1');
      assert.deepEqual(lines[0].notes.map((n: any) => [n.note, n.author_id, n.author.name, n.noteable_type]), [['bob says hi', bob.id, 'bob', 'Issue'], ['alice answers', alice.id, 'alice', 'Issue']]);
      assert.deepEqual(lines[0].label_links.map((l: any) => [l.target_type, l.label.title, l.label.type]).sort(), [['Issue', 'app-only', 'ProjectLabel'], ['Issue', 'bug', 'GroupLabel']]);
      assert.deepEqual(lines[0].award_emoji.map((e: any) => [e.name, e.user_id]), [['thumbsup', alice.id], ['heart', bob.id]]);
      assert.deepEqual(lines[1].resource_state_events.map((e: any) => e.state), ['closed']);
      assert.deepEqual(Object.keys(status.body).sort(), ['batched', 'batches', 'batches_count', 'error', 'relation', 'status', 'total_objects_count', 'updated_at']);
      assert.deepEqual(status.body.batches.map((b: any) => [b.batch_number, b.status, b.objects_count]), [[1, 1, 2]]);
      // `self`: the project's attributes, one record, never batched.
      const self = await src.api('GET', `/projects/${p.id}/export_relations/status?relation=self`);
      assert.deepEqual([self.body.batched, self.body.batches_count, self.body.total_objects_count], [false, 0, 1]);
      // Unknown relations answer as GitLab: a project download validates the name, the rest has no such export.
      const bad = await src.api('GET', `/projects/${p.id}/export_relations/download?relation=secrets`);
      expectStatus(bad, 400);
      assert.deepEqual(bad.body, { error: 'relation is not portable' });
      const none = await src.api('GET', `/projects/${p.id}/export_relations/status?relation=secrets`);
      expectStatus(none, 404);
      assert.deepEqual(none.body, { message: 'Export not found' });
      const groupBad = await src.api('GET', `/groups/acme/export_relations/download?relation=secrets`);
      expectStatus(groupBad, 404);
      assert.deepEqual(groupBad.body, { message: 'Export not found' });
      const half = await src.api('GET', `/projects/${p.id}/export_relations/download?relation=issues&batched=true`);
      expectStatus(half, 400);
      assert.deepEqual(half.body, { error: 'batched, batch_number provide all or none of parameters' });
      // A whole-relation download is streamed page by page (no Content-Length) and holds every record.
      const whole = await fetch(`${src.url}/api/v4/projects/${p.id}/export_relations/download?relation=issues`, { headers: { 'PRIVATE-TOKEN': src.rootToken } });
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-length'), null);
      const wholeLines = gunzipSync(Buffer.from(await whole.arrayBuffer())).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(wholeLines.map((l) => l.title), ['app first', 'app second']);
      // Packages: a file's bytes are not in its record; the destination streams them from the file route.
      const pk = await fetch(`${src.url}/api/v4/projects/${p.id}/export_relations/download?relation=packages`, { headers: { 'PRIVATE-TOKEN': src.rootToken } });
      const [pkg] = gunzipSync(Buffer.from(await pk.arrayBuffer())).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      const [file] = pkg.files;
      assert.equal(file.content, undefined);
      assert.match(file.download_path, new RegExp(`^/projects/${p.id}/export_relations/package_files/\\d+$`));
      const bytes = await getRaw(src, file.download_path, { 'PRIVATE-TOKEN': src.rootToken });
      assert.equal(bytes.status, 200);
      assert.ok(bytes.bytes.equals(nupkgFile));
      expectStatus(await src.api('GET', file.download_path, { token: outsider.token }), 404);
      const other = await createProject(src, src.rootToken, { name: 'no-packages', path: 'no-packages' });
      expectStatus(await src.api('POST', `/projects/${other.id}/export_relations`), 202);
      const elsewhere = await src.api('GET', `/projects/${other.id}/export_relations/package_files/${file.download_path.split('/').pop()}`);
      expectStatus(elsewhere, 404);
      assert.deepEqual(elsewhere.body, { message: '404 Package file Not Found' });
    });

    it('copies a group with subgroups, projects, labels, milestones, issues and notes', async () => {
      const start = await dst.api('POST', '/bulk_imports', { body: body() });
      expectStatus(start, 201);
      assert.equal(start.body.status, 'created');
      assert.equal(start.body.source_type, 'gitlab');
      assert.equal(start.body.source_url, src.url);
      assert.equal(start.body.has_failures, false);
      const done = await waitFor(dst, start.body.id);
      assert.equal(done.status, 'finished', JSON.stringify(await all(dst, `/bulk_imports/${start.body.id}/entities`)));
      assert.deepEqual(Object.keys(done).sort(), ['created_at', 'has_failures', 'id', 'source_type', 'source_url', 'status', 'updated_at']);
      const entities = await all(dst, `/bulk_imports/${start.body.id}/entities?sort=asc`);
      // Sibling subgroups run side by side: their projects' entities appear in either order.
      const byPath = [...entities].sort((a, b) => (a.entity_type === b.entity_type ? a.source_full_path.localeCompare(b.source_full_path) : a.entity_type === 'group' ? -1 : 1));
      assert.deepEqual(byPath.map((e) => [e.entity_type, e.source_full_path, e.destination_full_path, e.status]), [
        ['group', 'acme', 'landing/acme-copy', 'finished'],
        ['group', 'acme/one', 'landing/acme-copy/one', 'finished'],
        ['group', 'acme/two', 'landing/acme-copy/two', 'finished'],
        ['project', 'acme/app', 'landing/acme-copy/app', 'finished'],
        ['project', 'acme/one/lib', 'landing/acme-copy/one/lib', 'finished'],
        ['project', 'acme/two/web', 'landing/acme-copy/two/web', 'finished'],
      ]);
      const root = entities[0];
      assert.equal(root.destination_name, 'Acme Corp');
      assert.equal(root.parent_id, null);
      assert.equal(entities[1].parent_id, root.id);
      assert.deepEqual(root.failures, []);
      assert.equal(root.has_failures, false);
      assert.deepEqual(root.stats, {
        subgroups: { source: 2, fetched: 2, imported: 2 },
        labels: { source: 2, fetched: 2, imported: 2 },
        milestones: { source: 2, fetched: 2, imported: 2 },
        // root (same email on both) and alice map; bob has no account on the destination.
        members: { source: 3, fetched: 3, imported: 2 },
        iterations_cadences: { source: 1, fetched: 1, imported: 1 },
        epics: { source: 2, fetched: 2, imported: 2 },
        projects: { source: 1, fetched: 1, imported: 1 },
      });
      assert.deepEqual(entities[1].stats.epics, { source: 1, fetched: 1, imported: 1 });
      assert.deepEqual(entities[1].stats.iterations_cadences, { source: 0, fetched: 0, imported: 0 });
      for (const e of entities.slice(3)) {
        const n = e.source_full_path === 'acme/app' ? 1 : 0;
        // app's repository, from its bundle: its refs (branches main and feature, tag v1.0).
        assert.deepEqual(e.stats.repository, { source: 3 * n, fetched: 3 * n, imported: 3 * n });
        delete e.stats.repository;
        assert.deepEqual(e.stats.merge_requests, { source: n, fetched: n, imported: n });
        delete e.stats.merge_requests;
        assert.deepEqual(e.stats.packages, { source: n, fetched: n, imported: n });
        delete e.stats.packages;
        assert.deepEqual(e.stats, {
          labels: { source: 1, fetched: 1, imported: 1 },
          milestones: { source: 1, fetched: 1, imported: 1 },
          members: { source: 0, fetched: 0, imported: 0 },
          issues: { source: 2, fetched: 2, imported: 2 },
          releases: { source: n, fetched: n, imported: n },
          snippets: { source: n, fetched: n, imported: n },
          protected_branches: { source: 2 * n, fetched: 2 * n, imported: 2 * n },
          pipeline_schedules: { source: n, fetched: n, imported: n },
        });
        assert.ok(e.project_id);
      }
      // Epics with their hierarchy, labels and authors.
      const dEpics = await all(dst, `/groups/${enc('landing/acme-copy')}/epics?sort=asc&order_by=created_at&include_descendant_groups=false`);
      assert.deepEqual(dEpics.map((e) => [e.iid, e.title, e.labels, e.author.username]), [[1, 'E1', ['bug'], 'alice'], [2, 'E2', [], 'root']]);
      assert.equal(dEpics[1].parent_id, dEpics[0].id);
      assert.match(dEpics[1].description, /\*By bob on .* \(imported from GitLab\)\*$/);
      const subEpics = await all(dst, `/groups/${enc('landing/acme-copy/one')}/epics?include_ancestor_groups=false`);
      assert.deepEqual(subEpics.map((e) => [e.title, e.parent_id]), [['E3', dEpics[0].id]]);
      // Members mapped by email; bob is not added.
      const members = await all(dst, `/groups/${enc('landing/acme-copy')}/members`);
      assert.deepEqual(members.map((m) => [m.username, m.access_level]).sort(), [['alice', 40], ['root', 50]]);
      // Read-backs equal the source.
      const g = await dst.api('GET', `/groups/${enc('landing/acme-copy')}`);
      expectStatus(g, 200);
      assert.equal(g.body.name, 'Acme Corp');
      assert.equal(g.body.description, 'the top');
      const strip = (l: any) => ({ name: l.name, color: l.color, description: l.description });
      assert.deepEqual((await all(dst, `/groups/${enc('landing/acme-copy')}/labels`)).map(strip), (await all(src, '/groups/acme/labels')).map(strip));
      const ms = (m: any) => ({ iid: m.iid, title: m.title, state: m.state, due_date: m.due_date, start_date: m.start_date });
      assert.deepEqual((await all(dst, `/groups/${enc('landing/acme-copy')}/milestones`)).map(ms), (await all(src, '/groups/acme/milestones')).map(ms));
      for (const [name, path] of [['app', 'acme/app'], ['lib', 'acme/one/lib'], ['web', 'acme/two/web']]) {
        const dpath = `landing/acme-copy/${path.slice('acme/'.length)}`;
        const dp = await dst.api('GET', `/projects/${enc(dpath)}`);
        expectStatus(dp, 200);
        assert.equal(dp.body.name, name.toUpperCase());
        assert.equal(dp.body.description, `${name} project`);
        assert.equal(dp.body.open_issues_count, 1, 'of the imported issues, the open one counts');
        assert.deepEqual((await all(dst, `/projects/${enc(dpath)}/labels?include_ancestor_groups=false`)).map(strip), (await all(src, `/projects/${enc(path)}/labels?include_ancestor_groups=false`)).map(strip));
        assert.deepEqual((await all(dst, `/projects/${enc(dpath)}/milestones`)).map(ms), (await all(src, `/projects/${enc(path)}/milestones`)).map(ms));
        const iss = (i: any) => ({ iid: i.iid, title: i.title, state: i.state, labels: [...i.labels].sort(), milestone: i.milestone?.title ?? null, created_at: i.created_at });
        const dIssues = await all(dst, `/projects/${enc(dpath)}/issues?sort=asc`);
        assert.deepEqual(dIssues.map(iss), (await all(src, `/projects/${enc(path)}/issues?sort=asc`)).map(iss));
        // alice exists on both (same email): hers; bob does not: the importer's, with the original author noted.
        assert.equal(dIssues[0].author.id, dstAlice.id);
        assert.equal(dIssues[0].description, 'by alice');
        assert.equal(dIssues[1].author.username, 'root');
        assert.match(dIssues[1].description, /^by bob\n\n \*By bob on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \(imported from GitLab\)\*$/);
        const notes = await all(dst, `/projects/${enc(dpath)}/issues/${dIssues[0].iid}/notes?sort=asc`);
        const srcNotes = await all(src, `/projects/${enc(path)}/issues/${dIssues[0].iid}/notes?sort=asc`);
        assert.equal(notes.length, srcNotes.length);
        assert.deepEqual(notes.filter((n) => !n.system).map((n) => [n.author.username, n.body.split('\n')[0]]), [['root', 'bob says hi'], ['alice', 'alice answers']]);
        // New issues continue after the imported iids.
        const next = await dst.api('POST', `/projects/${enc(dpath)}/issues`, { body: { title: 'new' } });
        expectStatus(next, 201);
        assert.equal(next.body.iid, 3);
      }
      // app's release (links, milestone), inactive schedule with its variable, reactions of mapped users.
      const appPath = enc('landing/acme-copy/app');
      const db = dst.forge.deps.db;
      const dApp = await db.selectFrom('projects').select('id').where('path_with_namespace', '=', 'landing/acme-copy/app').executeTakeFirstOrThrow();
      const rel = await db.selectFrom('releases').selectAll().where('project_id', '=', dApp.id).execute();
      assert.deepEqual(rel.map((r) => [r.tag_name, r.name, r.description]), [['v1.0', 'First', 'notes']]);
      const links = await db.selectFrom('release_links').selectAll().where('release_id', '=', rel[0]!.id).execute();
      assert.deepEqual(links.map((l) => [l.name, l.url, l.link_type]), [['bin', 'https://example.com/bin', 'package']]);
      const relMs = await db.selectFrom('release_milestones as rm').innerJoin('milestones as m', 'm.id', 'rm.milestone_id').select('m.title').where('rm.release_id', '=', rel[0]!.id).execute();
      assert.deepEqual(relMs.map((m) => m.title), ['app v1']);
      const schedules = await all(dst, `/projects/${appPath}/pipeline_schedules`);
      assert.deepEqual(schedules.map((x) => [x.description, x.ref, x.cron, x.active]), [['nightly', 'refs/heads/main', '0 1 * * *', false]]);
      const detail = await dst.api('GET', `/projects/${appPath}/pipeline_schedules/${schedules[0].id}`);
      assert.deepEqual(detail.body.variables.map((v: any) => [v.key, v.value]), [['TOKEN', 's3cret']]);
      const emoji = await all(dst, `/projects/${appPath}/issues/1/award_emoji`);
      assert.deepEqual(emoji.map((e) => [e.name, e.user.username]), [['thumbsup', 'alice']]);
      const events = await all(dst, `/projects/${appPath}/issues/2/resource_state_events`);
      assert.deepEqual(events.map((e) => e.state), ['closed']);
      // The repository: branches, tags, commits (same shas) and file contents.
      const srcApp = enc('acme/app');
      const strip2 = (b: any) => ({ name: b.name, sha: b.commit.id, message: b.commit.message });
      assert.deepEqual((await all(dst, `/projects/${appPath}/repository/branches`)).map(strip2), (await all(src, `/projects/${srcApp}/repository/branches`)).map(strip2));
      assert.deepEqual((await all(dst, `/projects/${appPath}/repository/tags`)).map(strip2), (await all(src, `/projects/${srcApp}/repository/tags`)).map(strip2));
      // Dates to the second: git keeps seconds (the destination's index is built from git; the
      // source's API-written index row kept the write's milliseconds).
      const commit = (c: any) => ({ id: c.id, parent_ids: c.parent_ids, title: c.title, author_email: c.author_email, authored_date: c.authored_date.replace(/\.\d{3}Z$/, 'Z') });
      assert.deepEqual((await all(dst, `/projects/${appPath}/repository/commits`)).map(commit), (await all(src, `/projects/${srcApp}/repository/commits`)).map(commit));
      const file = await fetch(`${dst.url}/api/v4/projects/${appPath}/repository/files/README.md/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': dst.rootToken } });
      assert.equal(file.status, 200);
      assert.equal(await file.text(), 'hello');
      // A write after the import lands on top of the imported head.
      const dstApp = (await dst.api('GET', `/projects/${appPath}`)).body;
      const headBefore = (await dst.api('GET', `/projects/${appPath}/repository/branches/main`)).body.commit.id;
      const written = await dst.api('POST', `/projects/${appPath}/repository/commits`, { body: { branch: 'main', commit_message: 'After import', actions: [{ action: 'create', file_path: 'after.txt', content: 'x' }] } });
      expectStatus(written, 201);
      const dstRepo = dst.forge.deps.git.dir(dstApp.id);
      const gitOut = (args: string[]) => execFileSync('git', args, { cwd: dstRepo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
      const headAfterReplay = (await dst.api('GET', `/projects/${appPath}/repository/commits/${written.body.id}`)).body.parent_ids[0];
      assert.equal(gitOut(['rev-parse', 'main^']).trim(), headAfterReplay);
      assert.equal(gitOut(['log', '-1', '--format=%s', 'main^']).trim(), (await src.api('GET', `/projects/${srcApp}/repository/commits/${headBefore}`)).body.title);
      assert.equal(gitOut(['show', 'main:README.md']), 'hello');
      assert.equal(gitOut(['fsck', '--no-dangling']).trim(), '');
      const dRelease = await dst.api('GET', `/projects/${appPath}/releases/v1.0`);
      expectStatus(dRelease, 200);
      const sRelease = await src.api('GET', `/projects/${srcApp}/releases/v1.0`);
      const relOf = (r: any) => ({ name: r.name, tag_name: r.tag_name, description: r.description, created_at: r.created_at, released_at: r.released_at, sha: r.commit.id, milestones: r.milestones.map((m: any) => m.title), links: r.assets.links.map((l: any) => [l.name, l.url, l.link_type]) });
      assert.deepEqual(relOf(dRelease.body), relOf(sRelease.body));
      const mrOf = (m: any) => ({ iid: m.iid, title: m.title, state: m.state, source_branch: m.source_branch, target_branch: m.target_branch, sha: m.sha, labels: m.labels, author: m.author.username, created_at: m.created_at });
      const dMrs = await all(dst, `/projects/${appPath}/merge_requests`);
      assert.deepEqual(dMrs.map(mrOf), (await all(src, `/projects/${srcApp}/merge_requests`)).map(mrOf));
      const mrNotes = await all(dst, `/projects/${appPath}/merge_requests/1/notes`);
      assert.deepEqual(mrNotes.filter((x) => !x.system).map((x) => [x.author.username, x.body.split('\n')[0]]), [['root', 'looks good']]);
      assert.deepEqual((await all(dst, `/projects/${appPath}/merge_requests/1/award_emoji`)).map((x) => [x.name, x.user.username]), [['rocket', 'alice']]);
      const tree = await all(dst, `/projects/${appPath}/repository/tree?ref=feature&recursive=true`);
      assert.deepEqual(tree.filter((t) => t.type === 'blob').map((t) => t.path).sort(), ['README.md', 'src/a.ts']);
      const pkgOf = (x: any) => ({ name: x.name, version: x.version, package_type: x.package_type, status: x.status, created_at: x.created_at });
      assert.deepEqual((await all(dst, `/projects/${appPath}/packages`)).map(pkgOf), (await all(src, `/projects/${srcApp}/packages`)).map(pkgOf));
      const nupkgBack = await getRaw(dst, `/projects/${appPath}/packages/nuget/download/acme.lib/1.2.3/acme.lib.1.2.3.nupkg`, { Authorization: basic('root', dst.rootToken) });
      assert.equal(nupkgBack.status, 200);
      assert.ok(nupkgBack.bytes.equals(nupkgFile));
      // the imported file's digests are computed from its bytes, as on upload
      const [dPkg] = await all(dst, `/projects/${appPath}/packages`);
      const digest = (algo: string) => createHash(algo).update(nupkgFile).digest('hex');
      assert.deepEqual(
        (await all(dst, `/projects/${appPath}/packages/${dPkg.id}/package_files`)).map((x) => [x.file_name, x.size, x.file_md5, x.file_sha1, x.file_sha256]),
        [['acme.lib.1.2.3.nupkg', nupkgFile.length, digest('md5'), digest('sha1'), digest('sha256')]],
      );
      const snippets = await all(dst, `/projects/${appPath}/snippets`);
      assert.deepEqual(snippets.map((x) => [x.title, x.file_name, x.author.username]), [['snip', 'a.txt', 'alice']]);
      const raw = await fetch(`${dst.url}/api/v4/projects/${appPath}/snippets/${snippets[0].id}/raw`, { headers: { 'PRIVATE-TOKEN': dst.rootToken } });
      assert.equal(await raw.text(), 'hello snippet');
      const pbs = (p: any) => ({ name: p.name, push: p.push_access_levels.map((l: any) => l.access_level), merge: p.merge_access_levels.map((l: any) => l.access_level), force: p.allow_force_push });
      assert.deepEqual((await all(dst, `/projects/${appPath}/protected_branches`)).map(pbs), (await all(src, `/projects/${enc('acme/app')}/protected_branches`)).map(pbs));
      const its = (i: any) => ({ iid: i.iid, sequence: i.sequence, start_date: i.start_date, due_date: i.due_date, title: i.title });
      assert.deepEqual((await all(dst, `/groups/${enc('landing/acme-copy')}/iterations`)).map(its), (await all(src, '/groups/acme/iterations')).map(its));
      assert.equal((await all(dst, `/groups/${enc('landing/acme-copy')}/iterations`)).length, 2);
      // Lists with filters and one entity.
      assert.equal((await all(dst, '/bulk_imports?status=finished')).length, 1);
      assert.equal((await all(dst, '/bulk_imports?status=started')).length, 0);
      assert.equal((await all(dst, '/bulk_imports/entities?status=finished')).length, 6);
      const one = await dst.api('GET', `/bulk_imports/${start.body.id}/entities/${root.id}`);
      expectStatus(one, 200);
      assert.deepEqual(one.body, root);
      expectStatus(await dst.api('GET', `/bulk_imports/${start.body.id}/entities/999999`), 404);
      const missing = await dst.api('GET', '/bulk_imports/999999');
      expectStatus(missing, 404);
      assert.deepEqual(missing.body, { message: '404 Not found' });
      // Another user sees none of root's migrations.
      const stranger = await dst.createUser('stranger');
      expectStatus(await dst.api('GET', `/bulk_imports/${start.body.id}`, { token: stranger.token }), 404);
      assert.deepEqual((await dst.api('GET', '/bulk_imports', { token: stranger.token })).body, []);
      expectStatus(await dst.api('POST', '/bulk_imports/999999/cancel'), 404);
      // The source token is stored sealed.
      const row = await dst.forge.deps.db.selectFrom('bulk_imports').selectAll().where('id', '=', start.body.id).executeTakeFirstOrThrow();
      assert.ok(!row.source_token_encrypted.includes(src.rootToken));
      assert.equal(dst.forge.deps.secrets.decrypt(row.source_token_encrypted), src.rootToken);
    });

    it('records a relation failing on the source (500 on its export) and imports the rest', async () => {
      const fault = await src.api('POST', '/forgelet/faults', { body: { method: 'GET', path: "/projects/acme%2Ftwo%2Fweb/export_relations/download", status: 500, times: 1 } });
      expectStatus(fault, 201);
      const start = await dst.api('POST', '/bulk_imports', { body: { configuration: { url: src.url, access_token: src.rootToken }, entities: [{ source_type: 'project_entity', source_full_path: 'acme/two/web', destination_slug: 'web-copy', destination_namespace: 'landing' }] } });
      expectStatus(start, 201);
      const done = await waitFor(dst, start.body.id);
      assert.equal(done.status, 'finished');
      assert.equal(done.has_failures, true, JSON.stringify([await all(dst, `/bulk_imports/${start.body.id}/entities`), (await src.api('GET', '/forgelet/faults')).body]));
      const [entity] = await all(dst, `/bulk_imports/${start.body.id}/entities`);
      assert.equal(entity.status, 'finished');
      assert.equal(entity.has_failures, true);
      assert.equal(entity.failures.length, 1);
      const failure = entity.failures[0];
      // web's repository is empty (no batch to download): its first download is its labels'.
      assert.equal(failure.relation, 'labels');
      assert.equal(failure.step, 'extractor');
      assert.equal(failure.exception_class, 'BulkImports::NetworkError');
      assert.equal(failure.pipeline_class, 'BulkImports::Common::Pipelines::LabelsPipeline');
      assert.equal(failure.pipeline_step, 'extractor');
      assert.match(failure.created_at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(failure.exception_message, `Unsuccessful response 500 from /api/v4/projects/acme%2Ftwo%2Fweb/export_relations/download Body: {"message":"500 Internal Server Error"}`.slice(0, 72));
      assert.ok(failure.exception_message.length <= 72);
      assert.deepEqual(entity.stats.milestones, { source: 1, fetched: 1, imported: 1 });
      assert.deepEqual(entity.stats.issues, { source: 2, fetched: 2, imported: 2 });
      assert.deepEqual(entity.stats.labels, { source: 1, fetched: 0, imported: 0 });
      assert.deepEqual(entity.stats.repository, { source: 0, fetched: 0, imported: 0 });
      const failures = await dst.api('GET', `/bulk_imports/${start.body.id}/entities/${entity.id}/failures`);
      expectStatus(failures, 200);
      assert.deepEqual(failures.body, [{ relation: 'labels', exception_message: failure.exception_message, exception_class: 'BulkImports::NetworkError', correlation_id_value: null, source_url: `${src.url}/acme/two/web`, source_title: null }]);
      assert.equal((await all(dst, `/projects/${enc('landing/web-copy')}/issues`)).length, 2);
    });

    it('accepts a form body with entities[][...] fields (and the deprecated destination_name)', async () => {
      const form = new URLSearchParams();
      form.append('configuration[url]', src.url);
      form.append('configuration[access_token]', src.rootToken);
      form.append('entities[][source_type]', 'project_entity');
      form.append('entities[][source_full_path]', 'acme/app');
      form.append('entities[][destination_name]', 'app-form');
      form.append('entities[][destination_namespace]', 'landing');
      form.append('entities[][migrate_memberships]', 'false');
      const r = await dst.api('POST', '/bulk_imports', { raw: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expectStatus(r, 201);
      const done = await waitFor(dst, r.body.id);
      assert.equal(done.status, 'finished');
      const [entity] = await all(dst, `/bulk_imports/${r.body.id}/entities`);
      assert.equal(entity.destination_full_path, 'landing/app-form');
      assert.equal(entity.destination_slug, 'app-form');
      assert.equal(entity.migrate_memberships, false);
      assert.equal((await all(dst, `/projects/${enc('landing/app-form')}/issues`)).length, 2);
    });

    it('cancel ends the migration and its entities as canceled with no further writes', async () => {
      // Slow source answers keep the migration running while it is canceled.
      expectStatus(await src.api('POST', '/forgelet/faults', { body: { path: '/groups/**', latency_ms: 400 } }), 201);
      const start = await dst.api('POST', '/bulk_imports', { body: body({}, { destination_slug: 'acme-canceled' }) });
      expectStatus(start, 201);
      await waitFor(dst, start.body.id, ['started']);
      const cancel = await dst.api('POST', `/bulk_imports/${start.body.id}/cancel`);
      expectStatus(cancel, 200);
      assert.equal(cancel.body.status, 'canceled');
      assert.deepEqual(Object.keys(cancel.body).sort(), ['created_at', 'has_failures', 'id', 'source_type', 'status', 'updated_at']);
      await new Promise((r) => setTimeout(r, 2000));
      const after = await dst.api('GET', `/bulk_imports/${start.body.id}`);
      assert.equal(after.body.status, 'canceled');
      const entities = await all(dst, `/bulk_imports/${start.body.id}/entities`);
      assert.ok(entities.every((e) => e.status === 'canceled'), JSON.stringify(entities.map((e) => e.status)));
      const projectsNow = await dst.forge.deps.db.selectFrom('projects').select('id').where('path_with_namespace', 'like', 'landing/acme-canceled%').execute();
      assert.equal(projectsNow.length, 0);
      await src.api('DELETE', '/forgelet/faults');
    });
  });
}
