import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { basic, nupkg, putPackage } from '../server/packages-fixtures.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client packages and NuGet feed`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };
    let member: { id: number; username: string; token: string };
    const uploaded: Record<string, Buffer> = {};

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      group = await api.groups.create({ name: 'Pkgs', path: 'pkgs' });
      project = await api.projects.create({ name: 'Lib', namespace_id: group.id });
      member = await f.createUser('pkgclient');
      await api.groupMembers.add(group.id, { user_id: member.id, access_level: 30 });
      const auth = { Authorization: basic('root', f.rootToken) };
      for (const [id, version] of [['Client.Pkg', '1.0.0'], ['Client.Pkg', '1.1.0-rc.1'], ['Other.Pkg', '0.1.0']]) {
        const file = await nupkg({ id: id!, version: version! });
        uploaded[`${id} ${version}`] = file;
        const r = await putPackage(f, `/projects/${project.id}/packages/nuget`, file, auth);
        assert.equal(r.status, 201, r.text);
      }
    });
    after(() => f.stop());

    it('packages: all (filters, every page), show, files, remove; group list', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const all = await recorded.packages.all(project.path_with_namespace, { per_page: 2, order_by: 'version', sort: 'desc' }).toArray();
      assert.deepEqual(all.map((p) => `${p.name}@${p.version}`), ['Client.Pkg@1.1.0-rc.1', 'Client.Pkg@1.0.0', 'Other.Pkg@0.1.0']);
      assert.equal(sent[0]!.url, `${f.url}/api/v4/projects/pkgs%2Flib/packages?per_page=2&order_by=version&sort=desc`);
      const named = await api.packages.all(project.id, { package_name: 'client', package_type: 'nuget' }).toArray();
      assert.deepEqual(named.map((p) => p.version), ['1.0.0', '1.1.0-rc.1']);
      const one = await api.packages.show(project.id, named[0]!.id);
      assert.equal(one.package_type, 'nuget');
      assert.equal(one._links.web_path, `/pkgs/lib/-/packages/${one.id}`);
      assert.deepEqual(one.versions, [{ id: named[1]!.id, version: '1.1.0-rc.1', created_at: NOW, tags: [] }]);
      const files = await api.packages.files(project.id, one.id).toArray();
      const digest = (algo: string) => createHash(algo).update(uploaded['Client.Pkg 1.0.0']!).digest('hex');
      assert.deepEqual(files.map((x) => [x.file_name, x.file_md5, x.file_sha1, x.file_sha256]), [['client.pkg.1.0.0.nupkg', digest('md5'), digest('sha1'), digest('sha256')]]);
      const groupAll = await api.packages.allOfGroup(group.full_path, { order_by: 'name' }).toArray();
      assert.deepEqual(groupAll.map((p) => p.project_path), ['pkgs/lib', 'pkgs/lib', 'pkgs/lib']);

      const asDeveloper = clientFor(f, { token: member.token });
      const denied = await apiError(asDeveloper.packages.remove(project.id, one.id));
      assert.deepEqual([denied.status, denied.body], [403, { message: '403 Forbidden' }]);
      await api.packages.remove(project.id, one.id);
      const gone = await apiError(api.packages.show(project.id, one.id));
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Not found' }]);
    });

    it('package settings: show and edit (group Maintainers)', async () => {
      assert.deepEqual(await api.packages.settings(group.id), { nuget_duplicates_allowed: true, nuget_duplicate_exception_regex: '', nuget_symbol_server_enabled: true });
      const edited = await api.packages.editSettings(group.full_path, { nuget_duplicates_allowed: false, nuget_duplicate_exception_regex: 'Client\\..*' });
      assert.deepEqual(edited, { nuget_duplicates_allowed: false, nuget_duplicate_exception_regex: 'Client\\..*', nuget_symbol_server_enabled: true });
      const err = await apiError(clientFor(f, { token: member.token }).packages.settings(group.id));
      assert.equal(err.status, 403);
      await api.packages.editSettings(group.id, { nuget_duplicate_exception_regex: null, nuget_duplicates_allowed: true });
    });

    it('NuGet feed (v3 JSON): service index, search, metadata, version metadata, versions', async () => {
      const index = await api.nugetFeed.serviceIndex({ projectId: project.id });
      assert.equal(index.resources[0]!['@id'], `${f.url}/api/v4/projects/${project.id}/packages/nuget/download`);
      const byGroup = await api.nugetFeed.serviceIndex({ groupId: group.full_path });
      assert.equal(byGroup.resources[0]!['@id'], `${f.url}/api/v4/groups/pkgs/-/packages/nuget/download`);
      // 1.0.0 was deleted above: only the prerelease is left
      const found = await api.nugetFeed.search({ projectId: project.id }, { q: 'client' });
      assert.deepEqual([found.totalHits, found.data[0]!.version], [1, '1.1.0-rc.1']);
      const none = await api.nugetFeed.search({ projectId: project.id }, { q: 'client', prerelease: false });
      assert.deepEqual(none, { totalHits: 0, data: [] });
      const stable = await api.nugetFeed.search({ projectId: project.id }, { q: 'other', take: 1 });
      assert.equal(stable.data[0]!.id, 'Other.Pkg');
      const meta = await api.nugetFeed.metadata({ groupId: group.id }, 'client.pkg');
      assert.deepEqual(meta.items[0]!.items.map((i) => i.catalogEntry.version), ['1.1.0-rc.1']);
      const leaf = await api.nugetFeed.versionMetadata({ projectId: project.id }, 'Client.Pkg', '1.1.0-rc.1');
      assert.equal(leaf.catalogEntry.id, 'Client.Pkg');
      assert.deepEqual(await api.nugetFeed.versions(project.id, 'other.pkg'), { versions: ['0.1.0'] });
      // the v2 feed (Atom XML): one version, a name, a query
      const entry = await api.nugetFeed.v2Package(project.id, 'Other.Pkg', '0.1.0');
      assert.match(entry, /<d:Version>0\.1\.0<\/d:Version>/);
      assert.match(entry, new RegExp(`src="${f.url}/api/v4/projects/${project.id}/packages/nuget/download/Other.Pkg/0.1.0/other.pkg.0.1.0.nupkg"`));
      assert.match(await api.nugetFeed.v2FindPackagesById(project.id, 'other.pkg'), /<d:Version>0\.1\.0<\/d:Version>/);
      const feed = await api.nugetFeed.v2Packages(project.id, { $filter: "substringof('client',tolower(Id))", $top: '5' });
      assert.deepEqual([...feed.matchAll(/<title type="text">([^<]+)<\/title><content/g)].map((m) => m[1]), ['Client.Pkg']);
      const missing = await apiError(api.nugetFeed.metadata({ projectId: project.id }, 'none'));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Packages Not Found' }]);
    });
  });
}
