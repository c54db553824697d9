/**
 * Environments and deployments over HTTP: the environment entity, tiers (given or guessed),
 * slugs, validation messages, stop and delete; deployments created and moved through the
 * API (state machine errors, dedupe, filters, delete rules), the merge requests a
 * deployment shipped; and CI jobs with `environment` creating environments and deployments
 * that follow the job's status.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitCi, createRunner, finishJob, requestJob } from './ci-support.js';
import { addMember, allowDevelopersToMerge, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const NOT_FOUND = { message: '404 Not found' };
const FORBIDDEN = { message: '403 Forbidden' };

for (const dialect of DIALECTS) {
  describe(`${dialect}: environments and deployments`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maintainer: User;
    let developer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let project: any;
    let base: string;
    let mainSha: string;

    const tick = (seconds = 60) => clock.advance(seconds * 1000);
    const at = () => clock.now().toISOString();
    async function environment(body: Record<string, unknown>, token = developer.token): Promise<any> {
      const r = await f.api('POST', `${base}/environments`, { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    async function deploy(body: Record<string, unknown>, token = developer.token): Promise<any> {
      const r = await f.api('POST', `${base}/deployments`, { token, body: { ref: 'main', sha: mainSha, tag: false, status: 'success', ...body } });
      expectStatus(r, 201);
      return r.body;
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [maintainer, developer, reporter, guest, outsider] = await createUsers(f, ['envmaint', 'envdev', 'envrep', 'envguest', 'envout']);
      group = await createGroup(f, maintainer.token, { name: 'Delivery', path: 'delivery' });
      project = await createProject(f, maintainer.token, { name: 'App', path: 'app', namespace_id: group.id, visibility: 'private' });
      base = `/projects/${project.id}`;
      await addMember(f, 'projects', project.id, developer.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await addMember(f, 'projects', project.id, guest.id, 10);
      mainSha = await commitFiles(f, project.id, 'main', { 'README.md': 'app' });
    });
    after(() => f.stop());

    describe('environments', () => {
      let review: any;

      it('POST: 201 with the entity; tier guessed from the name; slug with a suffix when the name had to change', async () => {
        review = await environment({ name: 'review/fix-foo', external_url: 'https://fix-foo.example.com' });
        assert.match(review.slug, /^review-fix-foo-[0-9a-z]{6}$/);
        assert.deepEqual(review, {
          id: review.id,
          name: 'review/fix-foo',
          slug: review.slug,
          external_url: 'https://fix-foo.example.com',
          created_at: NOW,
          updated_at: NOW,
          tier: 'development',
          project: { ...review.project, id: project.id, path_with_namespace: 'delivery/app', name: 'App' },
          state: 'available',
          auto_stop_at: null,
          description: null,
          auto_stop_setting: 'always',
        });
        assert.equal(review.project.namespace.full_path, 'delivery');
        const guessed: [string, string, string][] = [];
        for (const name of ['production', 'staging', 'qa', 'preprod', 'customer-portal', 'review/preview']) {
          const e = await environment({ name });
          guessed.push([name, e.tier, e.slug]);
        }
        assert.deepEqual(guessed.map(([n, t]) => [n, t]), [
          ['production', 'production'], ['staging', 'staging'], ['qa', 'testing'], ['preprod', 'staging'], ['customer-portal', 'other'], ['review/preview', 'development'],
        ]);
        assert.deepEqual(guessed.slice(0, 5).map(([, , s]) => s), ['production', 'staging', 'qa', 'preprod', 'customer-portal']);
        const tiered = await environment({ name: 'canary', tier: 'production', description: 'first 5%' });
        assert.deepEqual([tiered.tier, tiered.description], ['production', 'first 5%']);
      });

      it('POST errors: missing or invalid params (Grape), model errors (400 message hash), roles', async () => {
        const cases: [Record<string, unknown>, string | null, number, unknown][] = [
          [{}, developer.token, 400, { error: 'name is missing' }],
          [{ name: 'x', tier: 'prod' }, developer.token, 400, { error: 'tier does not have a valid value' }],
          [{ name: 'x', slug: 'mine' }, developer.token, 400, { error: 'slug is automatically generated and cannot be changed' }],
          [{ name: 'production' }, developer.token, 400, { message: { name: ['has already been taken'] } }],
          [{ name: '/lead' }, developer.token, 400, { message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"] } }],
          [{ name: 'js', external_url: 'javascript:alert(1)' }, developer.token, 400, { message: { external_url: ['javascript scheme is not allowed'] } }],
          [{ name: 'x' }, reporter.token, 403, FORBIDDEN],
          [{ name: 'x' }, outsider.token, 404, { message: '404 Project Not Found' }],
          [{ name: 'x' }, null, 401, { message: '401 Unauthorized' }],
        ];
        for (const [body, token, status, expected] of cases) {
          const r = await f.api('POST', `${base}/environments`, { token, body });
          assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
        }
      });

      it('GET list: paginated by id; name, search (3+ characters), states; Reporter reads, Guest is refused', async () => {
        const all = await f.api('GET', `${base}/environments?per_page=3`, { token: reporter.token });
        expectStatus(all, 200);
        assert.equal(all.headers.get('x-total'), '8');
        assert.deepEqual(all.body.map((e: any) => e.name), ['review/fix-foo', 'production', 'staging']);
        const named = await f.api('GET', `${base}/environments?name=${encodeURIComponent('review/fix-foo')}`, { token: reporter.token });
        assert.deepEqual(named.body.map((e: any) => e.id), [review.id]);
        const searched = await f.api('GET', `${base}/environments?search=VIEW`, { token: reporter.token });
        assert.deepEqual(searched.body.map((e: any) => e.name), ['review/fix-foo', 'review/preview']);
        const short = await f.api('GET', `${base}/environments?search=ab`, { token: reporter.token });
        assert.deepEqual([short.status, short.body], [400, { message: '400 Bad request - Search query is less than 3 characters' }]);
        const both = await f.api('GET', `${base}/environments?search=abc&name=abc`, { token: reporter.token });
        assert.deepEqual([both.status, both.body], [400, { error: 'name, search cannot be used together' }]);
        const bad = await f.api('GET', `${base}/environments?states=gone`, { token: reporter.token });
        assert.deepEqual([bad.status, bad.body], [400, { error: 'states does not have a valid value' }]);
        const stopped = await f.api('GET', `${base}/environments?states=stopped`, { token: reporter.token });
        assert.deepEqual(stopped.body, []);
        const refused = await f.api('GET', `${base}/environments`, { token: guest.token });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
      });

      it('GET one: last_deployment instead of project; unknown id 404', async () => {
        const r = await f.api('GET', `${base}/environments/${review.id}`, { token: reporter.token });
        expectStatus(r, 200);
        assert.equal('project' in r.body, false);
        assert.equal(r.body.last_deployment, null);
        assert.deepEqual(Object.keys(r.body), ['id', 'name', 'slug', 'external_url', 'created_at', 'updated_at', 'tier', 'last_deployment', 'state', 'auto_stop_at', 'description', 'auto_stop_setting']);
        const missing = await f.api('GET', `${base}/environments/99999`, { token: reporter.token });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
      });

      it('PUT: name (new slug), external_url, tier, description; errors', async () => {
        tick();
        const r = await f.api('PUT', `${base}/environments/${review.id}`, { token: developer.token, body: { name: 'review/fix-bar', tier: 'staging', external_url: null, description: 'bar' } });
        expectStatus(r, 200);
        assert.deepEqual([r.body.name, r.body.tier, r.body.external_url, r.body.description, r.body.updated_at], ['review/fix-bar', 'staging', null, 'bar', at()]);
        assert.match(r.body.slug, /^review-fix-bar-[0-9a-z]{6}$/);
        const taken = await f.api('PUT', `${base}/environments/${review.id}`, { token: developer.token, body: { name: 'production' } });
        assert.deepEqual([taken.status, taken.body], [400, { message: { name: ['has already been taken'] } }]);
        const tier = await f.api('PUT', `${base}/environments/${review.id}`, { token: developer.token, body: { tier: 'live' } });
        assert.deepEqual([tier.status, tier.body], [400, { error: 'tier does not have a valid value' }]);
        const byReporter = await f.api('PUT', `${base}/environments/${review.id}`, { token: reporter.token, body: { description: 'x' } });
        assert.deepEqual([byReporter.status, byReporter.body], [403, FORBIDDEN]);
        const missing = await f.api('PUT', `${base}/environments/99999`, { token: developer.token, body: { description: 'x' } });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
      });

      it('stop, then DELETE (204); an available environment cannot be deleted (403)', async () => {
        const live = await f.api('DELETE', `${base}/environments/${review.id}`, { token: developer.token });
        assert.deepEqual([live.status, live.body], [403, FORBIDDEN]);
        const byReporter = await f.api('POST', `${base}/environments/${review.id}/stop`, { token: reporter.token });
        assert.deepEqual([byReporter.status, byReporter.body], [403, FORBIDDEN]);
        const stopped = await f.api('POST', `${base}/environments/${review.id}/stop`, { token: developer.token });
        expectStatus(stopped, 200);
        assert.equal(stopped.body.state, 'stopped');
        assert.equal(stopped.body.project.id, project.id);
        const again = await f.api('POST', `${base}/environments/${review.id}/stop`, { token: developer.token, body: { force: true } });
        assert.deepEqual([again.status, again.body.state], [200, 'stopped']);
        const listed = await f.api('GET', `${base}/environments?states=stopped`, { token: reporter.token });
        assert.deepEqual(listed.body.map((e: any) => e.id), [review.id]);
        const gone = await f.api('DELETE', `${base}/environments/${review.id}`, { token: developer.token });
        assert.deepEqual([gone.status, gone.text], [204, '']);
        const after = await f.api('GET', `${base}/environments/${review.id}`, { token: reporter.token });
        assert.deepEqual([after.status, after.body], [404, NOT_FOUND]);
        const stopMissing = await f.api('POST', `${base}/environments/99999/stop`, { token: developer.token });
        assert.deepEqual([stopMissing.status, stopMissing.body], [404, NOT_FOUND]);
      });
    });

    describe('deployments', () => {
      let first: any;

      it('POST: 201 with the extended entity; a missing environment is created (tier guessed)', async () => {
        tick();
        first = await deploy({ environment: 'production', status: 'running' });
        const env = (await f.api('GET', `${base}/environments?name=production`, { token: reporter.token })).body[0];
        assert.deepEqual(first, {
          id: first.id,
          iid: 1,
          ref: 'main',
          sha: mainSha,
          created_at: at(),
          updated_at: at(),
          user: { id: developer.id, username: 'envdev', name: 'envdev', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/envdev` },
          environment: { id: env.id, name: 'production', slug: 'production', external_url: null, created_at: NOW, updated_at: env.updated_at },
          deployable: null,
          status: 'running',
          pending_approval_count: 0,
          approvals: [],
          approval_summary: { rules: [] },
        });
        const fresh = await deploy({ environment: 'testing-eu', status: 'success' });
        const created = (await f.api('GET', `${base}/environments/${fresh.environment.id}`, { token: reporter.token })).body;
        assert.equal(created.tier, 'testing');
        assert.equal(created.last_deployment.id, fresh.id);
        assert.equal('environment' in created.last_deployment, false);
      });

      it('POST errors: params, unknown sha or ref (400 message hash), roles', async () => {
        const cases: [Record<string, unknown>, string | null, number, unknown][] = [
          [{ environment: 'production', sha: mainSha, ref: 'main', tag: false }, developer.token, 400, { error: 'status is missing' }],
          [{ environment: 'production', sha: mainSha, ref: 'main', tag: false, status: 'blocked' }, developer.token, 400, { error: 'status does not have a valid value' }],
          [{ environment: 'production', sha: mainSha, ref: 'main', status: 'success' }, developer.token, 400, { error: 'tag is missing' }],
          [{ environment: 'production', sha: 'f'.repeat(40), ref: 'nope', tag: false, status: 'success' }, developer.token, 400, {
            message: { sha: ['The commit does not exist'], ref: ['The branch or tag does not exist'] },
          }],
          [{ environment: 'production', sha: mainSha, ref: 'main', tag: false, status: 'success' }, reporter.token, 403, FORBIDDEN],
          [{ environment: 'production', sha: mainSha, ref: 'main', tag: false, status: 'success' }, outsider.token, 404, { message: '404 Project Not Found' }],
        ];
        for (const [body, token, status, expected] of cases) {
          const r = await f.api('POST', `${base}/deployments`, { token, body });
          assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
        }
      });

      it('PUT: the state machine (run only from created; success, failed, canceled from anything else); GET one', async () => {
        tick();
        const done = await f.api('PUT', `${base}/deployments/${first.id}`, { token: developer.token, body: { status: 'success' } });
        expectStatus(done, 200);
        assert.deepEqual([done.body.status, done.body.updated_at], ['success', at()]);
        const back = await f.api('PUT', `${base}/deployments/${first.id}`, { token: developer.token, body: { status: 'running' } });
        assert.deepEqual([back.status, back.body], [400, { message: { status: ['cannot transition via "run"'] } }]);
        const same = await f.api('PUT', `${base}/deployments/${first.id}`, { token: developer.token, body: { status: 'success' } });
        assert.deepEqual([same.status, same.body], [400, { message: { status: ['cannot transition via "succeed"'] } }]);
        const byReporter = await f.api('PUT', `${base}/deployments/${first.id}`, { token: reporter.token, body: { status: 'failed' } });
        assert.deepEqual([byReporter.status, byReporter.body], [403, FORBIDDEN]);
        const missing = await f.api('PUT', `${base}/deployments/99999`, { token: developer.token, body: { status: 'failed' } });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
        const shown = await f.api('GET', `${base}/deployments/${first.id}`, { token: reporter.token });
        assert.deepEqual(shown.body, done.body);
        const refused = await f.api('GET', `${base}/deployments/${first.id}`, { token: guest.token });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
      });

      it("POST again with the environment's last deployment's ref, sha, tag and status answers that deployment", async () => {
        const again = await deploy({ environment: 'production', status: 'success' });
        assert.equal(again.id, first.id);
        const other = await deploy({ environment: 'production', status: 'failed' });
        assert.notEqual(other.id, first.id);
        assert.equal(other.iid, 3);
      });

      it('GET list: order_by, sort, status, environment, updated and finished filters (and their rules)', async () => {
        const list = async (query: string) => {
          const r = await f.api('GET', `${base}/deployments${query}`, { token: reporter.token });
          expectStatus(r, 200);
          return r.body.map((d: any) => [d.iid, d.status]);
        };
        assert.deepEqual(await list(''), [[1, 'success'], [2, 'success'], [3, 'failed']]);
        assert.deepEqual(await list('?order_by=iid&sort=desc'), [[3, 'failed'], [2, 'success'], [1, 'success']]);
        assert.deepEqual(await list('?status=success&environment=production'), [[1, 'success']]);
        assert.deepEqual(await list(`?order_by=finished_at&status=success&finished_after=${encodeURIComponent(NOW)}`), [[2, 'success'], [1, 'success']]);
        assert.deepEqual(await list(`?updated_before=${encodeURIComponent(NOW)}`), []);
        const errors: [string, unknown][] = [
          [`?finished_after=${NOW}&updated_after=${NOW}`, { message: '400 Bad request - Both `updated_at` filter and `finished_at` filter can not be specified' }],
          [`?finished_after=${NOW}&status=success`, { message: '400 Bad request - `finished_at` filter requires `finished_at` sort.' }],
          [`?finished_after=${NOW}&order_by=finished_at`, { message: '400 Bad request - `finished_at` filter must be combined with `success` status filter.' }],
          ['?order_by=name', { error: 'order_by does not have a valid value' }],
          ['?status=done', { error: 'status does not have a valid value' }],
        ];
        for (const [query, body] of errors) {
          const r = await f.api('GET', `${base}/deployments${query}`, { token: reporter.token });
          assert.deepEqual([r.status, r.body], [400, body], query);
        }
      });

      it('merge_requests: the merge requests merged since the previous successful deployment of the environment', async () => {
        await allowDevelopersToMerge(f, project.id);
        const merge = async (branch: string) => {
          await commitFiles(f, project.id, branch, { [`${branch}.txt`]: branch }, { startBranch: 'main' });
          const mr = await f.api('POST', `${base}/merge_requests`, { token: developer.token, body: { source_branch: branch, target_branch: 'main', title: branch } });
          expectStatus(mr, 201);
          tick();
          const merged = await f.api('PUT', `${base}/merge_requests/${mr.body.iid}/merge`, { token: developer.token });
          expectStatus(merged, 200);
          return merged.body;
        };
        const one = await merge('feature-one');
        const firstDeploy = await deploy({ environment: 'staging', sha: one.merge_commit_sha, status: 'success' });
        const two = await merge('feature-two');
        const three = await merge('feature-three');
        const failed = await deploy({ environment: 'staging', sha: two.merge_commit_sha, status: 'failed' });
        const second = await deploy({ environment: 'staging', sha: three.merge_commit_sha, status: 'running' });
        const shipped = async (id: number) => {
          const r = await f.api('GET', `${base}/deployments/${id}/merge_requests`, { token: reporter.token });
          expectStatus(r, 200);
          return r.body.map((m: any) => m.title);
        };
        assert.deepEqual(await shipped(firstDeploy.id), ['feature-one']);
        assert.deepEqual(await shipped(failed.id), []);
        assert.deepEqual(await shipped(second.id), [], 'linked when it succeeds');
        expectStatus(await f.api('PUT', `${base}/deployments/${second.id}`, { token: developer.token, body: { status: 'success' } }), 200);
        assert.deepEqual(await shipped(second.id), ['feature-three', 'feature-two']);
        const asc = await f.api('GET', `${base}/deployments/${second.id}/merge_requests?sort=asc&per_page=1`, { token: reporter.token });
        assert.deepEqual([asc.body.map((m: any) => m.title), asc.headers.get('x-total')], [['feature-two'], '2']);
        // Another environment ships the same merge requests again.
        const prod = await deploy({ environment: 'production', sha: three.merge_commit_sha, status: 'success' });
        assert.deepEqual(await shipped(prod.id), ['feature-three', 'feature-two', 'feature-one']);
        mainSha = three.merge_commit_sha;
        const missing = await f.api('GET', `${base}/deployments/99999/merge_requests`, { token: reporter.token });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
      });

      it('DELETE (Maintainer): 204; not the running one, not the one the environment runs', async () => {
        const running = await deploy({ environment: 'review/delete', status: 'running' });
        const r1 = await f.api('DELETE', `${base}/deployments/${running.id}`, { token: maintainer.token });
        assert.deepEqual([r1.status, r1.body], [400, { message: 'Cannot destroy running deployment' }]);
        expectStatus(await f.api('PUT', `${base}/deployments/${running.id}`, { token: developer.token, body: { status: 'success' } }), 200);
        const r2 = await f.api('DELETE', `${base}/deployments/${running.id}`, { token: maintainer.token });
        assert.deepEqual([r2.status, r2.body], [400, { message: 'Deployment currently deployed to environment' }]);
        const byDeveloper = await f.api('DELETE', `${base}/deployments/${first.id}`, { token: developer.token });
        assert.deepEqual([byDeveloper.status, byDeveloper.body], [403, FORBIDDEN]);
        const ok = await f.api('DELETE', `${base}/deployments/${first.id}`, { token: maintainer.token });
        assert.deepEqual([ok.status, ok.text], [204, '']);
        assert.deepEqual((await f.api('GET', `${base}/deployments/${first.id}`)).status, 404);
      });
    });

    describe('CI jobs with an environment', () => {
      let runner: { id: number; token: string };
      let pipeline: any;

      before(async () => {
        await commitCi(
          f,
          project.id,
          [
            'build:',
            '  stage: build',
            '  script: [make]',
            'deploy:',
            '  stage: deploy',
            '  script: [ship]',
            '  environment:',
            '    name: review/$CI_COMMIT_REF_SLUG',
            '    deployment_tier: staging',
            'teardown:',
            '  stage: deploy',
            '  when: manual',
            '  script: [stop]',
            '  environment:',
            '    name: review/$CI_COMMIT_REF_SLUG',
            '    action: stop',
            'stages: [build, deploy]',
          ].join('\n'),
        );
        runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
      });

      it('the pipeline creates the environment (expanded name, deployment tier) and a created deployment of the job', async () => {
        tick();
        const r = await f.api('POST', `${base}/pipeline`, { token: maintainer.token, body: { ref: 'main' } });
        expectStatus(r, 201);
        pipeline = r.body;
        const env = (await f.api('GET', `${base}/environments?name=${encodeURIComponent('review/main')}`, { token: reporter.token })).body[0];
        assert.deepEqual([env.tier, env.state], ['staging', 'available']);
        const deployments = (await f.api('GET', `${base}/deployments?environment=${encodeURIComponent('review/main')}`, { token: reporter.token })).body;
        assert.equal(deployments.length, 1);
        assert.equal(deployments[0].status, 'created');
        assert.equal(deployments[0].deployable.name, 'deploy');
        assert.equal(deployments[0].deployable.status, 'created');
        assert.equal(deployments[0].sha, pipeline.sha);
        assert.equal(deployments[0].user.id, maintainer.id);
      });

      it('the deployment follows the job: running, success; the API may not update it', async () => {
        const build = await requestJob(f, runner.token);
        assert.equal(build.job_info.name, 'build');
        await finishJob(f, { id: build.id, token: build.token }, 'success');
        const deploy = await requestJob(f, runner.token);
        assert.equal(deploy.job_info.name, 'deploy');
        const byName = async () => (await f.api('GET', `${base}/deployments?environment=${encodeURIComponent('review/main')}`, { token: reporter.token })).body[0];
        assert.equal((await byName()).status, 'running');
        tick();
        await finishJob(f, { id: deploy.id, token: deploy.token }, 'success');
        const done = await byName();
        assert.deepEqual([done.status, done.deployable.status, done.updated_at], ['success', 'success', at()]);
        const refused = await f.api('PUT', `${base}/deployments/${done.id}`, { token: developer.token, body: { status: 'failed' } });
        assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden - Deployments created using GitLab CI can not be updated using the API' }]);
        const env = (await f.api('GET', `${base}/environments/${done.environment.id}`, { token: reporter.token })).body;
        assert.equal(env.last_deployment.id, done.id);
        assert.equal(env.last_deployment.deployable.id, deploy.id);
      });

      it('a stop job stops the environment when it succeeds; a canceled pipeline cancels a created deployment', async () => {
        const jobs = (await f.api('GET', `${base}/pipelines/${pipeline.id}/jobs`, { token: reporter.token })).body;
        const teardown = jobs.find((j: any) => j.name === 'teardown');
        assert.equal(teardown.status, 'manual');
        expectStatus(await f.api('POST', `${base}/jobs/${teardown.id}/play`, { token: maintainer.token }), 200);
        const job = await requestJob(f, runner.token);
        await finishJob(f, { id: job.id, token: job.token }, 'success');
        const env = (await f.api('GET', `${base}/environments?name=${encodeURIComponent('review/main')}`, { token: reporter.token })).body[0];
        assert.equal(env.state, 'stopped');
        const again = await f.api('POST', `${base}/pipeline`, { token: maintainer.token, body: { ref: 'main' } });
        expectStatus(await f.api('POST', `${base}/pipelines/${again.body.id}/cancel`, { token: maintainer.token }), 200);
        const canceled = (await f.api('GET', `${base}/deployments?environment=${encodeURIComponent('review/main')}&sort=desc`, { token: reporter.token })).body[0];
        assert.deepEqual([canceled.status, canceled.deployable.status], ['canceled', 'canceled']);
      });
    });
  });
}
