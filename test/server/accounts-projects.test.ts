import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, snapshotCounts } from './http.js';

type User = { id: number; username: string; token: string };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };
const FORBIDDEN = { message: '403 Forbidden' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SIMPLE_KEYS = [
  'avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at', 'name',
  'name_with_namespace', 'namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list', 'topics', 'web_url',
];

for (const dialect of DIALECTS) {
  describe(`${dialect}: projects`, () => {
    let f: TestForgelet;
    let alice: User;
    let gowner: User;
    let dev: User;
    let gguest: User;
    let guest: User;
    let outsider: User;
    let external: User;
    let team: any; // private group
    let open: any; // public group
    let secret: any; // private project in team

    before(async () => {
      f = await startTestServer(dialect);
      [alice, gowner, dev, gguest, guest, outsider] = await createUsers(f, ['alice', 'gowner', 'pdev', 'gguest', 'pguest', 'outsider']);
      const ext = await f.api('POST', '/users', { body: { username: 'ext', name: 'Ext', email: 'ext@example.com', external: true } });
      const extToken = await f.api('POST', `/users/${ext.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
      external = { id: ext.body.id, username: 'ext', token: extToken.body.token };
      team = await createGroup(f, gowner.token, { name: 'Team', path: 'team' });
      open = await createGroup(f, gowner.token, { name: 'Open', path: 'open', visibility: 'public' });
      await addMember(f, 'groups', team.id, dev.id, 30);
      await addMember(f, 'groups', team.id, gguest.id, 10);
      secret = await createProject(f, gowner.token, { name: 'Secret', namespace_id: team.id });
      await addMember(f, 'projects', secret.id, guest.id, 10);
    });
    after(() => f.stop());

    it('creates a personal project: derived path, URLs from the server URL, owner as member', async () => {
      const r = await f.api('POST', '/projects', { token: alice.token, body: { name: 'My Project', description: 'About', topics: ['a', 'b'] } });
      expectStatus(r, 201);
      const p = r.body;
      assert.match(p.created_at, ISO);
      assert.equal(p.last_activity_at, p.created_at);
      const web = `${f.url}/alice/my-project`;
      const host = new URL(f.url).host;
      assert.deepEqual(
        { ...p, id: 0, created_at: '', last_activity_at: '', namespace: null, _links: null, owner: null },
        {
          id: 0, description: 'About', name: 'My Project', name_with_namespace: 'alice / My Project', path: 'my-project',
          path_with_namespace: 'alice/my-project', created_at: '', default_branch: 'main', tag_list: ['a', 'b'], topics: ['a', 'b'],
          ssh_url_to_repo: `git@${new URL(f.url).hostname}:alice/my-project.git`, http_url_to_repo: `${web}.git`, web_url: web, readme_url: null,
          forks_count: 0, avatar_url: null, star_count: 0, last_activity_at: '', namespace: null, visibility: 'private', archived: false,
          empty_repo: true, creator_id: alice.id, issues_enabled: true, merge_requests_enabled: true, merge_method: 'merge', jobs_enabled: true, wiki_enabled: true,
          snippets_enabled: true, open_issues_count: 0, container_registry_image_prefix: `${host}/alice/my-project`, _links: null,
          // Premium and up (the server's default tier is Ultimate)
          approvals_before_merge: 0, owner: null,
        },
      );
      assert.deepEqual(p.namespace, { id: p.namespace.id, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, avatar_url: null, web_url: `${f.url}/alice` });
      assert.deepEqual(
        { id: p.owner.id, username: p.owner.username, web_url: p.owner.web_url },
        { id: alice.id, username: 'alice', web_url: `${f.url}/alice` },
      );
      assert.equal(p._links.self, `${f.url}/api/v4/projects/${p.id}`);
      assert.equal(p._links.members, `${f.url}/api/v4/projects/${p.id}/members`);

      const members = await f.api('GET', `/projects/${p.id}/members`, { token: alice.token });
      assert.deepEqual(members.body.map((m: any) => [m.username, m.access_level]), [['alice', 50]], 'GitLab makes the namespace owner an Owner member');
      const got = await f.api('GET', `/projects/${p.id}`, { token: alice.token });
      assert.deepEqual(got.body.permissions, { project_access: { access_level: 50, notification_level: 3 }, group_access: null });
    });

    it('namespace_id: own namespace by id or path; another user\'s is refused unless admin', async () => {
      const me = (await f.api('GET', '/user', { token: alice.token })).body;
      const byId = await createProject(f, alice.token, { name: 'ns-by-id', namespace_id: me.namespace_id });
      assert.equal(byId.path_with_namespace, 'alice/ns-by-id');
      const byPath = await createProject(f, alice.token, { name: 'ns-by-path', namespace_id: 'alice' });
      assert.equal(byPath.path_with_namespace, 'alice/ns-by-path');
      const foreign = await f.api('POST', '/projects', { token: outsider.token, body: { name: 'intrude', namespace_id: 'alice' } });
      assert.deepEqual([foreign.status, foreign.body], [403, FORBIDDEN]);
      const byAdmin = await f.api('POST', '/projects', { body: { name: 'gift', namespace_id: 'alice' } });
      expectStatus(byAdmin, 201);
      assert.equal(byAdmin.body.owner.username, 'alice');
      const nowhere = await f.api('POST', '/projects', { token: alice.token, body: { name: 'lost', namespace_id: 'no-such-namespace' } });
      assert.deepEqual([nowhere.status, nowhere.body], [400, { message: { namespace: ['is not valid'] } }]);
    });

    it('a group project inherits the group owner; no owner object', async () => {
      assert.equal(secret.path_with_namespace, 'team/secret');
      assert.equal(secret.name_with_namespace, 'Team / Secret');
      assert.equal(secret.web_url, `${f.url}/team/secret`);
      assert.equal(secret.owner, undefined);
      assert.deepEqual(
        { kind: secret.namespace.kind, full_path: secret.namespace.full_path, web_url: secret.namespace.web_url },
        { kind: 'group', full_path: 'team', web_url: `${f.url}/groups/team` },
      );
      const byPath = await createProject(f, gowner.token, { name: 'By Path', namespace_id: 'team' });
      assert.equal(byPath.path_with_namespace, 'team/by-path');
      const direct = await f.api('GET', `/projects/${byPath.id}/members`, { token: gowner.token });
      assert.deepEqual(direct.body, [], 'an Owner of the group is not added again');
      const all = await f.api('GET', `/projects/${byPath.id}/members/all`, { token: gowner.token });
      assert.deepEqual(all.body.map((m: any) => [m.username, m.access_level]), [['gowner', 50], ['pdev', 30], ['gguest', 10]]);
    });

    it('a Developer may create a project in the group and becomes its Maintainer', async () => {
      const p = await createProject(f, dev.token, { name: 'Dev Made', namespace_id: team.id });
      const direct = await f.api('GET', `/projects/${p.id}/members`, { token: dev.token });
      assert.deepEqual(direct.body.map((m: any) => [m.username, m.access_level, m.created_by.username]), [['pdev', 40, 'pdev']]);
      const got = await f.api('GET', `/projects/${p.id}`, { token: dev.token });
      assert.deepEqual(got.body.permissions, {
        project_access: { access_level: 40, notification_level: 3 },
        group_access: { access_level: 30, notification_level: 3 },
      });
      const edited = await f.api('PUT', `/projects/${p.id}`, { token: dev.token, body: { description: 'mine to edit' } });
      expectStatus(edited, 200);
      const del = await f.api('DELETE', `/projects/${p.id}`, { token: dev.token });
      assert.deepEqual([del.status, del.body], [403, FORBIDDEN], 'deleting needs Owner');
      const all = await f.api('GET', `/projects/${p.id}/members/all`, { token: dev.token });
      assert.deepEqual(all.body.find((m: any) => m.username === 'pdev').access_level, 40);
    });

    it('who may create projects in a group', async () => {
      const before = await snapshotCounts(f);
      const byGuest = await f.api('POST', '/projects', { token: gguest.token, body: { name: 'nope', namespace_id: team.id } });
      assert.deepEqual([byGuest.status, byGuest.body], [403, FORBIDDEN]);
      const byOutsider = await f.api('POST', '/projects', { token: outsider.token, body: { name: 'nope', namespace_id: 'team' } });
      assert.deepEqual([byOutsider.status, byOutsider.body], [404, { message: '404 Group Not Found' }]);
      const inPublic = await f.api('POST', '/projects', { token: outsider.token, body: { name: 'nope', namespace_id: open.id } });
      assert.deepEqual([inPublic.status, inPublic.body], [403, FORBIDDEN]);
      assert.deepEqual(await snapshotCounts(f), before);
    });

    it('visibility may not exceed the group\'s', async () => {
      const before = await snapshotCounts(f);
      const pub = await f.api('POST', '/projects', { token: gowner.token, body: { name: 'Loud', namespace_id: team.id, visibility: 'public' } });
      assert.deepEqual([pub.status, pub.body], [400, { message: { visibility_level: ['public is not allowed in a private group.'] } }]);
      const internal = await f.api('POST', '/projects', { token: gowner.token, body: { name: 'Loud', namespace_id: team.id, visibility: 'internal' } });
      assert.deepEqual([internal.status, internal.body], [400, { message: { visibility_level: ['internal is not allowed in a private group.'] } }]);
      const put = await f.api('PUT', `/projects/${secret.id}`, { token: gowner.token, body: { visibility: 'public' } });
      assert.deepEqual([put.status, put.body], [400, { message: { visibility_level: ['public is not allowed in a private group.'] } }]);
      assert.deepEqual(await snapshotCounts(f), before);
      assert.equal((await f.api('GET', `/projects/${secret.id}`)).body.visibility, 'private');
      const ok = await createProject(f, gowner.token, { name: 'Public One', namespace_id: open.id, visibility: 'public' });
      assert.equal(ok.visibility, 'public');
      const personal = await createProject(f, alice.token, { name: 'Loud Personal', visibility: 'public' });
      assert.equal(personal.visibility, 'public');
    });

    it('paths and names are unique in a namespace', async () => {
      await createProject(f, gowner.token, { name: 'Alpha', path: 'alpha', namespace_id: team.id });
      const before = await snapshotCounts(f);
      const samePath = await f.api('POST', '/projects', { token: gowner.token, body: { name: 'Other Name', path: 'alpha', namespace_id: team.id } });
      assert.deepEqual([samePath.status, samePath.body], [400, { message: { path: ['has already been taken'] } }]);
      const sameUpper = await f.api('POST', '/projects', { token: gowner.token, body: { name: 'Third Name', path: 'ALPHA', namespace_id: team.id } });
      assert.deepEqual([sameUpper.status, sameUpper.body], [400, { message: { path: ['has already been taken'] } }]);
      const sameName = await f.api('POST', '/projects', { token: gowner.token, body: { name: 'alpha', path: 'alpha-2', namespace_id: team.id } });
      assert.deepEqual([sameName.status, sameName.body], [400, { message: { name: ['has already been taken'] } }]);
      for (const path of ['bad path', '-leading', 'repo.git', 'feed.atom']) {
        const bad = await f.api('POST', '/projects', { token: gowner.token, body: { name: `n ${path}`, path, namespace_id: team.id } });
        assert.equal(bad.status, 400, path);
        assert.deepEqual(Object.keys(bad.body.message), ['path'], path);
      }
      assert.deepEqual(await snapshotCounts(f), before);
      const elsewhere = await createProject(f, gowner.token, { name: 'Alpha', path: 'alpha', namespace_id: open.id });
      assert.equal(elsewhere.path_with_namespace, 'open/alpha');
      const renameClash = await f.api('PUT', `/projects/${elsewhere.id}`, { token: gowner.token, body: { path: 'public-one' } });
      assert.deepEqual([renameClash.status, renameClash.body], [400, { message: { path: ['has already been taken'] } }]);
    });

    it('finds a project by id or URL-encoded full path, case-insensitively', async () => {
      for (const ref of [String(secret.id), 'team%2Fsecret', 'TEAM%2FSecret']) {
        const r = await f.api('GET', `/projects/${ref}`, { token: gowner.token });
        expectStatus(r, 200);
        assert.equal(r.body.id, secret.id);
      }
      const missing = await f.api('GET', '/projects/team%2Fmissing', { token: gowner.token });
      assert.deepEqual([missing.status, missing.body], [404, PROJECT_NOT_FOUND]);
    });

    it('a Guest reads a private project but may not change it; others get 404', async () => {
      const read = await f.api('GET', `/projects/${secret.id}`, { token: guest.token });
      expectStatus(read, 200);
      assert.deepEqual(read.body.permissions, { project_access: { access_level: 10, notification_level: 3 }, group_access: null });
      for (const [method, body] of [['PUT', { description: 'guest edit' }], ['DELETE', undefined]] as const) {
        const r = await f.api(method, `/projects/${secret.id}`, { token: guest.token, body });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], method);
      }
      for (const token of [outsider.token, external.token, null]) {
        const r = await f.api('GET', `/projects/${secret.id}`, { token });
        assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND]);
      }
      const put = await f.api('PUT', `/projects/${secret.id}`, { token: outsider.token, body: { description: 'outsider edit' } });
      assert.deepEqual([put.status, put.body], [404, PROJECT_NOT_FOUND]);
      const anonPut = await f.api('PUT', `/projects/${secret.id}`, { token: null, body: { description: 'anon edit' } });
      assert.deepEqual([anonPut.status, anonPut.body], [401, { message: '401 Unauthorized' }]);
      assert.equal((await f.api('GET', `/projects/${secret.id}`)).body.description, null, 'nothing was changed');
    });

    it('internal projects: any signed-in, non-external user; public: everyone', async () => {
      const internal = await createProject(f, alice.token, { name: 'Inner Circle', visibility: 'internal' });
      const pub = await createProject(f, alice.token, { name: 'Town Square', visibility: 'public' });
      expectStatus(await f.api('GET', `/projects/${internal.id}`, { token: outsider.token }), 200);
      assert.deepEqual((await f.api('GET', `/projects/${internal.id}`, { token: external.token })).body, PROJECT_NOT_FOUND);
      assert.deepEqual((await f.api('GET', `/projects/${internal.id}`, { token: null })).body, PROJECT_NOT_FOUND);
      const anon = await f.api('GET', `/projects/${pub.id}`, { token: null });
      expectStatus(anon, 200);
      assert.equal(anon.body.permissions, undefined);
      expectStatus(await f.api('GET', `/projects/${pub.id}`, { token: external.token }), 200);
    });

    it('lists only what the caller may see, with filters', async () => {
      const paths = async (query: string, token: string | null) =>
        (await f.api('GET', `/projects?per_page=100&order_by=id&sort=asc${query}`, { token })).body.map((p: any) => p.path_with_namespace);
      const everything = await paths('', f.rootToken);
      assert.ok(everything.includes('team/secret'));
      const anon = await paths('', null);
      assert.ok(anon.length > 0);
      for (const p of (await f.api('GET', '/projects?per_page=100', { token: null })).body) assert.equal(p.visibility, 'public');
      const outs = await paths('', outsider.token);
      assert.ok(outs.includes('alice/inner-circle'));
      assert.ok(!outs.includes('team/secret'));
      assert.ok(!(await paths('', external.token)).includes('alice/inner-circle'));
      assert.ok((await paths('', guest.token)).includes('team/secret'));
      assert.deepEqual(await paths('&membership=true', guest.token), ['team/secret']);
      assert.deepEqual(await paths('&membership=true&min_access_level=20', guest.token), []);
      const owned = await paths('&owned=true', alice.token);
      assert.ok(owned.length >= 4 && owned.every((p: string) => p.startsWith('alice/')));
      assert.deepEqual(await paths('&search=circle', outsider.token), ['alice/inner-circle']);
      assert.deepEqual(await paths('&search=SQUARE&visibility=public', null), ['alice/town-square']);
      const simple = await f.api('GET', '/projects?simple=true&search=square', { token: null });
      assert.deepEqual(Object.keys(simple.body[0]).sort(), SIMPLE_KEYS);
    });

    it('updates settings, topics and archived state; renames move the URLs', async () => {
      const p = await createProject(f, gowner.token, { name: 'Editable', namespace_id: team.id });
      const r = await f.api('PUT', `/projects/${p.id}`, {
        token: gowner.token,
        body: { name: 'Edited', path: 'edited', description: 'd', topics: 'x, y', default_branch: 'trunk', issues_enabled: false, archived: true },
      });
      expectStatus(r, 200);
      assert.deepEqual(
        [r.body.name, r.body.path, r.body.path_with_namespace, r.body.name_with_namespace, r.body.web_url, r.body.description, r.body.topics, r.body.default_branch, r.body.issues_enabled, r.body.archived],
        ['Edited', 'edited', 'team/edited', 'Team / Edited', `${f.url}/team/edited`, 'd', ['x', 'y'], 'trunk', false, true],
      );
      const archived = await f.api('GET', `/groups/${team.id}/projects?archived=true`, { token: gowner.token });
      assert.deepEqual(archived.body.map((x: any) => x.id), [p.id]);
      const found = await f.api('GET', '/projects/team%2Fedited', { token: gowner.token });
      assert.equal(found.body.id, p.id);
      const taken = await createProject(f, gowner.token, { name: 'Editable', namespace_id: team.id });
      assert.equal(taken.path, 'editable', 'the old path is free for a new project');
    });

    it('GET on a renamed path answers 301 to the id URL; other verbs 405', async () => {
      const p = await createProject(f, gowner.token, { name: 'Moving', namespace_id: team.id });
      expectStatus(await f.api('PUT', `/projects/${p.id}`, { token: gowner.token, body: { path: 'moved' } }), 200);
      const get = await f.api('GET', '/projects/team%2Fmoving', { token: gowner.token });
      assert.equal(get.status, 301);
      assert.equal(get.headers.get('location'), `${f.url}/api/v4/projects/${p.id}`);
      const put = await f.api('PUT', '/projects/team%2Fmoving', { token: gowner.token, body: { description: 'x' } });
      assert.deepEqual([put.status, put.body], [405, { message: 'Non GET methods are not allowed for moved projects' }]);
    });

    it('an Owner deletes a project: 202, then 404, and its path is free again', async () => {
      const p = await createProject(f, gowner.token, { name: 'Short Lived', namespace_id: team.id });
      const byMaintainer = await f.api('DELETE', `/projects/${p.id}`, { token: dev.token });
      assert.deepEqual([byMaintainer.status, byMaintainer.body], [403, FORBIDDEN]);
      const before = await snapshotCounts(f);
      const r = await f.api('DELETE', `/projects/${p.id}`, { token: gowner.token });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      assert.deepEqual((await f.api('GET', `/projects/${p.id}`)).body, PROJECT_NOT_FOUND);
      assert.deepEqual(await snapshotCounts(f), { ...before, projects: before.projects - 1 });
      expectStatus(await f.api('POST', '/projects', { token: gowner.token, body: { name: 'Short Lived', namespace_id: team.id } }), 201);
      const personal = await createProject(f, alice.token, { name: 'Throwaway' });
      const own = await f.api('DELETE', `/projects/${personal.id}`, { token: alice.token });
      expectStatus(own, 202);
    });
  });
}
