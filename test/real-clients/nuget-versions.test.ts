/**
 * Both real NuGet clients against `forgelet serve` (the built binary) restore a package pushed
 * as `01.2.3` by its normalized version `1.2.3`, and see `4.0.0-alpha+build.7` as `4.0.0-alpha`:
 * - NuGet.exe 5.8 (npm `nuget-exe`, mono; v3) pushes both, installs `1.2.3` and `4.0.0-alpha`
 *   (registration, then the normalized `packageContent`) and restores a packages.config naming
 *   `1.2.3` (the download URL it builds on the flat container's base address);
 * - Debian's NuGet.exe 2.8.7 (v2) lists both versions and installs `-Version 1.2.3`
 *   (`Packages(Id=…,Version=…)`, then the entry's normalized content URL).
 * A public project: NuGet 2.8.7 sends no credentials for entries and downloads (README, NuGet feed).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { nupkg } from '../server/packages-fixtures.js';
import { NUGET_58, nugetHome, probeNuget287, probeNuget58, runNuget } from './nuget-support.js';

const skip58 = toolSkip('NuGet.exe 5.8 (npm nuget-exe under mono)', probeNuget58());
const skip287 = toolSkip('NuGet.exe 2.8.7 (Debian nuget under mono)', probeNuget287());

for (const dialect of DIALECTS) {
  describe(`${dialect}: NuGet 5.8 and 2.8.7 restore 01.2.3 as 1.2.3 from the served binary`, { skip: skip58 || skip287 }, () => {
    let f: ServedForgelet;
    let home: string;
    let projectId: number;
    let token: string;
    let v3: string;
    let v2: string;
    const files: Record<string, Buffer> = {};
    const nuget58 = (...args: string[]) => runNuget(['mono', NUGET_58, ...args, '-NonInteractive'], { cwd: home, home });
    const nuget287 = (...args: string[]) => runNuget(['nuget', ...args, '-NonInteractive'], { cwd: home, home });
    /** Access-log lines (`… GET /api/v4/… 200 …`) of this project's feed. */
    const logged = (method: string, route: string, status: number) =>
      f.stdoutLines().some((l) => l.includes(` ${method} /api/v4/projects/${projectId}/packages/nuget/${route} ${status} `));

    before(async () => {
      f = await startServed(dialect);
      const user = await f.createUser('versions');
      token = user.token;
      const group = await f.api('POST', '/groups', { body: { name: 'Normalized', path: 'normalized', visibility: 'public' } });
      assert.equal(group.status, 201, group.text);
      const project = await f.api('POST', '/projects', { body: { name: 'feed', namespace_id: group.body.id, visibility: 'public' } });
      assert.equal(project.status, 201, project.text);
      projectId = project.body.id;
      const member = await f.api('POST', `/groups/${group.body.id}/members`, { body: { user_id: user.id, access_level: 30 } });
      assert.equal(member.status, 201, member.text);
      v3 = `${f.url}/api/v4/projects/${projectId}/packages/nuget/index.json`;
      v2 = `${f.url}/api/v4/projects/${projectId}/packages/nuget/v2`;
      home = nugetHome();
      for (const version of ['01.2.3', '4.0.0-alpha+build.7']) {
        files[version] = await nupkg({ id: 'Ver.Pkg', version, description: 'versions as NuGet normalizes them' });
        writeFileSync(join(home, `Ver.Pkg.${version}.nupkg`), files[version]!);
      }
      writeFileSync(
        join(home, 'NuGet.Config'),
        `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources><clear /><add key="forge" value="${v3}" /></packageSources>\n</configuration>\n`,
      );
    });
    after(async () => {
      await f?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('NuGet 5.8 pushes 01.2.3 and 4.0.0-alpha+build.7; the feed lists 1.2.3 and 4.0.0-alpha', async () => {
      // One after the other: mono NuGet processes sharing a HOME race on their config and caches.
      for (const version of ['01.2.3', '4.0.0-alpha+build.7']) {
        const r = await nuget58('push', `Ver.Pkg.${version}.nupkg`, '-Source', v3, '-ApiKey', token);
        assert.match(r.output, /Your package was pushed\./, r.output);
      }
      const index = await f.api('GET', `/projects/${projectId}/packages/nuget/download/ver.pkg/index.json`, { token: null });
      assert.deepEqual(index.body, { versions: ['1.2.3', '4.0.0-alpha'] });
    });

    it('NuGet 5.8 installs -Version 1.2.3 and 4.0.0-alpha (registration, then the normalized packageContent): the bytes pushed', async () => {
      const out = join(home, 'installed');
      const stable = await nuget58('install', 'Ver.Pkg', '-Version', '1.2.3', '-Source', 'forge', '-OutputDirectory', out, '-NoCache', '-DirectDownload');
      assert.match(stable.output, /Successfully installed 'Ver\.Pkg 1\.2\.3'/, stable.output);
      // NuGet 5.8 names the folder after the version inside the package, as written there
      assert.ok(readFileSync(join(out, 'Ver.Pkg.01.2.3', 'Ver.Pkg.01.2.3.nupkg')).equals(files['01.2.3']!), stable.output);
      const pre = await nuget58('install', 'Ver.Pkg', '-Version', '4.0.0-alpha', '-Prerelease', '-Source', 'forge', '-OutputDirectory', out, '-NoCache', '-DirectDownload');
      assert.match(pre.output, /Successfully installed 'Ver\.Pkg 4\.0\.0-alpha'/, pre.output);
      assert.ok(existsSync(join(out, 'Ver.Pkg.4.0.0-alpha', 'lib', 'net6.0', 'Ver.Pkg.dll')), pre.output);
      assert.ok(logged('GET', 'metadata/ver.pkg/index.json', 200), f.stdoutLines().join('\n'));
      assert.ok(logged('GET', 'download/Ver.Pkg/1.2.3/ver.pkg.1.2.3.nupkg', 200), f.stdoutLines().join('\n'));
      assert.ok(logged('GET', 'download/Ver.Pkg/4.0.0-alpha/ver.pkg.4.0.0-alpha.nupkg', 200), f.stdoutLines().join('\n'));
    });

    it('NuGet 5.8 restores a packages.config naming 1.2.3', async () => {
      const dir = join(home, 'app');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'packages.config'), '<?xml version="1.0" encoding="utf-8"?>\n<packages>\n  <package id="Ver.Pkg" version="1.2.3" targetFramework="net48" />\n</packages>\n');
      const packages = join(dir, 'packages');
      const r = await nuget58('restore', join(dir, 'packages.config'), '-PackagesDirectory', packages, '-Source', 'forge', '-ConfigFile', join(home, 'NuGet.Config'), '-NoCache', '-DirectDownload');
      assert.match(r.output, /Added package 'Ver\.Pkg\.1\.2\.3'/, r.output);
      assert.doesNotMatch(r.output, /unable to find|not found/i, r.output);
      assert.ok(readFileSync(join(packages, 'Ver.Pkg.01.2.3', 'Ver.Pkg.01.2.3.nupkg')).equals(files['01.2.3']!), r.output);
      // straight to the package base address (flat container), with the normalized, lower-cased version
      assert.ok(logged('GET', 'download/ver.pkg/1.2.3/ver.pkg.1.2.3.nupkg', 200), f.stdoutLines().join('\n'));
    });

    it('NuGet 2.8.7 lists 1.2.3 and 4.0.0-alpha and installs -Version 1.2.3 through the v2 entry', async () => {
      const list = await nuget287('list', 'Ver.Pkg', '-Source', v2, '-AllVersions', '-Prerelease');
      assert.deepEqual(list.output.trim().split('\n'), ['Ver.Pkg 1.2.3', 'Ver.Pkg 4.0.0-alpha'], list.output);
      const out = join(home, 'v2');
      const r = await nuget287('install', 'Ver.Pkg', '-Version', '1.2.3', '-Source', v2, '-OutputDirectory', out, '-NoCache');
      assert.match(r.output, /Successfully installed 'Ver\.Pkg 1\.2\.3'/, r.output);
      assert.ok(readFileSync(join(out, 'Ver.Pkg.1.2.3', 'Ver.Pkg.1.2.3.nupkg')).equals(files['01.2.3']!), r.output);
      assert.ok(logged('GET', 'v2/Packages(Id=%27Ver.Pkg%27,Version=%271.2.3%27)', 200), f.stdoutLines().join('\n'));
    });
  });
}
