/**
 * The client against a real server: retries through injected faults, NuGet push (multipart,
 * from a path, bytes or a stream) and streamed downloads, the runner side of a job (log,
 * artifacts upload and download), and the methods added for full route coverage.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { nupkg } from '../server/packages-fixtures.js';
import { commitCi, createRunner } from '../server/ci-support.js';
import { buildZip, createPipeline } from '../server/artifacts-support.js';
import { apiError, clientFor } from './helpers.js';

const CI = 'compile:\n  script: make\n  artifacts:\n    paths: [out/]\n';

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: client transfers, retries and coverage additions`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-transfers-'));

    before(async () => {
      f = await startTestServer(dialect, { allowFaults: true, clock: fixedClock('2024-06-15T12:00:00.000Z'), workers: false });
      api = clientFor(f, { retryDelayMs: 5 });
      group = await api.groups.create({ name: 'Transfers', path: 'transfers' });
      project = await api.projects.create({ name: 'lib', namespace_id: group.id });
    });
    after(() => f.stop());

    it('retries 503 and 429 faults end to end; without retries the error is typed', async () => {
      const unavailable = await api.harness.addFault({ method: 'GET', path: '/projects/*', status: 503, times: 2 });
      assert.equal((await api.projects.show(project.id)).id, project.id);
      assert.deepEqual((({ injected, remaining }) => ({ injected, remaining }))(await api.harness.fault(unavailable.id)), { injected: 2, remaining: 0 });

      // A throttled POST is sent again once, and creates one label.
      const throttled = await api.harness.addFault({ method: 'POST', path: '/projects/*/labels', status: 429, times: 1, retry_after: 0 });
      await api.projectLabels.create(project.id, { name: 'retried', color: '#ff0000' });
      assert.deepEqual((await api.projectLabels.all(project.id).toArray()).map((l) => l.name), ['retried']);
      assert.equal((await api.harness.fault(throttled.id)).injected, 1);

      // Retry-After is honoured (1 s here).
      await api.harness.addFault({ method: 'GET', path: '/projects/*', status: 429, times: 1, retry_after: 1 });
      const started = Date.now();
      await api.projects.show(project.id);
      assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);

      await api.harness.addFault({ method: 'GET', path: '/projects/*', status: 429, times: 1, retry_after: 7 });
      const err = await apiError(clientFor(f, { retries: 0 }).projects.show(project.id));
      assert.deepEqual(
        [err.status, err.body, err.method, err.url, err.headers?.get('retry-after'), err.headers?.get('ratelimit-name'), err.isRetryable],
        [429, 'Retry later\n', 'GET', `${f.url}/api/v4/projects/${project.id}`, '7', 'throttle_authenticated_api', true],
      );
      await api.harness.clearFaults();
    });

    it('NuGet: push from a path, bytes and a stream; download streamed; delete a version', async () => {
      const v1 = await nupkg({ id: 'Stream.Pkg', version: '1.0.0' }, { payload: Buffer.alloc(300_000, 3) });
      const path = join(dir, 'Stream.Pkg.1.0.0.nupkg');
      writeFileSync(path, v1);
      let sent = 0;
      assert.deepEqual(await api.nugetFeed.uploadPackageFile(project.id, { path }, { onProgress: (n) => (sent = n) }), { status: 201, message: '201 Created' });
      assert.equal(sent, v1.length);
      const v2 = await nupkg({ id: 'Stream.Pkg', version: '2.0.0' });
      await api.nugetFeed.uploadPackageFile(project.path_with_namespace, v2);
      const v3 = await nupkg({ id: 'Stream.Pkg', version: '3.0.0' });
      await api.nugetFeed.uploadPackageFile(project.id, Readable.from([v3.subarray(0, 100), v3.subarray(100)]), { filename: 'x.nupkg' });
      assert.deepEqual((await api.nugetFeed.versions(project.id, 'Stream.Pkg')).versions, ['1.0.0', '2.0.0', '3.0.0']);

      const dl = await api.nugetFeed.downloadPackageFile(project.id, 'Stream.Pkg', '1.0.0', 'stream.pkg.1.0.0.nupkg');
      assert.deepEqual([dl.status, dl.size, dl.filename], [200, v1.length, 'stream.pkg.1.0.0.nupkg']);
      assert.deepEqual(await bytesOf(dl.body), v1);
      assert.deepEqual(await bytesOf((await api.nugetFeed.downloadPackageFile(project.id, 'Stream.Pkg', '3.0.0', 'stream.pkg.3.0.0.nupkg')).body), v3);

      const bad = await apiError(api.nugetFeed.uploadPackageFile(project.id, Buffer.from('not a zip')));
      assert.equal(bad.status, 400);
      await api.nugetFeed.removePackage(project.id, 'Stream.Pkg', '2.0.0');
      assert.deepEqual((await api.nugetFeed.versions(project.id, 'Stream.Pkg')).versions, ['1.0.0', '3.0.0']);
      const gone = await apiError(api.nugetFeed.downloadPackageFile(project.id, 'Stream.Pkg', '2.0.0', 'stream.pkg.2.0.0.nupkg'));
      assert.deepEqual([gone.status, gone.isNotFound], [404, true]);

      const search = await api.nugetFeed.search({ groupId: group.full_path }, { q: 'stream' });
      assert.deepEqual(search.data.map((d) => d.id), ['Stream.Pkg']);
      assert.match(await api.nugetFeed.v2ServiceDocument({ projectId: project.id }), /<service /);
      assert.match(await api.nugetFeed.v2Package(project.id, 'Stream.Pkg', '1.0.0'), /<entry/);
    });

    it('runner side of a job: take it, log, upload artifacts from a file, download them streamed, finish', async () => {
      await commitCi(f, project.id, CI);
      const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: project.id });
      assert.equal(await api.runnerJobs.request({ token: runner.token }), null);
      await createPipeline(f, f.rootToken, project.id, 'main');
      const job = await api.runnerJobs.request({ token: runner.token, info: { name: 'client' } });
      assert.ok(job);
      assert.deepEqual([job.job_info.name, job.git_info.ref, job.steps[0]!.script], ['compile', 'main', ['make']]);

      assert.deepEqual(await api.runnerJobs.appendTrace(job.id, job.token, 'hello\n', 0), { status: 202, size: 6, jobStatus: 'running', updateInterval: 60 });
      const wrong = await apiError(api.runnerJobs.appendTrace(job.id, job.token, 'x', 2));
      assert.deepEqual([wrong.status, wrong.headers?.get('range')], [416, '0-6']);

      const zip = await buildZip([{ path: 'out/a.txt', content: 'a\n' }, { path: 'out/b.bin', content: Buffer.alloc(70_000, 1) }]);
      const path = join(dir, 'artifacts.zip');
      writeFileSync(path, zip);
      await api.runnerJobs.uploadArtifacts(job.id, job.token, { path }, { expire_in: '1 week' });
      assert.deepEqual(await bytesOf((await api.runnerJobs.downloadArtifacts(job.id, job.token)).body), zip);
      const denied = await apiError(api.runnerJobs.update(job.id, 'glcbt-wrong', { state: 'success' }));
      assert.equal(denied.status, 403);
      assert.deepEqual(await api.runnerJobs.update(job.id, job.token, { state: 'success' }), { status: 200, jobStatus: null, updateInterval: 60 });

      const archive = await api.jobArtifacts.streamArchive(project.id, job.id);
      assert.deepEqual([archive.size, archive.filename], [zip.length, 'artifacts.zip']);
      assert.deepEqual(await bytesOf(archive.body), zip);
      const byRef = await api.jobArtifacts.streamArchiveByRef(project.id, 'main', 'compile');
      assert.deepEqual([byRef.size, byRef.filename, await bytesOf(byRef.body)], [zip.length, 'artifacts.zip', zip]);
      assert.equal((await bytesOf((await api.jobArtifacts.streamFileByRef(project.id, 'main', 'out/a.txt', 'compile')).body)).toString(), 'a\n');
      assert.equal(await api.jobs.trace(project.id, job.id), 'hello\n');
      assert.equal((await api.jobs.show(project.id, job.id)).status, 'success');
    });

    it('added methods: metadata, openApi, archive, HEAD of branches and files, release URLs, relation exports, owners, one fault', async () => {
      assert.equal((await api.metadata()).version, (await api.version()).version);
      assert.equal(((await api.openApi()) as { openapi: string }).openapi, '3.1.0');
      assert.equal((await api.projects.archive(project.id)).archived, true);
      assert.equal((await api.projects.unarchive(project.id)).archived, false);

      assert.equal(await api.repositoryBranches.exists(project.id, 'main'), true);
      assert.equal(await api.repositoryBranches.exists(project.id, 'nope'), false);
      const meta = await api.repositoryFiles.showMetadata(project.id, '.gitlab-ci.yml', 'main');
      const full = await api.repositoryFiles.show(project.id, '.gitlab-ci.yml', 'main');
      const { content: _content, ...expected } = full;
      assert.deepEqual(meta, expected);

      await api.releases.create(project.id, 'v1.0', { ref: 'main', assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app' }] } });
      assert.equal(await api.releases.showLatestUrl(project.id), `${f.url}/api/v4/projects/${project.id}/releases/v1.0`);
      assert.equal(await api.releases.showLatestUrl(project.id, 'assets/links'), `${f.url}/api/v4/projects/${project.id}/releases/v1.0/assets/links`);
      assert.equal(await api.releases.downloadUrl(project.id, 'v1.0', 'bin/app'), 'https://example.com/bin');

      await api.projectRelationExports.create(project.id);
      const statuses = await api.projectRelationExports.status(project.id);
      assert.ok(statuses.some((s) => s.relation === 'labels' && s.status === 1));
      assert.equal((await api.projectRelationExports.status(project.id, 'labels')).relation, 'labels');
      const labels = await api.projectRelationExports.download(project.id, 'labels');
      const records = gunzipSync(await bytesOf(labels.body)).toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { title: string });
      assert.deepEqual(records.map((r) => r.title), ['retried']);
      // A package file of the `packages` relation, by its record's download_path (the NuGet test pushed Stream.Pkg).
      const packages = gunzipSync(await bytesOf((await api.projectRelationExports.download(project.id, 'packages')).body)).toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { version: string; files: { download_path: string }[] });
      const v1Record = packages.find((p) => p.version === '1.0.0')!;
      const fileId = Number(v1Record.files[0]!.download_path.split('/').pop());
      const viaExport = await bytesOf((await api.projectRelationExports.downloadPackageFile(project.id, fileId)).body);
      assert.deepEqual(viaExport, await bytesOf((await api.nugetFeed.downloadPackageFile(project.id, 'Stream.Pkg', '1.0.0', 'stream.pkg.1.0.0.nupkg')).body));
      await api.groupRelationExports.create(group.id);
      assert.equal((await api.groupRelationExports.status(group.id, 'self')).status, 1);

      const owner = await f.createUser('orgowner');
      await api.agentFlows.addOrganizationOwner(owner.id);
      assert.deepEqual((await api.agentFlows.organizationOwners().toArray()).map((o) => o.username), ['orgowner']);
      const fault = await api.harness.addFault({ path: '/nothing', latency_ms: 1 });
      assert.equal((await api.harness.fault(fault.id)).path, '/api/v4/nothing');
      await api.harness.clearFaults();
    });
  });
}
