/**
 * Direct transfer between two `forgelet serve` processes copies the repository by git, as
 * GitLab's RepositoryPipeline: the destination fetches the source's `http_url_to_repo` with the
 * source token (never on a command line or in a log) before merge requests and releases replay,
 * so a mirror clone of the destination has the source's refs and history exactly (same shas),
 * and the merge request and the release point at the same commits.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { waitForImport } from '../support/bulk-imports.js';
import { gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: direct transfer copies the repository by git`, () => {
    let src: ServedForgelet;
    let dst: ServedForgelet;
    let work: string;

    before(async () => {
      [src, dst] = await Promise.all([startServed(dialect), startServed(dialect)]);
      work = await mkdtemp(join(tmpdir(), 'forgelet-migration-git-'));
    });
    after(async () => {
      await Promise.all([src?.stop(), dst?.stop()]);
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('arrives with every branch, tag and commit of the source, and MRs and releases on the same shas', async () => {
      const group = ok(await src.api('POST', '/groups', { body: { name: 'Origin', path: 'origin-grp' } }), 201);
      const project = ok(await src.api('POST', '/projects', { body: { name: 'app', path: 'app', namespace_id: group.id } }), 201);
      const srcUrl = `${src.url.replace('://', `://root:${src.rootToken}@`)}/${project.path_with_namespace}.git`;
      const repo = join(work, 'repo');
      await gitOk(work, ['init', '-q', repo]);
      for (const n of [1, 2, 3]) {
        await writeFile(join(repo, 'README.md'), `v${n}\n`);
        await gitOk(repo, ['add', '.']);
        await gitOk(repo, ['commit', '-q', '-m', `Main ${n}`]);
      }
      await gitOk(repo, ['tag', 'light-1', 'HEAD~1']);
      await gitOk(repo, ['tag', '-a', '-m', 'Release 1.0', 'v1.0.0']);
      await gitOk(repo, ['checkout', '-q', '-b', 'feature']);
      for (const n of [1, 2]) {
        await writeFile(join(repo, `feature-${n}.txt`), `f${n}\n`);
        await gitOk(repo, ['add', '.']);
        await gitOk(repo, ['commit', '-q', '-m', `Feature ${n}`]);
      }
      await gitOk(repo, ['push', '-q', srcUrl, 'main', 'feature', 'light-1', 'v1.0.0']);
      const mr = ok(await src.api('POST', `/projects/${project.id}/merge_requests`, { body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } }), 201);
      ok(await src.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v1.0.0', name: 'One', description: 'First' } }), 201);

      ok(await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } }), 201);
      const started = ok(
        await dst.api('POST', '/bulk_imports', {
          body: {
            configuration: { url: src.url, access_token: src.rootToken },
            entities: [{ source_type: 'project_entity', source_full_path: project.path_with_namespace, destination_slug: 'app-copy', destination_namespace: 'into' }],
          },
        }),
        201,
      );
      const finished = await waitForImport(dst, started.id, 60_000);
      assert.equal(finished.status, 'finished', JSON.stringify(finished));
      const failures = ok(await dst.api('GET', `/bulk_imports/${started.id}/entities/${ok(await dst.api('GET', `/bulk_imports/${started.id}/entities`))[0].id}/failures`));
      assert.deepEqual(failures, []);
      // By git: the destination fetched from the source's clone URL (before this test clones anything).
      assert.ok(src.stdoutLines().some((l) => l.includes(`/${project.path_with_namespace}.git/git-upload-pack`)), 'the destination fetched by git');

      const mirror = async (f: ServedForgelet, path: string, dir: string) => {
        await gitOk(work, ['clone', '-q', '--mirror', `${f.url.replace('://', `://root:${f.rootToken}@`)}/${path}.git`, join(work, dir)]);
        return {
          refs: (await gitOk(join(work, dir), ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)'])).trim(),
          log: (await gitOk(join(work, dir), ['log', '--all', '--format=%H %P %an %ae %at %cn %ce %ct %s'])).trim(),
          head: (await gitOk(join(work, dir), ['symbolic-ref', 'HEAD'])).trim(),
        };
      };
      const before = await mirror(src, project.path_with_namespace, 'src.git');
      const copied = await mirror(dst, 'into/app-copy', 'dst.git');
      assert.equal(copied.refs, before.refs);
      assert.equal(copied.log, before.log);
      assert.equal(copied.head, 'refs/heads/main');
      assert.match(before.refs, /refs\/tags\/v1\.0\.0 \w+ tag/);
      assert.equal(before.log.split('\n').length, 5);

      const dstProject = ok(await dst.api('GET', `/projects/${encodeURIComponent('into/app-copy')}`));
      const dstMr = ok(await dst.api('GET', `/projects/${dstProject.id}/merge_requests/${mr.iid}`));
      assert.deepEqual([dstMr.source_branch, dstMr.sha], ['feature', mr.sha]);
      const srcRelease = ok(await src.api('GET', `/projects/${project.id}/releases/v1.0.0`));
      const dstRelease = ok(await dst.api('GET', `/projects/${dstProject.id}/releases/v1.0.0`));
      assert.equal(dstRelease.commit.id, srcRelease.commit.id);
      // The index follows git: commits at any sha, the branch heads.
      const branches = ok(await dst.api('GET', `/projects/${dstProject.id}/repository/branches`));
      assert.deepEqual(branches.map((b: any) => [b.name, b.commit.id]).sort(), ok(await src.api('GET', `/projects/${project.id}/repository/branches`)).map((b: any) => [b.name, b.commit.id]).sort());
      const first = before.log.split('\n').at(-1)!.split(' ')[0];
      assert.equal(ok(await dst.api('GET', `/projects/${dstProject.id}/repository/commits/${first}`)).title, 'Main 1');
      // The source also exports GitLab's `repository` file relation: repository.tar.gz holding a git bundle of every ref.
      const status = ok(await src.api('GET', `/projects/${project.id}/export_relations/status?relation=repository`));
      assert.deepEqual([status.relation, status.status, status.batched], ['repository', 1, false]);
      const download = await fetch(`${src.url}/api/v4/projects/${project.id}/export_relations/download?relation=repository`, { headers: { 'PRIVATE-TOKEN': src.rootToken } });
      assert.equal(download.status, 200);
      const tar = gunzipSync(Buffer.from(await download.arrayBuffer()));
      assert.equal(tar.subarray(0, 17).toString('latin1'), 'repository.bundle');
      const size = parseInt(tar.subarray(124, 136).toString('latin1').replace(/\0.*$/, '').trim(), 8);
      await writeFile(join(work, 'repository.bundle'), tar.subarray(512, 512 + size));
      await gitOk(work, ['clone', '-q', '--mirror', join(work, 'repository.bundle'), join(work, 'bundle.git')]);
      assert.equal(
        (await gitOk(join(work, 'bundle.git'), ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)'])).trim(),
        before.refs,
      );

      // No push reactions for imported refs (GitLab's import runs no pipelines and sends no push events).
      assert.deepEqual(ok(await dst.api('GET', `/projects/${dstProject.id}/pipelines`)), []);

      assert.ok(!dst.stdoutLines().join('\n').includes(src.rootToken) && !dst.stderr().includes(src.rootToken), 'the source token in no log');
    });
  });
}
