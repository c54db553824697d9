/**
 * Pipeline, job and deployment events over HTTP (GitLab's Gitlab::DataBuilder::Pipeline, Build
 * and Deployment): a push pipeline driven through the runner protocol (job request, PUT
 * /jobs/:id success and failure), a retry, a cancel, a manual job played, deployments of a CI
 * job and through the API; every field of each payload, GitLab's X-Gitlab-Event headers, the
 * hook switches (a hook without the switch gets nothing queued), blocked users, test triggers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createRunner, finishJob, requestJob } from './ci-support.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { hookReceiver, type Delivery, type HookReceiver } from './webhooks-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2026-03-02T10:00:00.000Z';

const CI = `
stages: [build, test, deploy]
build:
  stage: build
  script: echo build
test:
  stage: test
  allow_failure: true
  script: echo test
deploy:
  stage: deploy
  script: echo deploy
  environment:
    name: review/$CI_COMMIT_REF_SLUG
release:
  stage: deploy
  when: manual
  script: echo release
`;

const JOB_KEYS = [
  'object_kind', 'ref', 'tag', 'before_sha', 'sha', 'retries_count', 'build_id', 'build_name', 'build_stage', 'build_status',
  'build_created_at', 'build_started_at', 'build_finished_at', 'build_created_at_iso', 'build_started_at_iso', 'build_finished_at_iso',
  'build_duration', 'build_queued_duration', 'build_allow_failure', 'build_failure_reason', 'pipeline_id', 'runner', 'project_id',
  'project_name', 'user', 'commit', 'repository', 'project', 'environment',
];
const JOB_COMMIT_KEYS = [
  'id', 'name', 'sha', 'message', 'author_name', 'author_email', 'author_url', 'status', 'duration', 'started_at', 'finished_at',
  'started_at_iso', 'finished_at_iso',
];
const PIPELINE_ATTR_KEYS = [
  'id', 'iid', 'name', 'ref', 'tag', 'sha', 'before_sha', 'source', 'status', 'detailed_status', 'stages', 'created_at', 'finished_at',
  'duration', 'queued_duration', 'protected_ref', 'variables', 'url',
];
const BUILD_KEYS = [
  'id', 'stage', 'name', 'status', 'created_at', 'started_at', 'finished_at', 'duration', 'queued_duration', 'failure_reason', 'when',
  'manual', 'allow_failure', 'user', 'runner', 'artifacts_file', 'environment',
];
const DEPLOYMENT_KEYS = [
  'object_kind', 'status', 'status_changed_at', 'deployment_id', 'deployable_id', 'deployable_url', 'environment', 'environment_tier',
  'environment_slug', 'environment_external_url', 'project', 'short_sha', 'user', 'user_url', 'commit_url', 'commit_title', 'ref',
];
/** Project#hook_attrs(backward: false), as pipeline and job events carry it; deployments add the four deprecated keys. */
const PROJECT_KEYS = ['id', 'name', 'description', 'web_url', 'avatar_url', 'git_ssh_url', 'git_http_url', 'namespace', 'visibility_level', 'path_with_namespace', 'default_branch', 'ci_config_path'];

/** `Time#to_s` in UTC, as GitLab's CI payloads carry times. */
const rubyTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
const isoSecond = (iso: string) => `${iso.slice(0, 19)}Z`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: pipeline, job and deployment webhooks`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let rx: HookReceiver;
    let maintainer: User;
    let group: any;
    let project: any;
    let runner: { id: number; token: string };
    let firstSha: string;
    let ciSha: string;
    let pipelineId: number;
    const jobIds: Record<string, number> = {};

    const at = () => clock.now().toISOString();
    /** Delivers what is queued and answers the deliveries to `path`, in order, taking them off the receiver. */
    async function delivered(path = '/ci'): Promise<Delivery[]> {
      await f.forge.deps.queue.runDue();
      const got = rx.deliveries.filter((d) => d.path === path);
      rx.deliveries.splice(0, rx.deliveries.length, ...rx.deliveries.filter((d) => d.path !== path));
      return got;
    }
    const summary = (ds: Delivery[]) =>
      ds.map((d) => `${d.headers['x-gitlab-event']}: ${d.body.object_kind === 'build' ? `${d.body.build_name} ${d.body.build_status}` : d.body.object_kind === 'pipeline' ? `pipeline ${d.body.object_attributes.status}` : `deployment ${d.body.status}`}`);
    const userAttrs = (u: User) => ({ id: u.id, name: u.username, username: u.username, avatar_url: null, email: '[REDACTED]' });

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock, workers: false, testMode: true });
      rx = await hookReceiver();
      [maintainer] = await createUsers(f, ['cihooks-maint']);
      group = await createGroup(f, f.rootToken, { name: 'Hooked CI', path: 'hooked-ci' });
      project = await createProject(f, f.rootToken, { name: 'Pipes', path: 'pipes', namespace_id: group.id });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      firstSha = await commitFiles(f, project.id, 'main', { 'README.md': 'pipes\n' }, { username: maintainer.username });
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id, description: 'hooked runner', tag_list: 'linux' });
      const hooks = `/projects/${project.id}/hooks`;
      expectStatus(await f.api('POST', hooks, { body: { url: `${rx.url}/ci`, push_events: false, pipeline_events: true, job_events: true, deployment_events: true } }), 201);
      expectStatus(await f.api('POST', hooks, { body: { url: `${rx.url}/jobs`, push_events: false, job_events: true } }), 201);
      expectStatus(await f.api('POST', hooks, { body: { url: `${rx.url}/off`, push_events: false, issues_events: true } }), 201);
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    it('a push pipeline: each job announced created, the first one pending, the pipeline pending', async () => {
      // A push through the commits API runs the push pipeline.
      const pushed = await f.api('POST', `/projects/${project.id}/repository/commits`, {
        token: maintainer.token,
        body: { branch: 'main', commit_message: 'Add CI\n\nWith a body.', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
      });
      expectStatus(pushed, 201);
      ciSha = pushed.body.id;
      const ds = await delivered();
      assert.deepEqual(summary(ds), [
        'Job Hook: build created', 'Job Hook: test created', 'Job Hook: deploy created', 'Job Hook: release created',
        'Job Hook: build pending', 'Pipeline Hook: pipeline pending',
      ]);
      for (const d of ds) {
        assert.equal(d.headers['content-type'], 'application/json');
        assert.equal(d.headers['x-gitlab-instance'], f.url);
      }
      for (const d of ds.slice(0, 4)) jobIds[d.body.build_name] = d.body.build_id;
      const created = ds[0]!.body;
      pipelineId = created.pipeline_id;
      assert.deepEqual(Object.keys(created), JOB_KEYS);
      assert.equal(created.build_status, 'created');
      assert.equal(created.commit.status, 'created', 'announced before processing');
      assert.equal(created.build_queued_duration, null);

      const pending = ds[4]!.body;
      assert.equal(pending.build_status, 'pending');
      assert.equal(pending.build_queued_duration, 0);
      const p = ds[5]!.body;
      assert.deepEqual(Object.keys(p), ['object_kind', 'object_attributes', 'merge_request', 'user', 'project', 'commit', 'builds']);
      assert.deepEqual(Object.keys(p.object_attributes), PIPELINE_ATTR_KEYS);
      assert.deepEqual(p.object_attributes, {
        id: pipelineId,
        iid: p.object_attributes.iid,
        name: null,
        ref: 'main',
        tag: false,
        sha: ciSha,
        before_sha: firstSha,
        source: 'push',
        status: 'pending',
        detailed_status: 'pending',
        stages: ['build', 'test', 'deploy'],
        created_at: rubyTime(NOW),
        finished_at: null,
        duration: null,
        queued_duration: null,
        protected_ref: true,
        variables: [],
        url: `${f.url}/hooked-ci/pipes/-/pipelines/${pipelineId}`,
      });
      assert.equal(p.merge_request, null);
      assert.deepEqual(p.user, userAttrs(maintainer));
      assert.deepEqual(Object.keys(p.project), PROJECT_KEYS);
      assert.equal(p.project.id, project.id);
      assert.equal(p.project.web_url, project.web_url);
      assert.equal(p.project.namespace, 'Hooked CI');
      assert.deepEqual(Object.keys(p.commit), ['id', 'message', 'title', 'timestamp', 'url', 'author']);
      assert.equal(p.commit.id, ciSha);
      assert.equal(p.commit.title, 'Add CI');
      assert.equal(p.commit.url, `${f.url}/hooked-ci/pipes/-/commit/${ciSha}`);
      assert.deepEqual(p.builds.map((b: any) => [b.name, b.status, b.when, b.manual]), [
        ['build', 'pending', 'on_success', false],
        ['test', 'created', 'on_success', false],
        ['deploy', 'created', 'on_success', false],
        ['release', 'created', 'manual', true],
      ]);
      for (const b of p.builds) assert.deepEqual(Object.keys(b), BUILD_KEYS);
      assert.deepEqual(p.builds[0], {
        id: jobIds.build,
        stage: 'build',
        name: 'build',
        status: 'pending',
        created_at: rubyTime(NOW),
        started_at: null,
        finished_at: null,
        duration: null,
        queued_duration: 0,
        failure_reason: null,
        when: 'on_success',
        manual: false,
        allow_failure: false,
        user: userAttrs(maintainer),
        runner: null,
        artifacts_file: { filename: null, size: null },
        environment: null,
      });
      assert.deepEqual(p.builds[2].environment, { name: 'review/main', action: 'start', deployment_tier: 'development' }, 'created with the job, tier guessed');

      // The switches decide: the job-only hook got the job events and nothing else; the issues hook nothing.
      assert.deepEqual(summary(await delivered('/jobs')), summary(ds.filter((d) => d.body.object_kind === 'build')));
      assert.deepEqual(await delivered('/off'), []);
    });

    it('the runner takes a job (running) and reports it (success, then failed): Job Hook each time, Pipeline Hook on each pipeline status', async () => {
      clock.advance(10_000);
      const build = await requestJob(f, runner.token);
      assert.equal(build.id, jobIds.build);
      const started = at();
      let ds = await delivered();
      assert.deepEqual(summary(ds), ['Job Hook: build running', 'Pipeline Hook: pipeline running']);
      const running = ds[0]!.body;
      const commit = (await f.api('GET', `/projects/${project.id}/repository/commits/${ciSha}`)).body;
      const author = await f.forge.database.db.selectFrom('users').select('username').where('email', '=', commit.author_email).executeTakeFirst();
      assert.equal(author?.username, maintainer.username, 'the commit is the maintainer’s');
      assert.deepEqual(running, {
        object_kind: 'build',
        ref: 'main',
        tag: false,
        before_sha: firstSha,
        sha: ciSha,
        retries_count: 0,
        build_id: jobIds.build,
        build_name: 'build',
        build_stage: 'build',
        build_status: 'running',
        build_created_at: rubyTime(NOW),
        build_started_at: rubyTime(started),
        build_finished_at: null,
        build_created_at_iso: isoSecond(NOW),
        build_started_at_iso: isoSecond(started),
        build_finished_at_iso: null,
        build_duration: 0,
        build_queued_duration: 10,
        build_allow_failure: false,
        build_failure_reason: 'unknown_failure',
        pipeline_id: pipelineId,
        runner: { id: runner.id, description: 'hooked runner', runner_type: 'project_type', active: true, is_shared: false, tags: ['linux'] },
        project_id: project.id,
        project_name: 'Hooked CI / Pipes',
        user: userAttrs(maintainer),
        commit: {
          id: pipelineId,
          name: null,
          sha: ciSha,
          message: 'Add CI\n\nWith a body.',
          author_name: commit.author_name,
          author_email: commit.author_email,
          author_url: `${f.url}/${maintainer.username}`,
          status: 'running',
          duration: null,
          started_at: rubyTime(started),
          finished_at: null,
          started_at_iso: isoSecond(started),
          finished_at_iso: null,
        },
        repository: {
          name: 'Pipes',
          url: running.project.git_ssh_url,
          description: null,
          homepage: project.web_url,
          git_http_url: project.http_url_to_repo,
          git_ssh_url: running.project.git_ssh_url,
          visibility_level: 0,
        },
        project: running.project,
        environment: null,
      });
      assert.deepEqual(Object.keys(running.commit), JOB_COMMIT_KEYS);
      assert.deepEqual(Object.keys(running.project), PROJECT_KEYS);
      assert.equal(ds[1]!.body.object_attributes.queued_duration, 10);

      clock.advance(30_000);
      await finishJob(f, build, 'success');
      ds = await delivered();
      assert.deepEqual(summary(ds), ['Job Hook: build success', 'Job Hook: test pending'], 'the pipeline stays running: no pipeline event');
      assert.equal(ds[0]!.body.build_duration, 30);
      assert.equal(ds[0]!.body.build_finished_at, rubyTime(at()));

      const test = await requestJob(f, runner.token);
      assert.equal(test.id, jobIds.test);
      clock.advance(5_000);
      await finishJob(f, test, 'failed', { failure_reason: 'script_failure' });
      ds = await delivered();
      // test may fail: deploy runs next; release stays manual (no hook for manual).
      assert.deepEqual(summary(ds), ['Job Hook: test running', 'Job Hook: test failed', 'Job Hook: deploy pending']);
      assert.equal(ds[1]!.body.build_failure_reason, 'script_failure');
      assert.equal(ds[1]!.body.build_allow_failure, true);
    });

    it('a CI deployment: Deployment Hook when it runs and when it succeeds; the pipeline passes with warnings', async () => {
      clock.advance(1_000);
      const deploy = await requestJob(f, runner.token);
      assert.equal(deploy.id, jobIds.deploy);
      const runAt = at();
      let ds = await delivered();
      // The deployment follows its job while the pipeline is processed, before the jobs are announced.
      assert.deepEqual(summary(ds), ['Deployment Hook: deployment running', 'Job Hook: deploy running']);
      assert.deepEqual(ds[1]!.body.environment, { name: 'review/main', action: 'start' });
      const env = (await f.api('GET', `/projects/${project.id}/environments?name=review/main`)).body[0];
      const deployment = (await f.api('GET', `/projects/${project.id}/deployments`)).body.find((d: any) => d.deployable.id === jobIds.deploy);
      const d = ds[0]!;
      assert.equal(d.headers['x-gitlab-event'], 'Deployment Hook');
      assert.deepEqual(Object.keys(d.body), DEPLOYMENT_KEYS);
      const commit = (await f.api('GET', `/projects/${project.id}/repository/commits/${ciSha}`)).body;
      assert.deepEqual(d.body, {
        object_kind: 'deployment',
        status: 'running',
        status_changed_at: rubyTime(runAt),
        deployment_id: deployment.id,
        deployable_id: jobIds.deploy,
        deployable_url: `${f.url}/hooked-ci/pipes/-/jobs/${jobIds.deploy}`,
        environment: 'review/main',
        environment_tier: 'development',
        environment_slug: env.slug,
        environment_external_url: null,
        project: d.body.project,
        short_sha: ciSha.slice(0, 8),
        user: userAttrs(maintainer),
        user_url: `${f.url}/${maintainer.username}`,
        commit_url: `${f.url}/hooked-ci/pipes/-/commit/${ciSha}`,
        commit_title: commit.title,
        ref: 'main',
      });
      assert.deepEqual(Object.keys(d.body.project), [...PROJECT_KEYS, 'homepage', 'url', 'ssh_url', 'http_url']);

      clock.advance(20_000);
      await finishJob(f, deploy, 'success');
      ds = await delivered();
      assert.deepEqual(summary(ds), ['Deployment Hook: deployment success', 'Job Hook: deploy success', 'Pipeline Hook: pipeline success']);
      assert.equal(ds[0]!.body.status_changed_at, rubyTime(at()));
      const p = ds[2]!.body;
      assert.equal(p.object_attributes.detailed_status, 'passed with warnings');
      assert.equal(p.object_attributes.finished_at, rubyTime(at()));
      assert.equal(p.object_attributes.duration, 55, 'the union of the jobs’ running periods: 30 + 5 + 20 s (not the second between)');
      const builds = Object.fromEntries(p.builds.map((b: any) => [b.name, b]));
      assert.equal(builds.test.failure_reason, 'script_failure');
      assert.equal(builds.build.failure_reason, null);
      assert.equal(builds.build.duration, 30);
      assert.deepEqual(builds.build.runner, { id: runner.id, description: 'hooked runner', runner_type: 'project_type', active: true, is_shared: false, tags: ['linux'] });
      assert.deepEqual(builds.deploy.environment, { name: 'review/main', action: 'start', deployment_tier: 'development' });
      assert.equal(builds.release.status, 'manual');
    });

    it('retry, cancel and play: the new job created then pending, canceled, played to pending; the pipeline follows', async () => {
      const retried = await f.api('POST', `/projects/${project.id}/jobs/${jobIds.test}/retry`, { token: maintainer.token });
      expectStatus(retried, 201);
      let ds = await delivered();
      assert.deepEqual(summary(ds), ['Job Hook: test created', 'Job Hook: test pending', 'Pipeline Hook: pipeline running']);
      assert.equal(ds[0]!.body.build_id, retried.body.id);
      assert.equal(ds[0]!.body.retries_count, 1);
      assert.equal(ds[2]!.body.builds.filter((b: any) => b.name === 'test').length, 1, 'builds are the latest jobs only');

      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${retried.body.id}/cancel`, { token: maintainer.token }), 201);
      ds = await delivered();
      assert.deepEqual(summary(ds), ['Job Hook: test canceled', 'Pipeline Hook: pipeline success']);

      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${jobIds.release}/play`, { token: maintainer.token }), 200);
      ds = await delivered();
      assert.deepEqual(summary(ds), ['Job Hook: release pending', 'Pipeline Hook: pipeline running']);
      expectStatus(await f.api('POST', `/projects/${project.id}/pipelines/${pipelineId}/cancel`, { token: maintainer.token }), 200);
      ds = await delivered();
      // A manual job may fail: canceled, it leaves the pipeline passed (with warnings).
      assert.deepEqual(summary(ds), ['Job Hook: release canceled', 'Pipeline Hook: pipeline success']);
      assert.equal(ds[1]!.body.object_attributes.detailed_status, 'passed with warnings');
    });

    it('an API pipeline carries its variables; a blocked user’s pipeline and jobs send nothing', async () => {
      const created = await f.api('POST', `/projects/${project.id}/pipeline`, { token: maintainer.token, body: { ref: 'main', variables: [{ key: 'DEPLOY_TO', value: 'eu-west' }] } });
      expectStatus(created, 201);
      let ds = await delivered();
      const p = ds.find((d) => d.body.object_kind === 'pipeline')!.body;
      assert.equal(p.object_attributes.source, 'api');
      assert.deepEqual(p.object_attributes.variables, [{ key: 'DEPLOY_TO', value: 'eu-west' }]);
      assert.equal(p.object_attributes.before_sha, '0000000000000000000000000000000000000000');

      await f.forge.database.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', maintainer.id).execute();
      try {
        const job = await requestJob(f, runner.token);
        assert.equal((await f.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body.pipeline.id, created.body.id);
        ds = await delivered();
        assert.deepEqual(ds, [], 'GitLab sends no event for a blocked user’s pipeline or job');
      } finally {
        await f.forge.database.db.updateTable('users').set({ state: 'active' }).where('id', '=', maintainer.id).execute();
      }
      expectStatus(await f.api('POST', `/projects/${project.id}/pipelines/${created.body.id}/cancel`, { token: maintainer.token }), 200);
      await delivered();
    });

    it('API deployments: running and success sent, created and blocked not; the deployer and the environment URL', async () => {
      await delivered('/jobs');
      expectStatus(await f.api('POST', `/projects/${project.id}/environments`, { token: maintainer.token, body: { name: 'production', external_url: 'https://prod.example.com' } }), 201);
      const created = await f.api('POST', `/projects/${project.id}/deployments`, { token: maintainer.token, body: { environment: 'production', sha: ciSha, ref: 'main', tag: false, status: 'running' } });
      expectStatus(created, 201);
      let ds = await delivered();
      assert.deepEqual(summary(ds), ['Deployment Hook: deployment running']);
      const body = ds[0]!.body;
      assert.equal(body.deployment_id, created.body.id);
      assert.equal(body.deployable_id, null);
      assert.equal(body.deployable_url, null);
      assert.equal(body.environment, 'production');
      assert.equal(body.environment_tier, 'production');
      assert.equal(body.environment_slug, 'production');
      assert.equal(body.environment_external_url, 'https://prod.example.com');
      assert.deepEqual(body.user, userAttrs(maintainer));
      clock.advance(60_000);
      expectStatus(await f.api('PUT', `/projects/${project.id}/deployments/${created.body.id}`, { token: maintainer.token, body: { status: 'success' } }), 200);
      ds = await delivered();
      assert.deepEqual(summary(ds), ['Deployment Hook: deployment success']);
      assert.equal(ds[0]!.body.status_changed_at, rubyTime(at()));
      // A deployment created straight as success is one transition (created → success): one event.
      expectStatus(await f.api('POST', `/projects/${project.id}/deployments`, { token: maintainer.token, body: { environment: 'staging', sha: ciSha, ref: 'main', tag: false, status: 'success' } }), 201);
      assert.deepEqual(summary(await delivered()), ['Deployment Hook: deployment success']);
      assert.deepEqual(await delivered('/jobs'), [], 'no job moved: the job hook got nothing');
      assert.deepEqual(await delivered('/off'), []);
    });

    it('test triggers build the same payloads from the newest pipeline, job and deployment, or ask for one', async () => {
      const hook = (await f.api('GET', `/projects/${project.id}/hooks`)).body.find((h: any) => h.url === `${rx.url}/ci`);
      rx.deliveries.length = 0;
      for (const [trigger, event, kind] of [['pipeline_events', 'Pipeline Hook', 'pipeline'], ['job_events', 'Job Hook', 'build'], ['deployment_events', 'Deployment Hook', 'deployment']]) {
        const r = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/test/${trigger}`);
        assert.deepEqual([r.status, r.body], [201, { message: '201 Created' }], trigger);
        const got = rx.deliveries.at(-1)!;
        assert.equal(got.headers['x-gitlab-event'], event);
        assert.equal(got.body.object_kind, kind);
      }
      const [pipeline, job, deployment] = rx.deliveries.slice(-3).map((d) => d.body);
      const newestPipeline = (await f.api('GET', `/projects/${project.id}/pipelines`)).body[0];
      assert.equal(pipeline.object_attributes.id, newestPipeline.id);
      assert.deepEqual(Object.keys(pipeline.object_attributes), PIPELINE_ATTR_KEYS);
      assert.deepEqual(Object.keys(job), JOB_KEYS);
      assert.equal(job.build_id, (await f.api('GET', `/projects/${project.id}/jobs`)).body[0].id);
      assert.deepEqual(Object.keys(deployment), DEPLOYMENT_KEYS);
      assert.equal(deployment.environment, 'staging');

      const empty = await createProject(f, f.rootToken, { name: 'No CI', path: 'no-ci', namespace_id: group.id });
      const emptyHook = (await f.api('POST', `/projects/${empty.id}/hooks`, { body: { url: `${rx.url}/empty` } })).body;
      for (const [trigger, message] of [
        ['pipeline_events', 'Ensure the project has CI pipelines.'],
        ['job_events', 'Ensure the project has CI jobs.'],
        ['deployment_events', 'Ensure the project has deployments.'],
      ]) {
        const r = await f.api('POST', `/projects/${empty.id}/hooks/${emptyHook.id}/test/${trigger}`);
        assert.deepEqual([r.status, r.body], [422, { message }], trigger);
      }
    });
  });
}
