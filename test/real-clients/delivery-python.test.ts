/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): environments (project.environments),
 * group protected environments (no manager in 3.12: gl.http_post/http_put/http_list/http_delete),
 * deployments and their approvals (project.deployments, deployment.approval()), DORA metrics
 * (gl.http_get, lists sent as repeated keys). Production is protected at a group with a subgroup
 * as deployer and a two-approval rule: a user it does not list is refused, a listed deployer's
 * deployment waits blocked until approved twice. The DORA history (30 deployments, 10 merged merge
 * requests, 4 incidents over 60 days) is seeded here through the API with a stepped clock; every
 * metric python reads equals what this file computes from the same records.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { addMember, createGroup, createProject, createUsers } from '../server/http.js';
import {
  D0,
  DAY,
  DORA_METRICS,
  SEED_END,
  SEED_START,
  assertSeries,
  expectedRows,
  expectedSeries,
  seedDoraHistory,
  type DoraHistory,
} from '../server/delivery-support.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_delivery.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 environments, deployments, protected environments, DORA`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let history: DoraHistory;
    const ids: Record<string, number> = {};
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: new Date(D0 - DAY) } });
      const [maint, deployer, stranger, appr1, appr2] = await createUsers(f, ['pymaint', 'pydeployer', 'pystranger', 'pyappr1', 'pyappr2']);
      const corp = await createGroup(f, maint!.token, { name: 'Py Corp', path: 'py-corp', visibility: 'private' });
      const deployers = await createGroup(f, maint!.token, { name: 'Deployers', path: 'deployers', parent_id: corp.id });
      const approvers = await createGroup(f, maint!.token, { name: 'Approvers', path: 'approvers', parent_id: corp.id });
      await addMember(f, 'groups', deployers.id, deployer!.id, 30);
      for (const u of [appr1!, appr2!]) await addMember(f, 'groups', approvers.id, u.id, 20);
      const app = await createProject(f, maint!.token, { name: 'App', path: 'app', namespace_id: corp.id });
      for (const u of [deployer!, stranger!]) await addMember(f, 'projects', app.id, u.id, 30);
      for (const u of [appr1!, appr2!]) await addMember(f, 'projects', app.id, u.id, 20);
      const sha = await commitFiles(f, app.id, 'main', { 'README.md': 'app' });
      Object.assign(ids, { corp: corp.id, deployers: deployers.id, approvers: approvers.id, app: app.id });

      const metrics = await createGroup(f, maint!.token, { name: 'Py Metrics', path: 'py-metrics', visibility: 'private' });
      const team = await createGroup(f, maint!.token, { name: 'Team', path: 'team', parent_id: metrics.id });
      ids.metrics = metrics.id;
      ids.api = (await createProject(f, maint!.token, { name: 'Api', path: 'api', namespace_id: metrics.id })).id;
      ids.web = (await createProject(f, maint!.token, { name: 'Web', path: 'web', namespace_id: team.id })).id;
      for (const p of ['api', 'web']) await commitFiles(f, ids[p]!, 'main', { 'README.md': p });
      history = await seedDoraHistory(f, (at) => f.clock.set(at), maint!.token, { api: ids.api!, web: ids.web! });
      const setupMs = Math.round(performance.now() - t0);

      const run = await runPythonSteps(SCRIPT, {
        FORGELET_URL: f.url,
        MAINT_TOKEN: maint!.token, DEPLOYER_TOKEN: deployer!.token, STRANGER_TOKEN: stranger!.token, APPR1_TOKEN: appr1!.token, APPR2_TOKEN: appr2!.token,
        CORP_ID: String(corp.id), DEPLOYERS_ID: String(deployers.id), APPROVERS_ID: String(approvers.id), APP_ID: String(app.id), SHA: sha,
        METRICS_ID: String(metrics.id), API_ID: String(ids.api), START: SEED_START, END: SEED_END,
      });
      results = run.results;
      const steps = Object.entries(results).filter(([, v]) => typeof v === 'object').map(([k, v]) => `${k}=${v.ms}ms`).join(' ');
      console.log(`[${dialect}] python-gitlab delivery: setup ${setupMs} ms; script ${run.ms} ms (${steps})`);
    });
    after(() => f?.stop());

    it('environments: create (tier guessed), list(search), get, save, stop; an available one cannot be deleted', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('environments');
      assert.deepEqual(s.created, { name: 'review/py', tier: 'development', state: 'available', slug: s.created.slug });
      assert.match(s.created.slug, /^review-py-[0-9a-z]{6}$/);
      assert.deepEqual(s.listed, ['review/py']);
      assert.equal(s.saved_url, 'https://py2.example.com');
      assert.equal(s.last_deployment, null);
      assert.equal(s.stopped, 'stopped');
      assert.deepEqual(s.refused, { type: 'GitlabDeleteError', response_code: 403, message: '403 Forbidden' });
      assert.deepEqual(s.gone, { type: 'GitlabGetError', response_code: 404, message: '404 Not found' });
      const put = s.exchanges.find(([m]: [string]) => m === 'PUT');
      assert.deepEqual(put.slice(2), [200, { external_url: 'https://py2.example.com' }]);
    });

    it('group protected environments through gl.http_*: production with a subgroup deployer and a two-approval rule', () => {
      const s = stepOf('protect');
      assert.deepEqual(s.created, {
        name: 'production',
        deploy_access_levels: [{ id: s.created.deploy_access_levels[0].id, access_level: null, access_level_description: 'Deployers', user_id: null, group_id: ids.deployers, group_inheritance_type: 0 }],
        required_approval_count: 0,
        approval_rules: [{ id: s.created.approval_rules[0].id, user_id: null, group_id: ids.approvers, access_level: null, access_level_description: 'Approvers', required_approvals: 2, group_inheritance_type: 0 }],
      });
      assert.deepEqual(s.conflict, { type: 'GitlabHttpError', response_code: 409, message: "Protected environment 'production' already exists" });
      assert.deepEqual(s.bad_tier, { type: 'GitlabHttpError', response_code: 422, message: ['Name must be one of environment tiers: production, staging, testing, development, other.'] });
      assert.deepEqual(s.edited, [[30, 'Developers + Maintainers']]);
      assert.deepEqual(s.listed, ['production', 'staging']);
      assert.deepEqual(s.shown, s.created);
      assert.deepEqual(s.deleted, [200, 'staging']);
      const post = s.exchanges.find(([m]: [string]) => m === 'POST');
      assert.deepEqual(post, ['POST', `/groups/${ids.corp}/protected_environments`, 201, {
        name: 'production', deploy_access_levels: [{ group_id: ids.deployers }], approval_rules: [{ group_id: ids.approvers, required_approvals: 2 }],
      }]);
    });

    it('deployments: refused for a user not listed; blocked until two approvals; own approval refused', () => {
      const s = stepOf('deploy');
      assert.deepEqual(s.refused, { type: 'GitlabCreateError', response_code: 403, message: '403 Forbidden' });
      assert.deepEqual(s.blocked, { status: 'blocked', pending: 2 });
      assert.deepEqual(s.own, {
        type: 'GitlabDeploymentApprovalError',
        response_code: 400,
        message: 'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.',
      });
      assert.deepEqual(s.first, { user: 'pyappr1', status: 'approved', comment: 'looks good' });
      assert.deepEqual(s.after_first, { status: 'blocked', pending: 1, approvals: ['pyappr1'] });
      assert.deepEqual(s.after_second, { status: 'success', saved: 'success' });
      assert.deepEqual(s.merge_requests, []);
      const approvals = s.exchanges.filter(([m, p]: [string, string]) => m === 'POST' && p.endsWith('/approval'));
      assert.deepEqual(approvals.map(([, , status, body]: [string, string, number, unknown]) => [status, body]), [
        [400, { status: 'approved' }], [201, { status: 'approved', comment: 'looks good' }], [201, { status: 'approved' }],
      ]);
    });

    it('DORA through gl.http_get: every metric, daily, monthly and all, project and group, equals the independent computation', () => {
      const s = stepOf('dora');
      for (const [kind, projects] of [['projects', ['api']], ['groups', ['api', 'web']]] as const) {
        const rows = expectedRows(history, [...projects], ['production']);
        for (const metric of DORA_METRICS) {
          for (const interval of ['daily', 'monthly', 'all']) {
            assertSeries(s.series[`${kind}|${metric}|${interval}`], expectedSeries(metric, interval, rows, SEED_START, SEED_END), `${kind} ${metric} ${interval}`);
          }
        }
      }
      assertSeries(s.series.staging, expectedSeries('deployment_frequency', 'all', expectedRows(history, ['api'], ['production', 'staging']), SEED_START, SEED_END), 'two tiers');
      assert.deepEqual(s.series.bad, { type: 'GitlabHttpError', response_code: 400, message: 'The metric must be one of deployment_frequency,lead_time_for_changes,time_to_restore_service,change_failure_rate.' });
      assert.deepEqual(s.series.bad_tiers, { type: 'GitlabHttpError', response_code: 400, message: 'The environment tiers must be from production, staging, testing, development, other.' });
      const twoTiers = s.exchanges.find(([, p]: [string, string]) => p.includes('environment_tiers=staging'));
      assert.match(twoTiers[1], /environment_tiers=production&environment_tiers=staging/, 'python-gitlab repeats the key without brackets');
    });
  });
}
