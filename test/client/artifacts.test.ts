import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Forgelet, type Forgelet as Client } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitCi, createRunner, finishJob } from '../server/ci-support.js';
import { buildZip, createPipeline, runPipeline, takeJob, uploadArchive } from '../server/artifacts-support.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const CI = 'compile:\n  script: make\n  artifacts:\n    paths: [out/]\n    expire_in: 1 week\n';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client job artifacts`, () => {
    let f: TestForgelet;
    let api: Client;
    let project: { id: number; path_with_namespace: string };
    let runner: { id: number; token: string };
    let zip: Buffer;
    let jobId: number;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2024-06-15T12:00:00.000Z'), workers: false });
      api = clientFor(f);
      const group = await api.groups.create({ name: 'Client artifacts', path: 'client-artifacts' });
      project = await api.projects.create({ name: 'svc', namespace_id: group.id });
      await commitCi(f, project.id, CI);
      await commitCi(f, project.id, CI, { branch: 'release/1.0', startBranch: 'main' });
      runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: project.id });
      zip = await buildZip([
        { path: 'out/app.bin', content: Buffer.from([0, 1, 2, 3, 255]) },
        { path: 'out/notes/read me.txt', content: 'read me\n' },
        { path: 'out/report.json', content: '{"ok":true}\n' },
      ]);
      ({ jobId } = await runPipeline(f, f.rootToken, runner.token, project.id, 'release/1.0', zip));
    });
    after(() => f.stop());

    it('archive, files and tree by job; by ref with a slash in the ref; streamed archive', async () => {
      const archive = await api.jobArtifacts.downloadArchive(project.path_with_namespace, jobId);
      assert.deepEqual([archive.data, archive.contentType, archive.filename], [zip, 'application/octet-stream', 'artifacts.zip']);
      const streamed = await api.jobArtifacts.streamArchive(project.id, jobId);
      const chunks: Buffer[] = [];
      for await (const c of streamed.body) chunks.push(c as Buffer);
      assert.deepEqual([Buffer.concat(chunks), streamed.size], [zip, zip.length]);

      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const notes = await recorded.jobArtifacts.downloadFile(project.id, jobId, 'out/notes/read me.txt');
      assert.equal(sent[0]!.url, `${f.url}/api/v4/projects/${project.id}/jobs/${jobId}/artifacts/out/notes/read%20me.txt`);
      assert.deepEqual([notes.data.toString(), notes.contentType, notes.filename], ['read me\n', 'text/plain; charset=utf-8', 'read me.txt']);
      const bin = await api.jobArtifacts.downloadFile(project.id, jobId, 'out/app.bin');
      assert.deepEqual([bin.data, bin.contentType], [Buffer.from([0, 1, 2, 3, 255]), 'application/octet-stream']);

      const tree = await api.jobArtifacts.tree(project.id, jobId, { recursive: true }).toArray();
      assert.deepEqual(tree.map((e) => [e.path, e.type, e.size]), [
        ['out/', 'directory', undefined],
        ['out/app.bin', 'file', 5],
        ['out/notes/', 'directory', undefined],
        ['out/notes/read me.txt', 'file', 8],
        ['out/report.json', 'file', 12],
      ]);
      const paged = api.jobArtifacts.tree(project.id, jobId, { path: 'out', per_page: 1 });
      assert.deepEqual((await paged.toArray()).map((e) => e.name), ['notes', 'app.bin', 'report.json']);

      const byRef = await recorded.jobArtifacts.downloadArchiveByRef(project.id, 'release/1.0', 'compile');
      assert.equal(sent[1]!.url, `${f.url}/api/v4/projects/${project.id}/jobs/artifacts/release%2F1.0/download?job=compile`);
      assert.deepEqual(byRef.data, zip);
      const report = await recorded.jobArtifacts.downloadFileByRef(project.id, 'release/1.0', 'out/report.json', 'compile', { searchRecentSuccessfulPipelines: true });
      assert.equal(sent[2]!.url, `${f.url}/api/v4/projects/${project.id}/jobs/artifacts/release%2F1.0/raw/out/report.json?job=compile&search_recent_successful_pipelines=true`);
      assert.deepEqual([report.data.toString(), report.contentType], ['{"ok":true}\n', 'text/plain; charset=utf-8']);

      const missing = await apiError(api.jobArtifacts.downloadFile(project.id, jobId, 'out/nope'));
      assert.deepEqual([missing.status, missing.message], [404, '404 Not Found']);
      const noJob = await apiError(api.jobArtifacts.downloadArchiveByRef(project.id, 'release/1.0', 'nope'));
      assert.deepEqual([noJob.status, noJob.message], [404, '404 Not found']);
    });

    it('a CI job token client reads; keep, remove and removeAll', async () => {
      await createPipeline(f, f.rootToken, project.id, 'main');
      const running = await takeJob(f, runner.token);
      const asJob = new Forgelet({ url: f.url, jobToken: running.token });
      const viaJob = await asJob.jobArtifacts.downloadFile(project.id, jobId, 'out/report.json');
      assert.equal(viaJob.data.toString(), '{"ok":true}\n');
      assert.equal((await apiError(asJob.jobArtifacts.keep(project.id, jobId))).status, 401);
      const upload = await uploadArchive(f, running, await buildZip([{ path: 'out/main.txt', content: 'main\n' }]));
      assert.equal(upload.status, 201);
      await finishJob(f, running, 'success');
      assert.equal((await apiError(asJob.jobArtifacts.downloadArchive(project.id, jobId))).status, 401);

      const kept = await api.jobArtifacts.keep(project.id, jobId);
      assert.deepEqual([kept.id, kept.artifacts_expire_at, kept.download_url], [jobId, null, `${f.forge.deps.config.externalUrl}/${project.path_with_namespace}/-/jobs/${jobId}/artifacts/download`]);
      await api.jobArtifacts.remove(project.id, jobId);
      const gone = await apiError(api.jobArtifacts.tree(project.id, jobId).toArray());
      assert.deepEqual([gone.status, gone.message], [404, '404 Artifacts Not Found']);
      await api.jobArtifacts.removeAll(project.id);
      // the latest pipeline of main keeps its artifacts
      const main = await api.jobArtifacts.downloadFileByRef(project.id, 'main', 'out/main.txt', 'compile');
      assert.equal(main.data.toString(), 'main\n');
    });
  });
}
