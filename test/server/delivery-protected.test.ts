/**
 * Group-level protected environments over HTTP (the spec's table: list, get by tier,
 * protect, update with nested entries, unprotect) and their enforcement: who may deploy to
 * a project environment of a protected tier, approvals per rule before a deployment
 * proceeds (API deployments and CI jobs), rejections, and the Premium gate.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitCi, createRunner, finishJob, jobStatuses, requestJob } from './ci-support.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Not found' };
const TOO_SHORT = { message: ['Deploy access levels is too short (minimum is 1 character)'] };

for (const dialect of DIALECTS) {
  describe(`${dialect}: group protected environments`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let maint: User;
    let dev: User;
    let deployer: User;
    let stranger: User;
    let appr1: User;
    let appr2: User;
    let outsider: User;
    let corp: any;
    let deployers: any;
    let approvers: any;
    let elsewhere: any;
    let project: any;
    let base: string;
    let sha: string;
    let production: any;

    const pe = (path = '') => `/groups/${corp.id}/protected_environments${path}`;
    const tick = (seconds = 60) => clock.advance(seconds * 1000);

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, maint, dev, deployer, stranger, appr1, appr2, outsider] = await createUsers(f, [
        'peowner', 'pemaint', 'pedev', 'pedeployer', 'pestranger', 'peappr1', 'peappr2', 'peoutsider',
      ]);
      corp = await createGroup(f, owner.token, { name: 'Corp', path: 'corp', visibility: 'private' });
      deployers = await createGroup(f, owner.token, { name: 'Deployers', path: 'deployers', parent_id: corp.id });
      approvers = await createGroup(f, owner.token, { name: 'Approvers', path: 'approvers', parent_id: corp.id });
      elsewhere = await createGroup(f, outsider.token, { name: 'Elsewhere', path: 'elsewhere' });
      await addMember(f, 'groups', corp.id, maint.id, 40);
      await addMember(f, 'groups', corp.id, dev.id, 30);
      await addMember(f, 'groups', deployers.id, deployer.id, 30);
      await addMember(f, 'groups', approvers.id, appr1.id, 20);
      await addMember(f, 'groups', approvers.id, appr2.id, 20);
      project = await createProject(f, owner.token, { name: 'App', path: 'app', namespace_id: corp.id });
      base = `/projects/${project.id}`;
      for (const u of [deployer, stranger]) await addMember(f, 'projects', project.id, u.id, 30);
      for (const u of [appr1, appr2]) await addMember(f, 'projects', project.id, u.id, 20);
      sha = await commitFiles(f, project.id, 'main', { 'README.md': 'app' });
    });
    after(() => f.stop());

    describe('the API', () => {
      it('POST errors: roles, parameters, model errors (422) and sanitized entries', async () => {
        const cases: [Record<string, unknown>, string | null, number, unknown][] = [
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }] }, dev.token, 403, FORBIDDEN],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }] }, outsider.token, 404, { message: '404 Group Not Found' }],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }] }, null, 401, { message: '401 Unauthorized' }],
          [{ name: 'production' }, maint.token, 400, { error: 'deploy_access_levels is missing' }],
          [{ name: 'production', deploy_access_levels: [{ access_level: 20 }] }, maint.token, 400, { error: 'deploy_access_levels[0][access_level] does not have a valid value' }],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ required_approvals: 2 }] }, maint.token, 400, {
            error: 'approval_rules[0][access_level], approval_rules[0][user_id], approval_rules[0][group_id] are missing, at least one parameter must be provided',
          }],
          [{ name: 'prod', deploy_access_levels: [{ access_level: 40 }] }, maint.token, 422, { message: ['Name must be one of environment tiers: production, staging, testing, development, other.'] }],
          // a Developer of the group, a group outside it, two keys: dropped, leaving nothing
          [{ name: 'production', deploy_access_levels: [{ user_id: dev.id }] }, maint.token, 422, TOO_SHORT],
          [{ name: 'production', deploy_access_levels: [{ group_id: elsewhere.id }] }, maint.token, 422, TOO_SHORT],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40, user_id: maint.id }] }, maint.token, 422, TOO_SHORT],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }], required_approval_count: 6 }, maint.token, 422, { message: ['Required approval count must be less than or equal to 5'] }],
          [{ name: 'production', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ access_level: 40, required_approvals: 6 }] }, maint.token, 422, {
            message: ['Approval rules required approvals must be less than or equal to 5'],
          }],
        ];
        for (const [body, token, status, expected] of cases) {
          const r = await f.api('POST', pe(), { token, body });
          assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
        }
        const list = await f.api('GET', pe(), { token: maint.token });
        assert.deepEqual([list.status, list.body], [200, []]);
      });

      it('POST production: a subgroup deploys, a Maintainer user too; a two-approval rule (unqualified entries dropped)', async () => {
        const r = await f.api('POST', pe(), {
          token: maint.token,
          body: {
            name: 'production',
            deploy_access_levels: [{ group_id: deployers.id }, { user_id: maint.id }, { user_id: dev.id }],
            approval_rules: [{ group_id: approvers.id, required_approvals: 2 }, { group_id: elsewhere.id }],
          },
        });
        expectStatus(r, 201);
        production = r.body;
        const [d1, d2] = r.body.deploy_access_levels;
        assert.deepEqual(r.body, {
          name: 'production',
          deploy_access_levels: [
            { id: d1.id, access_level: null, access_level_description: 'Deployers', user_id: null, group_id: deployers.id, group_inheritance_type: 0 },
            { id: d2.id, access_level: null, access_level_description: 'pemaint', user_id: maint.id, group_id: null, group_inheritance_type: 0 },
          ],
          required_approval_count: 0,
          approval_rules: [
            { id: r.body.approval_rules[0].id, user_id: null, group_id: approvers.id, access_level: null, access_level_description: 'Approvers', required_approvals: 2, group_inheritance_type: 0 },
          ],
        });
        const again = await f.api('POST', pe(), { token: maint.token, body: { name: 'production', deploy_access_levels: [{ access_level: 40 }] } });
        assert.deepEqual([again.status, again.body], [409, { message: "Protected environment 'production' already exists" }]);
        const shown = await f.api('GET', pe('/production'), { token: owner.token });
        assert.deepEqual([shown.status, shown.body], [200, production]);
        const missing = await f.api('GET', pe('/staging'), { token: maint.token });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
        const byDev = await f.api('GET', pe('/production'), { token: dev.token });
        assert.deepEqual([byDev.status, byDev.body], [403, FORBIDDEN]);
      });

      it('list in tier order, paginated', async () => {
        for (const name of ['development', 'staging']) {
          expectStatus(await f.api('POST', pe(), { token: maint.token, body: { name, deploy_access_levels: [{ access_level: 30 }] } }), 201);
        }
        const r = await f.api('GET', pe(), { token: maint.token });
        assert.deepEqual(r.body.map((e: any) => e.name), ['production', 'staging', 'development']);
        assert.deepEqual(r.body[1].deploy_access_levels.map((l: any) => [l.access_level, l.access_level_description]), [[30, 'Developers + Maintainers']]);
        const page = await f.api('GET', `${pe()}?per_page=1&page=2`, { token: maint.token });
        assert.deepEqual([page.body.map((e: any) => e.name), page.headers.get('x-total')], [['staging'], '3']);
      });

      it('PUT: entries created without id, updated by id, destroyed with _destroy; the required approval count', async () => {
        const staging = (await f.api('GET', pe('/staging'), { token: maint.token })).body;
        const oldId = staging.deploy_access_levels[0].id;
        const r = await f.api('PUT', pe('/staging'), {
          token: maint.token,
          body: { deploy_access_levels: [{ id: oldId, _destroy: true }, { user_id: maint.id }, { group_id: deployers.id, group_inheritance_type: 1 }], required_approval_count: 2 },
        });
        expectStatus(r, 200);
        assert.deepEqual(r.body.deploy_access_levels.map((l: any) => [l.user_id, l.group_id, l.group_inheritance_type]), [[maint.id, null, 0], [null, deployers.id, 1]]);
        assert.equal(r.body.required_approval_count, 2);
        const [kept, inherited] = r.body.deploy_access_levels;
        const updated = await f.api('PUT', pe('/staging'), { token: maint.token, body: { deploy_access_levels: [{ id: inherited.id, access_level: 40 }] } });
        expectStatus(updated, 200);
        assert.deepEqual(updated.body.deploy_access_levels[1], { id: inherited.id, access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null, group_inheritance_type: 1 });
        const rule = await f.api('PUT', pe('/staging'), { token: maint.token, body: { approval_rules: [{ user_id: maint.id, required_approvals: 1 }] } });
        assert.deepEqual(rule.body.approval_rules.map((a: any) => [a.user_id, a.required_approvals, a.access_level_description]), [[maint.id, 1, 'pemaint']]);
        const dropRule = await f.api('PUT', pe('/staging'), { token: maint.token, body: { approval_rules: [{ id: rule.body.approval_rules[0].id, _destroy: true }], required_approval_count: 0 } });
        assert.deepEqual([dropRule.body.approval_rules, dropRule.body.required_approval_count], [[], 0]);
        const empty = await f.api('PUT', pe('/staging'), {
          token: maint.token,
          body: { deploy_access_levels: [{ id: kept.id, _destroy: true }, { id: inherited.id, _destroy: true }] },
        });
        assert.deepEqual([empty.status, empty.body], [422, TOO_SHORT]);
        const unknown = await f.api('PUT', pe('/staging'), { token: maint.token, body: { deploy_access_levels: [{ id: 999999, access_level: 30 }] } });
        assert.deepEqual([unknown.status, unknown.body], [404, NOT_FOUND]);
        const tooMany = await f.api('PUT', pe('/staging'), { token: maint.token, body: { required_approval_count: 9 } });
        assert.deepEqual([tooMany.status, tooMany.body], [422, { message: ['Required approval count must be less than or equal to 5'] }]);
        const after = (await f.api('GET', pe('/staging'), { token: maint.token })).body;
        assert.deepEqual(after.deploy_access_levels.map((l: any) => l.id), [kept.id, inherited.id], 'failed updates change nothing');
        const missing = await f.api('PUT', pe('/testing'), { token: maint.token, body: { required_approval_count: 1 } });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
      });

      it('DELETE: 200 with the protection as it was; then 404', async () => {
        const shown = (await f.api('GET', pe('/development'), { token: maint.token })).body;
        const r = await f.api('DELETE', pe('/development'), { token: maint.token });
        assert.deepEqual([r.status, r.body], [200, shown]);
        const again = await f.api('DELETE', pe('/development'), { token: maint.token });
        assert.deepEqual([again.status, again.body], [404, NOT_FOUND]);
      });

      it('Premium and up: below it the routes answer 403', async () => {
        f.forge.deps.config.tier = 'free';
        try {
          const r = await f.api('GET', pe(), { token: maint.token });
          assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
      });
    });

    describe('enforcement on API deployments', () => {
      let blocked: any;
      const create = (token: string, body: Record<string, unknown> = {}) =>
        f.api('POST', `${base}/deployments`, { token, body: { environment: 'production', ref: 'main', sha, tag: false, status: 'running', ...body } });
      const approve = (id: number, token: string, body: Record<string, unknown> = { status: 'approved' }) =>
        f.api('POST', `${base}/deployments/${id}/approval`, { token, body });

      it('users the protection does not list are refused (403)', async () => {
        for (const user of [stranger, dev]) {
          const r = await create(user.token);
          assert.deepEqual([r.status, r.body], [403, FORBIDDEN], user.username);
        }
      });

      it("a listed deployer's deployment waits blocked, with the rule's summary", async () => {
        tick();
        const r = await create(deployer.token);
        expectStatus(r, 201);
        blocked = r.body;
        assert.equal(blocked.status, 'blocked');
        assert.equal(blocked.pending_approval_count, 2);
        assert.deepEqual(blocked.approvals, []);
        assert.deepEqual(blocked.approval_summary.rules, [{ ...production.approval_rules[0], deployment_approvals: [] }]);
        const env = (await f.api('GET', `${base}/environments/${blocked.environment.id}`, { token: deployer.token })).body;
        assert.equal(env.tier, 'production');
        // Updating it while it waits: the new status is where it goes once approved.
        const put = await f.api('PUT', `${base}/deployments/${blocked.id}`, { token: deployer.token, body: { status: 'success' } });
        assert.deepEqual([put.status, put.body.status], [200, 'blocked']);
        const byStranger = await f.api('PUT', `${base}/deployments/${blocked.id}`, { token: stranger.token, body: { status: 'failed' } });
        assert.deepEqual([byStranger.status, byStranger.body], [403, FORBIDDEN]);
      });

      it('approval refusals: own deployment, not an approver, bad status, unknown represented_as', async () => {
        const cases: [string, Record<string, unknown>, number, unknown][] = [
          [deployer.token, { status: 'approved' }, 400, { message: 'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.' }],
          [stranger.token, { status: 'approved' }, 400, { message: "You don't have permission to approve this deployment. Contact the project or group owner for help." }],
          [appr1.token, { status: 'maybe' }, 400, { error: 'status does not have a valid value' }],
          [appr1.token, {}, 400, { error: 'status is missing' }],
          [appr1.token, { status: 'approved', represented_as: 'QA' }, 400, {
            message: 'There are no approval rules for the given `represent_as` parameter. Use a valid User/Group/Role name instead.',
          }],
          [outsider.token, { status: 'approved' }, 404, { message: '404 Project Not Found' }],
        ];
        for (const [token, body, status, expected] of cases) {
          const r = await approve(blocked.id, token, body);
          assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
        }
        const missing = await approve(999999, appr1.token);
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
      });

      it('two approvals from the rule: the deployment proceeds to the status it asked for', async () => {
        tick();
        const first = await approve(blocked.id, appr1.token, { status: 'approved', comment: 'LGTM', represented_as: 'Approvers' });
        expectStatus(first, 201);
        assert.deepEqual(first.body, {
          user: { id: appr1.id, username: 'peappr1', name: 'peappr1', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/peappr1` },
          status: 'approved',
          created_at: clock.now().toISOString(),
          comment: 'LGTM',
        });
        const repeat = await approve(blocked.id, appr1.token);
        assert.deepEqual([repeat.status, repeat.body], [201, first.body], 'approving twice is one approval');
        const waiting = (await f.api('GET', `${base}/deployments/${blocked.id}`, { token: deployer.token })).body;
        assert.deepEqual([waiting.status, waiting.pending_approval_count, waiting.approvals.length], ['blocked', 1, 1]);
        assert.deepEqual(waiting.approval_summary.rules[0].deployment_approvals, [first.body]);
        tick();
        expectStatus(await approve(blocked.id, appr2.token), 201);
        const done = (await f.api('GET', `${base}/deployments/${blocked.id}`, { token: deployer.token })).body;
        assert.deepEqual([done.status, done.pending_approval_count, done.approvals.map((a: any) => a.user.username)], ['success', 0, ['peappr1', 'peappr2']]);
        const late = await approve(blocked.id, appr2.token);
        assert.deepEqual([late.status, late.body], [400, { message: 'This deployment is not waiting for approvals.' }]);
      });

      it('a rejection fails the deployment', async () => {
        const r = await create(deployer.token, { status: 'success', sha });
        // Same ref, sha, tag and status as the last one: GitLab answers that deployment.
        assert.equal(r.body.id, blocked.id);
        const other = await create(maint.token, { status: 'canceled' });
        expectStatus(other, 201);
        assert.equal(other.body.status, 'blocked');
        const rejected = await approve(other.body.id, appr2.token, { status: 'rejected', comment: 'not today' });
        assert.deepEqual([rejected.status, rejected.body.status, rejected.body.comment], [201, 'rejected', 'not today']);
        const failed = (await f.api('GET', `${base}/deployments/${other.body.id}`, { token: maint.token })).body;
        assert.deepEqual([failed.status, failed.pending_approval_count], ['failed', 0]);
      });

      it('unprotected and approval-free environments answer the approval endpoint with GitLab messages', async () => {
        const free = await f.api('POST', `${base}/deployments`, { token: stranger.token, body: { environment: 'review/one', ref: 'main', sha, tag: false, status: 'running' } });
        expectStatus(free, 201);
        assert.equal(free.body.status, 'running');
        const r1 = await approve(free.body.id, appr1.token);
        assert.deepEqual([r1.status, r1.body], [400, { message: 'This environment is not protected.' }]);
        // staging is protected (maint and group Maintainers deploy) without approvals
        const staged = await f.api('POST', `${base}/deployments`, { token: maint.token, body: { environment: 'staging', ref: 'main', sha, tag: false, status: 'running' } });
        assert.deepEqual([staged.status, staged.body.status], [201, 'running']);
        const r2 = await approve(staged.body.id, appr1.token);
        assert.deepEqual([r2.status, r2.body], [400, { message: 'Deployment approvals is not configured for this environment.' }]);
        const refused = await f.api('POST', `${base}/deployments`, { token: deployer.token, body: { environment: 'staging', ref: 'main', sha, tag: false, status: 'running' } });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN], 'staging lists pemaint and the Maintainers of corp');
      });
    });

    describe('legacy required approval count and the Premium gate', () => {
      it('a required approval count without rules: approvals from users who may deploy', async () => {
        expectStatus(await f.api('PUT', pe('/staging'), { token: maint.token, body: { required_approval_count: 1 } }), 200);
        const dep = await f.api('POST', `${base}/deployments`, { token: maint.token, body: { environment: 'staging', ref: 'main', sha, tag: false, status: 'success' } });
        assert.deepEqual([dep.status, dep.body.status, dep.body.pending_approval_count, dep.body.approval_summary], [201, 'blocked', 1, { rules: [] }]);
        const byApprover = await f.api('POST', `${base}/deployments/${dep.body.id}/approval`, { token: appr1.token, body: { status: 'approved' } });
        assert.deepEqual([byApprover.status, byApprover.body], [400, { message: "You don't have permission to approve this deployment. Contact the project or group owner for help." }]);
        expectStatus(await f.api('POST', `${base}/deployments/${dep.body.id}/approval`, { token: owner.token, body: { status: 'approved' } }), 201);
        assert.equal((await f.api('GET', `${base}/deployments/${dep.body.id}`, { token: maint.token })).body.status, 'success');
        expectStatus(await f.api('PUT', pe('/staging'), { token: maint.token, body: { required_approval_count: 0 } }), 200);
      });

      it('below Premium nothing is protected', async () => {
        f.forge.deps.config.tier = 'free';
        try {
          const r = await f.api('POST', `${base}/deployments`, { token: stranger.token, body: { environment: 'production', ref: 'main', sha, tag: false, status: 'canceled' } });
          assert.deepEqual([r.status, r.body.status], [201, 'canceled']);
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
      });
    });

    describe('enforcement on CI jobs', () => {
      let runner: { id: number; token: string };

      before(async () => {
        await commitCi(
          f,
          project.id,
          [
            'stages: [build, deploy, verify]',
            'build: { stage: build, script: [make] }',
            'ship: { stage: deploy, script: [ship], environment: { name: production } }',
            'smoke: { stage: verify, script: [check] }',
          ].join('\n'),
        );
        runner = await createRunner(f, maint.token, { runner_type: 'project_type', project_id: project.id });
      });

      it('a job deploying to an environment that needs approvals is held manual, its deployment blocked; played early: Unplayable Job', async () => {
        const created = await f.api('POST', `${base}/pipeline`, { token: maint.token, body: { ref: 'main' } });
        expectStatus(created, 201);
        const pipelineId = created.body.id;
        const build = await requestJob(f, runner.token);
        await finishJob(f, { id: build.id, token: build.token }, 'success');
        assert.deepEqual(await jobStatuses(f, project.id, pipelineId), { build: 'success', ship: 'manual', smoke: 'created' });
        const pipeline = (await f.api('GET', `${base}/pipelines/${pipelineId}`, { token: maint.token })).body;
        assert.equal(pipeline.status, 'manual');
        const dep = (await f.api('GET', `${base}/deployments?environment=production&order_by=id&sort=desc`, { token: maint.token })).body[0];
        assert.deepEqual([dep.status, dep.deployable.name, dep.deployable.status], ['blocked', 'ship', 'manual']);
        const shipId = dep.deployable.id;
        const early = await f.api('POST', `${base}/jobs/${shipId}/play`, { token: maint.token });
        assert.deepEqual([early.status, early.body], [400, { message: '400 Bad request - Unplayable Job' }]);
        assert.equal((await jobStatuses(f, project.id, pipelineId)).ship, 'manual');

        for (const u of [appr1, appr2]) expectStatus(await f.api('POST', `${base}/deployments/${dep.id}/approval`, { token: u.token, body: { status: 'approved' } }), 201);
        const approved = (await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body;
        assert.deepEqual([approved.status, approved.pending_approval_count, approved.deployable.status], ['blocked', 0, 'manual'], 'approval rules: a deployer runs the job');

        expectStatus(await f.api('POST', `${base}/jobs/${shipId}/play`, { token: maint.token }), 200);
        assert.equal((await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body.status, 'created');
        const ship = await requestJob(f, runner.token);
        assert.equal(ship.job_info.name, 'ship');
        assert.equal((await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body.status, 'running');
        await finishJob(f, { id: ship.id, token: ship.token }, 'success');
        assert.equal((await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body.status, 'success');
        assert.deepEqual(await jobStatuses(f, project.id, pipelineId), { build: 'success', ship: 'success', smoke: 'pending' });
      });

      it('a rejected CI deployment fails its job (deployment_rejected)', async () => {
        const created = await f.api('POST', `${base}/pipeline`, { token: maint.token, body: { ref: 'main' } });
        const build = await requestJob(f, runner.token);
        // the smoke job of the previous pipeline may come first
        const jobs = [build];
        while (jobs[jobs.length - 1].job_info.name !== 'build') jobs.push(await requestJob(f, runner.token));
        for (const j of jobs) await finishJob(f, { id: j.id, token: j.token }, 'success');
        const dep = (await f.api('GET', `${base}/deployments?environment=production&order_by=id&sort=desc`, { token: maint.token })).body[0];
        assert.equal(dep.status, 'blocked');
        expectStatus(await f.api('POST', `${base}/deployments/${dep.id}/approval`, { token: appr1.token, body: { status: 'rejected' } }), 201);
        const job = (await f.api('GET', `${base}/jobs/${dep.deployable.id}`, { token: maint.token })).body;
        assert.deepEqual([job.status, job.failure_reason], ['failed', 'deployment_rejected']);
        assert.equal((await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body.status, 'failed');
        assert.deepEqual(await jobStatuses(f, project.id, created.body.id), { build: 'success', ship: 'failed', smoke: 'skipped' });
      });

      it('a job whose user may not deploy fails with protected_environment_failure (later jobs skipped)', async () => {
        // testing: only pemaint deploys, no approvals; the owner runs the pipeline
        expectStatus(await f.api('POST', pe(), { token: maint.token, body: { name: 'testing', deploy_access_levels: [{ user_id: maint.id }] } }), 201);
        await commitCi(f, project.id, ['stages: [deploy, verify]', 'qa: { stage: deploy, script: [ship], environment: { name: qa } }', 'smoke: { stage: verify, script: [check] }'].join('\n'));
        const created = await f.api('POST', `${base}/pipeline`, { token: owner.token, body: { ref: 'main' } });
        expectStatus(created, 201);
        assert.deepEqual(await jobStatuses(f, project.id, created.body.id), { qa: 'failed', smoke: 'skipped' });
        assert.equal(created.body.status, 'failed');
        const qa = (await f.api('GET', `${base}/pipelines/${created.body.id}/jobs`, { token: owner.token })).body.find((j: any) => j.name === 'qa');
        assert.equal(qa.failure_reason, 'protected_environment_failure');
        const dep = (await f.api('GET', `${base}/deployments?environment=qa`, { token: owner.token })).body[0];
        assert.equal(dep.status, 'failed');
        const byMaint = await f.api('POST', `${base}/pipeline`, { token: maint.token, body: { ref: 'main' } });
        assert.deepEqual((await jobStatuses(f, project.id, byMaint.body.id)).qa, 'pending');
      });

      it('a plain required approval count (no rules): once approved, the held job runs at once', async () => {
        expectStatus(await f.api('PUT', pe('/staging'), { token: maint.token, body: { required_approval_count: 1 } }), 200);
        await commitCi(f, project.id, 'stage-it: { script: [ship], environment: { name: staging } }');
        const created = await f.api('POST', `${base}/pipeline`, { token: maint.token, body: { ref: 'main' } });
        assert.deepEqual(await jobStatuses(f, project.id, created.body.id), { 'stage-it': 'manual' });
        const dep = (await f.api('GET', `${base}/deployments?environment=staging&sort=desc`, { token: maint.token })).body[0];
        assert.deepEqual([dep.status, dep.deployable.name], ['blocked', 'stage-it']);
        expectStatus(await f.api('POST', `${base}/deployments/${dep.id}/approval`, { token: owner.token, body: { status: 'approved' } }), 201);
        assert.deepEqual(await jobStatuses(f, project.id, created.body.id), { 'stage-it': 'pending' });
        assert.equal((await f.api('GET', `${base}/deployments/${dep.id}`, { token: maint.token })).body.status, 'created');
        expectStatus(await f.api('PUT', pe('/staging'), { token: maint.token, body: { required_approval_count: 0 } }), 200);
      });
    });
  });
}
