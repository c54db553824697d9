import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client environments, deployments, group protected environments, DORA`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let api: Forgelet;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };
    let sha: string;
    let approver: { id: number; username: string; token: string };
    let approverApi: Forgelet;

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      api = clientFor(f);
      group = await api.groups.create({ name: 'Ops', path: 'ops' });
      project = await api.projects.create({ name: 'Svc', namespace_id: group.id });
      sha = await commitFiles(f, project.id, 'main', { 'README.md': 'svc' });
      approver = await f.createUser('cliapprover');
      await api.projectMembers.add(project.id, { user_id: approver.id, access_level: 20 });
      approverApi = clientFor(f, { token: approver.token });
    });
    after(() => f.stop());

    it('environments: create, all, show, edit, stop, remove', async () => {
      const made = await api.environments.create(project.path_with_namespace, 'review/one', { external_url: 'https://one.example.com' });
      assert.deepEqual([made.name, made.tier, made.state], ['review/one', 'development', 'available']);
      const prod = await api.environments.create(project.id, 'prod-eu', { tier: 'production' });
      assert.deepEqual((await api.environments.all(project.id).toArray()).map((e) => e.name), ['review/one', 'prod-eu']);
      assert.deepEqual((await api.environments.all(project.id, { search: 'view' }).toArray()).map((e) => e.id), [made.id]);
      const shown = await api.environments.show(project.id, prod.id);
      assert.equal(shown.last_deployment, null);
      const edited = await api.environments.edit(project.id, made.id, { description: 'first' });
      assert.equal(edited.description, 'first');
      assert.equal((await api.environments.stop(project.id, made.id)).state, 'stopped');
      await api.environments.remove(project.id, made.id);
      const gone = await apiError(api.environments.show(project.id, made.id));
      assert.deepEqual([gone.status, gone.message], [404, '404 Not found']);
    });

    it('deployments: create, edit, all (with dates), show, mergeRequests, remove', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const dep = await recorded.deployments.create(project.id, { environment: 'prod-eu', sha, ref: 'main', tag: false, status: 'running' });
      assert.deepEqual(JSON.parse(String(sent[0]!.body)), { environment: 'prod-eu', sha, ref: 'main', tag: false, status: 'running' });
      assert.deepEqual([dep.status, dep.pending_approval_count, dep.environment.name], ['running', 0, 'prod-eu']);
      const done = await recorded.deployments.edit(project.id, dep.id, 'success');
      assert.equal(done.status, 'success');
      const listed = await recorded.deployments.all(project.id, { status: 'success', order_by: 'finished_at', finished_after: new Date('2024-01-01T00:00:00Z') }).toArray();
      assert.deepEqual(listed.map((d) => d.id), [dep.id]);
      assert.match(sent[sent.length - 1]!.url, /finished_after=2024-01-01T00%3A00%3A00.000Z/);
      assert.deepEqual(await recorded.deployments.show(project.id, dep.id), done);
      assert.deepEqual(await recorded.deployments.mergeRequests(project.id, dep.id).toArray(), []);
      const again = await api.deployments.create(project.id, { environment: 'prod-eu', sha, ref: 'main', tag: false, status: 'failed' });
      await api.deployments.remove(project.id, again.id);
      const bad = await apiError(api.deployments.edit(project.id, dep.id, 'running'));
      assert.deepEqual([bad.status, bad.body], [400, { message: { status: ['cannot transition via "run"'] } }]);
    });

    it('group protected environments: protect, show, all, edit, unprotect; approvals through deployments.approval', async () => {
      const approvers = await api.groups.create({ name: 'Approvers', path: 'approvers', parent_id: group.id });
      await api.groupMembers.add(approvers.id, { user_id: approver.id, access_level: 20 });
      const pe = await api.groupProtectedEnvironments.protect(group.full_path, 'production', [{ access_level: 40 }], { approval_rules: [{ group_id: approvers.id, required_approvals: 1 }] });
      assert.deepEqual([pe.name, pe.deploy_access_levels[0]!.access_level_description, pe.approval_rules[0]!.access_level_description], ['production', 'Maintainers', 'Approvers']);
      assert.deepEqual(await api.groupProtectedEnvironments.show(group.id, 'production'), pe);
      assert.deepEqual((await api.groupProtectedEnvironments.all(group.id).toArray()).map((e) => e.name), ['production']);
      const edited = await api.groupProtectedEnvironments.edit(group.id, 'production', { deploy_access_levels: [{ access_level: 30 }], required_approval_count: 0 });
      assert.deepEqual(edited.deploy_access_levels.map((l) => l.access_level), [40, 30]);

      const blocked = await api.deployments.create(project.id, { environment: 'prod-eu', sha, ref: 'main', tag: false, status: 'running' });
      assert.deepEqual([blocked.status, blocked.pending_approval_count], ['blocked', 1]);
      const approval = await approverApi.deployments.approval(project.id, blocked.id, 'approved', { comment: 'ok' });
      assert.deepEqual([approval.user.username, approval.status, approval.comment], ['cliapprover', 'approved', 'ok']);
      assert.equal((await api.deployments.show(project.id, blocked.id)).status, 'running');
      assert.equal((await api.deployments.edit(project.id, blocked.id, 'success')).status, 'success');

      const removed = await api.groupProtectedEnvironments.unprotect(group.id, 'production');
      assert.deepEqual(removed, edited);
      const missing = await apiError(api.groupProtectedEnvironments.show(group.id, 'production'));
      assert.equal(missing.status, 404);
    });

    it('DORA: project and group series, environment_tiers sent as an array', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const points = await recorded.doraMetrics.project(project.id, 'deployment_frequency', { interval: 'all', environment_tiers: ['production', 'staging'] });
      assert.deepEqual(points, [{ date: null, value: 2 }]);
      assert.match(sent[0]!.url, /dora\/metrics\?metric=deployment_frequency&interval=all&environment_tiers%5B%5D=production&environment_tiers%5B%5D=staging$/);
      const daily = await recorded.doraMetrics.group(group.full_path, 'deployment_frequency');
      assert.deepEqual(daily, [{ date: '2024-06-15', value: 2 }]);
      const refused = await apiError(approverApi.doraMetrics.group(group.id, 'lead_time_for_changes'));
      assert.deepEqual([refused.status, refused.message], [401, 'You do not have permission to access dora metrics.']);
      const bad = await apiError(api.doraMetrics.project(project.id, 'deployment_frequency', { start_date: '2024-06-15', end_date: '2024-06-01' }));
      assert.deepEqual([bad.status, bad.message], [400, 'The start date must be earlier than the end date.']);
    });
  });
}
