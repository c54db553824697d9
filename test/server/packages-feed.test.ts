/**
 * The package feed (NuGet v3, the spec's `pkgfeed`) at project level: upload (multipart
 * `package`, nuspec parsing, validation, duplicates), service index, registration, version
 * metadata, search (prerelease, paging, SemVer order), download (normalized versions,
 * download counts), package index, delete, and the feed's authentication.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions, fixedClock, normalizeVersion } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { basic, getRaw, nupkg, putPackage, zip } from './packages-fixtures.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const CHALLENGE = 'Basic realm="GitLab Packages Registry"';

/** Ten versions, in upload order: prereleases, 4-part versions, build metadata. */
const VERSIONS = ['1.0.0', '1.2.0-beta', '1.0.1', '1.2.0-beta.2', '1.2.0-rc.1', '1.2.0', '1.3.0.1', '2.0.0.0', '2.1.0-alpha+build.5', '1.10.0'];
/** The same, in SemVer order. */
const SORTED = ['1.0.0', '1.0.1', '1.2.0-beta', '1.2.0-beta.2', '1.2.0-rc.1', '1.2.0', '1.3.0.1', '1.10.0', '2.0.0.0', '2.1.0-alpha+build.5'];
/** NuGet's full versions of those (registration catalog entries, search): a 4th part 0 dropped, build metadata kept. */
const FULL = SORTED.map((v) => (v === '2.0.0.0' ? '2.0.0' : v));
/** Their normalized versions (flat container, URLs, registration bounds): lower-cased, no build metadata. */
const NORMALIZED = FULL.map((v) => v.replace(/\+.*$/, ''));
const STABLE = FULL.filter((v) => !v.includes('-'));

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

for (const dialect of DIALECTS) {
  describe(`${dialect}: package feed v3`, () => {
    let f: TestForgelet;
    let maintainer: User;
    let developer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let project: any;
    let pub: any;
    let P: string; // /projects/:id/packages/nuget
    let dev: Record<string, string>;
    const bytesOf = new Map<string, Buffer>();

    async function upload(version: string, options: { id?: string; headers?: Record<string, string>; project?: any; extra?: Partial<Parameters<typeof nupkg>[0]> } = {}) {
      const id = options.id ?? 'Forge.Lib';
      const file = await nupkg({ id, version, ...options.extra }, { payload: Buffer.from(`payload ${id} ${version} ${Math.random()}`) });
      const r = await putPackage(f, `/projects/${(options.project ?? project).id}/packages/nuget`, file, options.headers ?? dev);
      return { r, file };
    }

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      [maintainer, developer, reporter, guest, outsider] = await createUsers(f, ['pkmaint', 'pkdev', 'pkrep', 'pkguest', 'pkout']);
      group = await createGroup(f, f.rootToken, { name: 'Feed', path: 'feed', visibility: 'private' });
      const sub = await createGroup(f, f.rootToken, { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' });
      project = await createProject(f, f.rootToken, { name: 'lib', namespace_id: sub.id, visibility: 'private' });
      const pubGroup = await createGroup(f, f.rootToken, { name: 'Open', path: 'open', visibility: 'public' });
      pub = await createProject(f, f.rootToken, { name: 'pub', namespace_id: pubGroup.id, visibility: 'public' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', group.id, developer.id, 30);
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
      await addMember(f, 'groups', pubGroup.id, developer.id, 30);
      P = `/projects/${project.id}/packages/nuget`;
      dev = { Authorization: basic(developer.username, developer.token) };
    });
    after(() => f.stop());

    it('versions: NuGet normalization (identity) and SemVer 2 order (sort key)', () => {
      const cases: [string, string | null][] = [
        ['1', '1.0.0'], ['1.2', '1.2.0'], ['01.02.03', '1.2.3'], ['1.0.0.0', '1.0.0'], ['1.0.0.1', '1.0.0.1'], ['1.0.0-Beta.1+Build.7', '1.0.0-beta.1'],
        ['2.0.0.0-rc', '2.0.0-rc'], ['1.0.0+meta', '1.0.0'], ['1.0.0.0.0', null], ['1.0.0-', null], ['v1.0.0', null], ['1.0.0-beta..1', null], ['99999999999.0.0', null],
      ];
      for (const [input, normalized] of cases) assert.equal(normalizeVersion(input), normalized, input);
      const order = ['0.9.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.0.1', '1.0.1', '1.2.0', '1.10.0', '10.0.0'];
      const shuffled = [...order].sort(() => Math.random() - 0.5);
      assert.deepEqual(shuffled.sort(compareVersions), order);
      assert.equal(compareVersions('1.0.0+a', '1.0.0+b'), 0);
      assert.equal(compareVersions('1.0.0-BETA', '1.0.0-beta'), 0);
    });

    it('service index: anonymous, URLs from the request prefix (id or path, nuget or pkgfeed), 404 for unknown projects', async () => {
      const r = await getRaw(f, `${P}/index.json`);
      expectStatus(r, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      const base = `${f.url}/api/v4${P}`;
      assert.deepEqual(r.json, {
        version: '3.0.0',
        resources: [
          { '@id': `${base}/download`, '@type': 'PackageBaseAddress/3.0.0', comment: 'Get package content (.nupkg).' },
          { '@id': `${base}/query`, '@type': 'SearchQueryService', comment: 'Filter and search for packages by keyword.' },
          { '@id': `${base}/query`, '@type': 'SearchQueryService/3.0.0-beta', comment: 'Filter and search for packages by keyword.' },
          { '@id': `${base}/query`, '@type': 'SearchQueryService/3.0.0-rc', comment: 'Filter and search for packages by keyword.' },
          { '@id': base, '@type': 'PackagePublish/2.0.0', comment: 'Push and delete (or unlist) packages.' },
          { '@id': `${base}/metadata`, '@type': 'RegistrationsBaseUrl', comment: 'Get package metadata.' },
          { '@id': `${base}/metadata`, '@type': 'RegistrationsBaseUrl/3.0.0-beta', comment: 'Get package metadata.' },
          { '@id': `${base}/metadata`, '@type': 'RegistrationsBaseUrl/3.0.0-rc', comment: 'Get package metadata.' },
          { '@id': `${base}/symbolpackage`, '@type': 'SymbolPackagePublish/4.9.0', comment: 'Push symbol packages.' },
        ],
      });
      const byPath = await getRaw(f, `/projects/feed%2Fsub%2Flib/packages/pkgfeed/index`);
      expectStatus(byPath, 200);
      assert.equal(byPath.json.resources[0]['@id'], `${f.url}/api/v4/projects/feed%2Fsub%2Flib/packages/pkgfeed/download`);
      const groupIndex = await getRaw(f, `/groups/feed/-/packages/nuget/index.json`);
      expectStatus(groupIndex, 200);
      assert.equal(groupIndex.json.resources[1]['@id'], `${f.url}/api/v4/groups/feed/-/packages/nuget/query`);
      const missing = await getRaw(f, `/projects/999999/packages/nuget/index.json`);
      expectStatus(missing, 404);
      assert.deepEqual(missing.json, { message: '404 Project Not Found' });
      const missingGroup = await getRaw(f, `/groups/nope/-/packages/nuget/index.json`);
      assert.deepEqual([missingGroup.status, missingGroup.json], [404, { message: '404 Group Not Found' }]);
    });

    it('upload refuses bad archives with 400 and a message, and stores nothing', async () => {
      const root = f.forge.deps.blobs.root!;
      const before = blobFiles(root);
      const cases: [Buffer, string][] = [
        [Buffer.from('this is not a zip file at all'), 'Invalid package file: invalid zip archive'],
        [await zip({ 'lib/a.dll': 'x' }), 'nuspec file not found'],
        [await zip({ 'Bad.nuspec': '<package><metadata><id>Bad</id>' }), 'Invalid nuspec file:'],
        [await zip({ 'Bad.nuspec': '<package><metadata><id>Bad</id></metadata></package>' }), 'package name and/or package version not found in metadata'],
        [await nupkg({ id: 'Bad Name', version: '1.0.0' }), 'Validation failed: Name is invalid'],
        [await nupkg({ id: 'Bad', version: '1.0.0.0.0' }), 'Validation failed: Version is invalid'],
        [await nupkg({ id: 'Bad', version: '1.0.0', projectUrl: 'ftp://example.com/x' }), 'Validation failed: Project url is blocked: Only allowed schemes are http, https'],
        [await nupkg({ id: 'Bad', version: '1.0.0', authors: 'a'.repeat(256) }), 'Validation failed: Authors is too long (maximum is 255 characters)'],
      ];
      for (const [file, message] of cases) {
        const r = await putPackage(f, P, file, dev);
        expectStatus(r, 400);
        assert.ok(typeof r.body.message === 'string' && r.body.message.startsWith(message), `${r.body.message} should start with ${message}`);
      }
      // the declared name or version must be the nuspec's
      const good = await nupkg({ id: 'Declared', version: '1.0.0' });
      const mismatch = await putPackage(f, P, good, dev, { fields: { package_name: 'Other', package_version: '1.0.0' } });
      expectStatus(mismatch, 400);
      assert.deepEqual(mismatch.body, { message: 'package name Other does not match the package metadata (Declared)' });
      const badVersion = await putPackage(f, P, good, dev, { fields: { packageName: 'declared', packageVersion: '2.0' } });
      assert.deepEqual([badVersion.status, badVersion.body], [400, { message: 'package version 2.0 does not match the package metadata (1.0.0)' }]);
      // no file part at all
      const none = await putPackage(f, P, good, dev, { field: 'something' });
      assert.deepEqual([none.status, none.body], [400, { error: 'package is missing' }]);
      assert.deepEqual(blobFiles(root), before);
      const list = await f.api('GET', `/projects/${project.id}/packages`);
      assert.deepEqual(list.body, []);
    });

    it('upload authentication: 401 + challenge without credentials, 403 for Reporters, 404 for outsiders; Basic, X-NuGet-ApiKey', async () => {
      const file = await nupkg({ id: 'Auth.Pkg', version: '1.0.0' });
      const anon = await putPackage(f, P, file, {});
      expectStatus(anon, 401);
      assert.equal(anon.headers['www-authenticate'], CHALLENGE);
      const wrongUser = await putPackage(f, P, file, { Authorization: basic('someone-else', developer.token) });
      expectStatus(wrongUser, 401);
      assert.equal(wrongUser.headers['www-authenticate'], CHALLENGE);
      const badToken = await putPackage(f, P, file, { Authorization: basic(developer.username, 'glpat-nope') });
      expectStatus(badToken, 401);
      const rep = await putPackage(f, P, file, { Authorization: basic(reporter.username, reporter.token) });
      assert.deepEqual([rep.status, rep.body], [403, { message: '403 Forbidden' }]);
      const out = await putPackage(f, P, file, { Authorization: basic(outsider.username, outsider.token) });
      assert.deepEqual([out.status, out.body], [404, { message: '404 Project Not Found' }]);
      const apiKey = await putPackage(f, `${P}/`, file, { 'X-NuGet-ApiKey': developer.token });
      assert.deepEqual([apiKey.status, apiKey.body], [201, { message: '201 Created' }]);
      // username case-insensitive
      const second = await putPackage(f, `/projects/${project.id}/packages/pkgfeed/v2/`, await nupkg({ id: 'Auth.Pkg', version: '1.0.1' }), {
        Authorization: basic(developer.username.toUpperCase(), developer.token),
      });
      expectStatus(second, 201);
    });

    it('ten versions (prerelease, 4-part, build metadata), ids case-insensitive: registration index and version metadata', async () => {
      for (const [i, v] of VERSIONS.entries()) {
        const { r, file } = await upload(v, {
          id: i % 2 ? 'forge.lib' : 'Forge.Lib',
          extra:
            v === '1.2.0'
              ? {
                  title: 'Forge Library',
                  summary: 'Tools for forges',
                  tags: 'forge  tools',
                  projectUrl: 'https://example.com/forge',
                  licenseUrl: 'https://example.com/license',
                  groups: [
                    { targetFramework: null, dependencies: [{ id: 'Plain.Dep', version: '1.0.0' }] },
                    { targetFramework: 'net6.0', dependencies: [{ id: 'Newtonsoft.Json', version: '[13.0.1, )' }, { id: 'No.Range' }] },
                    { targetFramework: '.NETStandard2.0', dependencies: [] },
                  ],
                }
              : {},
        });
        expectStatus(r, 201);
        bytesOf.set(v, file);
      }
      const r = await getRaw(f, `${P}/metadata/FORGE.LIB/index.json`, dev);
      expectStatus(r, 200);
      const base = `${f.url}/api/v4${P}`;
      assert.equal(r.json.count, 1);
      const page = r.json.items[0];
      assert.deepEqual(
        { id: page['@id'], lower: page.lower, upper: page.upper, count: page.count },
        { id: `${base}/metadata/Forge.Lib/1.0.0.json`, lower: '1.0.0', upper: '2.1.0-alpha', count: 10 },
      );
      assert.deepEqual(page.items.map((i: any) => i.catalogEntry.version), FULL);
      assert.deepEqual(
        page.items.map((i: any) => [i['@id'], i.packageContent]),
        NORMALIZED.map((v) => [`${base}/metadata/Forge.Lib/${v}.json`, `${base}/download/Forge.Lib/${v}/forge.lib.${v}.nupkg`]),
      );
      const leaf = page.items.find((i: any) => i.catalogEntry.version === '1.2.0');
      const id = `${base}/metadata/Forge.Lib/1.2.0.json`;
      assert.deepEqual(leaf, {
        '@id': id,
        packageContent: `${base}/download/Forge.Lib/1.2.0/forge.lib.1.2.0.nupkg`,
        catalogEntry: {
          '@id': id,
          authors: 'Forgelet Tests',
          dependencyGroups: [
            {
              '@id': `${id}#dependencyGroup`,
              '@type': 'PackageDependencyGroup',
              dependencies: [{ '@id': `${id}#dependencyGroup/plain.dep`, '@type': 'PackageDependency', id: 'Plain.Dep', range: '1.0.0' }],
            },
            {
              '@id': `${id}#dependencyGroup/net6.0`,
              '@type': 'PackageDependencyGroup',
              targetFramework: 'net6.0',
              dependencies: [
                { '@id': `${id}#dependencyGroup/net6.0/newtonsoft.json`, '@type': 'PackageDependency', id: 'Newtonsoft.Json', range: '[13.0.1, )' },
                { '@id': `${id}#dependencyGroup/net6.0/no.range`, '@type': 'PackageDependency', id: 'No.Range' },
              ],
            },
            { '@id': `${id}#dependencyGroup/.netstandard2.0`, '@type': 'PackageDependencyGroup', targetFramework: '.NETStandard2.0', dependencies: [] },
          ],
          id: 'Forge.Lib',
          version: '1.2.0',
          tags: 'forge tools',
          packageContent: `${base}/download/Forge.Lib/1.2.0/forge.lib.1.2.0.nupkg`,
          description: 'The forge.lib package',
          summary: 'Tools for forges',
          published: NOW,
          projectUrl: 'https://example.com/forge',
          licenseUrl: 'https://example.com/license',
        },
      });
      // the first upload's spelling names the package; the nuspec of each upload its own version
      assert.ok(page.items.every((i: any) => i.catalogEntry.id === 'Forge.Lib'));

      // version metadata: `.json` or not, normalized (2.0.0 for 2.0.0.0), build metadata ignored, any casing
      for (const path of ['forge.lib/2.0.0.json', 'Forge.Lib/2.0.0.0', 'FORGE.LIB/2.1.0-ALPHA.json', 'forge.lib/2.1.0-alpha+other']) {
        const v = await getRaw(f, `${P}/metadata/${path}`, dev);
        expectStatus(v, 200);
        assert.deepEqual(Object.keys(v.json), ['@id', 'packageContent', 'catalogEntry']);
      }
      const two = await getRaw(f, `${P}/metadata/forge.lib/2.0.0.0.json`, dev);
      assert.deepEqual([two.json['@id'], two.json.catalogEntry.version], [`${base}/metadata/Forge.Lib/2.0.0.json`, '2.0.0']);
      assert.equal(two.json.packageContent, `${base}/download/Forge.Lib/2.0.0/forge.lib.2.0.0.nupkg`);
      const build = await getRaw(f, `${P}/metadata/forge.lib/2.1.0-alpha.json`, dev);
      assert.deepEqual([build.json['@id'], build.json.catalogEntry.version], [`${base}/metadata/Forge.Lib/2.1.0-alpha.json`, '2.1.0-alpha+build.5']);
      const none = await getRaw(f, `${P}/metadata/forge.lib/9.9.9.json`, dev);
      assert.deepEqual([none.status, none.json], [404, { message: '404 Package Not Found' }]);
      const noName = await getRaw(f, `${P}/metadata/Nothing.Here/index.json`, dev);
      assert.deepEqual([noName.status, noName.json], [404, { message: '404 Packages Not Found' }]);
      const badName = await getRaw(f, `${P}/metadata/bad%20name/index.json`, dev);
      assert.deepEqual([badName.status, badName.json], [400, { error: 'package_name is invalid' }]);
    });

    it('search: q, prerelease (default true), skip/take paging by name, SemVer order, totalHits', async () => {
      for (const [id, v] of [['Alpha.Tool', '0.9.0'], ['Zeta.Tool', '3.0.0'], ['OnlyPre.Tool', '1.0.0-preview.1'], ['alpha.tool', '0.10.0']]) {
        expectStatus((await upload(v!, { id })).r, 201);
      }
      const all = await getRaw(f, `${P}/query?q=forge`, dev);
      expectStatus(all, 200);
      assert.equal(all.json.totalHits, 1);
      const hit = all.json.data[0];
      const base = `${f.url}/api/v4${P}`;
      assert.deepEqual(
        { type: hit['@type'], id: hit.id, version: hit.version, verified: hit.verified, total: hit.totalDownloads },
        { type: 'Package', id: 'Forge.Lib', version: '2.1.0-alpha+build.5', verified: true, total: 0 },
      );
      // full versions (build metadata kept), the leaves' normalized URLs
      assert.deepEqual(
        hit.versions,
        FULL.map((v, i) => ({ '@id': `${base}/metadata/Forge.Lib/${NORMALIZED[i]}.json`, version: v, downloads: 0 })),
      );
      const stable = await getRaw(f, `${P}/query?q=FORGE&prerelease=false`, dev);
      assert.equal(stable.json.data[0].version, '2.0.0');
      assert.deepEqual(stable.json.data[0].versions.map((v: any) => v.version), STABLE);

      const names = async (query: string) => {
        const r = await getRaw(f, `${P}/query?${query}`, dev);
        expectStatus(r, 200);
        return { total: r.json.totalHits, ids: r.json.data.map((d: any) => `${d.id}@${d.version}`) };
      };
      assert.deepEqual(await names(''), { total: 5, ids: ['Alpha.Tool@0.10.0', 'Auth.Pkg@1.0.1', 'Forge.Lib@2.1.0-alpha+build.5', 'OnlyPre.Tool@1.0.0-preview.1', 'Zeta.Tool@3.0.0'] });
      assert.deepEqual(await names('skip=1&take=2'), { total: 5, ids: ['Auth.Pkg@1.0.1', 'Forge.Lib@2.1.0-alpha+build.5'] });
      assert.deepEqual(await names('skip=4&take=2'), { total: 5, ids: ['Zeta.Tool@3.0.0'] });
      assert.deepEqual(await names('prerelease=false&take=2'), { total: 4, ids: ['Alpha.Tool@0.10.0', 'Auth.Pkg@1.0.1'] });
      assert.deepEqual(await names('q=TOOL&prerelease=false'), { total: 2, ids: ['Alpha.Tool@0.10.0', 'Zeta.Tool@3.0.0'] });
      assert.deepEqual(await names('q=%25'), { total: 0, ids: [] });
      assert.deepEqual(await names('skip=50'), { total: 5, ids: [] });
      for (const [query, error] of [['take=0', 'take is invalid'], ['skip=-1', 'skip is invalid'], ['take=x', 'take is invalid'], ['prerelease=maybe', 'prerelease is invalid']]) {
        const r = await getRaw(f, `${P}/query?${query}`, dev);
        assert.deepEqual([r.status, r.json], [400, { error }]);
      }
    });

    it('download: bytes of the newest file, normalized versions, any casing, counts; package index', async () => {
      const get = (path: string, headers = dev) => getRaw(f, `${P}/download/${path}`, headers);
      const r = await get('Forge.Lib/1.0.0/forge.lib.1.0.0.nupkg');
      expectStatus(r, 200);
      assert.equal(r.headers.get('content-type'), 'application/octet-stream');
      assert.equal(r.headers.get('content-length'), String(bytesOf.get('1.0.0')!.length));
      assert.ok(r.bytes.equals(bytesOf.get('1.0.0')!));
      // flat-container style: lower-case id and normalized version
      const flat = await get('forge.lib/2.0.0/forge.lib.2.0.0.nupkg');
      expectStatus(flat, 200);
      assert.ok(flat.bytes.equals(bytesOf.get('2.0.0.0')!));
      expectStatus(await get('FORGE.LIB/2.0.0.0/FORGE.LIB.2.0.0.0.nupkg'), 200);
      const build = await get('forge.lib/2.1.0-alpha/forge.lib.2.1.0-alpha.nupkg');
      assert.ok(build.bytes.equals(bytesOf.get('2.1.0-alpha+build.5')!));
      for (const path of ['Forge.Lib/1.0.0/other.1.0.0.nupkg', 'Forge.Lib/1.0.0/forge.lib.1.0.0.zip', 'Forge.Lib/7.0.0/forge.lib.7.0.0.nupkg', 'Forge.Lib/1.0.0/forge.lib.1.0.0.snupkg']) {
        const miss = await get(path);
        assert.deepEqual([miss.status, miss.json], [404, { message: '404 Package Not Found' }], path);
      }
      // counts: 1.0.0 twice, 2.0.0.0 twice (a HEAD is no download)
      const head = await fetch(`${f.url}/api/v4${P}/download/Forge.Lib/1.0.0/forge.lib.1.0.0.nupkg`, { method: 'HEAD', headers: dev });
      assert.deepEqual([head.status, head.headers.get('content-length')], [200, String(bytesOf.get('1.0.0')!.length)]);
      await get('Forge.Lib/1.0.0/forge.lib.1.0.0.nupkg');
      const search = await getRaw(f, `${P}/query?q=forge.lib`, dev);
      const counts = Object.fromEntries(search.json.data[0].versions.map((v: any) => [v.version, v.downloads]));
      assert.equal(counts['1.0.0'], 2);
      assert.equal(counts['2.0.0'], 2);
      assert.equal(counts['2.1.0-alpha+build.5'], 1);
      assert.equal(search.json.data[0].totalDownloads, 5);
      // package index (flat container): normalized, lower-cased, no build metadata
      const index = await getRaw(f, `${P}/download/FORGE.LIB/index.json`, dev);
      assert.deepEqual([index.status, index.json], [200, { versions: NORMALIZED }]);
      expectStatus(await getRaw(f, `${P}/download/forge.lib/index`, dev), 200);
      const noIndex = await getRaw(f, `${P}/download/none.here/index`, dev);
      assert.deepEqual([noIndex.status, noIndex.json], [404, { message: '404 Packages Not Found' }]);
    });

    it('read access: anonymous 401 + challenge on private, guest 403, outsider 404, reporter and job-less Basic ok; public readable anonymously', async () => {
      const path = `${P}/metadata/forge.lib/index.json`;
      const anon = await getRaw(f, path);
      assert.deepEqual([anon.status, anon.headers.get('www-authenticate'), anon.json], [401, CHALLENGE, { message: '401 Unauthorized' }]);
      const anonMissing = await getRaw(f, `/projects/999999/packages/nuget/query`);
      assert.deepEqual([anonMissing.status, anonMissing.headers.get('www-authenticate')], [401, CHALLENGE]);
      const g = await getRaw(f, path, { Authorization: basic(guest.username, guest.token) });
      assert.deepEqual([g.status, g.json], [403, { message: '403 Forbidden' }]);
      const o = await getRaw(f, path, { Authorization: basic(outsider.username, outsider.token) });
      assert.deepEqual([o.status, o.json], [404, { message: '404 Project Not Found' }]);
      expectStatus(await getRaw(f, path, { Authorization: basic(reporter.username, reporter.token) }), 200);
      expectStatus(await getRaw(f, path, { 'PRIVATE-TOKEN': reporter.token }), 200);
      // public project: anonymous reads, download included
      const file = await nupkg({ id: 'Open.Pkg', version: '1.0.0' });
      expectStatus(await putPackage(f, `/projects/${pub.id}/packages/nuget`, file, dev), 201);
      const open = await getRaw(f, `/projects/${pub.id}/packages/nuget/metadata/open.pkg/index.json`);
      expectStatus(open, 200);
      const dl = await getRaw(f, `/projects/${pub.id}/packages/nuget/download/open.pkg/1.0.0/open.pkg.1.0.0.nupkg`);
      assert.ok(dl.bytes.equals(file));
      const q = await getRaw(f, `/projects/${pub.id}/packages/nuget/query`);
      assert.deepEqual(q.json.data.map((d: any) => d.id), ['Open.Pkg']);
    });

    it('duplicates: allowed by default (file appended, newest served); group setting forbids (409) with an exception regex', async () => {
      const first = bytesOf.get('1.0.1')!;
      const { r, file } = await upload('1.0.01');
      expectStatus(r, 201);
      const files = await f.api('GET', `/projects/${project.id}/packages?package_name=forge.lib&package_version=1.0.1`);
      assert.equal(files.body.length, 1);
      const pf = await f.api('GET', `/projects/${project.id}/packages/${files.body[0].id}/package_files`);
      // the same version: both files named as NuGet clients ask for it
      assert.deepEqual(pf.body.map((x: any) => x.file_name), ['forge.lib.1.0.1.nupkg', 'forge.lib.1.0.1.nupkg']);
      const dl = await getRaw(f, `${P}/download/forge.lib/1.0.1/forge.lib.1.0.1.nupkg`, dev);
      assert.ok(dl.bytes.equals(file) && !dl.bytes.equals(first));

      const settings = (token: string, body?: unknown) =>
        f.api(body ? 'PUT' : 'GET', `/forgelet/groups/${group.id}/package_settings`, { token, body });
      assert.deepEqual((await settings(maintainer.token)).body, { nuget_duplicates_allowed: true, nuget_duplicate_exception_regex: '', nuget_symbol_server_enabled: true });
      assert.equal((await settings(developer.token, { nuget_duplicates_allowed: false })).status, 403);
      const put = await settings(maintainer.token, { nuget_duplicates_allowed: false, nuget_duplicate_exception_regex: 'Zeta\\..*' });
      assert.deepEqual([put.status, put.body], [200, { nuget_duplicates_allowed: false, nuget_duplicate_exception_regex: 'Zeta\\..*', nuget_symbol_server_enabled: true }]);
      const bad = await settings(maintainer.token, { nuget_duplicate_exception_regex: '(' });
      expectStatus(bad, 400);
      assert.ok(bad.body.message.nuget_duplicate_exception_regex[0].startsWith('not valid regular expression syntax'));
      const dup = await upload('1.0.0');
      assert.deepEqual([dup.r.status, dup.r.body], [409, { message: 'A package with the same name and version already exists' }]);
      const dupNormalized = await upload('2.0.0');
      expectStatus(dupNormalized.r, 409);
      expectStatus((await upload('3.0.0', { id: 'zeta.tool' })).r, 201);
      expectStatus((await upload('3.0.1', { id: 'Forge.Lib' })).r, 201);
      await settings(maintainer.token, { nuget_duplicates_allowed: true, nuget_duplicate_exception_regex: null });
      expectStatus((await upload('1.0.0')).r, 201);
    });

    it('delete: Developer 403, Maintainer 204 (files gone), then 404; project packages API', async () => {
      const path = `${P}/Forge.Lib/3.0.1`;
      const d = await f.api('DELETE', path, { token: null, headers: { Authorization: basic(developer.username, developer.token) } });
      assert.deepEqual([d.status, d.body], [403, { message: '403 Forbidden' }]);
      const root = f.forge.deps.blobs.root!;
      const beforeFiles = blobFiles(root).length;
      // NuGet's DELETE: X-NuGet-ApiKey and Content-Type text/html, no body
      const m = await f.api('DELETE', `${P}/forge.lib/3.0.1`, { token: null, headers: { 'X-NuGet-ApiKey': maintainer.token, 'Content-Type': 'text/html' } });
      expectStatus(m, 204);
      assert.equal(m.text, '');
      assert.equal(blobFiles(root).length, beforeFiles - 1);
      const again = await f.api('DELETE', path, { token: null, headers: { Authorization: basic(maintainer.username, maintainer.token) } });
      assert.deepEqual([again.status, again.body], [404, { message: '404 Package Not Found' }]);
      const meta = await getRaw(f, `${P}/metadata/forge.lib/3.0.1.json`, dev);
      expectStatus(meta, 404);
      const anon = await f.api('DELETE', path, { token: null });
      assert.deepEqual([anon.status, anon.headers.get('www-authenticate')], [401, CHALLENGE]);
    });
  });
}
