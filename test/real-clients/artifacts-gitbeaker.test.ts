/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: job artifacts (issue 7's "Must show").
 * Pipelines are created with gitbeaker and run by a runner speaking the runner API (which
 * gitbeaker has no client for), uploading zip archives; gitbeaker then lists the tree
 * recursively and by path (through its own requester: JobArtifacts has no tree method),
 * downloads one file by job and by ref (`feature%2Fx/raw/dir%2Ffile.txt`), the archive by ref
 * (the latest successful pipeline: a newer failed one is skipped), reads with a CI job token,
 * keeps, deletes one job's artifacts and all of the project's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { commitCi, createRunner, finishJob } from '../server/ci-support.js';
import { buildZip, takeJob, uploadArchive } from '../server/artifacts-support.js';
import { expectStatus } from '../server/http.js';
import { gitbeakerFailure } from './support.js';

type Client = InstanceType<typeof Gitlab>;
const CI = '"build job":\n  script: make\n  artifacts:\n    paths: [dist/]\n    expire_in: 1 week\n';

const blobBytes = async (blob: Blob) => Buffer.from(await blob.arrayBuffer());
/** gitbeaker hands text/* answers back as strings (and the rest as a Blob): text files arrive as text. */
const textOf = (body: unknown): string => {
  assert.equal(typeof body, 'string', 'a text/plain answer');
  return body as string;
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 job artifacts`, () => {
    let f: ServedForgelet;
    let api: Client;
    let projectId: number;
    let runnerToken: string;
    let zipOk: Buffer;
    let zipFeature: Buffer;
    let okJob: number;

    /** A pipeline created with gitbeaker, its job run by the runner with the archive. */
    async function run(ref: string, zip: Buffer | null, outcome: 'success' | 'failed'): Promise<number> {
      const pipeline = await api.Pipelines.create(projectId, ref);
      const job = await takeJob(f, runnerToken);
      assert.equal(job.pipelineId, pipeline.id);
      if (zip) expectStatus(await uploadArchive(f, job, zip), 201);
      await finishJob(f, job, outcome);
      return job.id;
    }

    /** URLs gitbeaker requested (it calls the global fetch with a Request). */
    const sent: string[] = [];
    const realFetch = globalThis.fetch;
    const sentSince = (mark: number) => sent.slice(mark).map((u) => u.replace(`${f.url}/api/v4`, ''));

    before(async () => {
      globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
        if (input instanceof Request) sent.push(input.url);
        return realFetch(input, init);
      }) as typeof fetch;
      f = await startServed(dialect);
      api = new Gitlab({ host: f.url, token: f.rootToken });
      const project = await api.Projects.create({ name: 'Gb Artifacts', path: 'gb-artifacts' });
      projectId = project.id;
      await commitCi(f, projectId, CI);
      await commitCi(f, projectId, CI, { branch: 'feature/x', startBranch: 'main' });
      runnerToken = (await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: projectId })).token;
      zipOk = await buildZip([
        { path: 'dist/app.txt', content: 'app v1\n' },
        { path: 'dist/sub/file.txt', content: 'nested\n' },
        { path: 'top.txt', content: 'top\n' },
      ]);
      zipFeature = await buildZip([{ path: 'dir/file.txt', content: 'feature file\n' }]);
      okJob = await run('main', zipOk, 'success');
      await run('main', await buildZip([{ path: 'dist/app.txt', content: 'app v2 (failed)\n' }]), 'failed');
      await run('feature/x', zipFeature, 'success');
    });
    after(async () => {
      globalThis.fetch = realFetch;
      await f.stop();
    });

    it('the tree, recursively and by path, through gitbeaker\'s requester', async () => {
      const path = `projects/${projectId}/jobs/${okJob}/artifacts/tree`;
      const all = await api.JobArtifacts.requester.get<Record<string, unknown>[]>(path, { searchParams: { recursive: true } });
      assert.equal(all.status, 200);
      assert.deepEqual((all.body as any[]).map((e) => [e.path, e.type, e.size]), [
        ['dist/', 'directory', undefined],
        ['dist/app.txt', 'file', 7],
        ['dist/sub/', 'directory', undefined],
        ['dist/sub/file.txt', 'file', 7],
        ['top.txt', 'file', 4],
      ]);
      const dist = await api.JobArtifacts.requester.get<Record<string, unknown>[]>(path, { searchParams: { path: 'dist' } });
      assert.deepEqual(dist.body, [
        { name: 'sub', path: 'dist/sub/', type: 'directory', mode: '040755' },
        { name: 'app.txt', path: 'dist/app.txt', type: 'file', size: 7, mode: '100664' },
      ]);
    });

    it('downloadArchive: by job, one file by job, by ref (failed pipeline skipped), one file by ref with %2F', async () => {
      const mark = sent.length;
      assert.deepEqual(await blobBytes(await api.JobArtifacts.downloadArchive(projectId, { jobId: okJob })), zipOk);
      const nested = await api.JobArtifacts.downloadArchive(projectId, { jobId: okJob, artifactPath: 'dist/sub/file.txt' });
      assert.equal(textOf(nested), 'nested\n');
      assert.deepEqual(await blobBytes(await api.JobArtifacts.downloadArchive(projectId, { ref: 'main', job: 'build job' })), zipOk);
      const app = await api.JobArtifacts.downloadArchive(projectId, { ref: 'main', job: 'build job', artifactPath: 'dist/app.txt' });
      assert.equal(textOf(app), 'app v1\n');
      const feature = await api.JobArtifacts.downloadArchive(projectId, { ref: 'feature/x', job: 'build job', artifactPath: 'dir/file.txt' });
      assert.equal(textOf(feature), 'feature file\n');
      assert.deepEqual(await blobBytes(await api.JobArtifacts.downloadArchive(projectId, { ref: 'feature/x', job: 'build job' })), zipFeature);
      const missing = await gitbeakerFailure(api.JobArtifacts.downloadArchive(projectId, { jobId: okJob, artifactPath: 'dist/none.txt' }));
      assert.deepEqual(missing, { status: 404, message: '404 Not Found' });
      const noJob = await gitbeakerFailure(api.JobArtifacts.downloadArchive(projectId, { ref: 'main', job: 'nope' }));
      assert.deepEqual(noJob, { status: 404, message: '404 Not found' });
      assert.deepEqual(sentSince(mark), [
        `/projects/${projectId}/jobs/${okJob}/artifacts`,
        `/projects/${projectId}/jobs/${okJob}/artifacts/dist/sub/file.txt`,
        `/projects/${projectId}/jobs/artifacts/main/download?job=build%20job`,
        `/projects/${projectId}/jobs/artifacts/main/raw/dist%2Fapp.txt?job=build%20job`,
        `/projects/${projectId}/jobs/artifacts/feature%2Fx/raw/dir%2Ffile.txt?job=build%20job`,
        `/projects/${projectId}/jobs/artifacts/feature%2Fx/download?job=build%20job`,
        `/projects/${projectId}/jobs/${okJob}/artifacts/dist/none.txt`,
        `/projects/${projectId}/jobs/artifacts/main/download?job=nope`,
      ]);
    });

    it('a CI job token: as the client\'s jobToken (JOB-TOKEN) and as the jobToken option (job_token=)', async () => {
      await api.Pipelines.create(projectId, 'main');
      const job = await takeJob(f, runnerToken);
      const asJob = new Gitlab({ host: f.url, jobToken: job.token });
      const top = await asJob.JobArtifacts.downloadArchive(projectId, { jobId: okJob, artifactPath: 'top.txt' });
      assert.equal(textOf(top), 'top\n');
      const anonymous = new Gitlab({ host: f.url, token: '' });
      const mark = sent.length;
      const viaQuery = await anonymous.JobArtifacts.downloadArchive(projectId, { ref: 'feature/x', job: 'build job', artifactPath: 'dir/file.txt', jobToken: job.token });
      assert.equal(textOf(viaQuery), 'feature file\n');
      assert.deepEqual(sentSince(mark), [`/projects/${projectId}/jobs/artifacts/feature%2Fx/raw/dir%2Ffile.txt?job=build%20job&job_token=${job.token}`]);
      await finishJob(f, job, 'failed');
      const dead = await gitbeakerFailure(asJob.JobArtifacts.downloadArchive(projectId, { jobId: okJob }));
      assert.deepEqual(dead, { status: 401, message: '401 Unauthorized' });
    });

    it('keep (the job), remove one job\'s artifacts (204), remove all of the project\'s (202; the latest of each ref stays)', async () => {
      const kept = await api.JobArtifacts.keep(projectId, okJob);
      assert.equal(kept.id, okJob);
      assert.equal(kept.artifacts_expire_at, null);
      assert.equal(kept.status, 'success');
      await api.JobArtifacts.remove(projectId, { jobId: okJob });
      const gone = await gitbeakerFailure(api.JobArtifacts.downloadArchive(projectId, { jobId: okJob }));
      assert.deepEqual(gone, { status: 404, message: '404 Not Found' });
      await api.JobArtifacts.remove(projectId);
      const feature = await api.JobArtifacts.downloadArchive(projectId, { ref: 'feature/x', job: 'build job', artifactPath: 'dir/file.txt' });
      assert.equal(textOf(feature), 'feature file\n');
    });
  });
}
