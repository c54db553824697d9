/**
 * DORA metrics over HTTP from a seeded history: 30 deployments (production and staging, some
 * failed, one finishing after midnight), 10 merged merge requests and 4 incidents over 60
 * days, all made through the API with a stepped clock, plus a second project in a subgroup.
 * Every metric, daily, monthly and all, for the project and the group, equals what this
 * file computes from the same records; the parameter errors, defaults and refusals are
 * GitLab's; the daily table holds one row per project, tier and day with activity.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { D0, DAY, DORA_METRICS as METRICS, assertSeries, day, expectedRows, expectedSeries as series, seedDoraHistory, type DoraHistory } from './delivery-support.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const DENIED = { message: 'You do not have permission to access dora metrics.' };

for (const dialect of DIALECTS) {
  describe(`${dialect}: DORA metrics`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maint: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    const ids: Record<string, number> = {};
    let history: DoraHistory;
    let today = '';

    const metrics = (path: string, query: string, token: string | null = reporter.token) => f.api('GET', `${path}/dora/metrics${query}`, { token });

    before(async () => {
      clock = fixedClock(new Date(D0 - DAY).toISOString());
      f = await startTestServer(dialect, { clock });
      [maint, reporter, guest, outsider] = await createUsers(f, ['doramaint', 'dorarep', 'doraguest', 'doraout']);
      group = await createGroup(f, maint.token, { name: 'Metrics', path: 'metrics', visibility: 'private' });
      const team = await createGroup(f, maint.token, { name: 'Team', path: 'team', parent_id: group.id });
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
      ids.api = (await createProject(f, maint.token, { name: 'Api', path: 'api', namespace_id: group.id })).id;
      ids.web = (await createProject(f, maint.token, { name: 'Web', path: 'web', namespace_id: team.id })).id;
      for (const p of ['api', 'web']) await commitFiles(f, ids[p]!, 'main', { 'README.md': p });

      history = await seedDoraHistory(f, (at) => clock.set(at, true), maint.token, { api: ids.api!, web: ids.web! });
      today = day(clock.now().getTime());
    });
    after(() => f.stop());

    it('the daily table holds one row per project, tier and day with activity', async () => {
      const db = f.forge.database.db;
      const rows = await db.selectFrom('dora_daily_metrics').selectAll().where('project_id', '=', ids.api!).execute();
      const expected = expectedRows(history, ['api'], ['production', 'staging']);
      assert.equal(rows.length, expected.length);
      const byKey = new Map(rows.map((r) => [`${r.environment_tier}|${r.date}`, r]));
      for (const tier of ['production', 'staging']) {
        for (const e of expectedRows(history, ['api'], [tier])) {
          const r = byKey.get(`${tier}|${e.date}`);
          assert.ok(r, `${tier} ${e.date}`);
          assert.equal(Number(r!.deployment_frequency), e.df, `${tier} ${e.date} df`);
          assert.equal(r!.incidents_count === null ? null : Number(r!.incidents_count), e.incidents, `${tier} ${e.date} incidents`);
        }
      }
    });

    it('project: all four metrics, daily, monthly and all, equal the independent computation', async () => {
      const start = day(D0);
      const end = day(D0 + 59 * DAY);
      for (const tiers of [['production'], ['staging'], ['production', 'staging']]) {
        const rows = expectedRows(history, ['api'], tiers);
        for (const metric of METRICS) {
          for (const interval of ['daily', 'monthly', 'all']) {
            const query = `?metric=${metric}&interval=${interval}&start_date=${start}&end_date=${end}${tiers.map((t) => `&environment_tiers[]=${t}`).join('')}`;
            const r = await metrics(`/projects/${ids.api}`, query);
            expectStatus(r, 200);
            assertSeries(r.body, series(metric, interval, rows, start, end), `${tiers} ${metric} ${interval}`);
          }
        }
      }
      // spot checks of the seeded history, by hand
      const all = async (metric: string) => (await metrics(`/projects/${ids.api}`, `?metric=${metric}&interval=all&start_date=${start}&end_date=${end}`)).body;
      assert.deepEqual(await all('deployment_frequency'), [{ date: null, value: 19 }]);
      const cfr = (await all('change_failure_rate'))[0].value;
      assert.ok(Math.abs(cfr - 4 / 19) < 1e-9);
      // restore: 5 h and 30 h in March, 2 h and 50 h in April; monthly = median of the daily medians
      const ttrs = (await metrics(`/projects/${ids.api}`, `?metric=time_to_restore_service&interval=monthly&start_date=${start}&end_date=${end}`)).body;
      assert.deepEqual(ttrs, [{ date: '2024-03-01', value: (5 + 30) * 1800 }, { date: '2024-04-01', value: (2 + 50) * 1800 }]);
    });

    it('defaults: daily, production, three months back to today; ranges cut the rows', async () => {
      const rows = expectedRows(history, ['api'], ['production']);
      const r = await metrics(`/projects/${ids.api}`, '?metric=deployment_frequency');
      expectStatus(r, 200);
      assert.equal(today, '2024-04-30');
      assertSeries(r.body, series('deployment_frequency', 'daily', rows, '2024-01-30', today), 'defaults');
      const cut = await metrics(`/projects/${ids.api}`, '?metric=lead_time_for_changes&start_date=2024-03-10&end_date=2024-04-05&interval=monthly');
      assertSeries(cut.body, series('lead_time_for_changes', 'monthly', rows, '2024-03-10', '2024-04-05'), 'cut');
      const empty = await metrics(`/projects/${ids.api}`, '?metric=time_to_restore_service&start_date=2023-01-01&end_date=2023-02-01&interval=all');
      assert.deepEqual(empty.body, [{ date: null, value: null }]);
      const none = await metrics(`/projects/${ids.api}`, '?metric=deployment_frequency&start_date=2023-01-01&end_date=2023-02-01');
      assert.deepEqual(none.body, []);
    });

    it('group: every project below it', async () => {
      const start = day(D0);
      const end = day(D0 + 59 * DAY);
      const rows = expectedRows(history, ['api', 'web'], ['production']);
      for (const metric of METRICS) {
        for (const interval of ['daily', 'monthly', 'all']) {
          const r = await metrics(`/groups/${group.id}`, `?metric=${metric}&interval=${interval}&start_date=${start}&end_date=${end}`);
          expectStatus(r, 200);
          assertSeries(r.body, series(metric, interval, rows, start, end), `group ${metric} ${interval}`);
        }
      }
      const sub = await metrics(`/groups/${encodeURIComponent('metrics/team')}`, `?metric=deployment_frequency&interval=all&start_date=${start}&end_date=${end}`);
      assert.deepEqual(sub.body, [{ date: null, value: 3 }]);
    });

    it('parameter errors: 400 with GitLab messages', async () => {
      const cases: [string, unknown][] = [
        ['', { error: 'metric is missing' }],
        ['?metric=velocity', { message: 'The metric must be one of deployment_frequency,lead_time_for_changes,time_to_restore_service,change_failure_rate.' }],
        ['?metric=deployment_frequency&start_date=2024-04-01&end_date=2024-03-01', { message: 'The start date must be earlier than the end date.' }],
        ['?metric=deployment_frequency&start_date=2024-03-01&end_date=2024-03-01', { message: 'The start date must be earlier than the end date.' }],
        ['?metric=deployment_frequency&start_date=2023-01-01&end_date=2024-03-01', { message: 'Date range must be shorter than 180 days.' }],
        ['?metric=deployment_frequency&interval=weekly', { message: 'The interval must be one of all,monthly,daily.' }],
        ['?metric=deployment_frequency&environment_tiers[]=prod', { message: 'The environment tiers must be from production, staging, testing, development, other.' }],
        ['?metric=deployment_frequency&start_date=someday', { error: 'start_date is invalid' }],
      ];
      for (const [query, body] of cases) {
        const r = await metrics(`/projects/${ids.api}`, query);
        assert.deepEqual([r.status, r.body], [400, body], query);
      }
      const edge = await metrics(`/projects/${ids.api}`, '?metric=deployment_frequency&start_date=2024-01-01&end_date=2024-06-29');
      expectStatus(edge, 200);
    });

    it('Reporter and up, Ultimate: others get 401 with the message; hidden projects 404', async () => {
      const q = '?metric=deployment_frequency';
      assert.deepEqual(await metrics(`/projects/${ids.api}`, q, guest.token).then((r) => [r.status, r.body]), [401, DENIED]);
      assert.deepEqual(await metrics(`/groups/${group.id}`, q, guest.token).then((r) => [r.status, r.body]), [401, DENIED]);
      assert.deepEqual(await metrics(`/projects/${ids.api}`, q, outsider.token).then((r) => [r.status, r.body]), [404, { message: '404 Project Not Found' }]);
      assert.deepEqual(await metrics(`/groups/${group.id}`, q, null).then((r) => [r.status, r.body]), [404, { message: '404 Group Not Found' }]);
      assert.deepEqual(await metrics(`/projects/${ids.api}`, '', guest.token).then((r) => [r.status, r.body]), [400, { error: 'metric is missing' }]);
      f.forge.deps.config.tier = 'premium';
      try {
        assert.deepEqual(await metrics(`/projects/${ids.api}`, q, maint.token).then((r) => [r.status, r.body]), [401, DENIED]);
      } finally {
        f.forge.deps.config.tier = 'ultimate';
      }
      const open = await createGroup(f, maint.token, { name: 'Open', path: 'open', visibility: 'public' });
      const pub = await createProject(f, maint.token, { name: 'Pub', path: 'pub', namespace_id: open.id, visibility: 'public' });
      assert.deepEqual(await metrics(`/projects/${pub.id}`, q, null).then((r) => [r.status, r.body]), [401, DENIED]);
      assert.deepEqual(await metrics(`/groups/${open.id}`, q, outsider.token).then((r) => [r.status, r.body]), [401, DENIED]);
      assert.deepEqual(await metrics(`/projects/${pub.id}`, q, maint.token).then((r) => [r.status, r.body]), [200, []]);
    });

    it('a reopened and a deleted incident leave the days they touched', async () => {
      const db = f.forge.database.db;
      const before = await db.selectFrom('dora_daily_metrics').selectAll().where('project_id', '=', ids.web!).orderBy('date').execute();
      const issue = (await f.api('GET', `/projects/${ids.web}/issues?issue_type=incident`, { token: maint.token })).body[0];
      expectStatus(await f.api('PUT', `/projects/${ids.web}/issues/${issue.iid}`, { token: maint.token, body: { state_event: 'reopen' } }), 200);
      const closedDay = issue.closed_at.slice(0, 10);
      const reopened = await db.selectFrom('dora_daily_metrics').selectAll().where('project_id', '=', ids.web!).where('date', '=', closedDay).executeTakeFirstOrThrow();
      assert.equal(reopened.time_to_restore_service_in_seconds, null);
      expectStatus(await f.api('DELETE', `/projects/${ids.web}/issues/${issue.iid}`, { token: maint.token }), 204);
      const createdDay = issue.created_at.slice(0, 10);
      const deleted = await db.selectFrom('dora_daily_metrics').selectAll().where('project_id', '=', ids.web!).where('date', '=', createdDay).executeTakeFirstOrThrow();
      assert.equal(Number(deleted.incidents_count), 0);
      assert.equal(before.length, (await db.selectFrom('dora_daily_metrics').selectAll().where('project_id', '=', ids.web!).execute()).length);
    });
  });
}
