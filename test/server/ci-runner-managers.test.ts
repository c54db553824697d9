/**
 * What a runner says about itself reaches the API as in GitLab 17: `POST /runners` keeps
 * `info[name]`; every `POST /jobs/request` records, on the runner's manager for its
 * `system_id`, the version, revision, platform, architecture and the address it called from;
 * `PUT /jobs/:id` and `PATCH /jobs/:id/trace` record the address again. Runner details show the
 * latest manager's info, jobs their manager (`runner.ip_address` stays null, as GitLab ≥ 17.0
 * answers), and `GET /runners/:id/managers` lists them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest } from './http.js';
import { commitCi, createRunner } from './ci-support.js';

const NOW = '2024-06-15T12:00:00.000Z';
const CI = 'stages: [build, deploy]\nbuild:\n  stage: build\n  script: make\ndeploy:\n  stage: deploy\n  script: ship\n  environment: production\n';

/** A runner's call from a given loopback address (127.0.0.0/8 all reach the server). */
function fromAddress(f: TestForgelet, address: string, method: string, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return rawRequest(f.url, method, `/api/v4${path}`, {
    localAddress: address,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: runner managers (what runners report about themselves)`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maintainer: { id: number; token: string };
    let developer: { id: number; token: string };
    let project: any;
    let runner: { id: number; token: string };
    const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      const [owner, m, d] = await createUsers(f, ['rmowner', 'rmmaint', 'rmdev']);
      maintainer = m!;
      developer = d!;
      const group = await createGroup(f, owner!.token, { name: 'Managers', path: 'managers-group' });
      project = await createProject(f, owner!.token, { name: 'app', namespace_id: group.id });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      await addMember(f, 'projects', project.id, developer.id, 30);
      await commitCi(f, project.id, CI);
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id, description: 'box' });
    });
    after(() => f.stop());

    it('verifying a created runner records its manager and address, not a contact', async () => {
      const verified = await fromAddress(f, '127.0.0.2', 'POST', '/runners/verify', { token: runner.token, system_id: 's_aaaaaaaaaaaa' });
      expectStatus(verified, 200);
      const shown = await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token });
      assert.deepEqual([shown.body.contacted_at, shown.body.status, shown.body.version], [null, 'never_contacted', null]);
      const managers = await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token });
      expectStatus(managers, 200);
      assert.equal(managers.body.length, 1);
      assert.deepEqual(managers.body[0], {
        id: managers.body[0].id,
        system_id: 's_aaaaaaaaaaaa',
        version: null,
        revision: null,
        platform: null,
        architecture: null,
        created_at: NOW,
        contacted_at: null,
        ip_address: '127.0.0.2',
        status: 'never_contacted',
        job_execution_status: 'idle',
      });
    });

    it('a job request records the info and the address on the manager; runner details show them', async () => {
      clock.set(new Date(at(10)), true);
      expectStatus(await f.api('POST', `/projects/${project.id}/pipeline`, { token: maintainer.token, body: { ref: 'main' } }), 201);
      const info = { name: 'gitlab-runner', version: '17.8.1', revision: 'a1b2c3d4', platform: 'linux', architecture: 'arm64', executor: 'shell', features: { artifacts: true } };
      const taken = await fromAddress(f, '127.0.0.3', 'POST', '/jobs/request', { token: runner.token, system_id: 's_aaaaaaaaaaaa', info });
      expectStatus(taken, 201);
      const job = taken.body;

      const shown = await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token });
      assert.deepEqual(
        [shown.body.version, shown.body.revision, shown.body.platform, shown.body.architecture, shown.body.contacted_at, shown.body.status, shown.body.online],
        ['17.8.1', 'a1b2c3d4', 'linux', 'arm64', at(10), 'online', true],
      );
      assert.equal(shown.body.ip_address, null, 'GitLab ≥ 17.0 answers null here: the address is per manager');
      assert.equal(shown.body.job_execution_status, 'active');

      const seen = await f.api('GET', `/projects/${project.id}/jobs/${job.id}`, { token: developer.token });
      expectStatus(seen, 200);
      assert.equal(seen.body.runner.id, runner.id);
      assert.equal(seen.body.runner.ip_address, null);
      assert.deepEqual(seen.body.runner_manager, {
        id: seen.body.runner_manager.id,
        system_id: 's_aaaaaaaaaaaa',
        version: '17.8.1',
        revision: 'a1b2c3d4',
        platform: 'linux',
        architecture: 'arm64',
        created_at: NOW,
        contacted_at: at(10),
        ip_address: '127.0.0.3',
        status: 'online',
        job_execution_status: 'active',
      });

      // the runner's own reports record where it is now; its job's upload does not (the job's environment may sit elsewhere)
      clock.set(new Date(at(40)), true);
      const trace = await rawRequest(f.url, 'PATCH', `/api/v4/jobs/${job.id}/trace`, {
        localAddress: '127.0.0.4',
        headers: { 'JOB-TOKEN': job.token, 'Content-Range': '0-5', 'Content-Type': 'text/plain' },
        body: 'hello',
      });
      expectStatus(trace, 202);
      let manager = (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body[0];
      assert.deepEqual([manager.ip_address, manager.contacted_at, manager.version], ['127.0.0.4', at(40), '17.8.1']);

      clock.set(new Date(at(70)), true);
      expectStatus(await fromAddress(f, '127.0.0.5', 'PUT', `/jobs/${job.id}`, { token: job.token, state: 'success' }), 200);
      manager = (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body[0];
      assert.deepEqual([manager.ip_address, manager.contacted_at, manager.job_execution_status], ['127.0.0.5', at(70), 'idle']);
      assert.equal((await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token })).body.contacted_at, at(70));

      // the pipeline's job list and the deployment's job show the same manager
      const jobs = await f.api('GET', `/projects/${project.id}/pipelines/${job.job_info.pipeline_id}/jobs`, { token: developer.token });
      const built = jobs.body.find((j: any) => j.name === 'build');
      assert.deepEqual([built.runner_manager.ip_address, built.runner_manager.system_id], ['127.0.0.5', 's_aaaaaaaaaaaa']);
      const deploy = await fromAddress(f, '127.0.0.6', 'POST', '/jobs/request', { token: runner.token, system_id: 's_aaaaaaaaaaaa', info });
      expectStatus(deploy, 201);
      const deployments = await f.api('GET', `/projects/${project.id}/deployments`, { token: developer.token });
      expectStatus(deployments, 200);
      const deployable = deployments.body[0].deployable;
      assert.equal(deployable.id, deploy.body.id);
      assert.deepEqual([deployable.runner.ip_address, deployable.runner_manager.ip_address], [null, '127.0.0.6']);
      expectStatus(await f.api('PUT', `/jobs/${deploy.body.id}`, { token: null, body: { token: deploy.body.token, state: 'success' } }), 200);
    });

    it('a second process of the same runner is another manager; the runner shows the one that called last', async () => {
      clock.set(new Date(at(100)), true);
      const second = await fromAddress(f, '127.0.0.7', 'POST', '/jobs/request', {
        token: runner.token,
        system_id: 's_bbbbbbbbbbbb',
        info: { version: '17.9.0', revision: 'ffff0000', platform: 'darwin', architecture: 'amd64' },
      });
      expectStatus(second, 204);
      const shown = (await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token })).body;
      assert.deepEqual([shown.version, shown.platform, shown.architecture, shown.contacted_at], ['17.9.0', 'darwin', 'amd64', at(100)]);
      const managers = (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body;
      assert.deepEqual(
        managers.map((m: any) => [m.system_id, m.version, m.ip_address, m.created_at]),
        [
          // the deploy job's final report came from 127.0.0.1
          ['s_aaaaaaaaaaaa', '17.8.1', '127.0.0.1', NOW],
          ['s_bbbbbbbbbbbb', '17.9.0', '127.0.0.7', at(100)],
        ],
      );
      // a runner that sends no system_id is its `<legacy>` manager; info it leaves out stays as it was
      clock.set(new Date(at(130)), true);
      expectStatus(await f.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { version: '16.0.0' } } }), 204);
      const legacy = (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body.find((m: any) => m.system_id === '<legacy>');
      assert.deepEqual([legacy.version, legacy.platform, legacy.ip_address, legacy.contacted_at], ['16.0.0', null, '127.0.0.1', at(130)]);
      assert.equal((await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token })).body.version, '16.0.0');
      // a process that only verified its token has not contacted the server: it is never the latest
      expectStatus(await f.api('POST', '/runners/verify', { token: null, body: { token: runner.token, system_id: 's_cccccccccccc' } }), 200);
      assert.equal((await f.api('GET', `/runners/${runner.id}`, { token: maintainer.token })).body.version, '16.0.0');
      // hours later the managers are offline, a week later stale
      clock.set(new Date(at(3 * 3600)), true);
      assert.deepEqual(
        (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body.map((m: any) => m.status),
        ['offline', 'offline', 'offline', 'never_contacted'],
      );
      clock.set(new Date(at(8 * 86_400)), true);
      assert.deepEqual(
        (await f.api('GET', `/runners/${runner.id}/managers`, { token: maintainer.token })).body.map((m: any) => m.status),
        ['stale', 'stale', 'stale', 'stale'],
      );
      clock.set(new Date(at(200)), true);
    });

    it('registration keeps info[name] as the runner name; info fields of the wrong type are refused', async () => {
      const registration = (await f.api('GET', `/projects/${project.id}`, { token: maintainer.token })).body.runners_token;
      const registered = await f.api('POST', '/runners', { token: null, body: { token: registration, description: 'legacy', info: { name: 'gitlab-runner', version: '15.0.0' } } });
      expectStatus(registered, 201);
      const shown = (await f.api('GET', `/runners/${registered.body.id}`, { token: maintainer.token })).body;
      assert.deepEqual([shown.name, shown.version], ['gitlab-runner', null]);
      const listed = await f.api('GET', `/projects/${project.id}/runners`, { token: maintainer.token });
      assert.equal(listed.body.find((r: any) => r.id === registered.body.id).name, 'gitlab-runner');
      const bad = await f.api('POST', '/jobs/request', { token: null, body: { token: registered.body.token, info: { version: { major: 17 } } } });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'info[version] is invalid' }]);
    });

    it('GET /runners/:id/managers: who may read the runner; unknown runners 404', async () => {
      const hidden = await f.api('GET', `/runners/${runner.id}/managers`, { token: developer.token });
      assert.deepEqual([hidden.status, hidden.body], [403, { message: '403 Forbidden - No access granted' }]);
      const missing = await f.api('GET', '/runners/999999/managers', { token: maintainer.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Runner Not Found' }]);
      expectStatus(await f.api('GET', `/runners/${runner.id}/managers`, { token: null }), 401);
    });
  });
}

describe('runner addresses from a dual-stack socket', () => {
  it('an IPv4 client of an IPv6 listener is shown without the ::ffff: prefix', async (t) => {
    let f: TestForgelet;
    try {
      f = await startTestServer(DIALECTS[0]!, { host: '::' });
    } catch (err) {
      // Without IPv6 there are no dual-stack sockets, hence no mapped addresses to show.
      if (process.env.CI) throw err;
      t.skip(`cannot listen on :: here (${(err as Error).message})`);
      return;
    }
    try {
      const owner = await f.createUser('dualowner');
      const project = await createProject(f, owner.token, { name: 'dual' });
      const runner = await createRunner(f, owner.token, { runner_type: 'project_type', project_id: project.id });
      // f.url is http://127.0.0.1:<port>: an IPv4 client, which the :: socket sees as ::ffff:127.0.0.1
      expectStatus(await f.api('POST', '/runners/verify', { token: null, body: { token: runner.token, system_id: 's_dual' } }), 200);
      const managers = await f.api('GET', `/runners/${runner.id}/managers`, { token: owner.token });
      assert.equal(managers.body[0].ip_address, '127.0.0.1');
    } finally {
      await f.stop();
    }
  });
});
