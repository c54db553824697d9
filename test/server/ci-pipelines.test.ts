import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { createPipeline } from '../../packages/core/src/domains/ci/create-pipeline.js';
import { createTagIn } from '../../packages/core/src/domains/repository/write-commit.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitCi, createRunner, finishJob, jobStatuses, multipart, requestJob, zipOf } from './ci-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Not found' };
const base = (message: string) => ({ message: { base: [message] } });

const SIMPLE = 'build:\n  stage: build\n  script: make\ntest:\n  script: make test\n';

for (const dialect of DIALECTS) {
  describe(`${dialect}: CI pipelines`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let maintainer: User;
    let developer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let project: any;
    let runner: { id: number; token: string };
    const path = () => project.path_with_namespace as string;

    async function pipeline(body: Record<string, unknown>, token = maintainer.token, projectId = project.id): Promise<any> {
      const r = await f.api('POST', `/projects/${projectId}/pipeline`, { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    /** Has the runner take the next job, checks its name, and finishes it. */
    async function run(name: string, state: 'success' | 'failed' = 'success'): Promise<any> {
      const job = await requestJob(f, runner.token);
      assert.ok(job, `no job when ${name} was expected`);
      assert.equal(job.job_info.name, name);
      await finishJob(f, job, state);
      return job;
    }
    async function getPipeline(id: number): Promise<any> {
      const r = await f.api('GET', `/projects/${project.id}/pipelines/${id}`);
      expectStatus(r, 200);
      return r.body;
    }
    async function drain(): Promise<void> {
      for (let job = await requestJob(f, runner.token); job; job = await requestJob(f, runner.token)) await finishJob(f, job, 'success');
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, maintainer, developer, reporter, guest, outsider] = await createUsers(f, ['cipowner', 'cipmaint', 'cipdev', 'ciprep', 'cipguest', 'cipout']);
      group = await createGroup(f, owner.token, { name: 'Pipelines', path: 'pipelines-group', visibility: 'private' });
      project = await createProject(f, owner.token, { name: 'web', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      await addMember(f, 'projects', project.id, developer.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await addMember(f, 'projects', project.id, guest.id, 10);
      await commitCi(f, project.id, SIMPLE);
      await commitCi(f, project.id, SIMPLE, { branch: 'feature', startBranch: 'main', files: { 'feature.txt': 'x' } });
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
    });
    after(() => f.stop());

    it('POST /projects/:id/pipeline: 201 with the whole pipeline; jobs of the first stage pending', async () => {
      const created = await f.api('POST', `/projects/${encodeURIComponent(path())}/pipeline`, { token: maintainer.token, body: { ref: 'main' } });
      expectStatus(created, 201);
      const p = created.body;
      const sha = p.sha;
      assert.match(sha, /^[0-9a-f]{40}$/);
      assert.deepEqual(p, {
        id: p.id,
        iid: 1,
        project_id: project.id,
        sha,
        ref: 'main',
        status: 'pending',
        source: 'api',
        created_at: NOW,
        updated_at: NOW,
        web_url: `${f.url}/${path()}/-/pipelines/${p.id}`,
        before_sha: '0000000000000000000000000000000000000000',
        tag: false,
        yaml_errors: null,
        user: { id: maintainer.id, username: maintainer.username, name: maintainer.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${maintainer.username}` },
        started_at: null,
        finished_at: null,
        committed_at: null,
        duration: null,
        queued_duration: null,
        coverage: null,
        detailed_status: {
          icon: 'status_pending', text: 'pending', label: 'pending', group: 'pending', tooltip: 'pending', has_details: true,
          details_path: `/${path()}/-/pipelines/${p.id}`, illustration: null, favicon: '/assets/ci_favicons/favicon_status_pending.png',
        },
        name: null,
        warnings: [],
      });
      const got = await f.api('GET', `/projects/${project.id}/pipelines/${p.id}`, { token: reporter.token });
      assert.deepEqual(got.body, p);
      const jobs = await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/jobs`, { token: reporter.token });
      expectStatus(jobs, 200);
      assert.deepEqual(jobs.body.map((j: any) => [j.name, j.stage, j.status]), [['test', 'test', 'created'], ['build', 'build', 'pending']]);
      const build = jobs.body[1];
      assert.deepEqual(build.pipeline, { id: p.id, iid: 1, project_id: project.id, sha, ref: 'main', status: 'pending', source: 'api', created_at: NOW, updated_at: NOW, web_url: p.web_url });
      assert.equal(build.commit.id, sha);
      assert.equal(build.user.username, maintainer.username);
      assert.equal(build.web_url, `${f.url}/${path()}/-/jobs/${build.id}`);
      assert.deepEqual([build.runner, build.artifacts, build.tag_list, build.duration, build.queued_duration], [null, [], [], null, 0]);
      assert.equal('failure_reason' in build, false);
      await drain();
      const done = await getPipeline(p.id);
      assert.deepEqual([done.status, done.detailed_status.text, done.duration, done.finished_at], ['success', 'passed', 0, NOW]);
    });

    it('who may run pipelines: Developers on unprotected refs, Maintainers on the protected default branch', async () => {
      const dev = await pipeline({ ref: 'feature' }, developer.token);
      assert.equal(dev.user.id, developer.id);
      const cases: [string | null, Record<string, unknown>, number, unknown][] = [
        [developer.token, { ref: 'main' }, 400, base("You do not have sufficient permission to run a pipeline on 'main'. Please select a different branch or contact your administrator for assistance.")],
        [reporter.token, { ref: 'feature' }, 403, FORBIDDEN],
        [guest.token, { ref: 'feature' }, 403, FORBIDDEN],
        [outsider.token, { ref: 'feature' }, 404, { message: '404 Project Not Found' }],
        [null, { ref: 'feature' }, 401, { message: '401 Unauthorized' }],
        [maintainer.token, {}, 400, { error: 'ref is missing' }],
        [maintainer.token, { ref: 'nope' }, 400, base('Reference not found')],
        [maintainer.token, { ref: 'refs/tags/main' }, 400, base('Reference not found')],
        [maintainer.token, { ref: 'main', variables: [{ key: 'BAD-KEY', value: 'x' }] }, 400, { message: { 'variables.key': ["can contain only letters, digits and '_'."] } }],
        [maintainer.token, { ref: 'main', variables: [{ value: 'x' }] }, 400, { error: 'variables[0][key] is missing' }],
        [maintainer.token, { ref: 'main', variables: [{ key: 'A', variable_type: 'secret' }] }, 400, { error: 'variables[0][variable_type] does not have a valid value' }],
        [maintainer.token, { ref: 'main', inputs: ['x'] }, 400, { error: 'inputs is invalid' }],
      ];
      for (const [token, body, status, expected] of cases) {
        const r = await f.api('POST', `/projects/${project.id}/pipeline`, { token, body });
        assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
        assert.deepEqual(r.body, expected);
      }
      // reading: Reporters see pipelines and jobs of a private project, Guests do not
      expectStatus(await f.api('GET', `/projects/${project.id}/pipelines`, { token: reporter.token }), 200);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines`, { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines/${dev.id}`, { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/jobs`, { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines`, { token: outsider.token })).body, { message: '404 Project Not Found' });
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines/999999`)).body, NOT_FOUND);
      await drain();
    });

    it('CI file problems: 400 with the first error; no file; warnings for what Forgelet ignores', async () => {
      await commitCi(f, project.id, 'build:\n  stage: compile\n  script: make\n', { branch: 'broken', startBranch: 'main' });
      const broken = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'broken' } });
      assert.deepEqual([broken.status, broken.body], [400, base('build job: chosen stage compile does not exist; available stages are .pre, build, test, deploy, .post')]);
      await commitCi(f, project.id, 'build: [\n', { branch: 'broken' });
      const syntax = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'broken' } });
      assert.equal(syntax.status, 400);
      assert.match(syntax.body.message.base[0], /^\(<unknown>\): .* at line \d+ column \d+$/);
      await f.forge.contextFor('root').then(async () => undefined);
      const { commitFiles } = await import('../support/repository.js');
      await commitFiles(f, project.id, 'noci', { 'README.md': 'hi' }, { startBranch: 'main' });
      await commitFiles(f, project.id, 'noci', { '.gitlab-ci.yml': null });
      const missing = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'noci' } });
      assert.deepEqual([missing.status, missing.body], [400, base('Missing CI config file')]);

      await commitCi(f, project.id, [
        'workflow:',
        '  name: Nightly $[[ inputs.target ]]',
        '  rules:',
        '    - when: always',
        'build:',
        '  script: make',
        '  cache:',
        '    paths: [node_modules]',
        '  rules:',
        '    - if: $CI',
        '  services: [postgres]',
      ].join('\n'), { branch: 'warned', startBranch: 'main' });
      const warned = await pipeline({ ref: 'warned' }, developer.token);
      assert.equal(warned.name, 'Nightly $[[ inputs.target ]]', 'no spec header: no interpolation');
      assert.deepEqual(warned.warnings, [
        'workflow:rules is not supported by Forgelet and was ignored',
        'jobs:build:cache is not supported by Forgelet and was ignored',
        'jobs:build:rules is not supported by Forgelet and was ignored',
        'jobs:build:services is not supported by Forgelet and was ignored',
      ]);
      const listed = await f.api('GET', `/projects/${project.id}/pipelines?ref=warned`);
      assert.deepEqual(Object.keys(listed.body[0]), ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url', 'name']);
      await drain();
    });

    it('inputs: the spec header, typed values, interpolation, unknown and invalid inputs refused', async () => {
      await commitCi(f, project.id, [
        'spec:',
        '  inputs:',
        '    target:',
        '      options: [staging, production]',
        '    retries:',
        '      type: number',
        '      default: 2',
        '    debug:',
        '      type: boolean',
        '      default: false',
        '---',
        'workflow:',
        '  name: Deploy to $[[ inputs.target ]]',
        'deploy:',
        '  script: ./deploy $[[ inputs.target ]] --retries $[[ inputs.retries ]]',
        '  variables:',
        '    DEBUG: debug=$[[ inputs.debug ]]',
      ].join('\n'), { branch: 'inputs', startBranch: 'main' });
      const refused: [Record<string, unknown> | undefined, string][] = [
        [undefined, '`target` input: required value has not been provided'],
        [{ target: 'qa' }, '`target` input: `qa` cannot be used because it is not in the list of the allowed options'],
        [{ target: 'staging', retries: 'three' }, '`retries` input: provided value is not a number'],
        [{ target: 'staging', colour: 'red' }, 'unknown input arguments: colour'],
      ];
      for (const [inputs, message] of refused) {
        const r = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'inputs', inputs } });
        assert.deepEqual([r.status, r.body], [400, base(message)], JSON.stringify(inputs));
      }
      const p = await pipeline({ ref: 'inputs', inputs: { target: 'production', debug: true } }, developer.token);
      assert.equal(p.name, 'Deploy to production');
      const job = await requestJob(f, runner.token);
      assert.deepEqual(job.steps[0].script, ['./deploy production --retries 2']);
      assert.equal(job.variables.find((v: any) => v.key === 'DEBUG').value, 'debug=true');
      await finishJob(f, job, 'success');
      // inputs to a file without a header
      const none = await f.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'feature', inputs: { a: 1 } } });
      assert.deepEqual(none.body, base('unknown input arguments: a'));
    });

    it('a scheduled pipeline with a broken CI file is kept, failed with yaml_errors (config_error)', async () => {
      const ctx = await f.forge.contextFor(developer.username);
      const projectRow = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
      const row = await createPipeline(ctx, projectRow, { ref: 'refs/heads/broken', source: 'schedule', variables: [{ key: 'FROM_SCHEDULE', value: '1' }] });
      assert.deepEqual([row.status, row.failure_reason, row.source, row.ref], ['failed', 'config_error', 'schedule', 'broken']);
      const shown = await getPipeline(row.id);
      assert.equal(shown.status, 'failed');
      assert.match(shown.yaml_errors, /^\(<unknown>\): /);
      const errors = await f.api('GET', `/projects/${project.id}/pipelines?yaml_errors=true`);
      assert.deepEqual(errors.body.map((p: any) => p.id), [row.id]);
      const jobs = await f.api('GET', `/projects/${project.id}/pipelines/${row.id}/jobs`);
      assert.deepEqual(jobs.body, []);
      // a valid scheduled pipeline runs like any other
      const ok = await createPipeline(ctx, projectRow, { ref: 'feature', source: 'schedule', variables: [{ key: 'FROM_SCHEDULE', value: '1' }] });
      assert.deepEqual([ok.status, ok.source, ok.pipeline_schedule_id], ['pending', 'schedule', null]);
      await drain();
    });

    it('when, allow_failure, manual jobs: GitLab composite statuses, passed with warnings, play', async () => {
      await commitCi(f, project.id, [
        'stages: [build, test, deploy, cleanup]',
        'build:',
        '  stage: build',
        '  script: make',
        'lint:',
        '  stage: build',
        '  script: lint',
        '  allow_failure: true',
        'test:',
        '  stage: test',
        '  script: make test',
        'rescue:',
        '  stage: deploy',
        '  script: rescue',
        '  when: on_failure',
        'deploy:',
        '  stage: deploy',
        '  script: deploy',
        '  when: manual',
        'cleanup:',
        '  stage: cleanup',
        '  script: cleanup',
        '  when: always',
        'disabled:',
        '  stage: cleanup',
        '  script: never',
        '  when: never',
      ].join('\n'), { branch: 'flow', startBranch: 'main' });
      const p = await pipeline({ ref: 'flow' }, developer.token);
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { build: 'pending', cleanup: 'created', deploy: 'created', lint: 'pending', rescue: 'created', test: 'created' });
      await run('build');
      await run('lint', 'failed');
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { build: 'success', cleanup: 'created', deploy: 'created', lint: 'failed', rescue: 'created', test: 'pending' });
      await run('test');
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { build: 'success', cleanup: 'pending', deploy: 'manual', lint: 'failed', rescue: 'skipped', test: 'success' });
      await run('cleanup');
      const passed = await getPipeline(p.id);
      assert.equal(passed.status, 'success');
      assert.deepEqual(passed.detailed_status, {
        icon: 'status_warning', text: 'warning', label: 'passed with warnings', group: 'success-with-warnings', tooltip: 'passed', has_details: true,
        details_path: `/${path()}/-/pipelines/${p.id}`, illustration: null, favicon: '/assets/ci_favicons/favicon_status_warning.png',
      });
      const deploy = (await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/jobs?scope[]=manual`)).body[0];
      assert.deepEqual([deploy.name, deploy.allow_failure], ['deploy', true]);
      const build = (await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/jobs?scope=success`)).body.find((j: any) => j.name === 'build');
      const unplayable = await f.api('POST', `/projects/${project.id}/jobs/${build.id}/play`, { token: developer.token });
      assert.deepEqual([unplayable.status, unplayable.body], [400, { message: '400 Bad request - Unplayable Job' }]);
      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${deploy.id}/play`, { token: reporter.token }), 403);
      const played = await f.api('POST', `/projects/${project.id}/jobs/${deploy.id}/play`, { token: developer.token });
      expectStatus(played, 200);
      assert.equal(played.body.status, 'pending');
      assert.equal((await getPipeline(p.id)).status, 'running');
      await run('deploy');
      assert.equal((await getPipeline(p.id)).status, 'success');

      // the failure path: on_failure and always jobs run, manual and later jobs are skipped
      const q = await pipeline({ ref: 'flow' }, developer.token);
      await run('build', 'failed');
      await run('lint');
      assert.deepEqual(await jobStatuses(f, project.id, q.id), { build: 'failed', cleanup: 'created', deploy: 'skipped', lint: 'success', rescue: 'pending', test: 'skipped' });
      await run('rescue');
      await run('cleanup');
      const failed = await getPipeline(q.id);
      assert.deepEqual([failed.status, failed.detailed_status.group], ['failed', 'failed']);
    });

    it('needs: DAG jobs start as soon as what they need is done; blocking manual jobs hold the pipeline', async () => {
      await commitCi(f, project.id, [
        'stages: [build, test, deploy]',
        'a:',
        '  stage: build',
        '  script: a',
        'b:',
        '  stage: build',
        '  script: b',
        'c:',
        '  stage: test',
        '  script: c',
        '  needs: [a]',
        'd:',
        '  stage: deploy',
        '  script: d',
        '  needs: []',
        'gate:',
        '  stage: deploy',
        '  script: gate',
        '  when: manual',
        '  allow_failure: false',
        'e:',
        '  stage: deploy',
        '  script: e',
        '  needs: [gate]',
      ].join('\n'), { branch: 'dag', startBranch: 'main' });
      const p = await pipeline({ ref: 'dag' }, developer.token);
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { a: 'pending', b: 'pending', c: 'created', d: 'pending', e: 'created', gate: 'created' });
      await run('a');
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { a: 'success', b: 'pending', c: 'pending', d: 'pending', e: 'created', gate: 'created' });
      await run('b');
      await run('c');
      await run('d');
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { a: 'success', b: 'success', c: 'success', d: 'success', e: 'created', gate: 'manual' });
      assert.equal((await getPipeline(p.id)).status, 'manual');
      const gate = (await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/jobs?scope=manual`)).body[0];
      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${gate.id}/play`, { token: developer.token }), 200);
      await run('gate');
      await run('e');
      assert.equal((await getPipeline(p.id)).status, 'success');
    });

    it('cancel, retry (pipeline and job), cancel a job', async () => {
      const p = await pipeline({ ref: 'feature' }, developer.token);
      expectStatus(await f.api('POST', `/projects/${project.id}/pipelines/${p.id}/cancel`, { token: reporter.token }), 403);
      clock.set(new Date('2024-06-15T12:10:00.000Z'), true);
      const canceled = await f.api('POST', `/projects/${project.id}/pipelines/${p.id}/cancel`, { token: developer.token });
      expectStatus(canceled, 200);
      assert.deepEqual([canceled.body.status, canceled.body.finished_at], ['canceled', '2024-06-15T12:10:00.000Z']);
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { build: 'canceled', test: 'canceled' });
      assert.equal(await requestJob(f, runner.token), null);

      const retried = await f.api('POST', `/projects/${project.id}/pipelines/${p.id}/retry`, { token: developer.token });
      expectStatus(retried, 201);
      assert.deepEqual([retried.body.status, retried.body.finished_at], ['pending', null]);
      assert.deepEqual(await jobStatuses(f, project.id, p.id), { build: 'pending', test: 'created' });
      const all = await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/jobs?include_retried=true`);
      assert.deepEqual(all.body.map((j: any) => [j.name, j.status]), [['test', 'created'], ['build', 'pending'], ['test', 'canceled'], ['build', 'canceled']]);
      await run('build');
      const test = await requestJob(f, runner.token);
      const running = await f.api('POST', `/projects/${project.id}/jobs/${test.id}/retry`, { token: developer.token });
      assert.deepEqual([running.status, running.body], [403, { message: '403 Forbidden - Job is not retryable' }]);
      const cancelJob = await f.api('POST', `/projects/${project.id}/jobs/${test.id}/cancel`, { token: developer.token });
      expectStatus(cancelJob, 201);
      assert.equal(cancelJob.body.status, 'canceled');
      assert.equal((await getPipeline(p.id)).status, 'canceled');
      // the canceled job's token is refused: the runner learns the job is over
      const put = await f.api('PUT', `/jobs/${test.id}`, { token: null, body: { token: test.token, state: 'success' } });
      assert.deepEqual([put.status, put.headers.get('job-status')], [403, 'canceled']);
      const again = await f.api('POST', `/projects/${project.id}/jobs/${test.id}/retry`, { token: developer.token });
      expectStatus(again, 201);
      assert.notEqual(again.body.id, test.id);
      assert.equal(again.body.status, 'pending');
      assert.equal(again.body.user.id, developer.id);
      await run('test');
      assert.equal((await getPipeline(p.id)).status, 'success');
      const nothing = await f.api('POST', `/projects/${project.id}/jobs/${test.id}/cancel`, { token: developer.token });
      assert.deepEqual([nothing.status, nothing.body.status], [201, 'canceled']);
      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${test.id}/cancel`, { token: reporter.token }), 403);
      assert.deepEqual((await f.api('POST', `/projects/${project.id}/jobs/999999/cancel`, { token: developer.token })).body, NOT_FOUND);
    });

    it('DELETE a pipeline: Owners only, jobs, logs and artifacts go with it', async () => {
      const p = await pipeline({ ref: 'feature' }, developer.token);
      const job = await requestJob(f, runner.token);
      const zip = await zipOf({ 'out.txt': 'x' });
      const upload = multipart({}, { filename: 'artifacts.zip', content: zip });
      expectStatus(await f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: upload.body, headers: { 'Content-Type': upload.contentType, 'JOB-TOKEN': job.token } }), 201);
      await finishJob(f, job, 'success');
      await drain();
      const key = (await f.forge.database.db.selectFrom('ci_job_artifacts').select('blob_key').where('job_id', '=', job.id).executeTakeFirstOrThrow()).blob_key;
      assert.equal(await f.forge.deps.blobs.size(key), zip.length);
      assert.deepEqual((await f.api('DELETE', `/projects/${project.id}/pipelines/${p.id}`, { token: maintainer.token })).body, FORBIDDEN);
      const deleted = await f.api('DELETE', `/projects/${project.id}/pipelines/${p.id}`, { token: owner.token });
      assert.deepEqual([deleted.status, deleted.text], [204, '']);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines/${p.id}`)).body, NOT_FOUND);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body, NOT_FOUND);
      assert.equal(await f.forge.deps.blobs.size(key), null);
      assert.deepEqual((await f.api('DELETE', `/projects/${project.id}/pipelines/${p.id}`, { token: owner.token })).body, NOT_FOUND);
    });

    it('variables of a pipeline: Developers and whoever started it', async () => {
      const p = await pipeline({ ref: 'feature', variables: [{ key: 'ONE', value: '1' }, { key: 'CERT', value: 'pem', variable_type: 'file' }] }, developer.token);
      const r = await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/variables`, { token: developer.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, [
        { variable_type: 'env_var', key: 'ONE', value: '1', raw: false },
        { variable_type: 'file', key: 'CERT', value: 'pem', raw: false },
      ]);
      assert.deepEqual((await f.api('GET', `/projects/${project.id}/pipelines/${p.id}/variables`, { token: reporter.token })).body, FORBIDDEN);
      const stored = await f.forge.database.db.selectFrom('ci_pipeline_variables').select('value_encrypted').where('pipeline_id', '=', p.id).execute();
      assert.ok(stored.every((s) => !s.value_encrypted.includes('pem') && s.value_encrypted.startsWith(`v2.${f.forge.deps.secrets.currentKeyId()}.`)), 'values are encrypted');
      const job = await requestJob(f, runner.token);
      assert.deepEqual(job.variables.find((v: any) => v.key === 'CERT'), { key: 'CERT', value: 'pem', public: false, masked: false, file: true });
      await finishJob(f, job, 'success');
      await drain();
    });

    it('lists: filters, order, pagination in SQL; latest; project jobs without a count', async () => {
      const other = await createProject(f, owner.token, { name: 'lists', namespace_id: group.id });
      await addMember(f, 'projects', other.id, developer.id, 30);
      await commitCi(f, other.id, SIMPLE);
      await commitCi(f, other.id, SIMPLE, { branch: 'topic', startBranch: 'main' });
      const ctx = await f.forge.contextFor(owner.username);
      const otherRow = await ctx.db.selectFrom('projects').selectAll().where('id', '=', other.id).executeTakeFirstOrThrow();
      await ctx.db.transaction().execute((trx) => createTagIn(trx, ctx, otherRow, 'v1.0', 'main'));
      const listRunner = await createRunner(f, owner.token, { runner_type: 'project_type', project_id: other.id });
      const made: any[] = [];
      const times = ['2024-06-16T10:00:00.000Z', '2024-06-16T11:00:00.000Z', '2024-06-16T12:00:00.000Z', '2024-06-16T13:00:00.000Z'];
      const specs: [string, string][] = [['main', owner.token], ['topic', developer.token], ['v1.0', owner.token], ['topic', developer.token]];
      for (const [i, [ref, token]] of specs.entries()) {
        clock.set(new Date(times[i]!), true);
        made.push(await pipeline({ ref }, token, other.id));
      }
      // the first runs to success
      for (let job = await requestJob(f, listRunner.token); job && job.job_info.pipeline_id === made[0].id; job = await requestJob(f, listRunner.token)) {
        await finishJob(f, job, 'success');
      }
      const ids = async (query: string, token = developer.token) => {
        const r = await f.api('GET', `/projects/${other.id}/pipelines${query}`, { token });
        expectStatus(r, 200);
        return r.body.map((p: any) => p.id);
      };
      const [m, t1, tag, t2] = made.map((p) => p.id);
      assert.deepEqual(await ids(''), [t2, tag, t1, m]);
      assert.deepEqual(await ids('?sort=asc'), [m, t1, tag, t2]);
      assert.deepEqual(await ids('?ref=topic'), [t2, t1]);
      assert.deepEqual(await ids('?scope=tags'), [tag]);
      assert.deepEqual(await ids('?scope=branches'), [t2, m]);
      assert.deepEqual(await ids('?scope=finished'), [m]);
      assert.deepEqual(await ids('?status=success'), [m]);
      assert.deepEqual(await ids('?scope=running'), [t1], 'the runner picked a job of the second pipeline');
      assert.deepEqual(await ids(`?username=${developer.username}`), [t2, t1]);
      assert.deepEqual(await ids('?username=nobody'), []);
      assert.deepEqual(await ids(`?sha=${made[0].sha}`), [tag, m], 'the tag is on the commit of main');
      assert.deepEqual(await ids('?source=api'), [t2, tag, t1, m]);
      assert.deepEqual(await ids('?source=push'), []);
      assert.deepEqual(await ids('?created_after=2024-06-16T10:30:00Z&created_before=2024-06-16T12:30:00Z'), [tag, t1]);
      // running and finishing moved `updated_at` of the first two to the clock's last time
      assert.deepEqual(await ids('?updated_after=2024-06-16T12:30:00Z'), [t2, t1, m]);
      assert.deepEqual(await ids('?updated_before=2024-06-16T12:30:00Z'), [tag]);
      assert.deepEqual(await ids('?order_by=ref&sort=asc'), [m, t1, t2, tag]);
      assert.deepEqual(await ids('?order_by=user_id&sort=desc'), [t2, t1, tag, m]);
      assert.deepEqual(await ids('?yaml_errors=false'), [t2, tag, t1, m]);
      const bad = await f.api('GET', `/projects/${other.id}/pipelines?scope=mine&order_by=name`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'scope does not have a valid value, order_by does not have a valid value' }]);
      const page = await f.api('GET', `/projects/${other.id}/pipelines?per_page=2&page=2`);
      assert.deepEqual(page.body.map((p: any) => p.id), [t1, m]);
      assert.deepEqual([page.headers.get('x-total'), page.headers.get('x-total-pages'), page.headers.get('x-prev-page')], ['4', '2', '1']);

      const latest = await f.api('GET', `/projects/${other.id}/pipelines/latest`, { token: developer.token });
      expectStatus(latest, 200);
      assert.equal(latest.body.id, m);
      assert.equal((await f.api('GET', `/projects/${other.id}/pipelines/latest?ref=topic`)).body.id, t2);
      assert.deepEqual((await f.api('GET', `/projects/${other.id}/pipelines/latest?ref=nothing`)).body, FORBIDDEN);

      const jobs = await f.api('GET', `/projects/${other.id}/jobs?per_page=3`, { token: developer.token });
      expectStatus(jobs, 200);
      assert.equal(jobs.body.length, 3);
      assert.equal(jobs.headers.get('x-total'), null);
      assert.equal(jobs.headers.get('x-next-page'), '2');
      assert.ok(jobs.body[0].id > jobs.body[1].id);
      const scoped = await f.api('GET', `/projects/${other.id}/jobs?scope[]=success&scope[]=running`);
      assert.deepEqual(scoped.body.map((j: any) => j.status).sort(), ['running', 'success', 'success']);
      const badScope = await f.api('GET', `/projects/${other.id}/jobs?scope=bogus`);
      assert.deepEqual([badScope.status, badScope.body], [400, { error: 'scope does not have a valid value' }]);
      const tagPipeline = await f.api('GET', `/projects/${other.id}/pipelines/${tag}`);
      assert.equal(tagPipeline.body.tag, true);
    });
  });
}
