import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { expectStatus, snapshotCounts } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';

/** Every file under the blob store (relative paths). */
function blobFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else out.push(join(dir, e.name).slice(root.length + 1));
    }
  };
  walk(root);
  return out.sort();
}

/** The entries of a small zip, read from its central directory (stored or deflated). */
function unzip(zip: Buffer): Record<string, string> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'a zip archive');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    out[name] = (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    at += 46 + skip;
  }
  return out;
}

const WORLD = `
users:
  - username: alice
    name: Alice Example
    email: alice@example.com
    token: glpat-alice-known-token-0001
  - username: bob
    token: glpat-bob-known-token-0002
    token_scopes: [read_api]
  - username: carol
    admin: true
groups:
  - path: acme
    name: ACME
    visibility: internal
    members:
      - { user: alice, access_level: maintainer }
  - path: tools
    parent: acme
    visibility: private
    members:
      - { user: bob, access_level: 20 }
projects:
  - path: app
    namespace: acme
    visibility: internal
    members:
      - { user: bob, access_level: developer }
    files:
      README.md: "# App\\n"
      .gitlab-ci.yml: |
        test:
          script: echo ok
    branches: [feature]
    labels:
      - bug
      - { name: feature, color: "#00ff00", description: New things }
    milestones:
      - { title: v1.0, due_date: 2024-07-01 }
      - { title: v0.9, state: closed }
    issues:
      - title: Login fails
        author: alice
        assignees: [bob]
        labels: [bug]
        milestone: v1.0
      - title: Old one
        state: closed
    merge_requests:
      - title: Add feature
        source_branch: feature
        author: alice
        reviewers: [bob]
        labels: [feature]
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        owner: alice
  - path: notes
    namespace: carol
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: test harness seeding`, () => {
    let f: TestForgelet;
    let seeded: any;

    const seed = (text: string, contentType = 'application/yaml', token?: string | null) =>
      f.api('POST', '/forgelet/seed', { raw: text, headers: { 'Content-Type': contentType }, token });

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, clock: fixedClock(NOW), workers: false });
    });
    after(() => f.stop());

    it('creates the world from YAML and answers the ids by name', async () => {
      const r = await seed(WORLD);
      expectStatus(r, 201);
      seeded = r.body;
      const users = (await f.api('GET', '/users')).body as any[];
      const id = (u: string) => users.find((x) => x.username === u).id;
      const groups = (await f.api('GET', '/groups?all_available=true')).body as any[];
      const gid = (path: string) => groups.find((g) => g.full_path === path).id;
      assert.deepEqual(seeded.users, { alice: id('alice'), bob: id('bob'), carol: id('carol') });
      assert.deepEqual(seeded.groups, { acme: gid('acme'), 'acme/tools': gid('acme/tools') });
      assert.deepEqual(Object.keys(seeded.projects), ['acme/app', 'carol/notes']);
      const app = seeded.projects['acme/app'];
      assert.deepEqual(Object.keys(seeded.labels['acme/app']), ['bug', 'feature']);
      assert.deepEqual(Object.keys(seeded.milestones['acme/app']), ['v1.0', 'v0.9']);
      assert.deepEqual(seeded.issues['acme/app'].map((i: any) => [i.iid, i.title]), [[1, 'Login fails'], [2, 'Old one']]);
      assert.deepEqual(seeded.merge_requests['acme/app'].map((m: any) => [m.iid, m.title]), [[1, 'Add feature']]);
      assert.deepEqual(seeded.pipeline_schedules['acme/app'].map((s: any) => s.description), ['Nightly']);
      assert.deepEqual(seeded.issues['carol/notes'], []);

      const alice = await f.api('GET', `/users/${id('alice')}`);
      assert.deepEqual([alice.body.name, alice.body.email, alice.body.is_admin], ['Alice Example', 'alice@example.com', false]);
      const bob = await f.api('GET', `/users/${id('bob')}`);
      assert.deepEqual([bob.body.name, bob.body.email], ['bob', 'bob@example.com']);
      assert.equal((await f.api('GET', `/users/${id('carol')}`)).body.is_admin, true);

      const issue = (await f.api('GET', `/projects/${app}/issues/1`)).body;
      assert.deepEqual(
        [issue.author.username, issue.assignees.map((a: any) => a.username), issue.labels, issue.milestone.title, issue.state, issue.created_at],
        ['alice', ['bob'], ['bug'], 'v1.0', 'opened', NOW],
      );
      assert.equal((await f.api('GET', `/projects/${app}/issues/2`)).body.state, 'closed');
      const milestones = (await f.api('GET', `/projects/${app}/milestones`)).body as any[];
      assert.deepEqual(milestones.map((m) => [m.title, m.state, m.due_date]).sort(), [['v0.9', 'closed', null], ['v1.0', 'active', '2024-07-01']]);
      const labels = (await f.api('GET', `/projects/${app}/labels`)).body as any[];
      assert.deepEqual(labels.map((l) => [l.name, l.color, l.description]), [['bug', '#428BCA', null], ['feature', '#00ff00', 'New things']]);
      const mr = (await f.api('GET', `/projects/${app}/merge_requests/1`)).body;
      assert.deepEqual([mr.author.username, mr.reviewers.map((u: any) => u.username), mr.labels, mr.source_branch, mr.target_branch], ['alice', ['bob'], ['feature'], 'feature', 'main']);
      const schedule = (await f.api('GET', `/projects/${app}/pipeline_schedules`)).body[0];
      assert.deepEqual([schedule.description, schedule.ref, schedule.cron, schedule.owner.username], ['Nightly', 'refs/heads/main', '0 2 * * *', 'alice']);
      const file = await f.api('GET', `/projects/${app}/repository/files/.gitlab-ci.yml/raw?ref=main`);
      assert.deepEqual([file.status, file.text], [200, 'test:\n  script: echo ok\n']);

      const members = (await f.api('GET', `/projects/${app}/members`)).body.map((m: any) => [m.username, m.access_level]);
      assert.deepEqual(members, [['bob', 30]]);
      const acme = (await f.api('GET', `/groups/${gid('acme')}/members`)).body.map((m: any) => [m.username, m.access_level]);
      assert.deepEqual(acme.sort(), [['alice', 40], ['root', 50]]);
      const notes = (await f.api('GET', `/projects/${seeded.projects['carol/notes']}`)).body;
      assert.equal(notes.namespace.full_path, 'carol');
    });

    it('the given tokens are personal access tokens of their users, with the given scopes', async () => {
      const me = await f.api('GET', '/user', { token: 'glpat-alice-known-token-0001' });
      assert.deepEqual([me.status, me.body.username], [200, 'alice']);
      const bob = await f.api('GET', '/user', { token: 'glpat-bob-known-token-0002' });
      assert.equal(bob.body.username, 'bob');
      const write = await f.api('POST', '/projects', { token: 'glpat-bob-known-token-0002', body: { name: 'nope' } });
      assert.equal(write.status, 403, 'read_api only');
      const tokens = (await f.api('GET', `/personal_access_tokens?user_id=${seeded.users.alice}`)).body;
      assert.deepEqual(tokens.map((t: any) => [t.name, t.scopes, t.active]), [['seed', ['api'], true]]);
    });

    it('JSON works the same; existing groups and users may be referred to', async () => {
      const r = await seed(JSON.stringify({ projects: [{ path: 'more', namespace: 'acme/tools', issues: [{ title: 'Via JSON', author: 'alice', assignees: 'alice' }] }] }), 'application/json');
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body.projects), ['acme/tools/more']);
      assert.deepEqual(r.body.users, {});
      const issue = (await f.api('GET', `/projects/${r.body.projects['acme/tools/more']}/issues/1`)).body;
      assert.deepEqual([issue.title, issue.author.username], ['Via JSON', 'alice']);
    });

    it('a bad entry: 400 naming it, and nothing is created', async () => {
      const before = await snapshotCounts(f);
      const r = await seed(`
users:
  - username: dave
    token: glpat-dave-never-created
  - username: erin
    email: not-an-email
groups:
  - path: never
`);
      assert.deepEqual([r.status, r.body], [400, { message: 'users[1] (erin): email is invalid', entry: 'users[1] (erin)', status: 400 }]);
      assert.deepEqual(await snapshotCounts(f), before);
      expectStatus(await f.api('GET', '/user', { token: 'glpat-dave-never-created' }), 401);
      assert.deepEqual((await f.api('GET', '/users?username=dave')).body, []);
    });

    it('errors deep in a project name the entry, with the status the API answered; nothing is kept', async () => {
      const before = await snapshotCounts(f);
      const cases: [string, unknown][] = [
        [
          'projects:\n  - path: p1\n    namespace: acme\n    issues:\n      - title: ok\n      - description: no title\n',
          { message: 'projects[0] (acme/p1) issues[1]: title is missing', entry: 'projects[0] (acme/p1) issues[1]', status: 400 },
        ],
        [
          'projects:\n  - path: p2\n    namespace: nowhere\n',
          { message: 'projects[0] (nowhere/p2): no group or user namespace nowhere', entry: 'projects[0] (nowhere/p2)', status: 400 },
        ],
        [
          'users:\n  - username: alice\n',
          { message: 'users[0] (alice): Username has already been taken', entry: 'users[0] (alice)', status: 409 },
        ],
        [
          'users:\n  - username: frank\n    token: glpat-alice-known-token-0001\n',
          { message: 'users[0] (frank): token has already been taken', entry: 'users[0] (frank)', status: 400 },
        ],
        [
          'projects:\n  - path: p3\n    namespace: acme\n    issues:\n      - title: x\n        author: bob\n        milestone: v9\n',
          { message: 'projects[0] (acme/p3) issues[0] (x): no milestone v9 in acme/p3', entry: 'projects[0] (acme/p3) issues[0] (x)', status: 400 },
        ],
        [
          'projects:\n  - path: p4\n    namespace: acme\n    packages:\n      - name: lib\n',
          { message: 'projects[0] (acme/p4) packages[0] (lib): version is missing', entry: 'projects[0] (acme/p4) packages[0] (lib)', status: 400 },
        ],
        [
          'projects:\n  - path: p5\n    namespace: acme\n    packages:\n      - { name: Lib, version: 1.0.0, package_type: npm }\n',
          { message: 'projects[0] (acme/p5) packages[0] (Lib 1.0.0): package_type npm is not supported (supported: nuget)', entry: 'projects[0] (acme/p5) packages[0] (Lib 1.0.0)', status: 400 },
        ],
        [
          'groups:\n  - path: g1\n    members:\n      - { user: ghost }\n',
          { message: 'groups[0] (g1) members[0]: 404 User Not Found', entry: 'groups[0] (g1) members[0]', status: 404 },
        ],
      ];
      for (const [text, expected] of cases) {
        const r = await seed(text);
        assert.deepEqual([r.status, r.body], [400, expected], text);
      }
      assert.deepEqual(await snapshotCounts(f), before);
    });

    it('packages: published as an upload would be, listed, and served by the v3 flat container', async () => {
      const blobsBefore = blobFiles(f.forge.deps.blobs.root!);
      const r = await seed(`
projects:
  - path: pkgs
    namespace: acme
    owner: alice
    packages:
      - name: Acme.Core
        version: 1.10
        description: Core things
        authors: ACME Inc
        tags: [core, "acme tools"]
        dependencies: { Newtonsoft.Json: "[13.0.1, )" }
      - name: Acme.Tools
        version: 2.1.0-beta.1
        dependencies:
          - Acme.Core
          - { id: System.Text.Json, version: 8.0.0, target_framework: net8.0 }
`);
      expectStatus(r, 201);
      const projectId = r.body.projects['acme/pkgs'];
      const [core, tools] = r.body.packages['acme/pkgs'];
      assert.deepEqual(r.body.packages['acme/pkgs'], [
        { id: core.id, name: 'Acme.Core', version: '1.10' },
        { id: tools.id, name: 'Acme.Tools', version: '2.1.0-beta.1' },
      ]);
      assert.deepEqual(r.body.packages['acme/app'], undefined);

      const list = await f.api('GET', `/projects/${projectId}/packages?order_by=name`);
      expectStatus(list, 200);
      assert.deepEqual(
        list.body.map((p: any) => [p.id, p.name, p.version, p.package_type, p.status, p.created_at]),
        [[core.id, 'Acme.Core', '1.10', 'nuget', 'default', NOW], [tools.id, 'Acme.Tools', '2.1.0-beta.1', 'nuget', 'default', NOW]],
      );
      const files = await f.api('GET', `/projects/${projectId}/packages/${core.id}/package_files`);
      // named by the normalized version; the nuspec keeps 1.10
      assert.deepEqual(files.body.map((x: any) => x.file_name), ['acme.core.1.10.0.nupkg']);
      // two package files landed in the blob store, nothing else (the upload keys were claimed)
      assert.equal(blobFiles(f.forge.deps.blobs.root!).length, blobsBefore.length + 2);

      const feed = `/projects/${projectId}/packages/nuget`;
      const download = await f.api('GET', `${feed}/download/acme.core/1.10.0/acme.core.1.10.0.nupkg`);
      expectStatus(download, 200);
      const raw = await fetch(`${f.url}/api/v4${feed}/download/acme.core/1.10.0/acme.core.1.10.0.nupkg`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
      const entries = unzip(Buffer.from(await raw.arrayBuffer()));
      assert.deepEqual(Object.keys(entries), ['Acme.Core.nuspec']);
      assert.match(entries['Acme.Core.nuspec']!, /<id>Acme\.Core<\/id>\s*<version>1\.10<\/version>/);
      const versions = await f.api('GET', `${feed}/download/acme.tools/index.json`);
      assert.deepEqual(versions.body, { versions: ['2.1.0-beta.1'] });

      const leaf = (await f.api('GET', `${feed}/metadata/acme.core/1.10.0.json`)).body.catalogEntry;
      assert.deepEqual(
        [leaf.id, leaf.version, leaf.description, leaf.authors, leaf.tags, leaf.dependencyGroups.map((g: any) => [g.targetFramework ?? null, g.dependencies.map((d: any) => [d.id, d.range ?? null])])],
        ['Acme.Core', '1.10.0', 'Core things', 'ACME Inc', 'core acme tools', [[null, [['Newtonsoft.Json', '[13.0.1, )']]]]],
      );
      const tool = (await f.api('GET', `${feed}/metadata/acme.tools/2.1.0-beta.1.json`)).body.catalogEntry;
      assert.deepEqual(
        [tool.description, tool.authors, tool.tags, tool.dependencyGroups.map((g: any) => [g.targetFramework ?? null, g.dependencies.map((d: any) => [d.id, d.range ?? null])])],
        ['Package Description', 'Acme.Tools', '', [[null, [['Acme.Core', null]]], ['net8.0', [['System.Text.Json', '8.0.0']]]]],
      );
      const search = await f.api('GET', `${feed}/query?q=acme`);
      assert.deepEqual(search.body.data.map((d: any) => d.id).sort(), ['Acme.Core', 'Acme.Tools']);
    });

    it('packages: a bad version is a 400 naming the entry, and nothing is created (no rows, no files)', async () => {
      const before = await snapshotCounts(f);
      const blobsBefore = blobFiles(f.forge.deps.blobs.root!);
      const cases: [string, unknown][] = [
        [
          'projects:\n  - path: bad-pkgs\n    namespace: acme\n    packages:\n      - { name: Good.One, version: 1.0.0 }\n      - { name: Foo, version: 1.0.0.0.0 }\n',
          { message: 'projects[0] (acme/bad-pkgs) packages[1] (Foo 1.0.0.0.0): Validation failed: Version is invalid', entry: 'projects[0] (acme/bad-pkgs) packages[1] (Foo 1.0.0.0.0)', status: 400 },
        ],
        [
          'projects:\n  - path: bad-pkgs\n    namespace: acme\n    packages:\n      - { name: Good.One, version: 1.0.0 }\n  - path: later\n    namespace: nowhere\n',
          { message: 'projects[1] (nowhere/later): no group or user namespace nowhere', entry: 'projects[1] (nowhere/later)', status: 400 },
        ],
        [
          'projects:\n  - path: bad-pkgs\n    namespace: acme\n    packages:\n      - { name: "Bad Name", version: 1.0.0 }\n',
          { message: 'projects[0] (acme/bad-pkgs) packages[0] (Bad Name 1.0.0): Validation failed: Name is invalid', entry: 'projects[0] (acme/bad-pkgs) packages[0] (Bad Name 1.0.0)', status: 400 },
        ],
        [
          'projects:\n  - path: bad-pkgs\n    namespace: acme\n    packages:\n      - { name: X, version: 1.0.0, title: nope }\n',
          { message: 'projects[0] (acme/bad-pkgs) packages[0] (X 1.0.0): unknown key title (known: name, version, description, authors, tags, dependencies, package_type)', entry: 'projects[0] (acme/bad-pkgs) packages[0] (X 1.0.0)', status: 400 },
        ],
      ];
      for (const [text, expected] of cases) {
        const r = await seed(text);
        assert.deepEqual([r.status, r.body], [400, expected], text);
        assert.deepEqual(await snapshotCounts(f), before, text);
        assert.deepEqual(blobFiles(f.forge.deps.blobs.root!), blobsBefore, text);
      }
      expectStatus(await f.api('GET', `/projects/${encodeURIComponent('acme/bad-pkgs')}`), 404);
    });

    it('malformed documents', async () => {
      const cases: [string, string, unknown][] = [
        ['', 'application/yaml', { message: '400 Bad request - seed: the document is empty' }],
        ['users: [', 'application/yaml', { message: /^400 Bad request - seed: not valid YAML: / }],
        ['{"users": ', 'application/json', { message: /^400 Bad request - seed: not valid JSON: / }],
        ['- a\n- b\n', 'application/yaml', { message: '400 Bad request - seed: the document must be a mapping with users, groups and projects' }],
        ['users: []\nrepos: []\n', 'application/yaml', { message: '400 Bad request - seed: unknown key repos (known: users, groups, projects)' }],
        ['users: alice\n', 'application/yaml', { message: '400 Bad request - seed: users must be a list' }],
        ['users: [alice]\n', 'application/yaml', { message: '400 Bad request - seed: users[0] must be a mapping' }],
      ];
      for (const [text, type, expected] of cases) {
        const r = await seed(text, type);
        assert.equal(r.status, 400, text);
        const message = (expected as { message: string | RegExp }).message;
        if (message instanceof RegExp) assert.match(r.body.message, message);
        else assert.deepEqual(r.body, expected, text);
      }
    });

    it('admin only', async () => {
      const r = await seed('users: []\n', 'application/yaml', 'glpat-alice-known-token-0001');
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      expectStatus(await seed('users: []\n', 'application/yaml', null), 401);
    });

    it('startForgelet().seed does the same in process', async () => {
      const r = await f.seed({ users: [{ username: 'inproc', token: 'glpat-inproc-token-000' }] });
      assert.deepEqual(Object.keys(r.users), ['inproc']);
      assert.equal((await f.api('GET', '/user', { token: 'glpat-inproc-token-000' })).body.username, 'inproc');
    });
  });
}
