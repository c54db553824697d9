/**
 * Job artifacts over time: keep (Developer), expiry in the worker (durable queue, injected
 * clock) with GitLab's "keep the latest artifacts of each ref", deleting one job's artifacts
 * (Maintainer; the log stays) and all of a project's (202; the worker removes them).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, ARTIFACTS_EXPIRE_JOB, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitCi, createRunner, finishJob, patchTrace } from './ci-support.js';
import { buildZip, bytesOf, createPipeline, runPipeline, takeJob, uploadArchive } from './artifacts-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const HOUR = 3600_000;
const DAY = 24 * HOUR;

const CI = `
build:
  script: make
  artifacts:
    paths: [out/]
    expire_in: 2 days
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: job artifacts (keep, expiry, delete)`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maintainer: User;
    let developer: User;
    let reporter: User;
    let project: any;
    let runner: { id: number; token: string };
    const runDue = () => f.forge.deps.queue.runDue();
    const base = () => `/projects/${project.id}`;
    const zipOf = (text: string) => buildZip([{ path: 'out/who.txt', content: text }]);
    const run = async (ref: string, text: string | null, outcome: 'success' | 'failed' = 'success') =>
      (await runPipeline(f, maintainer.token, runner.token, project.id, ref, text === null ? null : await zipOf(text), outcome)).jobId;

    /** The archive row and whether its blob is still stored. */
    async function stored(jobId: number): Promise<{ rows: number; entries: number; blobs: boolean[]; expire_at: string | null; locked: number | null }> {
      const rows = await f.forge.deps.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', jobId).execute();
      const entries = rows.length
        ? await f.forge.deps.db.selectFrom('ci_artifact_entries').select('id').where('artifact_id', 'in', rows.map((r) => r.id)).execute()
        : [];
      const blobs = await Promise.all(rows.map(async (r) => (await f.forge.deps.blobs.size(r.blob_key)) !== null));
      const archive = rows.find((r) => r.file_type === 'archive');
      return { rows: rows.length, entries: entries.length, blobs, expire_at: archive?.expire_at ?? null, locked: archive?.locked ?? null };
    }
    async function readWho(jobId: number): Promise<[number, string]> {
      const r = await f.api('GET', `${base()}/jobs/${jobId}/artifacts/out/who.txt`, { token: reporter.token });
      return [r.status, r.status === 200 ? r.text : r.body.message];
    }
    async function expireJob(): Promise<{ run_at: string; status: string } | undefined> {
      return f.forge.deps.db.selectFrom('queue_jobs').select(['run_at', 'status']).where('unique_key', '=', ARTIFACTS_EXPIRE_JOB).where('status', '=', 'pending').executeTakeFirst();
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock, workers: false });
      [maintainer, developer, reporter] = await createUsers(f, ['lifemaint', 'lifedev', 'liferep']);
      const group = await createGroup(f, f.rootToken, { name: 'Lifecycle', path: 'lifecycle' });
      project = await createProject(f, f.rootToken, { name: 'app', namespace_id: group.id });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      await addMember(f, 'projects', project.id, developer.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await commitCi(f, project.id, CI);
      await commitCi(f, project.id, CI, { branch: 'feature/y', startBranch: 'main' });
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
    });
    after(() => f.stop());

    it('keep stops expiry; the worker deletes expired artifacts (rows, index, blobs) but keeps the latest successful pipeline\'s of each ref', async () => {
      const j1 = await run('main', 'one');
      clock.advance(HOUR);
      const j2 = await run('main', 'two');
      clock.advance(HOUR);
      const j3 = await run('main', 'three');
      const failed = await run('main', 'failed', 'failed');
      // the upload scheduled the sweep at the first expiry (expire_in: 2 days from the job definition)
      assert.deepEqual(await expireJob(), { run_at: new Date(Date.parse(NOW) + 2 * DAY).toISOString(), status: 'pending' });
      assert.equal((await stored(j1)).expire_at, new Date(Date.parse(NOW) + 2 * DAY).toISOString());

      // keep: Developer and up; the job entity as GitLab shows it
      const refused = await f.api('POST', `${base()}/jobs/${j2}/artifacts/keep`, { token: reporter.token });
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
      const kept = await f.api('POST', `${base()}/jobs/${j2}/artifacts/keep`, { token: developer.token, body: {} });
      expectStatus(kept, 200);
      assert.equal(kept.body.id, j2);
      assert.equal(kept.body.name, 'build');
      assert.equal(kept.body.status, 'success');
      assert.equal(kept.body.ref, 'main');
      assert.equal(kept.body.tag, false);
      assert.equal(kept.body.artifacts_expire_at, null);
      assert.equal(kept.body.download_url, `${f.forge.deps.config.externalUrl}/${project.path_with_namespace}/-/jobs/${j2}/artifacts/download`);
      assert.deepEqual(kept.body.artifacts.map((a: any) => [a.file_type, a.filename, a.file_format]), [['archive', 'artifacts.zip', 'zip']]);
      for (const key of ['commit', 'coverage', 'allow_failure', 'stage', 'created_at', 'started_at', 'finished_at', 'duration', 'web_url', 'user', 'runner', 'pipeline']) {
        assert.ok(key in kept.body, key);
      }
      assert.equal(kept.body.user.username, maintainer.username);
      assert.deepEqual(await stored(j2), { rows: 1, entries: 2, blobs: [true], expire_at: null, locked: 1 });
      const { jobId: noArchive } = await runPipeline(f, maintainer.token, runner.token, project.id, 'feature/y', null);
      const none = await f.api('POST', `${base()}/jobs/${noArchive}/artifacts/keep`, { token: developer.token });
      assert.deepEqual([none.status, none.body], [404, { message: '404 Not Found' }]);
      const unknown = await f.api('POST', `${base()}/jobs/999999/artifacts/keep`, { token: developer.token });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);

      // before expiry nothing happens
      clock.set(new Date(Date.parse(NOW) + 2 * DAY - 1), true);
      assert.equal(await runDue(), 0);
      assert.deepEqual(await readWho(j1), [200, 'one']);

      // three days later: j1 is gone; j2 was kept; j3 expired but its pipeline is the latest successful of main
      clock.set(new Date(Date.parse(NOW) + 3 * DAY), true);
      assert.equal(await runDue(), 1);
      assert.deepEqual(await stored(j1), { rows: 0, entries: 0, blobs: [], expire_at: null, locked: null });
      assert.deepEqual(await readWho(j1), [404, '404 Not Found']);
      const tree = await f.api('GET', `${base()}/jobs/${j1}/artifacts/tree`, { token: reporter.token });
      assert.deepEqual([tree.status, tree.body], [404, { message: '404 Artifacts Not Found' }]);
      assert.deepEqual(await readWho(j2), [200, 'two']);
      assert.deepEqual(await readWho(j3), [200, 'three']);
      assert.equal((await stored(j3)).rows, 1);
      // a pipeline newer than the latest success (here a failed one) keeps its lock too, as in GitLab
      assert.deepEqual(await readWho(failed), [200, 'failed']);
      const byRef = await f.api('GET', `${base()}/jobs/artifacts/main/raw/out/who.txt?job=build`, { token: reporter.token });
      assert.deepEqual([byRef.status, byRef.text], [200, 'three']);
      // the sweep comes back hourly while expired artifacts wait on a pipeline lock
      assert.deepEqual(await expireJob(), { run_at: new Date(Date.parse(NOW) + 3 * DAY + HOUR).toISOString(), status: 'pending' });

      // a newer successful pipeline on main releases j3 (and the failed one): unavailable at once, deleted by the next sweep
      const j4 = await run('main', 'four');
      assert.deepEqual(await readWho(j3), [404, '404 Not Found']);
      assert.deepEqual(await readWho(failed), [404, '404 Not Found']);
      assert.equal((await stored(j3)).rows, 1);
      clock.advance(HOUR);
      assert.equal(await runDue(), 1);
      assert.equal((await stored(j3)).rows, 0);
      assert.equal((await stored(failed)).rows, 0);
      assert.equal((await stored(j2)).rows, 1, 'kept artifacts never expire');
      assert.deepEqual(await readWho(j4), [200, 'four']);
      // j4 expires two days after its upload; the sweep is due then
      assert.deepEqual(await expireJob(), { run_at: new Date(Date.parse(NOW) + 3 * DAY + 2 * DAY).toISOString(), status: 'pending' });
    });

    it('DELETE …/jobs/:job_id/artifacts: Maintainer, 204, archive gone, the log stays', async () => {
      const pipelineId = await createPipeline(f, maintainer.token, project.id, 'feature/y');
      const job = await takeJob(f, runner.token);
      assert.equal(job.pipelineId, pipelineId);
      expectStatus(await patchTrace(f, job, 0, 'building\n'), 202);
      expectStatus(await uploadArchive(f, job, await zipOf('to delete'), { expire_in: 'never' }), 201);
      await finishJob(f, job, 'success');
      assert.deepEqual(await readWho(job.id), [200, 'to delete']);

      const refused = await f.api('DELETE', `${base()}/jobs/${job.id}/artifacts`, { token: developer.token, body: {} });
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
      const blobKey = (await f.forge.deps.db.selectFrom('ci_job_artifacts').select('blob_key').where('job_id', '=', job.id).executeTakeFirstOrThrow()).blob_key;
      const r = await f.api('DELETE', `${base()}/jobs/${job.id}/artifacts`, { token: maintainer.token, body: {} });
      assert.deepEqual([r.status, r.text], [204, '']);
      assert.deepEqual(await stored(job.id), { rows: 0, entries: 0, blobs: [], expire_at: null, locked: null });
      assert.equal(await f.forge.deps.blobs.size(blobKey), null);
      assert.deepEqual(await readWho(job.id), [404, '404 Not Found']);
      const trace = await f.api('GET', `${base()}/jobs/${job.id}/trace`, { token: reporter.token });
      assert.deepEqual([trace.status, trace.text], [200, 'building\n']);
      const entity = await f.api('GET', `${base()}/jobs/${job.id}`, { token: reporter.token });
      assert.deepEqual(entity.body.artifacts, []);
      // again: nothing left, still 204
      expectStatus(await f.api('DELETE', `${base()}/jobs/${job.id}/artifacts`, { token: maintainer.token }), 204);
      const missing = await f.api('DELETE', `${base()}/jobs/999999/artifacts`, { token: maintainer.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
      const anonymous = await f.api('DELETE', `${base()}/jobs/${job.id}/artifacts`, { token: null });
      assert.equal(anonymous.status, 401);
    });

    it('DELETE /projects/:id/artifacts: Maintainer, 202; everything deletable expires now (kept too) and the worker removes it; the latest of each ref stays', async () => {
      const kept = await run('main', 'kept then deleted');
      expectStatus(await f.api('POST', `${base()}/jobs/${kept}/artifacts/keep`, { token: developer.token }), 200);
      const older = await run('main', 'older');
      const latestFeature = await run('feature/y', 'latest of feature/y');
      const latestMain = await run('main', 'latest of main');
      const before = await stored(latestMain);

      const refused = await f.api('DELETE', `${base()}/artifacts`, { token: developer.token });
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
      const r = await f.api('DELETE', `${base()}/artifacts`, { token: maintainer.token, body: {} });
      assert.deepEqual([r.status, r.body, r.headers.get('content-type')], [202, { message: '202 Accepted' }, 'application/json']);
      const now = clock.now().toISOString();
      assert.equal((await stored(kept)).expire_at, now);
      assert.equal((await stored(kept)).locked, 0);
      assert.equal((await stored(older)).expire_at, now);
      assert.deepEqual(await stored(latestMain), before);
      // unavailable at once; removed by the worker
      assert.deepEqual(await readWho(older), [404, '404 Not Found']);
      assert.deepEqual(await expireJob(), { run_at: now, status: 'pending' });
      assert.equal(await runDue(), 1);
      assert.equal((await stored(kept)).rows, 0);
      assert.equal((await stored(older)).rows, 0);
      assert.deepEqual(await readWho(latestMain), [200, 'latest of main']);
      assert.deepEqual(await readWho(latestFeature), [200, 'latest of feature/y']);
      const all = await f.forge.deps.db.selectFrom('ci_job_artifacts').select('job_id').where('project_id', '=', project.id).orderBy('job_id').execute();
      assert.deepEqual(all.map((a) => a.job_id), [latestFeature, latestMain]);
      const anonymous = await f.api('DELETE', `${base()}/artifacts`, { token: null });
      assert.equal(anonymous.status, 401);
      const bytes = await bytesOf(f, `${base()}/jobs/artifacts/feature%2Fy/download?job=build`, { 'PRIVATE-TOKEN': reporter.token });
      assert.equal(bytes.status, 200);
    });
  });
}
