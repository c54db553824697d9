/**
 * Direct transfer from a GitLab: a fake GitLab 17 source (test/support/bulk-imports.ts) serves
 * REST answers and relation exports in GitLab's formats (status polled until finished, gzipped
 * NDJSON batches, fixtures in test/fixtures/gitlab-export/ taken from GitLab's own spec
 * fixtures). The group, its subgroup and project, labels, milestones, epics (parents across
 * groups, state events), iterations, issues (notes, emoji, state events, assignees), a merge
 * request, a release with links, a snippet, a protected branch and a schedule read back equal
 * through Forgelet's API; users map by email; Forgelet-only relations are nothing to import.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { FAKE_GITLAB_TOKEN, startFakeGitLab, type FakeGitLab } from '../support/bulk-imports.js';
import { createGroup, expectStatus } from './http.js';

const enc = encodeURIComponent;

async function all(f: TestForgelet, path: string): Promise<any[]> {
  const r = await f.api('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100`);
  expectStatus(r, 200);
  return r.body;
}

async function waitFor(f: TestForgelet, id: number, timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await f.api('GET', `/bulk_imports/${id}`);
    expectStatus(r, 200);
    if (['finished', 'failed', 'canceled'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`migration ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const by = (key: string) => (a: any, b: any) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0);

for (const dialect of DIALECTS) {
  describe(`${dialect}: bulk imports from a GitLab source`, () => {
    let dst: TestForgelet;
    let gitlab: FakeGitLab;
    let alice: { id: number };
    let importId: number;
    const G = enc('landing/gl-copy');
    const P = enc('landing/gl-copy/gl-project');

    before(async () => {
      [dst, gitlab] = await Promise.all([startTestServer(dialect), startFakeGitLab({ batchSize: 2 })]);
      // alice@example.com is alice's public email on the source; bob and the source's root have no account here.
      alice = await dst.createUser('alice');
      await createGroup(dst, dst.rootToken, { name: 'Landing', path: 'landing' });
      const start = await dst.api('POST', '/bulk_imports', {
        body: { configuration: { url: gitlab.url, access_token: FAKE_GITLAB_TOKEN }, entities: [{ source_type: 'group_entity', source_full_path: 'gl-group', destination_slug: 'gl-copy', destination_namespace: 'landing' }] },
      });
      expectStatus(start, 201);
      importId = start.body.id;
    });

    after(async () => {
      await Promise.all([dst?.stop(), gitlab?.stop()]);
    });

    it('finishes every entity and relation with source = fetched = imported', async () => {
      const done = await waitFor(dst, importId);
      const entities = await all(dst, `/bulk_imports/${importId}/entities?sort=asc`);
      assert.equal(done.status, 'finished', JSON.stringify(entities));
      assert.equal(done.has_failures, false);
      assert.deepEqual(entities.map((e) => [e.entity_type, e.source_full_path, e.destination_full_path, e.status, e.failures.length]), [
        ['group', 'gl-group', 'landing/gl-copy', 'finished', 0],
        ['group', 'gl-group/platform', 'landing/gl-copy/platform', 'finished', 0],
        ['project', 'gl-group/gl-project', 'landing/gl-copy/gl-project', 'finished', 0],
      ]);
      const [root, sub, project] = entities;
      assert.equal(root.destination_name, 'GitLab Group');
      assert.deepEqual(root.stats, {
        subgroups: { source: 1, fetched: 1, imported: 1 },
        labels: { source: 2, fetched: 2, imported: 2 },
        milestones: { source: 2, fetched: 2, imported: 2 },
        // alice maps by her public email; bob has no account here.
        members: { source: 2, fetched: 2, imported: 1 },
        iterations_cadences: { source: 1, fetched: 1, imported: 1 },
        epics: { source: 2, fetched: 2, imported: 2 },
        projects: { source: 1, fetched: 1, imported: 1 },
      });
      assert.deepEqual(sub.stats.labels, { source: 0, fetched: 0, imported: 0 });
      assert.deepEqual(sub.stats.epics, { source: 1, fetched: 1, imported: 1 });
      assert.deepEqual(project.stats, {
        // Forgelet's own relations: a GitLab does not export them (400 "relation is not portable").
        repository: { source: 0, fetched: 0, imported: 0 },
        packages: { source: 0, fetched: 0, imported: 0 },
        labels: { source: 1, fetched: 1, imported: 1 },
        milestones: { source: 1, fetched: 1, imported: 1 },
        members: { source: 1, fetched: 1, imported: 1 },
        issues: { source: 3, fetched: 3, imported: 3 },
        merge_requests: { source: 1, fetched: 1, imported: 1 },
        releases: { source: 1, fetched: 1, imported: 1 },
        snippets: { source: 1, fetched: 1, imported: 1 },
        protected_branches: { source: 1, fetched: 1, imported: 1 },
        pipeline_schedules: { source: 1, fetched: 1, imported: 1 },
      });
      // The exports were requested once per entity, issues polled until finished and downloaded in two batches.
      const reqs = gitlab.requests;
      assert.equal(reqs.filter((r) => r === 'POST /api/v4/projects/gl-group%2Fgl-project/export_relations?batched=true').length, 1);
      assert.ok(reqs.filter((r) => r === 'GET /api/v4/projects/gl-group%2Fgl-project/export_relations/status?relation=issues').length >= 2);
      assert.deepEqual(
        reqs.filter((r) => r.startsWith('GET /api/v4/projects/gl-group%2Fgl-project/export_relations/download?relation=issues')),
        ['GET /api/v4/projects/gl-group%2Fgl-project/export_relations/download?relation=issues&batched=true&batch_number=1', 'GET /api/v4/projects/gl-group%2Fgl-project/export_relations/download?relation=issues&batched=true&batch_number=2'],
      );
      // Empty exports (the subgroup's labels) have no batch to download.
      assert.ok(!reqs.some((r) => r.startsWith('GET /api/v4/groups/gl-group%2Fplatform/export_relations/download?relation=labels')));
    });

    it('reads back the group, its labels, milestones, members, epics and iterations', async () => {
      const group = await dst.api('GET', `/groups/${G}`);
      expectStatus(group, 200);
      assert.deepEqual([group.body.name, group.body.path, group.body.description, group.body.visibility], ['GitLab Group', 'gl-copy', 'Migrated from a GitLab', 'private']);
      const labels = await all(dst, `/groups/${G}/labels`);
      assert.deepEqual(labels.map((l) => [l.name, l.color, l.description ?? '']).sort(), [['Label 1', '#6699cc', 'Label 1'], ['backend', '#d9534f', '']]);
      const milestones = (await all(dst, `/groups/${G}/milestones`)).sort(by('iid'));
      assert.deepEqual(milestones.map((m) => [m.iid, m.title, m.state, m.start_date, m.due_date]), [[1, 'Group Milestone', 'active', '2021-04-01', '2021-06-30'], [2, 'Old Milestone', 'closed', null, null]]);
      const members = await all(dst, `/groups/${G}/members`);
      assert.deepEqual(members.map((m) => [m.username, m.access_level]).sort(), [['alice', 30], ['root', 50]]);

      const epics = (await all(dst, `/groups/${G}/epics?include_descendant_groups=false`)).sort(by('iid'));
      assert.deepEqual(epics.map((e) => [e.iid, e.title, e.state, e.author.username, e.labels, e.start_date_fixed, e.created_at]), [
        [1, 'Epic title', 'opened', 'alice', ['Label 1'], '2021-04-01', '2021-04-15T07:15:08.063Z'],
        [2, 'Closed child epic', 'closed', 'root', [], null, '2021-04-17T07:15:08.063Z'],
      ]);
      assert.equal(epics[1].parent_id, epics[0].id);
      assert.equal(epics[1].description, 'A child\n\n *By Bob Builder on 2021-04-17T07:15:08 (imported from GitLab)*');
      const events = await all(dst, `/groups/${G}/epics/${epics[1].id}/resource_state_events`);
      assert.deepEqual(events.map((e) => [e.state, e.user.username, e.created_at]), [['closed', 'alice', '2021-05-01T10:00:00.000Z']]);
      // The subgroup's epic keeps its parent in the group above.
      const subEpics = await all(dst, `/groups/${enc('landing/gl-copy/platform')}/epics`);
      assert.deepEqual(subEpics.map((e) => [e.title, e.parent_id]), [['Platform epic', epics[0].id]]);

      const iterations = (await all(dst, `/groups/${G}/iterations`)).sort(by('iid'));
      assert.deepEqual(iterations.map((i) => [i.iid, i.sequence, i.start_date, i.due_date, i.description]), [[1, 1, '2021-04-05', '2021-04-18', 'first'], [2, 2, '2021-04-19', '2021-05-02', 'second']]);
    });

    it('reads back the project, its issues with notes, emoji and state events, and its merge request', async () => {
      const project = await dst.api('GET', `/projects/${P}`);
      expectStatus(project, 200);
      assert.deepEqual([project.body.name, project.body.description, project.body.visibility, project.body.topics], ['GitLab Project', 'A project on GitLab', 'private', ['ruby']]);
      assert.deepEqual((await all(dst, `/projects/${P}/labels`)).filter((l) => l.is_project_label).map((l) => [l.name, l.color]), [['test2', '#428bca']]);
      assert.deepEqual((await all(dst, `/projects/${P}/milestones`)).map((m) => [m.iid, m.title, m.state]), [[5, 'v4.0', 'active']]);
      assert.deepEqual((await all(dst, `/projects/${P}/members`)).map((m) => [m.username, m.access_level]), [['alice', 40]]);

      const issues = (await all(dst, `/projects/${P}/issues`)).sort(by('iid'));
      assert.deepEqual(
        issues.map((i) => [i.iid, i.title, i.state, [...i.labels].sort(), i.milestone?.title ?? null, i.author.username, i.assignees.map((a: any) => a.username), i.confidential, i.issue_type, i.created_at]),
        [
          [8, 'Quasi adipisci non cupiditate dolorem quo qui earum sed.', 'closed', ['test2'], null, 'root', [], false, 'issue', '2016-06-14T15:02:08.154Z'],
          [9, 'Issue without assignees', 'opened', [], null, 'root', [], true, 'incident', '2016-06-14T15:02:08.233Z'],
          [10, 'Voluptatem', 'opened', ['backend', 'test2'], 'v4.0', 'alice', ['alice'], false, 'issue', '2016-06-14T15:02:08.340Z'],
        ],
      );
      const [closed, incident, main] = issues;
      assert.equal(closed.closed_by.username, 'alice');
      assert.equal(closed.closed_at, '2016-06-14T15:02:48.600Z');
      assert.equal(incident.description, 'Voluptate vel reprehenderit facilis omnis voluptas magnam tenetur.\n\n *By Bob Builder on 2016-06-14T15:02:08 (imported from GitLab)*');
      assert.equal(incident.discussion_locked, true);
      assert.equal(main.description, 'Aliquam enim illo et possimus.');
      assert.deepEqual([main.weight, main.due_date], [3, '2016-07-01']);

      const notes = await all(dst, `/projects/${P}/issues/10/notes?sort=asc`);
      assert.deepEqual(notes.map((n) => [n.author.username, n.body, n.system, n.created_at]), [
        ['alice', 'Quo reprehenderit aliquam qui dicta impedit cupiditate eligendi.', false, '2016-06-14T15:02:47.770Z'],
        ['root', 'Est reprehenderit quas aut aspernatur autem recusandae voluptatem.\n\n *By Bob Builder on 2016-06-14T15:02:47 (imported from GitLab)*', false, '2016-06-14T15:02:47.795Z'],
      ]);
      // Reactions of mapped users only.
      assert.deepEqual((await all(dst, `/projects/${P}/issues/10/award_emoji`)).map((e) => [e.name, e.user.username]), [['musical_keyboard', 'alice']]);
      assert.deepEqual((await all(dst, `/projects/${P}/issues/10/notes/${notes[0].id}/award_emoji`)).map((e) => [e.name, e.user.username]), [['clapper', 'alice']]);
      assert.deepEqual((await all(dst, `/projects/${P}/issues/10/resource_state_events`)).map((e) => [e.state, e.user.username, e.created_at]), [
        ['closed', 'alice', '2022-08-17T13:08:16.838Z'],
        ['reopened', 'root', '2022-08-17T13:08:17.702Z'],
      ]);
      assert.deepEqual((await all(dst, `/projects/${P}/issues/8/notes`)).map((n) => [n.body, n.system]), [['closed', true]]);
      // New issues continue after the imported iids.
      const next = await dst.api('POST', `/projects/${P}/issues`, { body: { title: 'after import' } });
      expectStatus(next, 201);
      assert.equal(next.body.iid, 11);

      const mrs = await all(dst, `/projects/${P}/merge_requests`);
      assert.deepEqual(
        mrs.map((m) => [m.iid, m.title, m.state, m.source_branch, m.target_branch, m.sha, m.labels, m.milestone?.title, m.author.username, m.merged_by?.username, m.merged_at, m.squash, m.force_remove_source_branch]),
        [[9, 'MR1', 'merged', 'feature', 'master', '5937ac0a7beb003549fc5fd26fc247adbce4a52e', ['backend'], 'v4.0', 'alice', 'alice', '2016-06-14T15:02:56.800Z', true, true]],
      );
      assert.deepEqual(mrs[0].assignees.map((a: any) => a.username), ['alice']);
      assert.deepEqual(mrs[0].reviewers.map((a: any) => a.username), ['alice']);
      assert.deepEqual((await all(dst, `/projects/${P}/merge_requests/9/award_emoji`)).map((e) => [e.name, e.user.username]), [['thumbsup', 'alice']]);
      const mrNotes = await all(dst, `/projects/${P}/merge_requests/9/notes`);
      assert.deepEqual(mrNotes.map((n) => [n.author.username, n.body]), [['root', 'Sit voluptatibus eveniet architecto quidem.\n\n *By Bob Builder on 2016-06-14T15:02:56 (imported from GitLab)*']]);
      assert.deepEqual((await all(dst, `/projects/${P}/merge_requests/9/notes/${mrNotes[0].id}/award_emoji`)).map((e) => [e.name, e.user.username]), [['tada', 'alice']]);
    });

    it('reads back the release, snippet, protected branch and schedule', async () => {
      const db = dst.forge.deps.db;
      const project = await db.selectFrom('projects').select('id').where('path_with_namespace', '=', 'landing/gl-copy/gl-project').executeTakeFirstOrThrow();
      const releases = await db.selectFrom('releases').selectAll().where('project_id', '=', project.id).execute();
      assert.deepEqual(releases.map((r) => [r.tag_name, r.name, r.description, r.sha, r.released_at, r.author_id]), [
        ['release-1.1', 'release-1.1', 'Some release notes', '901de3a8bd5573f4a049b1457d28bc1592ba6bf9', '2019-12-26T10:17:14.615Z', alice.id],
      ]);
      const links = await db.selectFrom('release_links').selectAll().where('release_id', '=', releases[0]!.id).execute();
      assert.deepEqual(links.map((l) => [l.name, l.url, l.filepath, l.link_type]), [['release-1.1.dmg', 'http://localhost/namespace6/project6/-/jobs/140463678/artifacts/download', '/binaries/release-1.1.dmg', 'package']]);
      const relMs = await db.selectFrom('release_milestones as rm').innerJoin('milestones as m', 'm.id', 'rm.milestone_id').select('m.title').where('rm.release_id', '=', releases[0]!.id).execute();
      assert.deepEqual(relMs.map((m) => m.title), ['v4.0']);

      const snippets = await all(dst, `/projects/${P}/snippets`);
      assert.deepEqual(snippets.map((s) => [s.title, s.file_name, s.description, s.author.username, s.visibility]), [['Test snippet title', 'snippet.rb', 'Test snippet description', 'alice', 'internal']]);
      const raw = await fetch(`${dst.url}/api/v4/projects/${P}/snippets/${snippets[0].id}/raw`, { headers: { 'PRIVATE-TOKEN': dst.rootToken } });
      assert.equal(await raw.text(), 'x = 1');

      const pbs = await all(dst, `/projects/${P}/protected_branches`);
      assert.deepEqual(
        pbs.map((p) => [p.name, p.push_access_levels.map((l: any) => [l.access_level, l.user_id ?? null]), p.merge_access_levels.map((l: any) => [l.access_level, l.user_id ?? null]), p.allow_force_push]),
        // A user entry has no role of its own here (GitLab stores 40 with it).
        [['master', [[40, null], [null, alice.id]], [[40, null]], false]],
      );

      const schedules = await all(dst, `/projects/${P}/pipeline_schedules`);
      assert.deepEqual(schedules.map((s) => [s.description, s.ref, s.cron, s.cron_timezone, s.active, s.owner.username]), [['Schedule Description', 'master', '0 4 * * 0', 'UTC', false, 'alice']]);
    });
  });
}
