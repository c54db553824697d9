/**
 * Direct transfer between two `forgelet serve` processes copies the repository as GitLab does:
 * from the source's `repository` relation export (a git bundle in a tar.gz, GitLab's
 * RepositoryBundlePipeline) when the source exports it, else by `git fetch` of the source's
 * `http_url_to_repo` with the source token (GitLab's RepositoryPipeline; never on a command line
 * or in a log). It runs before merge requests and releases replay, so a mirror clone of the
 * destination has the source's refs and history exactly (same shas), and the merge request and
 * the release point at the same commits. A bundle the destination refuses fails the entity with
 * a recorded failure and leaves no ref behind.
 *
 * The destination reaches the source through a proxy (below) that can hide the `repository`
 * relation (as a source that does not export it answers), make the clone URL unreachable, or
 * serve a broken export.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { waitForImport } from '../support/bulk-imports.js';
import { git, gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

type ProxyMode = 'pass' | 'bundle-only' | 'no-bundle-relation' | 'gitlab-15.0' | { archive: Buffer };

/**
 * Forwards to `target`, except: `bundle-only` answers the project's `http_url_to_repo` with a
 * port nothing listens on; `no-bundle-relation` answers the `repository` export as a source
 * without it (status 404 `Export not found`, download 400 `relation is not portable`); an
 * `archive` is served as the `repository` download; `gitlab-15.0` answers `/version` as GitLab 15.0.
 */
async function startProxy(target: string, mode: () => ProxyMode): Promise<{ url: string; server: Server; seen: string[] }> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    seen.push(`${req.method} ${req.url}`);
    const m = mode();
    const isRepositoryExport = url.pathname.includes('/export_relations/') && url.searchParams.get('relation') === 'repository';
    if (m === 'gitlab-15.0' && url.pathname === '/api/v4/version') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ version: '15.0.0-ee', revision: 'abc' }));
      return;
    }
    if (m === 'no-bundle-relation' && isRepositoryExport) {
      const status = url.pathname.endsWith('/status') ? 404 : 400;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(status === 404 ? { message: 'Export not found' } : { error: 'relation is not portable' }));
      return;
    }
    if (typeof m === 'object' && isRepositoryExport && url.pathname.endsWith('/download')) {
      res.writeHead(200, { 'Content-Type': 'application/gzip' });
      res.end(m.archive);
      return;
    }
    const rewrite = m === 'bundle-only' && req.method === 'GET' && /^\/api\/v4\/projects\/[^/]+$/.test(url.pathname);
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (up) => {
      if (!rewrite || up.statusCode !== 200) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on('data', (c) => chunks.push(c));
      up.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        body.http_url_to_repo = String(body.http_url_to_repo).replace(/^http:\/\/[^/]+/, 'http://127.0.0.1:9');
        const text = JSON.stringify(body);
        const { 'content-length': _l, ...headers } = up.headers;
        res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
        res.end(text);
      });
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: direct transfer copies the repository from its bundle, else by git`, () => {
    let src: ServedForgelet;
    let dst: ServedForgelet;
    let work: string;
    let proxy: { url: string; server: Server; seen: string[] };
    let mode: ProxyMode = 'pass';

    before(async () => {
      [src, dst] = await Promise.all([startServed(dialect), startServed(dialect)]);
      work = await mkdtemp(join(tmpdir(), 'forgelet-migration-git-'));
      proxy = await startProxy(src.url, () => mode);
    });
    after(async () => {
      await new Promise((resolve) => proxy?.server.close(resolve));
      await Promise.all([src?.stop(), dst?.stop()]);
      if (work) await rm(work, { recursive: true, force: true });
    });

    const uploadPacks = (path: string) => src.stdoutLines().filter((l) => l.includes(`/${path}.git/git-upload-pack`)).length;
    /** `repository` downloads the destination asked the source for (the access log shows paths only). */
    const bundleDownloads = () => proxy.seen.filter((l) => l.includes('/export_relations/download') && l.includes('relation=repository')).length;
    const mirror = async (f: ServedForgelet, path: string, dir: string) => {
      await gitOk(work, ['clone', '-q', '--mirror', `${f.url.replace('://', `://root:${f.rootToken}@`)}/${path}.git`, join(work, dir)]);
      return {
        refs: (await gitOk(join(work, dir), ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)'])).trim(),
        log: (await gitOk(join(work, dir), ['log', '--all', '--format=%H %P %an %ae %at %cn %ce %ct %s'])).trim(),
        head: (await gitOk(join(work, dir), ['symbolic-ref', 'HEAD'])).trim(),
      };
    };
    /** A source project with two branches, a lightweight and an annotated tag. */
    const seedSource = async (path: string, groupId: number) => {
      const project = ok(await src.api('POST', '/projects', { body: { name: path, path, namespace_id: groupId } }), 201);
      const srcUrl = `${src.url.replace('://', `://root:${src.rootToken}@`)}/${project.path_with_namespace}.git`;
      const repo = join(work, `${path}-work`);
      await gitOk(work, ['init', '-q', repo]);
      for (const n of [1, 2, 3]) {
        await writeFile(join(repo, 'README.md'), `${path} v${n}\n`);
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
      return project;
    };
    const migrate = async (sourcePath: string, slug: string) => {
      const started = ok(
        await dst.api('POST', '/bulk_imports', {
          body: {
            configuration: { url: proxy.url, access_token: src.rootToken },
            entities: [{ source_type: 'project_entity', source_full_path: sourcePath, destination_slug: slug, destination_namespace: 'into', migrate_memberships: false }],
          },
        }),
        201,
      );
      const finished = await waitForImport(dst, started.id, 60_000);
      const [entity] = ok(await dst.api('GET', `/bulk_imports/${started.id}/entities`));
      return { finished, entity, failures: ok(await dst.api('GET', `/bulk_imports/${started.id}/entities/${entity.id}/failures`)) };
    };

    it('arrives from the bundle (clone URL unreachable) with every branch, tag and commit, and MRs and releases on the same shas', async () => {
      mode = 'bundle-only';
      const group = ok(await src.api('POST', '/groups', { body: { name: 'Origin', path: 'origin-grp' } }), 201);
      const project = await seedSource('app', group.id);
      const mr = ok(await src.api('POST', `/projects/${project.id}/merge_requests`, { body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } }), 201);
      ok(await src.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v1.0.0', name: 'One', description: 'First' } }), 201);

      ok(await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } }), 201);
      const { finished, entity, failures } = await migrate(project.path_with_namespace, 'app-copy');
      assert.equal(finished.status, 'finished', JSON.stringify(finished));
      assert.deepEqual(failures, []);
      assert.deepEqual(entity.stats.repository, { source: 4, fetched: 4, imported: 4 });
      // From the bundle: the destination downloaded the `repository` relation and never used git over HTTP (before this test clones anything).
      assert.equal(uploadPacks(project.path_with_namespace), 0, 'no git fetch');
      assert.equal(bundleDownloads(), 1, 'one bundle download');

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

    it('a source without the repository relation: the repository comes by git fetch of the clone URL', async () => {
      mode = 'no-bundle-relation';
      const group = ok(await src.api('GET', `/groups/origin-grp`));
      const project = await seedSource('plain', group.id);
      const downloadsBefore = bundleDownloads();
      const { finished, entity, failures } = await migrate(project.path_with_namespace, 'plain-copy');
      assert.equal(finished.status, 'finished', JSON.stringify(finished));
      assert.deepEqual(failures, []);
      assert.deepEqual(entity.stats.repository, { source: 4, fetched: 4, imported: 4 });
      assert.ok(uploadPacks(project.path_with_namespace) > 0, 'fetched by git');
      assert.equal(bundleDownloads(), downloadsBefore + 1, 'the download answered `relation is not portable`');
      const before = await mirror(src, project.path_with_namespace, 'plain-src.git');
      const copied = await mirror(dst, 'into/plain-copy', 'plain-dst.git');
      assert.deepEqual([copied.refs, copied.log, copied.head], [before.refs, before.log, 'refs/heads/main']);
    });

    it('a source older than GitLab 15.1 (no bundle pipeline there): by git fetch, the bundle never asked for', async () => {
      mode = 'gitlab-15.0';
      const group = ok(await src.api('GET', `/groups/origin-grp`));
      const project = await seedSource('old', group.id);
      const downloadsBefore = bundleDownloads();
      const { finished, entity, failures } = await migrate(project.path_with_namespace, 'old-copy');
      assert.equal(finished.status, 'finished', JSON.stringify(finished));
      assert.deepEqual(failures, []);
      assert.deepEqual(entity.stats.repository, { source: 4, fetched: 4, imported: 4 });
      assert.ok(uploadPacks(project.path_with_namespace) > 0, 'fetched by git');
      assert.equal(bundleDownloads(), downloadsBefore);
      const before = await mirror(src, project.path_with_namespace, 'old-src.git');
      const copied = await mirror(dst, 'into/old-copy', 'old-dst.git');
      assert.deepEqual([copied.refs, copied.log], [before.refs, before.log]);
    });

    it('a broken export fails the entity with the reason recorded and leaves no ref behind', async () => {
      const group = ok(await src.api('GET', `/groups/origin-grp`));
      const project = await seedSource('broken', group.id);
      // A real bundle of the project, cut short: `git bundle verify` refuses it.
      ok(await src.api('POST', `/projects/${project.id}/export_relations`), 202);
      const real = await fetch(`${src.url}/api/v4/projects/${project.id}/export_relations/download?relation=repository`, { headers: { 'PRIVATE-TOKEN': src.rootToken } });
      assert.equal(real.status, 200);
      const tar = gunzipSync(Buffer.from(await real.arrayBuffer()));
      const size = parseInt(tar.subarray(124, 136).toString('latin1').replace(/\0.*$/, '').trim(), 8);
      const dir = await mkdtemp(join(work, 'broken-'));
      await writeFile(join(dir, 'repository.bundle'), tar.subarray(512, 512 + Math.floor(size / 2)));
      await promisify(execFile)('tar', ['-czf', join(dir, 'repository.tar.gz'), '-C', dir, 'repository.bundle']);
      const cases: Array<[string, Buffer, RegExp]> = [
        ['truncated', await readFile(join(dir, 'repository.tar.gz')), /^Invalid repository bundle: /],
        ['not-gzip', Buffer.from('this is not a tar.gz'), /^Invalid repository export: /],
      ];
      for (const [slug, archive, message] of cases) {
        mode = { archive };
        // (Each from its own source project: a project's name is unique in the destination group.)
        const source = slug === 'truncated' ? project : await seedSource(`broken-${slug}`, group.id);
        const { finished, entity, failures } = await migrate(source.path_with_namespace, `broken-${slug}`);
        assert.equal(finished.status, 'failed', JSON.stringify(finished));
        assert.equal(entity.status, 'failed');
        assert.equal(failures.length, 1, JSON.stringify([failures, entity]));
        assert.equal(failures[0].relation, 'repository', JSON.stringify(failures));
        assert.equal(failures[0].exception_class, 'BulkImports::Error');
        assert.match(failures[0].exception_message, message);
        assert.ok(failures[0].exception_message.length <= 72);
        const full = ok(await dst.api('GET', `/bulk_imports/${finished.id}/entities/${entity.id}`));
        assert.equal(full.failures[0].pipeline_class, 'BulkImports::Projects::Pipelines::RepositoryBundlePipeline');
        // No partial import: the project exists, its repository has no ref, its index no branch.
        const copy = ok(await dst.api('GET', `/projects/${encodeURIComponent(`into/broken-${slug}`)}`));
        assert.deepEqual(ok(await dst.api('GET', `/projects/${copy.id}/repository/branches`)), []);
        assert.deepEqual(ok(await dst.api('GET', `/projects/${copy.id}/repository/tags`)), []);
        const remote = await git(work, ['ls-remote', `${dst.url.replace('://', `://root:${dst.rootToken}@`)}/into/broken-${slug}.git`]);
        assert.equal(remote.stdout.trim(), '', remote.stderr);
      }
      assert.equal(uploadPacks(project.path_with_namespace) + uploadPacks(`${project.namespace.full_path}/broken-not-gzip`), 0, 'no git fetch after a refused bundle');
    });
  });
}
