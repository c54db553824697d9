/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: Environments, Deployments (with
 * setApproval), GroupProtectedEnvironments, ProjectDORA4Metrics and GroupDORA4Metrics.
 * Production is protected at a group with a subgroup as deployer and a two-approval rule: a
 * user it does not list is refused (403), a listed deployer's deployment waits blocked until
 * approved twice. The DORA history (30 deployments, 10 merged merge requests, 4 incidents over
 * 60 days) is seeded through the API with a stepped clock; every metric gitbeaker reads
 * equals what this file computes from the same records.
 *
 * GroupProtectedEnvironments does not encode a path-style group id (REAL-CLIENTS.md), so it is
 * called with numeric ids here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
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
  type Point,
} from '../server/delivery-support.js';
import { gitbeakerFailure, recordFetch } from './support.js';

type Client = InstanceType<typeof Gitlab>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 environments, deployments, protected environments, DORA`, () => {
    let f: ServedForgelet;
    const as: Record<string, Client> = {};
    const ids: Record<string, number> = {};
    let sha: string;
    let history: DoraHistory;

    before(async () => {
      f = await startServed(dialect, { clock: { now: new Date(D0 - DAY) } });
      const users = await createUsers(f, ['gbmaint', 'gbdeployer', 'gbstranger', 'gbappr1', 'gbappr2']);
      for (const u of users) as[u.username] = new Gitlab({ host: f.url, token: u.token });
      const [maint, deployer, stranger, appr1, appr2] = users;
      const corp = await createGroup(f, maint!.token, { name: 'GB Corp', path: 'gb-corp', visibility: 'private' });
      const deployers = await createGroup(f, maint!.token, { name: 'Deployers', path: 'deployers', parent_id: corp.id });
      const approvers = await createGroup(f, maint!.token, { name: 'Approvers', path: 'approvers', parent_id: corp.id });
      await addMember(f, 'groups', deployers.id, deployer!.id, 30);
      for (const u of [appr1!, appr2!]) await addMember(f, 'groups', approvers.id, u.id, 20);
      const app = await createProject(f, maint!.token, { name: 'App', path: 'app', namespace_id: corp.id });
      for (const u of [deployer!, stranger!]) await addMember(f, 'projects', app.id, u.id, 30);
      for (const u of [appr1!, appr2!]) await addMember(f, 'projects', app.id, u.id, 20);
      sha = await commitFiles(f, app.id, 'main', { 'README.md': 'app' });
      Object.assign(ids, { maint: maint!.id, corp: corp.id, deployers: deployers.id, approvers: approvers.id, app: app.id });

      const metrics = await createGroup(f, maint!.token, { name: 'GB Metrics', path: 'gb-metrics', visibility: 'private' });
      const team = await createGroup(f, maint!.token, { name: 'Team', path: 'team', parent_id: metrics.id });
      ids.metrics = metrics.id;
      ids.api = (await createProject(f, maint!.token, { name: 'Api', path: 'api', namespace_id: metrics.id })).id;
      ids.web = (await createProject(f, maint!.token, { name: 'Web', path: 'web', namespace_id: team.id })).id;
      for (const p of ['api', 'web']) await commitFiles(f, ids[p]!, 'main', { 'README.md': p });
      history = await seedDoraHistory(f, (at) => f.clock.set(at), maint!.token, { api: ids.api!, web: ids.web! });
    });
    after(() => f?.stop());

    it('Environments: create, all, show, edit, stop, remove', async () => {
      const gb = as.gbmaint!;
      const env: any = await gb.Environments.create(ids.app!, 'review/gb', { externalUrl: 'https://gb.example.com' } as any);
      assert.deepEqual([env.name, env.tier, env.external_url], ['review/gb', 'development', 'https://gb.example.com']);
      const all: any[] = await gb.Environments.all(ids.app!, { search: 'review' } as any);
      assert.deepEqual(all.map((e) => e.id), [env.id]);
      const shown: any = await gb.Environments.show(ids.app!, env.id);
      assert.equal(shown.last_deployment, null);
      const edited: any = await gb.Environments.edit(ids.app!, env.id, { tier: 'staging' } as any);
      assert.equal(edited.tier, 'staging');
      const refused = await gitbeakerFailure(gb.Environments.remove(ids.app!, env.id));
      assert.deepEqual(refused, { status: 403, message: '403 Forbidden' });
      const stopped: any = await gb.Environments.stop(ids.app!, env.id);
      assert.equal(stopped.state, 'stopped');
      await gb.Environments.remove(ids.app!, env.id);
      assert.deepEqual(await gitbeakerFailure(gb.Environments.show(ids.app!, env.id)), { status: 404, message: '404 Not found' });
    });

    it('GroupProtectedEnvironments: production with a subgroup deployer and a two-approval rule; show, all, edit, remove (200)', async () => {
      const gb = as.gbmaint!;
      const recorder = recordFetch();
      let created: any;
      try {
        created = await gb.GroupProtectedEnvironments.create(ids.corp!, 'production', [{ groupId: ids.deployers } as any], {
          approvalRules: [{ groupId: ids.approvers, requiredApprovals: 2 } as any],
        });
      } finally {
        recorder.restore();
      }
      assert.deepEqual(recorder.exchanges, [['POST', `/groups/${ids.corp}/protected_environments`, 201]]);
      assert.deepEqual(created, {
        name: 'production',
        deploy_access_levels: [{ id: created.deploy_access_levels[0].id, access_level: null, access_level_description: 'Deployers', user_id: null, group_id: ids.deployers, group_inheritance_type: 0 }],
        required_approval_count: 0,
        approval_rules: [{ id: created.approval_rules[0].id, user_id: null, group_id: ids.approvers, access_level: null, access_level_description: 'Approvers', required_approvals: 2, group_inheritance_type: 0 }],
      });
      assert.deepEqual(await gb.GroupProtectedEnvironments.show(ids.corp!, 'production'), created);
      const staging: any = await gb.GroupProtectedEnvironments.create(ids.corp!, 'staging', [{ accessLevel: 40 } as any]);
      const edited: any = await gb.GroupProtectedEnvironments.edit(ids.corp!, 'staging', {
        deployAccessLevels: [{ id: staging.deploy_access_levels[0].id, _destroy: true } as any, { userId: ids.maint } as any],
      });
      assert.deepEqual(edited.deploy_access_levels.map((l: any) => l.access_level_description), ['gbmaint']);
      assert.deepEqual(((await gb.GroupProtectedEnvironments.all(ids.corp!)) as any[]).map((e) => e.name), ['production', 'staging']);
      const removed = await gb.GroupProtectedEnvironments.remove(ids.corp!, 'staging');
      assert.deepEqual(removed, edited, 'DELETE answers 200 with the protection as it was');
      const conflict = await gitbeakerFailure(gb.GroupProtectedEnvironments.create(ids.corp!, 'production', [{ accessLevel: 40 } as any]));
      assert.deepEqual(conflict, { status: 409, message: "Protected environment 'production' already exists" });
      // a Developer of a project in the group sees the group, but does not maintain it
      const refused = await gitbeakerFailure(as.gbstranger!.GroupProtectedEnvironments.all(ids.corp!));
      assert.deepEqual(refused, { status: 403, message: '403 Forbidden' });
    });

    it('Deployments: a user the protection does not list is refused; a deployer waits blocked until two setApproval calls', async () => {
      const refused = await gitbeakerFailure(as.gbstranger!.Deployments.create(ids.app!, 'production', sha, 'main', false, { status: 'running' } as any));
      assert.deepEqual(refused, { status: 403, message: '403 Forbidden' });
      const dep: any = await as.gbdeployer!.Deployments.create(ids.app!, 'production', sha, 'main', false, { status: 'running' } as any);
      assert.deepEqual([dep.status, dep.pending_approval_count, dep.user.username], ['blocked', 2, 'gbdeployer']);
      const own = await gitbeakerFailure(as.gbdeployer!.Deployments.setApproval(ids.app!, dep.id, 'approved'));
      assert.deepEqual(own, { status: 400, message: 'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.' });
      const first: any = await as.gbappr1!.Deployments.setApproval(ids.app!, dep.id, 'approved', { comment: 'ok' } as any);
      assert.deepEqual([first.user.username, first.status, first.comment], ['gbappr1', 'approved', 'ok']);
      const waiting: any = await as.gbdeployer!.Deployments.show(ids.app!, dep.id);
      assert.deepEqual([waiting.status, waiting.pending_approval_count, waiting.approval_summary.rules[0].deployment_approvals.length], ['blocked', 1, 1]);
      await as.gbappr2!.Deployments.setApproval(ids.app!, dep.id, 'approved');
      const running: any = await as.gbdeployer!.Deployments.show(ids.app!, dep.id);
      assert.deepEqual([running.status, running.pending_approval_count, running.approvals.map((a: any) => a.user.username)], ['running', 0, ['gbappr1', 'gbappr2']]);
      const done: any = await as.gbdeployer!.Deployments.edit(ids.app!, dep.id, 'success');
      assert.equal(done.status, 'success');
      const listed: any[] = await as.gbappr1!.Deployments.all(ids.app!, { environment: 'production', status: 'success' } as any);
      assert.deepEqual(listed.map((d) => d.id), [dep.id]);
      assert.deepEqual(await as.gbappr1!.Deployments.allMergeRequests(ids.app!, dep.id), []);
    });

    it('ProjectDORA4Metrics and GroupDORA4Metrics: every metric, daily, monthly and all, equals the independent computation', async () => {
      const gb = as.gbmaint!;
      for (const [kind, projects] of [['project', ['api']], ['group', ['api', 'web']]] as const) {
        const rows = expectedRows(history, [...projects], ['production']);
        for (const metric of DORA_METRICS) {
          for (const interval of ['daily', 'monthly', 'all']) {
            const options = { startDate: SEED_START, endDate: SEED_END, interval, environmentTiers: ['production'] } as any;
            const points = (kind === 'project'
              ? await gb.ProjectDORA4Metrics.all(ids.api!, metric, options)
              : await gb.GroupDORA4Metrics.all(ids.metrics!, metric, options)) as unknown as Point[];
            assertSeries(points, expectedSeries(metric, interval, rows, SEED_START, SEED_END), `${kind} ${metric} ${interval}`);
          }
        }
      }
      const recorder = recordFetch();
      let both: Point[];
      try {
        both = (await gb.ProjectDORA4Metrics.all(ids.api!, 'deployment_frequency', { startDate: SEED_START, endDate: SEED_END, interval: 'all', environmentTiers: ['production', 'staging'] } as any)) as unknown as Point[];
      } finally {
        recorder.restore();
      }
      assertSeries(both, expectedSeries('deployment_frequency', 'all', expectedRows(history, ['api'], ['production', 'staging']), SEED_START, SEED_END), 'two tiers');
      assert.match(recorder.exchanges[0]![1], /environment_tiers%5B%5D=production&environment_tiers%5B%5D=staging/);
      const bad = await gitbeakerFailure(gb.ProjectDORA4Metrics.all(ids.api!, 'speed' as any));
      assert.deepEqual(bad, { status: 400, message: 'The metric must be one of deployment_frequency,lead_time_for_changes,time_to_restore_service,change_failure_rate.' });
    });
  });
}
