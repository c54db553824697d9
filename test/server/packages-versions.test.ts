/**
 * NuGet versions as NuGet normalizes them (leading zeros dropped in each part, a 4th part `0`
 * dropped, build metadata removed, lower-cased): a package pushed as `01.2.3` and one as
 * `4.0.0-alpha+build.7` are listed, addressed and downloaded by `1.2.3` and `4.0.0-alpha` in the
 * flat container, registration and v2 feed; search keeps the full version; the packages API and
 * the stored archive keep the version as pushed. Also: a package's other `versions` outside
 * lists, the md5 and sha1 of its files, and migration 016's pass over rows stored the old way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fixedClock, formatVersion, normalizeVersion, versionSortKey } from '@forgelet/core';
import { normalizeStoredPackages } from '../../packages/core/src/storage/migrations/016-package-versions.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { basic, getRaw, nupkg, putPackage } from './packages-fixtures.js';

const NOW = '2024-06-15T12:00:00.000Z';
const digest = (algo: string, bytes: Buffer) => createHash(algo).update(bytes).digest('hex');
const versionsIn = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<d:${tag}>([^<]*)</d:${tag}>`, 'g'))].map((m) => m[1]);

for (const dialect of DIALECTS) {
  describe(`${dialect}: NuGet versions normalized as NuGet does; package versions and file digests`, () => {
    let f: TestForgelet;
    let dev: Record<string, string>;
    let project: any;
    let P: string;
    let base: string;
    const bytes: Record<string, Buffer> = {};

    async function push(id: string, version: string): Promise<Buffer> {
      const file = await nupkg({ id, version }, { payload: Buffer.from(`${id} ${version} ${Math.random()}`) });
      const r = await putPackage(f, P, file, dev);
      assert.equal(r.status, 201, r.text);
      return file;
    }

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      const [developer] = await createUsers(f, ['verdev']);
      const group = await createGroup(f, f.rootToken, { name: 'Versions', path: 'versions', visibility: 'private' });
      project = await createProject(f, f.rootToken, { name: 'feed', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'groups', group.id, developer!.id, 30);
      dev = { Authorization: basic(developer!.username, developer!.token) };
      P = `/projects/${project.id}/packages/nuget`;
      base = `${f.url}/api/v4${P}`;
      bytes['01.2.3'] = await push('Norm.Pkg', '01.2.3');
      bytes['4.0.0-alpha+build.7'] = await push('Norm.Pkg', '4.0.0-alpha+build.7');
    });
    after(() => f.stop());

    it('NuGet normalization: normalized (identity, URLs) and full (catalog entry, search) strings', () => {
      const cases: [string, string, string][] = [
        ['01.2.3', '1.2.3', '1.2.3'],
        ['4.0.0-alpha+build.7', '4.0.0-alpha', '4.0.0-alpha+build.7'],
        ['1.0', '1.0.0', '1.0.0'],
        ['1.00.0.1', '1.0.0.1', '1.0.0.1'],
        ['1.0.01.0', '1.0.1', '1.0.1'],
        ['02.0.0.0-RC.1+Meta', '2.0.0-rc.1', '2.0.0-RC.1+Meta'],
      ];
      for (const [text, normalized, full] of cases) {
        assert.equal(normalizeVersion(text), normalized, text);
        assert.equal(formatVersion(text, { metadata: true }), full, text);
      }
    });

    it('flat container and registration: normalized versions and URLs; catalog entries carry the full version', async () => {
      const index = await getRaw(f, `${P}/download/norm.pkg/index.json`, dev);
      assert.deepEqual([index.status, index.json], [200, { versions: ['1.2.3', '4.0.0-alpha'] }]);
      // a client builds each download URL from a listed version
      for (const [v, pushed] of [['1.2.3', '01.2.3'], ['4.0.0-alpha', '4.0.0-alpha+build.7']] as const) {
        const dl = await getRaw(f, `${P}/download/norm.pkg/${v}/norm.pkg.${v}.nupkg`, dev);
        assert.equal(dl.status, 200, v);
        assert.ok(dl.bytes.equals(bytes[pushed]!), 'the archive as pushed (its nuspec keeps the version as written)');
      }

      const reg = await getRaw(f, `${P}/metadata/norm.pkg/index.json`, dev);
      expectStatus(reg, 200);
      const page = reg.json.items[0];
      assert.deepEqual([page['@id'], page.lower, page.upper, page.count], [`${base}/metadata/Norm.Pkg/1.2.3.json`, '1.2.3', '4.0.0-alpha', 2]);
      assert.deepEqual(
        page.items.map((l: any) => [l['@id'], l.catalogEntry.version, l.packageContent]),
        [
          [`${base}/metadata/Norm.Pkg/1.2.3.json`, '1.2.3', `${base}/download/Norm.Pkg/1.2.3/norm.pkg.1.2.3.nupkg`],
          [`${base}/metadata/Norm.Pkg/4.0.0-alpha.json`, '4.0.0-alpha+build.7', `${base}/download/Norm.Pkg/4.0.0-alpha/norm.pkg.4.0.0-alpha.nupkg`],
        ],
      );
      for (const leaf of page.items) {
        const own = await getRaw(f, leaf['@id'].slice(`${f.url}/api/v4`.length), dev);
        assert.deepEqual(own.json, leaf, 'the leaf URL answers the leaf');
      }
      // the version as pushed and the normalized one address the same leaf
      for (const v of ['01.2.3', '1.2.3', '1.2.3.0']) {
        const leaf = await getRaw(f, `${P}/metadata/norm.pkg/${v}.json`, dev);
        assert.equal(leaf.json['@id'], `${base}/metadata/Norm.Pkg/1.2.3.json`, v);
      }
    });

    it('search keeps the full version with build metadata; the packages API the version as pushed', async () => {
      const q = await getRaw(f, `${P}/query?q=norm`, dev);
      assert.deepEqual(
        [q.json.data[0].version, q.json.data[0].versions.map((v: any) => [v['@id'], v.version])],
        ['4.0.0-alpha+build.7', [[`${base}/metadata/Norm.Pkg/1.2.3.json`, '1.2.3'], [`${base}/metadata/Norm.Pkg/4.0.0-alpha.json`, '4.0.0-alpha+build.7']]],
      );
      const list = await f.api('GET', `/projects/${project.id}/packages?order_by=version`);
      assert.deepEqual(list.body.map((p: any) => p.version), ['01.2.3', '4.0.0-alpha+build.7']);
    });

    it('v2 feed: entries and listings show the normalized version; content URLs download', async () => {
      const v2 = `${base}/v2`;
      for (const asked of ['1.2.3', '01.2.3']) {
        const entry = await getRaw(f, `${P}/v2/Packages(Id='Norm.Pkg',Version='${asked}')`);
        expectStatus(entry, 200);
        assert.deepEqual(versionsIn(entry.text, 'Version'), ['1.2.3'], asked);
        assert.ok(entry.text.includes(`<id>${v2}/Packages(Id=&apos;Norm.Pkg&apos;,Version=&apos;1.2.3&apos;)</id>`), entry.text);
        const src = /<content type="application\/zip" src="([^"]+)"/.exec(entry.text)![1]!;
        assert.equal(src, `${base}/download/Norm.Pkg/1.2.3/norm.pkg.1.2.3.nupkg`);
        assert.ok(Buffer.from(await (await fetch(src, { headers: dev })).arrayBuffer()).equals(bytes['01.2.3']!));
      }
      const all = await getRaw(f, `${P}/v2/Packages`, dev);
      assert.deepEqual(versionsIn(all.text, 'Version'), ['1.2.3', '4.0.0-alpha']);
      assert.deepEqual(versionsIn(all.text, 'NormalizedVersion'), ['1.2.3', '4.0.0-alpha']);
      assert.ok(all.text.includes(`src="${base}/download/Norm.Pkg/4.0.0-alpha/norm.pkg.4.0.0-alpha.nupkg"`), all.text);
      const found = await getRaw(f, `${P}/v2/FindPackagesById()?id='norm.pkg'`, dev);
      assert.deepEqual(versionsIn(found.text, 'Version'), ['1.2.3']);
    });

    it('a version NuGet holds equal is the same package: 1.2.3.0 adds a file to 01.2.3, which is then served', async () => {
      bytes['1.2.3.0'] = await push('norm.pkg', '1.2.3.0');
      const list = await f.api('GET', `/projects/${project.id}/packages?order_by=version`);
      assert.deepEqual(list.body.map((p: any) => `${p.name} ${p.version}`), ['Norm.Pkg 01.2.3', 'Norm.Pkg 4.0.0-alpha+build.7']);
      const files = await f.api('GET', `/projects/${project.id}/packages/${list.body[0].id}/package_files`);
      assert.deepEqual(files.body.map((x: any) => x.file_name), ['norm.pkg.1.2.3.nupkg', 'norm.pkg.1.2.3.nupkg']);
      const dl = await getRaw(f, `${P}/download/norm.pkg/1.2.3/norm.pkg.1.2.3.nupkg`, dev);
      assert.ok(dl.bytes.equals(bytes['1.2.3.0']!));
    });

    it('GET /projects/:id/packages/:package_id: the other versions of the name; lists carry none', async () => {
      await push('Other.Pkg', '9.9.9');
      const list = await f.api('GET', `/projects/${project.id}/packages?order_by=version`);
      const [one, four, other] = list.body;
      assert.ok(list.body.every((p: any) => !('versions' in p)));
      const show = await f.api('GET', `/projects/${project.id}/packages/${one.id}`);
      expectStatus(show, 200);
      assert.deepEqual(show.body.versions, [{ id: four.id, version: '4.0.0-alpha+build.7', created_at: NOW, tags: [] }]);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/packages/${four.id}`)).body.versions.map((v: any) => v.version), ['01.2.3']);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/packages/${other.id}`)).body.versions, []);
    });

    it('package files: md5, sha1 and sha256 of the bytes, taken while the upload streamed in', async () => {
      const list = await f.api('GET', `/projects/${project.id}/packages?order_by=version`);
      const files = await f.api('GET', `/projects/${project.id}/packages/${list.body[0].id}/package_files`);
      assert.deepEqual(
        files.body.map((x: any) => [x.size, x.file_md5, x.file_sha1, x.file_sha256]),
        [bytes['01.2.3']!, bytes['1.2.3.0']!].map((b) => [b.length, digest('md5', b), digest('sha1', b), digest('sha256', b)]),
      );
    });

    it('migration 016: rows stored with the version as their identity are found again; versions NuGet holds equal merge', async () => {
      const db = f.forge.deps.db;
      // As an older database holds them: identity = the version as pushed, file names from it.
      const old = await push('Old.Pkg', '01.0.0');
      const twin = await push('Old.Pkg', '2.0.0');
      const rows = await db.selectFrom('packages').select(['id', 'version']).where('lower_name', '=', 'old.pkg').orderBy('id').execute();
      const [first, second] = rows.map((r) => r.id);
      await db.updateTable('packages').set({ normalized_version: '01.0.0' }).where('id', '=', first!).execute();
      await db.updateTable('packages').set({ version: '1.0', normalized_version: '1.0', version_sort: versionSortKey('1.0') }).where('id', '=', second!).execute();
      await db.updateTable('package_files').set({ file_name: 'old.pkg.01.0.0.nupkg' }).where('package_id', '=', first!).execute();
      await db.updateTable('package_files').set({ file_name: 'old.pkg.1.0.nupkg' }).where('package_id', '=', second!).execute();
      // the flat-container URL of 1.0.0 finds neither; each downloads by its own spelling (one count each)
      expectStatus(await getRaw(f, `${P}/metadata/old.pkg/1.0.0.json`, dev), 404);
      expectStatus(await getRaw(f, `${P}/download/old.pkg/01.0.0/old.pkg.01.0.0.nupkg`, dev), 200);
      expectStatus(await getRaw(f, `${P}/download/old.pkg/1.0/old.pkg.1.0.nupkg`, dev), 200);

      await normalizeStoredPackages(db);
      await normalizeStoredPackages(db); // a second run changes nothing
      const index = await getRaw(f, `${P}/download/old.pkg/index.json`, dev);
      assert.deepEqual(index.json, { versions: ['1.0.0'] });
      const leaf = await getRaw(f, `${P}/metadata/old.pkg/1.0.0.json`, dev);
      assert.deepEqual([leaf.status, leaf.json.catalogEntry.version], [200, '1.0.0']);
      const list = await f.api('GET', `/projects/${project.id}/packages?package_name=old.pkg`);
      assert.deepEqual(list.body.map((p: any) => [p.id, p.version]), [[first, '01.0.0']], 'the oldest row keeps its id and version');
      expectStatus(await f.api('GET', `/projects/${project.id}/packages/${second}`), 404);
      const files = await f.api('GET', `/projects/${project.id}/packages/${first}/package_files`);
      assert.deepEqual(files.body.map((x: any) => x.file_name), ['old.pkg.1.0.0.nupkg', 'old.pkg.1.0.0.nupkg']);
      const dl = await getRaw(f, `${P}/download/old.pkg/1.0.0/old.pkg.1.0.0.nupkg`, dev);
      assert.ok(dl.bytes.equals(twin) && !dl.bytes.equals(old), 'the newest file is served');
      const q = await getRaw(f, `${P}/query?q=old.pkg`, dev);
      assert.deepEqual(q.json.data[0].versions.map((v: any) => [v.version, v.downloads]), [['1.0.0', 3]], 'downloads add up');
    });
  });
}
