import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitCi, createRunner, finishJob, jobStatuses, multipart, patchTrace, requestJob, zipOf } from './ci-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };

const TWO_STAGES = `
stages: [build, test]
variables:
  GLOBAL: one
build:
  stage: build
  image: node:20
  before_script: [echo before]
  script:
    - echo build
  after_script: echo after
  artifacts:
    name: bundle
    paths: [dist/]
    expire_in: 1 week
  environment:
    name: staging
    deployment_tier: staging
test:
  stage: test
  variables:
    GLOBAL: two
    LOCAL: three
  script: echo test
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: CI runner protocol`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let maintainer: User;
    let developer: User;
    let reporter: User;
    let group: any;
    let project: any;
    let other: any;
    let runner: { id: number; token: string };

    const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, maintainer, developer, reporter] = await createUsers(f, ['cirowner', 'cirmaint', 'cirdev', 'cirrep']);
      group = await createGroup(f, owner.token, { name: 'Runners', path: 'runners-group' });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: group.id });
      other = await createProject(f, owner.token, { name: 'other', namespace_id: group.id });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      await addMember(f, 'projects', project.id, developer.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await commitCi(f, project.id, TWO_STAGES, { files: { 'src/main.js': 'console.log(1)\n' } });
    });
    after(() => f.stop());

    it('POST /user/runners: project runners for Maintainers, group runners for Owners, instance runners for admins', async () => {
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id, description: 'app runner', tag_list: 'linux, docker' });
      assert.match(runner.token, /^glrt-/);
      const shown = await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token });
      expectStatus(shown, 200);
      assert.equal(shown.body.description, 'app runner');
      assert.equal(shown.body.runner_type, 'project_type');
      assert.equal(shown.body.is_shared, false);
      assert.equal(shown.body.status, 'never_contacted');
      assert.deepEqual(shown.body.tag_list, ['docker', 'linux']);
      assert.equal(shown.body.run_untagged, true);
      assert.deepEqual(shown.body.projects.map((p: any) => p.id), [project.id]);
      assert.equal(shown.body.created_by.username, maintainer.username);

      const cases: [string, Record<string, unknown>, number, unknown][] = [
        [developer.token, { runner_type: 'project_type', project_id: project.id }, 403, { message: '403 Forbidden - Insufficient permissions' }],
        [maintainer.token, { runner_type: 'project_type' }, 400, { message: '400 Bad request - Missing/invalid scope' }],
        [maintainer.token, { runner_type: 'group_type', group_id: group.id }, 403, { message: '403 Forbidden - Insufficient permissions' }],
        [owner.token, { runner_type: 'instance_type' }, 403, { message: '403 Forbidden - Insufficient permissions' }],
        [owner.token, { runner_type: 'shared' }, 400, { error: 'runner_type does not have a valid value' }],
        [maintainer.token, { runner_type: 'project_type', project_id: project.id, run_untagged: false }, 400, {
          message: '400 Bad request - Tags list can not be empty when runner is not allowed to pick untagged jobs',
        }],
      ];
      for (const [token, body, status, expected] of cases) {
        const r = await f.api('POST', '/user/runners', { token, body });
        assert.equal(r.status, status, JSON.stringify(body));
        assert.deepEqual(r.body, expected);
      }
      const groupRunner = await f.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type', group_id: group.id, paused: true } });
      expectStatus(groupRunner, 201);
      const instance = await f.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description: 'shared' } });
      expectStatus(instance, 201);
      assert.deepEqual(Object.keys(instance.body), ['id', 'token', 'token_expires_at']);
      assert.equal(instance.body.token_expires_at, null);
      // anyone signed in reads instance runners; other runners only who manages them
      expectStatus(await f.api('GET', `/runners/${instance.body.id}`, { token: reporter.token }), 200);
      const hidden = await f.api('GET', `/runners/${runner.id}`, { token: developer.token });
      assert.deepEqual([hidden.status, hidden.body], [403, { message: '403 Forbidden - No access granted' }]);
      const missing = await f.api('GET', '/runners/999999', { token: developer.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Runner Not Found' }]);
      const listed = await f.api('GET', `/projects/${project.id}/runners`, { token: maintainer.token });
      expectStatus(listed, 200);
      assert.deepEqual(listed.body.map((r: any) => r.id), [instance.body.id, groupRunner.body.id, runner.id]);
      const onlyPaused = await f.api('GET', `/projects/${project.id}/runners?paused=true`, { token: maintainer.token });
      assert.deepEqual(onlyPaused.body.map((r: any) => r.id), [groupRunner.body.id]);
      expectStatus(await f.api('GET', `/projects/${project.id}/runners`, { token: developer.token }), 403);
      // the instance runner is removed again, so the project runner gets the jobs below
      expectStatus(await f.api('DELETE', '/runners', { token: null, body: { token: instance.body.token } }), 204);
    });

    it('POST /runners/verify answers 200 for a runner token, 403 otherwise', async () => {
      const ok = await f.api('POST', '/runners/verify', { token: null, body: { token: runner.token } });
      assert.deepEqual([ok.status, ok.text], [200, '200']);
      const bad = await f.api('POST', '/runners/verify', { token: null, body: { token: 'glrt-nope' } });
      assert.deepEqual([bad.status, bad.body], [403, FORBIDDEN]);
      const missing = await f.api('POST', '/runners/verify', { token: null, body: {} });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'token is missing' }]);
    });

    it('a two-stage pipeline through the runner API: job payload, log, artifacts, success, next stage, failure', async () => {
      const created = await f.api('POST', `/projects/${project.id}/pipeline`, { token: maintainer.token, body: { ref: 'main', variables: [{ key: 'FROM_API', value: 'secret' }] } });
      expectStatus(created, 201);
      const pipeline = created.body;
      assert.equal(pipeline.status, 'pending');
      assert.deepEqual(await jobStatuses(f, project.id, pipeline.id), { build: 'pending', test: 'created' });

      // A runner without the tags of... this runner has tags but runs untagged jobs too.
      clock.set(new Date(at(5)), true);
      const job = await requestJob(f, runner.token);
      assert.ok(job);
      assert.match(job.token, /^glcbt-/);
      assert.equal(job.allow_git_fetch, true);
      assert.deepEqual(job.job_info, {
        id: job.id, name: 'build', stage: 'build', pipeline_id: pipeline.id, project_id: project.id, project_name: 'app',
        project_full_path: 'runners-group/app', namespace_id: group.id, root_namespace_id: group.id, user_id: maintainer.id,
        time_in_queue_seconds: 5, project_jobs_running_on_instance_runners_count: '0', queue_size: 0, queue_depth: 0,
      });
      const host = new URL(f.url).host;
      assert.deepEqual(job.git_info, {
        repo_url: `http://gitlab-ci-token:${job.token}@${host}/runners-group/app.git`,
        ref: 'main', sha: pipeline.sha, before_sha: '0000000000000000000000000000000000000000', ref_type: 'branch',
        refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 20, repo_object_format: 'sha1', protected: true,
      });
      assert.deepEqual(job.runner_info, { timeout: 3600, runner_session_url: null });
      assert.deepEqual(job.steps, [
        { name: 'script', script: ['echo before', 'echo build'], timeout: 3600, when: 'on_success', allow_failure: false },
        { name: 'after_script', script: ['echo after'], timeout: 3600, when: 'always', allow_failure: true },
      ]);
      assert.deepEqual(job.image, { name: 'node:20', entrypoint: null, ports: [], pull_policy: null });
      assert.deepEqual(job.artifacts, [
        { name: 'bundle', paths: ['dist/'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
      ]);
      assert.deepEqual([job.services, job.cache, job.dependencies, job.features], [[], [], [], {}]);
      const vars = new Map<string, any>(job.variables.map((v: any) => [v.key, v]));
      const value = (k: string) => vars.get(k)?.value;
      assert.deepEqual(vars.get('CI_JOB_TOKEN'), { key: 'CI_JOB_TOKEN', value: job.token, public: false, masked: true });
      assert.equal(value('CI_PROJECT_ID'), String(project.id));
      assert.equal(value('CI_PIPELINE_ID'), String(pipeline.id));
      assert.equal(value('CI_PIPELINE_IID'), String(pipeline.iid));
      assert.equal(value('CI_PIPELINE_SOURCE'), 'api');
      assert.equal(value('CI_COMMIT_SHA'), pipeline.sha);
      assert.equal(value('CI_COMMIT_SHORT_SHA'), pipeline.sha.slice(0, 8));
      assert.equal(value('CI_COMMIT_REF_NAME'), 'main');
      assert.equal(value('CI_COMMIT_BRANCH'), 'main');
      assert.equal(value('CI_COMMIT_REF_PROTECTED'), 'true', 'the default branch is protected');
      assert.equal(value('CI_API_V4_URL'), `${f.url}/api/v4`);
      assert.equal(value('CI_SERVER_URL'), f.url);
      assert.equal(value('CI_PROJECT_PATH'), 'runners-group/app');
      assert.equal(value('CI_JOB_NAME'), 'build');
      assert.equal(value('CI_JOB_STAGE'), 'build');
      assert.equal(value('GITLAB_USER_LOGIN'), maintainer.username);
      assert.equal(value('CI_ENVIRONMENT_NAME'), 'staging');
      assert.equal(value('CI_ENVIRONMENT_TIER'), 'staging');
      assert.equal(value('CI_RUNNER_ID'), String(runner.id));
      assert.equal(value('GLOBAL'), 'one');
      assert.deepEqual(vars.get('FROM_API'), { key: 'FROM_API', value: 'secret', public: false, masked: false });
      // the CI file's variables come before the pipeline's, which win on the runner
      const keys = job.variables.map((v: any) => v.key);
      assert.ok(keys.indexOf('GLOBAL') < keys.indexOf('FROM_API'));

      // the job runs: the pipeline is running; the job token authenticates GET /job
      const running = await f.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
      assert.equal(running.body.status, 'running');
      assert.equal(running.body.started_at, at(5));
      assert.equal(running.body.queued_duration, 5);
      const current = await f.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': job.token } });
      expectStatus(current, 200);
      assert.equal(current.body.id, job.id);
      assert.equal(current.body.status, 'running');
      assert.equal(current.body.runner.id, runner.id);
      const bearer = await f.api('GET', '/job', { token: null, headers: { Authorization: `Bearer ${job.token}` } });
      expectStatus(bearer, 200);
      const notJob = await f.api('GET', '/job', { token: maintainer.token });
      assert.deepEqual([notJob.status, notJob.body], [404, { message: '404 Job Not Found' }]);
      // job tokens only work on routes that accept them
      const elsewhere = await f.api('GET', `/projects/${project.id}/pipelines`, { token: null, headers: { 'JOB-TOKEN': job.token } });
      expectStatus(elsewhere, 404);
      const viaJob = await f.api('GET', `/projects/${project.id}/jobs`, { token: null, headers: { 'JOB-TOKEN': job.token } });
      expectStatus(viaJob, 200);

      // the log: appended at its current length, else 416 with the length
      const first = await patchTrace(f, job, 0, `Running with token ${job.token}\n`);
      assert.equal(first.status, 202);
      const len1 = Buffer.byteLength(`Running with token ${job.token}\n`);
      assert.equal(first.headers.get('range'), `0-${len1}`);
      assert.equal(first.headers.get('job-status'), 'running');
      const wrong = await patchTrace(f, job, 3, 'overlap');
      assert.deepEqual([wrong.status, wrong.body, wrong.headers.get('range')], [416, { message: '416 Range Not Satisfiable' }, `0-${len1}`]);
      const second = await patchTrace(f, job, len1, 'ok ✓\n');
      assert.equal(second.headers.get('range'), `0-${len1 + Buffer.byteLength('ok ✓\n')}`);
      const noRange = await f.api('PATCH', `/jobs/${job.id}/trace`, { token: null, raw: 'x', headers: { 'JOB-TOKEN': job.token } });
      assert.deepEqual([noRange.status, noRange.body], [400, { message: '400 Missing header Content-Range' }]);
      const badToken = await patchTrace(f, { id: job.id, token: 'glcbt-wrong' }, 0, 'x');
      assert.deepEqual([badToken.status, badToken.body], [403, FORBIDDEN]);
      const trace = await f.api('GET', `/projects/${project.id}/jobs/${job.id}/trace`, { token: reporter.token });
      expectStatus(trace, 200);
      assert.equal(trace.headers.get('content-type'), 'text/plain');
      assert.equal(trace.headers.get('content-disposition'), `infile; filename="${job.id}.log"`);
      // the job token is masked in the log
      assert.equal(trace.text, `Running with token ${'x'.repeat(job.token.length)}\nok ✓\n`);

      // artifacts: multipart upload, streamed to the blob store, downloadable as the archive
      const archive = await zipOf({ 'dist/app.js': 'built\n', 'dist/readme.txt': 'hello\n' });
      const upload = multipart({ artifact_type: 'archive', artifact_format: 'zip', expire_in: '3 days' }, { filename: 'artifacts.zip', content: archive });
      const up = await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: upload.body, headers: { 'Content-Type': upload.contentType, 'JOB-TOKEN': job.token } });
      assert.deepEqual([up.status, up.text], [201, '201']);
      const again = multipart({}, { filename: 'artifacts.zip', content: archive });
      const same = await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: again.body, headers: { 'Content-Type': again.contentType, 'JOB-TOKEN': job.token } });
      expectStatus(same, 201);
      const differs = multipart({}, { filename: 'artifacts.zip', content: await zipOf({ 'x.txt': 'x' }) });
      const dup = await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: differs.body, headers: { 'Content-Type': differs.contentType, 'JOB-TOKEN': job.token } });
      assert.deepEqual([dup.status, dup.body], [400, { message: 'another artifact of the same type already exists' }]);
      const notZip = multipart({ artifact_type: 'junit', artifact_format: 'gzip', expire_in: 'whenever' }, { filename: 'junit.xml.gz', content: Buffer.from('x') });
      const badExpiry = await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: notZip.body, headers: { 'Content-Type': notZip.contentType, 'JOB-TOKEN': job.token } });
      assert.deepEqual([badExpiry.status, badExpiry.body], [400, { error: 'expire_in is invalid' }]);

      // the runner finishes the job: next stage pending, the token is dead
      clock.set(new Date(at(65)), true);
      await finishJob(f, job, 'success');
      assert.deepEqual(await jobStatuses(f, project.id, pipeline.id), { build: 'success', test: 'pending' });
      const dead = await f.api('GET', '/job', { token: null, headers: { 'JOB-TOKEN': job.token } });
      assert.deepEqual([dead.status, dead.body], [401, { message: '401 Unauthorized' }]);
      const late = await patchTrace(f, job, 0, 'late');
      assert.deepEqual([late.status, late.body, late.headers.get('job-status')], [403, { message: '403 Forbidden - Job is not running' }, 'success']);
      const lateUpload = multipart({}, { filename: 'artifacts.zip', content: archive });
      const lateUp = await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: lateUpload.body, headers: { 'Content-Type': lateUpload.contentType, 'JOB-TOKEN': job.token } });
      assert.deepEqual([lateUp.status, lateUp.body], [403, { message: '403 Forbidden - Job is not processing on runner' }]);
      const latePut = await f.api('PUT', `/jobs/${job.id}`, { token: null, body: { token: job.token, state: 'failed' } });
      assert.deepEqual([latePut.status, latePut.headers.get('job-status')], [403, 'success']);

      const done = await f.api('GET', `/projects/${project.id}/jobs/${job.id}`, { token: reporter.token });
      expectStatus(done, 200);
      assert.equal(done.body.status, 'success');
      assert.equal(done.body.started_at, at(5));
      assert.equal(done.body.finished_at, at(65));
      assert.equal(done.body.duration, 60);
      assert.equal(done.body.queued_duration, 5);
      assert.deepEqual(done.body.artifacts_file, { filename: 'artifacts.zip', size: archive.length });
      assert.deepEqual(done.body.artifacts, [{ file_type: 'archive', size: archive.length, filename: 'artifacts.zip', file_format: 'zip' }]);
      assert.equal(done.body.artifacts_expire_at, new Date(Date.parse(at(5)) + 3 * 86400_000).toISOString());
      const dl = await f.api('GET', `/projects/${project.id}/jobs/${job.id}/artifacts`, { token: reporter.token });
      expectStatus(dl, 200);
      assert.equal(dl.headers.get('content-type'), 'application/octet-stream');
      assert.equal(dl.headers.get('content-disposition'), `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`);
      const raw = await fetch(`${f.url}/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': reporter.token } });
      assert.deepEqual(Buffer.from(await raw.arrayBuffer()), archive);

      // the test job: depends on build's artifacts, gets the job's variables, fails
      const testJob = await requestJob(f, runner.token);
      assert.equal(testJob.job_info.name, 'test');
      assert.deepEqual(testJob.dependencies, [{ id: job.id, name: 'build', token: testJob.token, artifacts_file: { filename: 'artifacts.zip', size: archive.length } }]);
      const testVars = new Map<string, any>(testJob.variables.map((v: any) => [v.key, v.value]));
      assert.equal(testVars.get('GLOBAL'), 'two');
      assert.equal(testVars.get('LOCAL'), 'three');
      // a running job's token downloads the artifacts of the jobs it depends on, through the runner route and the API
      const depRaw = await fetch(`${f.url}/api/v4/jobs/${job.id}/artifacts`, { headers: { 'JOB-TOKEN': testJob.token } });
      assert.equal(depRaw.status, 200);
      assert.deepEqual(Buffer.from(await depRaw.arrayBuffer()), archive);
      const viaApi = await f.api('GET', `/projects/${project.id}/jobs/${job.id}/artifacts`, { token: null, headers: { 'JOB-TOKEN': testJob.token } });
      expectStatus(viaApi, 200);
      const noArchive = await f.api('GET', `/projects/${project.id}/jobs/${testJob.id}/artifacts`, { token: reporter.token });
      assert.deepEqual([noArchive.status, noArchive.body], [404, { message: '404 Not Found' }]);

      clock.set(new Date(at(125)), true);
      await finishJob(f, testJob, 'failed', { failure_reason: 'script_failure', exit_code: 1 });
      const failed = await f.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.finished_at, at(125));
      assert.equal(failed.body.duration, 120);
      assert.deepEqual(failed.body.detailed_status.group, 'failed');
      const failedJob = await f.api('GET', `/projects/${project.id}/jobs/${testJob.id}`);
      assert.equal(failedJob.body.failure_reason, 'script_failure');
      assert.deepEqual(Object.keys(failedJob.body), [
        'id', 'status', 'stage', 'name', 'ref', 'tag', 'coverage', 'allow_failure', 'created_at', 'started_at', 'finished_at', 'erased_at',
        'duration', 'queued_duration', 'user', 'commit', 'pipeline', 'failure_reason', 'web_url', 'project', 'artifacts', 'runner',
        'runner_manager', 'artifacts_expire_at', 'archived', 'tag_list',
      ]);
      assert.equal(await requestJob(f, runner.token), null);
    });

    it('two runners asking at once never get the same job', async () => {
      const second = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
      expectStatus(await f.api('POST', `/projects/${project.id}/pipeline`, { token: maintainer.token, body: { ref: 'main' } }), 201);
      const answers = await Promise.all([requestJob(f, runner.token), requestJob(f, second.token), requestJob(f, runner.token), requestJob(f, second.token)]);
      const jobs = answers.filter(Boolean);
      assert.equal(jobs.length, 1);
      await finishJob(f, jobs[0], 'success');
      const next = await requestJob(f, second.token);
      assert.equal(next.job_info.name, 'test');
      await finishJob(f, next, 'success');
      expectStatus(await f.api('DELETE', '/runners', { token: null, body: { token: second.token } }), 204);
    });

    it('jobs of one stage finishing at once: the next stage still starts (the pipeline row is locked)', async () => {
      await commitCi(f, project.id, 'stages: [a, b]\none:\n  stage: a\n  script: x\ntwo:\n  stage: a\n  script: y\nthree:\n  stage: b\n  script: z\n', { branch: 'parallel', startBranch: 'main' });
      const second = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
      const p = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'parallel' } });
      expectStatus(p, 201);
      const [x, y] = [await requestJob(f, runner.token), await requestJob(f, second.token)];
      assert.deepEqual([x.job_info.name, y.job_info.name].sort(), ['one', 'two']);
      await Promise.all([finishJob(f, x, 'success'), finishJob(f, y, 'success')]);
      assert.deepEqual(await jobStatuses(f, project.id, p.body.id), { one: 'success', three: 'pending', two: 'success' });
      await finishJob(f, await requestJob(f, second.token), 'success');
      assert.equal((await f.api('GET', `/projects/${project.id}/pipelines/${p.body.id}`)).body.status, 'success');
      expectStatus(await f.api('DELETE', '/runners', { token: null, body: { token: second.token } }), 204);
    });

    it('scope: paused runners, tags, other projects and group runners', async () => {
      await commitCi(f, other.id, 'tagged:\n  tags: [gpu]\n  script: nvidia-smi\n');
      const r = await f.api('POST', `/projects/${other.id}/pipeline`, { body: { ref: 'main' } });
      expectStatus(r, 201);
      // the app project's runner does not serve `other`
      assert.equal(await requestJob(f, runner.token), null);
      const groupRunner = await createRunner(f, owner.token, { runner_type: 'group_type', group_id: group.id, tag_list: ['linux'] });
      assert.equal(await requestJob(f, groupRunner.token), null, 'the job needs the gpu tag');
      const paused = await createRunner(f, owner.token, { runner_type: 'group_type', group_id: group.id, tag_list: ['gpu'], paused: true });
      assert.equal(await requestJob(f, paused.token), null);
      const gpu = await createRunner(f, owner.token, { runner_type: 'group_type', group_id: group.id, tag_list: ['gpu', 'linux'], run_untagged: false });
      const job = await requestJob(f, gpu.token);
      assert.equal(job.job_info.project_id, other.id);
      assert.equal(job.job_info.name, 'tagged');
      await finishJob(f, job, 'success');
      const bad = await f.api('POST', '/jobs/request', { token: null, body: { token: 'nope' } });
      assert.deepEqual([bad.status, bad.body], [403, FORBIDDEN]);
    });

    it('legacy registration with the project runners_token (shown to Maintainers only), then unregistration', async () => {
      const asMaintainer = await f.api('GET', `/projects/${project.id}`, { token: maintainer.token });
      expectStatus(asMaintainer, 200);
      const registration = asMaintainer.body.runners_token;
      assert.match(registration, /^GR1348941/);
      assert.equal((await f.api('GET', `/projects/${project.id}`, { token: owner.token })).body.runners_token, registration);
      assert.equal('runners_token' in (await f.api('GET', `/projects/${project.id}`, { token: developer.token })).body, false);

      const registered = await f.api('POST', '/runners', { token: null, body: { token: registration, description: 'legacy', tag_list: 'a,b', info: { name: 'gitlab-runner' } } });
      expectStatus(registered, 201);
      assert.deepEqual(Object.keys(registered.body), ['id', 'token', 'token_expires_at']);
      const shown = await f.api('GET', `/runners/${registered.body.id}`, { token: maintainer.token });
      assert.deepEqual([shown.body.description, shown.body.tag_list, shown.body.runner_type], ['legacy', ['a', 'b'], 'project_type']);
      const refused = await f.api('POST', '/runners', { token: null, body: { token: 'GR1348941nope' } });
      assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
      const invalid = await f.api('POST', '/runners', { token: null, body: { token: registration, run_untagged: false } });
      assert.deepEqual([invalid.status, invalid.body], [400, { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } }]);

      expectStatus(await f.api('POST', '/runners/verify', { token: null, body: { token: registered.body.token } }), 200);
      expectStatus(await f.api('DELETE', '/runners', { token: null, body: { token: registered.body.token } }), 204);
      expectStatus(await f.api('POST', '/runners/verify', { token: null, body: { token: registered.body.token } }), 403);
      expectStatus(await f.api('DELETE', '/runners', { token: null, body: { token: registered.body.token } }), 403);
    });
  });
}
