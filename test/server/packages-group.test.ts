/**
 * Group-level feed reads (only packages of projects the caller may read), CI job tokens on
 * the feed (`gitlab-ci-token` Basic), GitLab's generic package API (list with filters and
 * pagination, get, delete, package files, group list) and the group package settings
 * extension's permissions and validation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitCi, createRunner, requestJob } from './ci-support.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { basic, getRaw, nupkg, putPackage } from './packages-fixtures.js';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: group feed, job tokens, package API, package settings`, () => {
    let f: TestForgelet;
    let maintainer: User;
    let solo: User;
    let outsider: User;
    let group: any;
    let alpha: any; // private, solo is Reporter here only
    let beta: any; // private
    let open: any; // public
    const G = '/groups/corp/-/packages/nuget';

    before(async () => {
      f = await startTestServer(dialect);
      [maintainer, solo, outsider] = await createUsers(f, ['grpmaint', 'grpsolo', 'grpout']);
      group = await createGroup(f, f.rootToken, { name: 'Corp', path: 'corp', visibility: 'private' });
      const sub = await createGroup(f, f.rootToken, { name: 'Team', path: 'team', parent_id: group.id, visibility: 'private' });
      alpha = await createProject(f, f.rootToken, { name: 'alpha', namespace_id: group.id, visibility: 'private' });
      beta = await createProject(f, f.rootToken, { name: 'beta', namespace_id: sub.id, visibility: 'private' });
      const openGroup = await createGroup(f, f.rootToken, { name: 'Outer', path: 'outer', visibility: 'public' });
      open = await createProject(f, f.rootToken, { name: 'open', namespace_id: openGroup.id, visibility: 'public' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', openGroup.id, maintainer.id, 40);
      await addMember(f, 'projects', alpha.id, solo.id, 20);
      const auth = { Authorization: basic(maintainer.username, maintainer.token) };
      for (const [project, id, version] of [
        [alpha, 'Shared.Pkg', '1.0.0'],
        [beta, 'Shared.Pkg', '2.0.0'],
        [beta, 'Beta.Only', '1.0.0'],
        [alpha, 'Alpha.Only', '1.0.0'],
        [alpha, 'Alpha.Only', '1.1.0'],
        [open, 'Open.Pkg', '1.0.0'],
      ] as const) {
        expectStatus(await putPackage(f, `/projects/${project.id}/packages/nuget`, await nupkg({ id, version }), auth), 201);
      }
    });
    after(() => f.stop());

    it('group reads need credentials (401 + challenge) and see only readable projects; content stays under the project', async () => {
      const anon = await getRaw(f, `${G}/query`);
      assert.deepEqual([anon.status, anon.headers.get('www-authenticate')], [401, 'Basic realm="GitLab Packages Registry"']);
      const names = async (user: User) => {
        const r = await getRaw(f, `${G}/query`, { Authorization: basic(user.username, user.token) });
        expectStatus(r, 200);
        return r.json.data.map((d: any) => `${d.id}:${d.versions.map((v: any) => v.version).join(',')}`);
      };
      assert.deepEqual(await names(maintainer), ['Alpha.Only:1.0.0,1.1.0', 'Beta.Only:1.0.0', 'Shared.Pkg:1.0.0,2.0.0']);
      assert.deepEqual(await names(solo), ['Alpha.Only:1.0.0,1.1.0', 'Shared.Pkg:1.0.0']);
      const out = await getRaw(f, `${G}/query`, { Authorization: basic(outsider.username, outsider.token) });
      assert.deepEqual([out.status, out.json], [404, { message: '404 Group Not Found' }]);

      const meta = await getRaw(f, `${G}/metadata/shared.pkg/index.json`, { Authorization: basic(solo.username, solo.token) });
      expectStatus(meta, 200);
      const leaves = meta.json.items[0].items;
      assert.deepEqual(leaves.map((l: any) => l.catalogEntry.version), ['1.0.0']);
      assert.equal(leaves[0]['@id'], `${f.url}/api/v4${G}/metadata/Shared.Pkg/1.0.0.json`);
      assert.equal(leaves[0].packageContent, `${f.url}/api/v4/projects/${alpha.id}/packages/nuget/download/Shared.Pkg/1.0.0/shared.pkg.1.0.0.nupkg`);
      const hidden = await getRaw(f, `${G}/metadata/shared.pkg/2.0.0.json`, { Authorization: basic(solo.username, solo.token) });
      assert.deepEqual([hidden.status, hidden.json], [404, { message: '404 Package Not Found' }]);
      const visible = await getRaw(f, `${G}/metadata/shared.pkg/2.0.0.json`, { Authorization: basic(maintainer.username, maintainer.token) });
      assert.equal(visible.json.packageContent, `${f.url}/api/v4/projects/${beta.id}/packages/nuget/download/Shared.Pkg/2.0.0/shared.pkg.2.0.0.nupkg`);
      // group prefix: no package content
      const dl = await getRaw(f, `${G}/download/shared.pkg/1.0.0/shared.pkg.1.0.0.nupkg`, { Authorization: basic(maintainer.username, maintainer.token) });
      expectStatus(dl, 404);
      // the group's id works as well as its path, and the PRIVATE-TOKEN header too
      const byId = await getRaw(f, `/groups/${group.id}/-/packages/pkgfeed/query?q=only`, { 'PRIVATE-TOKEN': solo.token });
      assert.deepEqual(byId.json.data.map((d: any) => d.id), ['Alpha.Only']);
    });

    it('CI job tokens: Basic gitlab-ci-token publishes to its own project; another project refuses it unless allowlisted', async () => {
      await commitCi(f, alpha.id, 'pack:\n  script: [dotnet pack]\n');
      const runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: alpha.id });
      expectStatus(await f.api('POST', `/projects/${alpha.id}/pipeline`, { token: maintainer.token, body: { ref: 'main' } }), 201);
      const job = await requestJob(f, runner.token);
      assert.ok(job);
      const ci = { Authorization: basic('gitlab-ci-token', job.token) };
      const own = await putPackage(f, `/projects/${alpha.id}/packages/nuget`, await nupkg({ id: 'Ci.Built', version: '1.0.0' }), ci);
      assert.deepEqual([own.status, own.body], [201, { message: '201 Created' }]);
      expectStatus(await getRaw(f, `/projects/${alpha.id}/packages/nuget/metadata/ci.built/index.json`, ci), 200);
      const foreign = await putPackage(f, `/projects/${beta.id}/packages/nuget`, await nupkg({ id: 'Ci.Built', version: '1.0.0' }), ci);
      assert.deepEqual([foreign.status, foreign.body], [403, { message: `403 Forbidden - Authentication by CI/CD job token not allowed from corp/alpha to corp/team/beta.` }]);
      const bad = await putPackage(f, `/projects/${alpha.id}/packages/nuget`, await nupkg({ id: 'Ci.Built', version: '1.0.1' }), { Authorization: basic('gitlab-ci-token', 'glcbt-nope') });
      assert.deepEqual([bad.status, bad.headers['www-authenticate']], [401, 'Basic realm="GitLab Packages Registry"']);
    });

    it('generic package API: list (filters, order, pagination in SQL), get, package files, delete; group list', async () => {
      const list = await f.api('GET', `/projects/${alpha.id}/packages?per_page=2&order_by=name&sort=desc`, { token: maintainer.token });
      expectStatus(list, 200);
      assert.equal(list.headers.get('x-total'), '4');
      assert.equal(list.headers.get('x-total-pages'), '2');
      assert.deepEqual(list.body.map((p: any) => `${p.name} ${p.version}`), ['Shared.Pkg 1.0.0', 'Ci.Built 1.0.0']);
      const p = list.body[0];
      assert.deepEqual(Object.keys(p), ['id', 'name', 'version', 'package_type', 'status', '_links', 'created_at', 'last_downloaded_at', 'tags']);
      assert.deepEqual(p._links, { web_path: `/corp/alpha/-/packages/${p.id}`, delete_api_path: `${f.url}/api/v4/projects/${alpha.id}/packages/${p.id}` });
      assert.equal(p.package_type, 'nuget');
      assert.equal(p.status, 'default');
      const filtered = await f.api('GET', `/projects/${alpha.id}/packages?package_name=ONLY&package_type=nuget&order_by=version&sort=desc`, { token: solo.token });
      assert.deepEqual(filtered.body.map((x: any) => x.version), ['1.1.0', '1.0.0']);
      assert.equal(filtered.body[0]._links.delete_api_path, undefined, 'a Reporter cannot delete');
      assert.deepEqual((await f.api('GET', `/projects/${alpha.id}/packages?package_type=npm`, { token: solo.token })).body, []);
      const badType = await f.api('GET', `/projects/${alpha.id}/packages?package_type=zip`, { token: solo.token });
      assert.deepEqual([badType.status, badType.body], [400, { error: 'package_type does not have a valid value' }]);
      assert.equal((await f.api('GET', `/projects/${alpha.id}/packages`, { token: outsider.token })).status, 404);
      assert.equal((await f.api('GET', `/projects/${open.id}/packages`, { token: null })).body.length, 1);

      const one = await f.api('GET', `/projects/${alpha.id}/packages/${filtered.body[0].id}`, { token: solo.token });
      assert.deepEqual([one.status, one.body.name, one.body.version], [200, 'Alpha.Only', '1.1.0']);
      // outside lists a package names its other versions
      assert.deepEqual(one.body.versions, [{ id: filtered.body[1].id, version: '1.0.0', created_at: filtered.body[1].created_at, tags: [] }]);
      const files = await f.api('GET', `/projects/${alpha.id}/packages/${filtered.body[0].id}/package_files`, { token: solo.token });
      assert.deepEqual(
        files.body.map((x: any) => [x.file_name, typeof x.size, x.file_md5.length, x.file_sha1.length, x.file_sha256.length]),
        [['alpha.only.1.1.0.nupkg', 'number', 32, 40, 64]],
      );
      const missing = await f.api('GET', `/projects/${alpha.id}/packages/999999`, { token: solo.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
      const elsewhere = await f.api('GET', `/projects/${open.id}/packages/${filtered.body[0].id}`, { token: maintainer.token });
      expectStatus(elsewhere, 404);

      const denied = await f.api('DELETE', `/projects/${alpha.id}/packages/${filtered.body[0].id}`, { token: solo.token });
      assert.deepEqual([denied.status, denied.body], [403, { message: '403 Forbidden' }]);
      const del = await f.api('DELETE', `/projects/${alpha.id}/packages/${filtered.body[0].id}`, { token: maintainer.token });
      expectStatus(del, 204);
      const meta = await getRaw(f, `/projects/${alpha.id}/packages/nuget/metadata/alpha.only/index.json`, { 'PRIVATE-TOKEN': solo.token });
      assert.deepEqual(meta.json.items[0].items.map((l: any) => l.catalogEntry.version), ['1.0.0']);

      const groupList = await f.api('GET', `/groups/${group.id}/packages?order_by=name`, { token: solo.token });
      assert.deepEqual(groupList.body.map((x: any) => `${x.name} ${x.project_path}`), ['Alpha.Only corp/alpha', 'Ci.Built corp/alpha', 'Shared.Pkg corp/alpha']);
      assert.equal(groupList.body[0].project_id, alpha.id);
      const all = await f.api('GET', `/groups/${group.id}/packages?order_by=name&exclude_subgroups=true`, { token: maintainer.token });
      assert.deepEqual(all.body.map((x: any) => x.name), ['Alpha.Only', 'Ci.Built', 'Shared.Pkg']);
      const withSub = await f.api('GET', `/groups/${group.id}/packages?order_by=name`, { token: maintainer.token });
      assert.deepEqual(withSub.body.map((x: any) => x.name), ['Alpha.Only', 'Beta.Only', 'Ci.Built', 'Shared.Pkg', 'Shared.Pkg']);
    });

    it('package settings: Maintainers of the group read and write; validation; a subgroup project follows its nearest group', async () => {
      const path = `/forgelet/groups/${group.id}/package_settings`;
      assert.equal((await f.api('GET', path, { token: solo.token })).status, 403);
      assert.equal((await f.api('GET', path, { token: outsider.token })).status, 404);
      assert.equal((await f.api('GET', path, { token: null })).status, 401);
      const empty = await f.api('PUT', path, { token: maintainer.token, body: {} });
      assert.deepEqual([empty.status, empty.body], [
        400,
        { error: 'nuget_duplicates_allowed, nuget_duplicate_exception_regex, nuget_symbol_server_enabled are missing, at least one parameter must be provided' },
      ]);
      const badBool = await f.api('PUT', path, { token: maintainer.token, body: { nuget_duplicates_allowed: 'perhaps' } });
      assert.deepEqual([badBool.status, badBool.body], [400, { error: 'nuget_duplicates_allowed is invalid' }]);
      const long = await f.api('PUT', path, { token: maintainer.token, body: { nuget_duplicate_exception_regex: 'a'.repeat(256) } });
      assert.deepEqual([long.status, long.body], [400, { message: { nuget_duplicate_exception_regex: ['is too long (maximum is 255 characters)'] } }]);
      const set = await f.api('PUT', path, { token: maintainer.token, body: { nuget_duplicates_allowed: false } });
      assert.deepEqual(set.body, { nuget_duplicates_allowed: false, nuget_duplicate_exception_regex: '', nuget_symbol_server_enabled: true });
      assert.deepEqual((await f.api('GET', path, { token: maintainer.token })).body, set.body);
      // beta lives in corp/team, which has no settings of its own: corp's apply
      const auth = { Authorization: basic(maintainer.username, maintainer.token) };
      const dup = await putPackage(f, `/projects/${beta.id}/packages/nuget`, await nupkg({ id: 'Beta.Only', version: '1.0.0' }), auth);
      assert.deepEqual([dup.status, dup.body], [409, { message: 'A package with the same name and version already exists' }]);
      // the public project outside the group still takes duplicates
      expectStatus(await putPackage(f, `/projects/${open.id}/packages/nuget`, await nupkg({ id: 'Open.Pkg', version: '1.0.0' }), auth), 201);
    });
  });
}
