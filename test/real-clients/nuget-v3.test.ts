/**
 * The v3 feed as v3 clients use it, served by `bin/forgelet.js serve` as users start it
 * (test/support/served.ts).
 *
 * 1. A walk done the way NuGet's v3 protocol client does it, over plain HTTP with Basic
 *    credentials: service index → RegistrationsBaseUrl (`<id lower>/index.json`, pages with
 *    inlined leaves) → PackageBaseAddress (flat container: `<id lower>/index.json`, then
 *    `<id lower>/<version lower>/<id lower>.<version lower>.nupkg`) and the leaf's
 *    `packageContent`; at project and group level.
 * 2. NuGet.exe 5.8 (npm `nuget-exe`, under mono) against `…/nuget/index.json` on a private
 *    project, credentials in a NuGet.Config: push (with the symbol package beside it), install
 *    by version and the latest, delete.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { basic, expectedChecksum, expectedSignature, nupkg, portablePdb, putPackage, snupkg } from '../server/packages-fixtures.js';
import { NUGET_58, accessLogged, nugetHome, probeNuget58, runNuget } from './nuget-support.js';
import { toolSkip } from '../support/tools.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: a NuGet v3 protocol walk (service index → registration → flat container)`, () => {
    let f: ServedForgelet;
    let auth: Record<string, string>;
    let projectId: number;
    const files: Record<string, Buffer> = {};

    async function get(url: string): Promise<{ status: number; json: any; bytes: Buffer; type: string | null }> {
      const res = await fetch(url, { headers: auth });
      const bytes = Buffer.from(await res.arrayBuffer());
      const type = res.headers.get('content-type');
      return { status: res.status, bytes, type, json: type === 'application/json' ? JSON.parse(bytes.toString('utf8')) : undefined };
    }

    before(async () => {
      f = await startServed(dialect);
      const user = await f.createUser('walker');
      auth = { Authorization: basic(user.username, user.token) };
      const group = await f.api('POST', '/groups', { body: { name: 'Walk', path: 'walk', visibility: 'private' } });
      projectId = (await f.api('POST', '/projects', { body: { name: 'feed', namespace_id: group.body.id, visibility: 'private' } })).body.id;
      await f.api('POST', `/groups/${group.body.id}/members`, { body: { user_id: user.id, access_level: 30 } });
      for (const version of ['1.0.0', '1.1.0-rc.1', '1.1.0', '2.0.0.1']) {
        const file = await nupkg({ id: 'Walk.Pkg', version, groups: [{ targetFramework: 'net8.0', dependencies: [{ id: 'Dep.One', version: '1.0.0' }] }] });
        files[version] = file;
        const r = await putPackage(f, `/projects/${projectId}/packages/nuget`, file, auth);
        assert.equal(r.status, 201, r.text);
      }
    });
    after(() => f?.stop());

    for (const level of ['project', 'group'] as const) {
      it(`${level} level: every URL comes from the previous document`, async () => {
        const source = level === 'project' ? `${f.url}/api/v4/projects/${projectId}/packages/nuget/index.json` : `${f.url}/api/v4/groups/walk/-/packages/nuget/index.json`;
        const index = await get(source);
        assert.equal(index.status, 200);
        assert.equal(index.json.version, '3.0.0');
        const resource = (type: string) => index.json.resources.find((r: any) => r['@type'] === type)?.['@id'] as string;
        const registrations = resource('RegistrationsBaseUrl/3.0.0-rc');
        const flat = resource('PackageBaseAddress/3.0.0');
        assert.equal(registrations, source.replace(/index\.json$/, 'metadata'));

        // registration: the client lower-cases the id
        const reg = await get(`${registrations}/walk.pkg/index.json`);
        assert.equal(reg.status, 200);
        assert.equal(reg.json.count, reg.json.items.length);
        const leaves = reg.json.items.flatMap((page: any) => {
          assert.equal(page.count, page.items.length);
          return page.items;
        });
        assert.deepEqual(leaves.map((l: any) => l.catalogEntry.version), ['1.0.0', '1.1.0-rc.1', '1.1.0', '2.0.0.1']);
        assert.equal(reg.json.items[0].lower, '1.0.0');
        assert.equal(reg.json.items[0].upper, '2.0.0.1');
        const leaf = leaves[2];
        assert.deepEqual(leaf.catalogEntry.dependencyGroups[0].dependencies.map((d: any) => [d.id, d.range]), [['Dep.One', '1.0.0']]);
        // the leaf document itself
        const leafDoc = await get(leaf['@id']);
        assert.equal(leafDoc.status, 200);
        assert.equal(leafDoc.json.packageContent, leaf.packageContent);
        // packageContent: always the project's download route, with the same spelling
        assert.match(leaf.packageContent, new RegExp(`^${f.url}/api/v4/projects/${projectId}/packages/nuget/download/`));
        const content = await get(leaf.packageContent);
        assert.equal(content.status, 200);
        assert.ok(content.bytes.equals(files['1.1.0']!));

        // flat container (PackageBaseAddress): versions, then the lower-cased normalized URL
        if (level === 'group') {
          // group level serves no package content (use the project feed)
          assert.equal((await get(`${flat}/walk.pkg/index.json`)).status, 404);
          assert.equal((await get(`${flat}/walk.pkg/1.1.0/walk.pkg.1.1.0.nupkg`)).status, 404);
          return;
        }
        const versions = await get(`${flat}/walk.pkg/index.json`);
        assert.deepEqual(versions.json, { versions: ['1.0.0', '1.1.0-rc.1', '1.1.0', '2.0.0.1'] });
        for (const v of versions.json.versions as string[]) {
          const lower = v.toLowerCase();
          const nupkgFile = await get(`${flat}/walk.pkg/${lower}/walk.pkg.${lower}.nupkg`);
          assert.equal(nupkgFile.status, 200, v);
          assert.equal(nupkgFile.type, 'application/octet-stream');
          assert.ok(nupkgFile.bytes.equals(files[v]!), v);
        }
      });
    }
  });
}

const skip = toolSkip('NuGet.exe 5.8 (npm nuget-exe under mono)', probeNuget58());

// One dialect: mono's NuGet is slow (2-4 s a command); the SQL behind it runs on both
// dialects in test/server/packages-*.test.ts and in the walk above.
for (const dialect of DIALECTS.slice(0, 1)) {
  describe(`${dialect}: NuGet.exe 5.8 (npm nuget-exe, mono) against a private project's v3 feed`, { skip }, () => {
    let f: ServedForgelet;
    let projectId: number;
    let token: string;
    let home: string;
    let source: string;
    const pdb = portablePdb(Buffer.from('00112233445566778899aabbccddeeff', 'hex'), Buffer.from([1, 2, 3, 4]));
    const files: Record<string, Buffer> = {};
    const nuget = (...args: string[]) => runNuget(['mono', NUGET_58, ...args, '-NonInteractive'], { cwd: home, home });

    before(async () => {
      f = await startServed(dialect);
      const user = await f.createUser('nugetv3');
      token = user.token;
      const group = await f.api('POST', '/groups', { body: { name: 'Five', path: 'five', visibility: 'private' } });
      projectId = (await f.api('POST', '/projects', { body: { name: 'feed', namespace_id: group.body.id, visibility: 'private' } })).body.id;
      await f.api('POST', `/groups/${group.body.id}/members`, { body: { user_id: user.id, access_level: 40 } });
      home = nugetHome();
      source = `${f.url}/api/v4/projects/${projectId}/packages/nuget/index.json`;
      for (const version of ['1.0.0', '1.2.0-beta.1']) {
        files[version] = await nupkg({ id: 'Five.Lib', version });
        writeFileSync(join(home, `Five.Lib.${version}.nupkg`), files[version]!);
      }
      writeFileSync(join(home, 'Five.Lib.1.0.0.snupkg'), await snupkg({ id: 'Five.Lib', version: '1.0.0' }, { 'lib/net6.0/Five.Lib.pdb': pdb }));
      writeFileSync(
        join(home, 'NuGet.Config'),
        `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources><clear /><add key="forge" value="${source}" /></packageSources>\n` +
          `  <packageSourceCredentials><forge><add key="Username" value="${user.username}" /><add key="ClearTextPassword" value="${token}" /></forge></packageSourceCredentials>\n</configuration>\n`,
      );
    });
    after(async () => {
      await f?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('push: PUT …/nuget/ (quoted boundary, chunked), and the .snupkg beside it to …/symbolpackage/', async () => {
      // One after the other: mono NuGet processes sharing a HOME race on their config and caches.
      const first = await nuget('push', 'Five.Lib.1.0.0.nupkg', '-Source', source, '-ApiKey', token);
      const second = await nuget('push', 'Five.Lib.1.2.0-beta.1.nupkg', '-Source', source, '-ApiKey', token);
      assert.match(first.output, /Your package was pushed\./, first.output);
      assert.match(second.output, /Your package was pushed\./, second.output);
      await accessLogged(f, ` PUT /api/v4/projects/${projectId}/packages/nuget/ 201 `);
      await accessLogged(f, ` PUT /api/v4/projects/${projectId}/packages/nuget/symbolpackage/ 201 `, { context: first.output });
      const packages = await f.api('GET', `/projects/${projectId}/packages?order_by=version`);
      assert.deepEqual(packages.body.map((p: any) => p.version), ['1.0.0', '1.2.0-beta.1']);
      // the symbol file is served to a debugger that knows its checksum
      const sig = expectedSignature(Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
      const sym = await fetch(`${f.url}/api/v4/projects/${projectId}/packages/nuget/symbolfiles/five.lib.pdb/${sig}/five.lib.pdb`, {
        headers: { Symbolchecksum: `SHA256:${expectedChecksum(pdb)}` },
      });
      assert.equal(sym.status, 200);
      assert.ok(Buffer.from(await sym.arrayBuffer()).equals(pdb));
    });

    it('install by version and the latest (metadata/<id lower>/index.json, then packageContent), delete', async () => {
      const out = join(home, 'out');
      const config = join(home, 'NuGet.Config');
      const byVersion = await nuget('install', 'Five.Lib', '-Version', '1.2.0-beta.1', '-Source', 'forge', '-ConfigFile', config, '-OutputDirectory', join(out, 'a'), '-NoCache', '-DirectDownload');
      const latest = await nuget('install', 'Five.Lib', '-Source', 'forge', '-ConfigFile', config, '-OutputDirectory', join(out, 'b'), '-NoCache', '-DirectDownload');
      assert.match(byVersion.output, /Successfully installed 'Five\.Lib 1\.2\.0-beta\.1'/, byVersion.output);
      assert.ok(readFileSync(join(out, 'a', 'Five.Lib.1.2.0-beta.1', 'Five.Lib.1.2.0-beta.1.nupkg')).equals(files['1.2.0-beta.1']!));
      assert.match(latest.output, /Successfully installed 'Five\.Lib 1\.0\.0'/, latest.output);
      assert.ok(existsSync(join(out, 'b', 'Five.Lib.1.0.0', 'lib', 'net6.0', 'Five.Lib.dll')));
      await accessLogged(f, ` GET /api/v4/projects/${projectId}/packages/nuget/metadata/five.lib/index.json 200 `);

      const deleted = await nuget('delete', 'Five.Lib', '1.2.0-beta.1', '-Source', source, '-ApiKey', token);
      assert.match(deleted.output, /was deleted successfully/, deleted.output);
      await accessLogged(f, ` DELETE /api/v4/projects/${projectId}/packages/nuget/Five.Lib/1.2.0-beta.1 204 `);
      const packages = await f.api('GET', `/projects/${projectId}/packages`);
      assert.deepEqual(packages.body.map((p: any) => p.version), ['1.0.0']);
    });
  });
}
