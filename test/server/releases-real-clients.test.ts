/**
 * Releases, release links, group releases and protected branches through the real clients
 * (REAL-CLIENTS.md §2.9, §2.17): @gitbeaker/rest 43.8.0 and python-gitlab 3.12 (run with
 * /usr/bin/python3; skipped locally when it is missing, a failure under CI).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { Gitlab } from '@gitbeaker/rest';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject } from './http.js';

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import gitlab'], { encoding: 'utf8', timeout: 30_000 });
const pythonMissing = probe.status === 0 ? null : `python-gitlab unavailable: ${probe.error?.message ?? probe.stderr.trim().split('\n').pop()}`;
const skipPython: string | false = pythonMissing && !process.env.CI ? pythonMissing : false;

const PY_FLOW = `
import json, os, gitlab
gl = gitlab.Gitlab(os.environ['URL'], private_token=os.environ['TOKEN'])
project = gl.projects.get(os.environ['PROJECT'])
out = {}
rel = project.releases.create({'tag_name': 'py/1.0', 'ref': 'main', 'description': 'from python'})
out['created'] = [rel.tag_name, rel.description]
got = project.releases.get('py/1.0')
out['got'] = got.tag_name
lazy = project.releases.get('py/1.0', lazy=True)
link = lazy.links.create({'name': 'bin', 'url': 'https://ex.com/py', 'direct_asset_path': '/bin/py', 'link_type': 'package'})
out['link'] = [link.name, link.link_type, link.direct_asset_url]
lazy.links.update(link.id, {'name': 'bin2'})
out['links'] = [l.name for l in lazy.links.list()]
lazy.links.delete(link.id)
out['after_delete'] = len(lazy.links.list())
out['releases'] = [r.tag_name for r in project.releases.list(get_all=True)]
pb = project.protectedbranches.create({'name': 'py/*', 'push_access_level': 30, 'merge_access_level': 40})
out['protected'] = [pb.name, pb.push_access_levels[0]['access_level_description']]
out['protected_get'] = project.protectedbranches.get('py/*').name
out['protected_list'] = [b.name for b in project.protectedbranches.list()]
project.protectedbranches.delete('py/*')
out['protected_after'] = [b.name for b in project.protectedbranches.list()]
project.releases.delete('py/1.0')
out['deleted'] = [r.tag_name for r in project.releases.list()]
print(json.dumps(out))
`;

function runPython(env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, ['-c', PY_FLOW], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`python failed: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout));
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: releases through real clients`, () => {
    let f: TestForgelet;
    let gl: InstanceType<typeof Gitlab>;
    let group: any;
    let project: any;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2024-06-15T12:00:00.000Z') });
      gl = new Gitlab({ host: f.url, token: f.rootToken });
      group = await createGroup(f, f.rootToken, { name: 'Real', path: 'real' });
      const sub = await createGroup(f, f.rootToken, { name: 'Sub', path: 'sub', parent_id: group.id });
      project = await createProject(f, f.rootToken, { name: 'tool', namespace_id: sub.id });
      await commitFiles(f, project.id, 'main', { 'README.md': 'tool' });
    });
    after(() => f.stop());

    it('gitbeaker: ProjectReleases, ReleaseLinks (slash tags), GroupReleases, ProtectedBranches', async () => {
      const made = await gl.ProjectReleases.create(project.path_with_namespace, {
        tagName: 'release/1.0',
        ref: 'main',
        name: 'One',
        assets: { links: [{ name: 'pkg', url: 'https://ex.com/pkg', directAssetPath: '/pkg/tool', linkType: 'package' }] },
      } as any);
      assert.equal(made.tag_name, 'release/1.0');
      assert.equal((made.assets as any).links[0].direct_asset_url, `${f.url}/real/sub/tool/-/releases/release%2F1.0/downloads/pkg/tool`);
      assert.equal((await gl.ProjectReleases.show(project.id, 'release/1.0')).name, 'One');
      await gl.ProjectReleases.edit(project.id, 'release/1.0', { description: 'notes' } as any);
      assert.equal((await gl.ProjectReleases.all(project.id))[0]!.description, 'notes');

      const link = await gl.ReleaseLinks.create(project.id, 'release/1.0', 'bin', 'https://ex.com/bin', { directAssetPath: '/bin/tool', linkType: 'package' } as any);
      assert.equal(link.link_type, 'package');
      const edited = await gl.ReleaseLinks.edit(project.id, 'release/1.0', link.id as number, { name: 'bin2' } as any);
      assert.equal(edited.name, 'bin2');
      assert.deepEqual((await gl.ReleaseLinks.all(project.id, 'release/1.0')).map((l) => l.name), ['bin2', 'pkg']);
      assert.equal((await gl.ReleaseLinks.show(project.id, 'release/1.0', link.id as number)).name, 'bin2');
      await gl.ReleaseLinks.remove(project.id, 'release/1.0', link.id as number);
      assert.deepEqual((await gl.ReleaseLinks.all(project.id, 'release/1.0')).map((l) => l.name), ['pkg']);

      const simple = await gl.GroupReleases.all(group.id, { sort: 'asc', simple: true } as any);
      assert.deepEqual(simple.map((r: any) => Object.keys(r)), [['name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release']]);

      const rule = await gl.ProtectedBranches.protect(project.id, 'release/*', { pushAccessLevel: 30, allowedToMerge: [{ accessLevel: 30 }] } as any);
      assert.deepEqual((rule.merge_access_levels as any[]).map((e) => e.access_level), [30]);
      assert.equal((await gl.ProtectedBranches.show(project.id, 'release/*')).name, 'release/*');
      const patched = await gl.ProtectedBranches.edit(project.id, 'release/*', { allowForcePush: true } as any);
      assert.equal(patched.allow_force_push, true);
      assert.deepEqual((await gl.ProtectedBranches.all(project.id)).map((b) => b.name), ['main', 'release/*']);
      await gl.ProtectedBranches.unprotect(project.id, 'release/*');
      assert.deepEqual((await gl.ProtectedBranches.all(project.id)).map((b) => b.name), ['main']);

      await gl.ProjectReleases.remove(project.id, 'release/1.0');
      assert.deepEqual(await gl.ProjectReleases.all(project.id), []);
    });

    it('python-gitlab: releases, lazy release links (tag release%2F…), protected branches', { skip: skipPython }, async () => {
      if (pythonMissing) throw new Error(`CI is set and ${pythonMissing}`);
      const out = await runPython({ URL: f.url, TOKEN: f.rootToken, PROJECT: project.path_with_namespace });
      assert.deepEqual(out, {
        created: ['py/1.0', 'from python'],
        got: 'py/1.0',
        link: ['bin', 'package', `${f.url}/real/sub/tool/-/releases/py%2F1.0/downloads/bin/py`],
        links: ['bin2'],
        after_delete: 0,
        releases: ['py/1.0'],
        protected: ['py/*', 'Developers + Maintainers'],
        protected_get: 'py/*',
        protected_list: ['main', 'py/*'],
        protected_after: ['main'],
        deleted: [],
      });
    });
  });
}
