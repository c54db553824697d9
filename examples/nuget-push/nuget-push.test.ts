/**
 * examples/nuget-push: push.sh packs Hello.Forgelet.nuspec, pushes the package to a project's
 * v2 feed of `forgelet serve` (the built bin, as users start it) with Debian's `nuget` (2.8.7
 * under mono) and installs it back; the packages API then lists it. Skipped with the reason
 * when `nuget` is not installed, except on CI, where that fails. One dialect: mono is slow, and
 * the feed's SQL runs on both dialects in test/server/packages-*.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../../test/support/databases.js';
import { startServed, type ServedForgelet } from '../../test/support/served.js';
import { accessLogged, nugetHome, probeNuget287, runNuget } from '../../test/real-clients/nuget-support.js';
import { toolSkip } from '../../test/support/tools.js';

const PUSH = fileURLToPath(new URL('./push.sh', import.meta.url));
const skip = toolSkip('NuGet.exe 2.8.7 (Debian nuget under mono)', probeNuget287());

for (const dialect of DIALECTS.slice(0, 1)) {
  describe(`${dialect}: examples/nuget-push`, { skip }, () => {
    let f: ServedForgelet;
    let home: string;

    before(async () => {
      f = await startServed(dialect);
      // A fresh HOME with its NuGet.Config already written: NuGet's caches stay out of the way.
      home = nugetHome();
    });
    after(async () => {
      await f?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('packs, pushes with a Developer token as the API key, installs; the packages API lists the package', async () => {
      const dev = await f.createUser('dotnet-dev');
      const api = new Forgelet({ url: f.url, token: f.rootToken });
      // Public: NuGet 2.x installs only from feeds it can read without credentials.
      const project = await api.projects.create({ name: 'libraries', visibility: 'public' });
      await api.projectMembers.add(project.id, { user_id: String(dev.id), access_level: 30 });
      const source = `${f.url}/api/v4/projects/${project.id}/packages/nuget/v2`;

      const run = await runNuget(['sh', PUSH, source, dev.token], { cwd: home, home });
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /Successfully created package '.*Hello\.Forgelet\.1\.0\.0\.nupkg'/, run.output);
      assert.match(run.output, /Your package was pushed\./, run.output);
      assert.match(run.output, /Successfully installed 'Hello\.Forgelet 1\.0\.0'/, run.output);
      assert.match(run.output, /Hello from a Forgelet NuGet feed\./, run.output);
      await accessLogged(f, ` PUT /api/v4/projects/${project.id}/packages/nuget/v2/ 201 `);

      const packages = await api.packages.all(project.id).toArray();
      assert.deepEqual(packages.map((p) => [p.name, p.version, p.package_type, p.status]), [['Hello.Forgelet', '1.0.0', 'nuget', 'default']]);
      const files = await api.packages.files(project.id, packages[0]!.id).toArray();
      assert.deepEqual(files.map((file) => file.file_name), ['hello.forgelet.1.0.0.nupkg']);
    });
  });
}
