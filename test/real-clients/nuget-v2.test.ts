/**
 * Debian's `nuget` (NuGet.exe 2.8.7 under mono, a v2-only client) against a feed of the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): it pushes packages to the v2 route (`PUT
 * …/nuget/v2/` with `X-NuGet-ApiKey`, its malformed multipart), lists them (`$metadata`, then
 * `Packages()` OData queries) and installs one by version (`Packages(Id=…,Version=…)`, then the
 * content URL). As the spec says, the v2 service document needs no credentials and 2.8.7 only
 * sends them after a challenge, so listing and installing use a public project; pushing works on a
 * private one with the key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { nupkg } from '../server/packages-fixtures.js';
import { accessLogged, nugetHome, probeNuget287, runNuget } from './nuget-support.js';
import { toolSkip } from '../support/tools.js';

const skip = toolSkip('NuGet.exe 2.8.7 (Debian nuget under mono)', probeNuget287());

// One dialect: mono's NuGet is slow (2-4 s a command) and the SQL behind every request here
// runs on both dialects in test/server/packages-*.test.ts.
for (const dialect of DIALECTS.slice(0, 1)) {
  describe(`${dialect}: NuGet.exe 2.8.7 (Debian, mono) against the v2 feed`, { skip }, () => {
    let f: ServedForgelet;
    let token: string;
    let pub: number;
    let priv: number;
    let home: string;
    const files: Record<string, Buffer> = {};
    const v2 = (project: number) => `${f.url}/api/v4/projects/${project}/packages/nuget/v2`;
    const nuget = (...args: string[]) => runNuget(['nuget', ...args, '-NonInteractive'], { cwd: home, home });

    before(async () => {
      f = await startServed(dialect);
      const user = await f.createUser('nugetv2');
      token = user.token;
      const group = await f.api('POST', '/groups', { body: { name: 'Dotnet', path: 'dotnet', visibility: 'public' } });
      pub = (await f.api('POST', '/projects', { body: { name: 'tools', namespace_id: group.body.id, visibility: 'public' } })).body.id;
      priv = (await f.api('POST', '/projects', { body: { name: 'secret', namespace_id: group.body.id, visibility: 'private' } })).body.id;
      await f.api('POST', `/groups/${group.body.id}/members`, { body: { user_id: user.id, access_level: 30 } });
      home = nugetHome();
      for (const [name, version] of [['Forge.Tools', '1.0.0'], ['Forge.Tools', '1.1.0-beta'], ['Other.Lib', '2.0.0']] as const) {
        const file = await nupkg({ id: name, version, description: `${name} for tests`, tags: 'forge cli' });
        files[`${name}.${version}`] = file;
        writeFileSync(join(home, `${name}.${version}.nupkg`), file);
      }
    });
    after(async () => {
      await f?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('pushes to the v2 route with -ApiKey (PUT …/v2/ with its LF-terminated multipart), public and private projects', async () => {
      const pushes = await Promise.all([
        nuget('push', 'Forge.Tools.1.0.0.nupkg', '-Source', v2(pub), '-ApiKey', token),
        nuget('push', 'Forge.Tools.1.1.0-beta.nupkg', '-Source', v2(pub), '-ApiKey', token),
        nuget('push', 'Other.Lib.2.0.0.nupkg', '-Source', v2(priv), '-ApiKey', token),
        // a wrong key is refused
        nuget('push', 'Other.Lib.2.0.0.nupkg', '-Source', v2(pub), '-ApiKey', 'glpat-wrong'),
      ]);
      const bad = pushes.pop()!;
      assert.doesNotMatch(bad.output, /Your package was pushed/);
      for (const r of pushes) assert.match(r.output, /Your package was pushed\./, r.output);
      await accessLogged(f, ` PUT /api/v4/projects/${pub}/packages/nuget/v2/ 201 `);
      const listed = await f.api('GET', `/projects/${pub}/packages?order_by=version`);
      assert.deepEqual(listed.body.map((p: any) => `${p.name} ${p.version} ${p.package_type}`), ['Forge.Tools 1.0.0 nuget', 'Forge.Tools 1.1.0-beta nuget']);
      const stored = await f.api('GET', `/projects/${pub}/packages/${listed.body[0].id}/package_files`);
      assert.equal(stored.body[0].size, files['Forge.Tools.1.0.0']!.length);
      const secret = await f.api('GET', `/projects/${priv}/packages`);
      assert.deepEqual(secret.body.map((p: any) => p.name), ['Other.Lib']);
      await accessLogged(f, ` PUT /api/v4/projects/${pub}/packages/nuget/v2/ 401 `);
    });

    it('lists the feed: all versions with prereleases, the latest, and a search term', async () => {
      const [all, latest, search] = await Promise.all([
        nuget('list', '-Source', v2(pub), '-AllVersions', '-Prerelease'),
        nuget('list', '-Source', v2(pub)),
        nuget('list', 'tools', '-Source', v2(pub), '-AllVersions'),
      ]);
      assert.deepEqual(all.output.trim().split('\n'), ['Forge.Tools 1.0.0', 'Forge.Tools 1.1.0-beta'], all.output);
      assert.deepEqual(latest.output.trim().split('\n'), ['Forge.Tools 1.0.0'], latest.output);
      assert.deepEqual(search.output.trim().split('\n'), ['Forge.Tools 1.0.0'], search.output);
      await accessLogged(f, ` GET /api/v4/projects/${pub}/packages/nuget/v2/$metadata 200 `);
      await accessLogged(f, ` GET /api/v4/projects/${pub}/packages/nuget/v2/Packages() 200 `);
    });

    it('installs a package by version: Packages(Id=…,Version=…) then the download URL, bytes as pushed', async () => {
      const out = join(home, 'installed');
      const r = await nuget('install', 'Forge.Tools', '-Version', '1.1.0-beta', '-Source', v2(pub), '-OutputDirectory', out, '-NoCache');
      assert.match(r.output, /Successfully installed 'Forge\.Tools 1\.1\.0-beta'/, r.output);
      const installed = join(out, 'Forge.Tools.1.1.0-beta', 'Forge.Tools.1.1.0-beta.nupkg');
      assert.ok(existsSync(installed), r.output);
      assert.ok(readFileSync(installed).equals(files['Forge.Tools.1.1.0-beta']!));
      assert.ok(existsSync(join(out, 'Forge.Tools.1.1.0-beta', 'lib', 'net6.0', 'Forge.Tools.dll')));
      await accessLogged(f, ` GET /api/v4/projects/${pub}/packages/nuget/v2/Packages(Id=%27Forge.Tools%27,Version=%271.1.0-beta%27) 200 `);
      await accessLogged(f, ` GET /api/v4/projects/${pub}/packages/nuget/download/Forge.Tools/1.1.0-beta/`);
      // a download counts
      const search = await f.api('GET', `/projects/${pub}/packages/nuget/query?q=forge`);
      const counts = Object.fromEntries(search.body.data[0].versions.map((v: any) => [v.version, v.downloads]));
      assert.deepEqual(counts, { '1.0.0': 0, '1.1.0-beta': 1 });
    });
  });
}
