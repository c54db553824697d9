import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { createTagIn, createBranchIn } from '../../packages/core/src/domains/repository/index.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2024-01-03T10:00:00.000Z'; // a Wednesday
const MINUTE = 60_000;
const CI = [
  'spec:',
  '  inputs:',
  '    deploy: { type: boolean, default: false }',
  '    envs: { type: array, default: [] }',
  '    n: { type: number, default: 0 }',
  '    s: { default: "" }',
  '    extra: { default: "" }',
  '---',
  'test:',
  '  script: echo hi',
  '',
].join('\n');
const FORBIDDEN = { message: '403 Forbidden' };
const SCHEDULE_NOT_FOUND = { message: '404 Pipeline Schedule Not Found' };
const bad = (message: unknown) => ({ message });

for (const dialect of DIALECTS) {
  describe(`${dialect}: pipeline schedules API`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maint: User, dev: User, dev2: User, reporter: User, guest: User, outsider: User;
    let project: any;
    let nightly: any; // dev's schedule on main

    const path = (rest = '') => `/projects/${project.id}/pipeline_schedules${rest}`;
    const call = (method: string, rest: string, token?: string | null, body?: unknown) => f.api(method, path(rest), { token, body });
    const create = (body: Record<string, unknown>, token: string = dev.token) => call('POST', '', token, body);
    const userBasic = (u: User) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}` });
    const valid = { description: 'Nightly', ref: 'main', cron: '0 1 * * *' };

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { clock, workers: false });
      [maint, dev, dev2, reporter, guest, outsider] = await createUsers(f, ['psmaint', 'psdev', 'psdev2', 'psreporter', 'psguest', 'psoutsider']);
      const group = await createGroup(f, f.rootToken, { name: 'Sched', path: 'sched' });
      project = await createProject(f, f.rootToken, { name: 'App', path: 'app', namespace_id: group.id, visibility: 'private' });
      for (const [u, level] of [[maint, 40], [dev, 30], [dev2, 30], [reporter, 20], [guest, 10]] as const) await addMember(f, 'projects', project.id, u.id, level);
      await commitFiles(f, project.id, 'main', { '.gitlab-ci.yml': CI });
      const ctx = await f.forge.contextFor('root');
      const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
      await ctx.db.transaction().execute(async (trx) => {
        await createBranchIn(trx, ctx, row, 'feature', 'main');
        await createBranchIn(trx, ctx, row, 'same', 'main');
        await createBranchIn(trx, ctx, row, 'prod', 'main');
        await createTagIn(trx, ctx, row, 'v1.0', 'main');
        await createTagIn(trx, ctx, row, 'same', 'main');
      });
      // The first push protected main (GitLab's default); Developers schedule on it here.
      expectStatus(await f.api('DELETE', `/projects/${project.id}/protected_branches/main`), 204);
      expectStatus(await f.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'prod', push_access_level: 40, merge_access_level: 40 } }), 201);
    });
    after(() => f.stop());

    it('creates a schedule owned by the caller, expanding a short branch ref; next_run_at is the next cron instant', async () => {
      const r = await create({ ...valid, inputs: [{ name: 'deploy', value: true }, { name: 'envs', value: ['a', 'b'] }, { name: 'n', value: 1.5 }, { name: 's', value: 'x' }] });
      expectStatus(r, 201);
      nightly = r.body;
      assert.deepEqual(nightly, {
        id: nightly.id,
        description: 'Nightly',
        ref: 'refs/heads/main',
        cron: '0 1 * * *',
        cron_timezone: 'UTC',
        next_run_at: '2024-01-04T01:00:00.000Z',
        active: true,
        created_at: T0,
        updated_at: T0,
        owner: userBasic(dev),
        last_error: null,
        inputs: [
          { name: 'deploy', value: true },
          { name: 'envs', value: ['a', 'b'] },
          { name: 'n', value: 1.5 },
          { name: 's', value: 'x' },
        ],
        last_pipeline: null,
      });
      const job = await f.forge.database.db.selectFrom('queue_jobs').selectAll().where('unique_key', '=', `pipeline_schedules.run:${nightly.id}`).executeTakeFirstOrThrow();
      assert.deepEqual([job.status, job.run_at], ['pending', '2024-01-04T01:00:00.000Z']);
    });

    it('expands tags, keeps full refs, and rejects a short ref that is ambiguous or unknown', async () => {
      const tag = await create({ ...valid, ref: 'v1.0', active: false }, maint.token);
      expectStatus(tag, 201);
      assert.equal(tag.body.ref, 'refs/tags/v1.0');
      assert.equal(tag.body.active, false);
      assert.equal(tag.body.next_run_at, '2024-01-04T01:00:00.000Z', 'computed for inactive schedules too');
      const full = await create({ ...valid, ref: 'refs/heads/feature', cron: ' 30  2 * * 1-5 ' });
      expectStatus(full, 201);
      // Stripped, as GitLab's `strip_attributes!` does; inner spaces stay.
      assert.deepEqual([full.body.ref, full.body.cron, full.body.next_run_at], ['refs/heads/feature', '30  2 * * 1-5', '2024-01-04T02:30:00.000Z']);
      const fullTag = await create({ ...valid, ref: 'refs/tags/same' });
      expectStatus(fullTag, 201);
      assert.equal(fullTag.body.ref, 'refs/tags/same');
      for (const ref of ['same', 'nope']) {
        const r = await create({ ...valid, ref });
        expectStatus(r, 400);
        assert.deepEqual(r.body, bad({ ref: ['is ambiguous'] }));
      }
      for (const id of [tag.body.id, full.body.id, fullTag.body.id]) expectStatus(await call('DELETE', `/${id}`, maint.token), 202);
    });

    it('validates cron, time zone, description and inputs with GitLab messages', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ cron: '61 * * * *' }, bad({ cron: [' is invalid syntax'] })],
        [{ cron: '* * * * * *' }, bad({ cron: [' is invalid syntax'] })],
        [{ cron: '@reboot' }, bad({ cron: [' is invalid syntax'] })],
        [{ cron: '' }, bad({ cron: [' is invalid syntax', "can't be blank"] })],
        [{ cron_timezone: 'Mars/Olympus' }, bad({ cron_timezone: [' is invalid syntax'] })],
        [{ cron_timezone: 'utc' }, bad({ cron_timezone: [' is invalid syntax'] })],
        [{ cron: 'nope', cron_timezone: 'Nowhere' }, bad({ cron: [' is invalid syntax'], cron_timezone: [' is invalid syntax'] })],
        [{ description: ' ' }, bad({ description: ["can't be blank"] })],
        [{ inputs: [{ name: 'a', value: 1 }, { name: 'a', value: 2 }] }, bad({ inputs: ['have duplicate values (a)'] })],
        [{ inputs: Array.from({ length: 21 }, (_, i) => ({ name: `i${i}`, value: i })) }, bad({ inputs: ['exceeds the limit of 20.'] })],
        [{ ref: '' }, { error: 'ref is empty' }],
        [{ active: 'maybe' }, { error: 'active is invalid' }],
        [{ inputs: [{ name: 'a', value: { x: 1 } }] }, { error: 'inputs[0][value] is invalid' }],
        [{ inputs: [{ value: 1 }] }, { error: 'inputs[0][name] is missing' }],
      ];
      for (const [patch, body] of cases) {
        const r = await create({ ...valid, ...patch });
        expectStatus(r, 400);
        assert.deepEqual(r.body, body, JSON.stringify(patch));
      }
      const r = await create({});
      expectStatus(r, 400);
      assert.deepEqual(r.body, { error: 'description is missing, ref is missing, cron is missing' });
      assert.equal((await call('GET', '')).body.length, 1, 'nothing was created');
    });

    it('accepts ActiveSupport and IANA zones and follows daylight saving time', async () => {
      const zones: [string, string, string][] = [
        ['Pacific Time (US & Canada)', '0 9 * * *', '2024-01-03T17:00:00.000Z'], // 09:00 PST
        ['America/Los_Angeles', '0 9 * * *', '2024-01-03T17:00:00.000Z'],
        ['Tokyo', '0 9 * * *', '2024-01-04T00:00:00.000Z'], // 09:00 JST
        ['Asia/Kolkata', '30 16 * * *', '2024-01-03T11:00:00.000Z'], // 16:30 IST
        ['Etc/UTC', '15 10 * * *', '2024-01-03T10:15:00.000Z'],
        ['Kyiv', '0 12 * * *', '2024-01-03T10:00:00.000Z'], // noon EET is now: the next day
      ];
      const created: number[] = [];
      for (const [zone, cron, next] of zones) {
        const r = await create({ ...valid, cron, cron_timezone: zone });
        expectStatus(r, 201);
        created.push(r.body.id);
        assert.equal(r.body.cron_timezone, zone, 'stored as sent');
        assert.equal(r.body.next_run_at, zone === 'Kyiv' ? '2024-01-04T10:00:00.000Z' : next, zone);
      }
      // 09:00 in New York: 14:00Z in winter, 13:00Z once DST starts (2024-03-10) and again after it ends (2024-11-03).
      clock.set(new Date('2024-03-09T15:00:00.000Z'));
      const dst = await create({ ...valid, cron: '0 9 * * *', cron_timezone: 'Eastern Time (US & Canada)' });
      expectStatus(dst, 201);
      assert.equal(dst.body.next_run_at, '2024-03-10T13:00:00.000Z');
      created.push(dst.body.id);
      clock.set(new Date('2024-11-02T14:00:00.000Z'));
      const back = await call('PUT', `/${dst.body.id}`, dev.token, { description: 'DST' });
      expectStatus(back, 200);
      assert.equal(back.body.next_run_at, '2024-11-03T14:00:00.000Z');
      // 01:30 happens twice on 2024-11-03 in New York: the schedule runs once, at the first.
      const twice = await call('PUT', `/${dst.body.id}`, dev.token, { cron: '30 1 * * *', cron_timezone: 'America/New_York' });
      assert.equal(twice.body.next_run_at, '2024-11-03T05:30:00.000Z');
      clock.set(new Date(T0));
      for (const id of created) expectStatus(await call('DELETE', `/${id}`, dev.token), 202);
    });

    it('checks permissions: Reporter reads, Developer creates, protected refs need push or merge rights', async () => {
      expectStatus(await f.api('GET', path(), { token: null }), 401);
      const hidden = await call('GET', '', outsider.token);
      expectStatus(hidden, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const guestList = await call('GET', '', guest.token);
      expectStatus(guestList, 403);
      assert.deepEqual(guestList.body, FORBIDDEN);
      const guestOne = await call('GET', `/${nightly.id}`, guest.token);
      expectStatus(guestOne, 404);
      assert.deepEqual(guestOne.body, SCHEDULE_NOT_FOUND);
      expectStatus(await call('GET', '', reporter.token), 200);
      const rep = await create(valid, reporter.token);
      expectStatus(rep, 403);
      assert.deepEqual(rep.body, FORBIDDEN);
      const prod = await create({ ...valid, ref: 'prod' }, dev.token);
      expectStatus(prod, 400);
      assert.deepEqual(prod.body, bad({ base: ['The current user is not authorized to create the pipeline schedule'] }));
      const ok = await create({ ...valid, ref: 'prod' }, maint.token);
      expectStatus(ok, 201);
      assert.equal(ok.body.ref, 'refs/heads/prod');
      expectStatus(await call('DELETE', `/${ok.body.id}`, maint.token), 202);
      expectStatus(await call('GET', '/abc'), 400);
      assert.deepEqual((await call('GET', '/abc')).body, { error: 'pipeline_schedule_id is invalid' });
      const missing = await call('GET', '/999999');
      expectStatus(missing, 404);
      assert.deepEqual(missing.body, SCHEDULE_NOT_FOUND);
    });

    it('lists newest first with scope and pagination; inputs only for Maintainers and the owner', async () => {
      const off = await create({ ...valid, description: 'Off', active: false }, dev2.token);
      expectStatus(off, 201);
      const all = await call('GET', '', maint.token);
      expectStatus(all, 200);
      assert.deepEqual(all.body.map((s: any) => s.id), [off.body.id, nightly.id]);
      assert.equal(all.headers.get('x-total'), '2');
      const first = all.body[1];
      assert.deepEqual(Object.keys(first), ['id', 'description', 'ref', 'cron', 'cron_timezone', 'next_run_at', 'active', 'created_at', 'updated_at', 'owner', 'last_error', 'inputs']);
      assert.equal(first.last_pipeline, undefined, 'the list has no last_pipeline');
      assert.deepEqual((await call('GET', '?scope=active', maint.token)).body.map((s: any) => s.id), [nightly.id]);
      assert.deepEqual((await call('GET', '?scope=inactive', maint.token)).body.map((s: any) => s.id), [off.body.id]);
      const page = await call('GET', '?per_page=1&page=2', maint.token);
      assert.deepEqual([page.body.map((s: any) => s.id), page.headers.get('x-total-pages')], [[nightly.id], '2']);
      const badScope = await call('GET', '?scope=paused', maint.token);
      expectStatus(badScope, 400);
      assert.deepEqual(badScope.body, { error: 'scope does not have a valid value' });
      // dev owns nightly, dev2 owns off: each sees the inputs of their own schedule only.
      const seen = async (u: User) => (await call('GET', '', u.token)).body.map((s: any) => [s.id, 'inputs' in s]);
      assert.deepEqual(await seen(dev), [[off.body.id, false], [nightly.id, true]]);
      assert.deepEqual(await seen(dev2), [[off.body.id, true], [nightly.id, false]]);
      assert.deepEqual(await seen(reporter), [[off.body.id, false], [nightly.id, false]]);
      assert.deepEqual(await seen(maint), [[off.body.id, true], [nightly.id, true]]);
      expectStatus(await call('DELETE', `/${off.body.id}`, dev2.token), 202);
    });

    it('manages variables: owner writes, Maintainer reads and deletes, keys validated', async () => {
      const v = (body: Record<string, unknown>, token = dev.token) => call('POST', `/${nightly.id}/variables`, token, body);
      const r = await v({ key: 'NEW_VAR', value: 'v' });
      expectStatus(r, 201);
      assert.deepEqual(r.body, { variable_type: 'env_var', key: 'NEW_VAR', value: 'v', raw: false });
      const file = await v({ key: 'CONF', value: 'a=b', variable_type: 'file' });
      expectStatus(file, 201);
      assert.deepEqual(file.body, { variable_type: 'file', key: 'CONF', value: 'a=b', raw: false });
      const errors: [Record<string, unknown>, unknown][] = [
        [{ key: 'bad-key', value: 'x' }, bad({ key: ["can contain only letters, digits and '_'."] })],
        [{ key: 'K'.repeat(256), value: 'x' }, bad({ key: ['is too long (maximum is 255 characters)'] })],
        [{ key: '', value: 'x' }, bad({ key: ["can't be blank", "can contain only letters, digits and '_'."] })],
        [{ key: 'NEW_VAR', value: 'again' }, bad({ key: ['has already been taken'] })],
        [{ key: 'X', value: 'x', variable_type: 'secret' }, { error: 'variable_type does not have a valid value' }],
        [{ key: 'X' }, { error: 'value is missing' }],
      ];
      for (const [body, expected] of errors) {
        const e = await v(body);
        expectStatus(e, 400);
        assert.deepEqual(e.body, expected, JSON.stringify(body));
      }
      expectStatus(await v({ key: 'K'.repeat(255), value: 'x' }), 201);
      // Only the owner (or an admin) updates the schedule, so only they add variables.
      expectStatus(await v({ key: 'M', value: 'x' }, maint.token), 403);
      expectStatus(await v({ key: 'R', value: 'x' }, reporter.token), 403);
      expectStatus(await call('POST', '/999999/variables', dev.token, { key: 'A', value: 'b' }), 404);

      const get = await call('GET', `/${nightly.id}/variables/NEW_VAR`, maint.token);
      expectStatus(get, 200);
      assert.deepEqual(get.body, { variable_type: 'env_var', key: 'NEW_VAR', value: 'v', raw: false });
      expectStatus(await call('GET', `/${nightly.id}/variables/NEW_VAR`, dev2.token), 403);
      expectStatus(await call('GET', `/${nightly.id}/variables/NEW_VAR`, reporter.token), 403);
      const none = await call('GET', `/${nightly.id}/variables/NOPE`, dev.token);
      expectStatus(none, 404);
      assert.deepEqual(none.body, { message: '404 Pipeline Schedule Variable Not Found' });

      // python-gitlab sends the key in the body too.
      const put = await call('PUT', `/${nightly.id}/variables/NEW_VAR`, dev.token, { key: 'NEW_VAR', value: 'v2', variable_type: 'file' });
      expectStatus(put, 200);
      assert.deepEqual(put.body, { variable_type: 'file', key: 'NEW_VAR', value: 'v2', raw: false });
      expectStatus(await call('PUT', `/${nightly.id}/variables/NEW_VAR`, maint.token, { value: 'm' }), 403);
      expectStatus(await call('PUT', `/${nightly.id}/variables/NOPE`, dev.token, { value: 'm' }), 404);

      const details = await call('GET', `/${nightly.id}`, dev.token);
      assert.deepEqual(details.body.variables.map((x: any) => [x.key.slice(0, 10), x.value]), [['NEW_VAR', 'v2'], ['CONF', 'a=b'], ['KKKKKKKKKK', 'x']]);

      const del = await call('DELETE', `/${nightly.id}/variables/${'K'.repeat(255)}`, maint.token);
      expectStatus(del, 202);
      assert.deepEqual(del.body, { variable_type: 'env_var', key: 'K'.repeat(255), value: 'x', raw: false });
      expectStatus(await call('DELETE', `/${nightly.id}/variables/CONF`, dev2.token), 403);
      expectStatus(await call('DELETE', `/${nightly.id}/variables/${'K'.repeat(255)}`, maint.token), 404);
    });

    it('shows one schedule with last_pipeline; variables and inputs only to Maintainers and the owner', async () => {
      const own = await call('GET', `/${nightly.id}`, dev.token);
      expectStatus(own, 200);
      assert.deepEqual(Object.keys(own.body), [
        'id', 'description', 'ref', 'cron', 'cron_timezone', 'next_run_at', 'active', 'created_at', 'updated_at', 'owner', 'last_error', 'inputs', 'last_pipeline', 'variables',
      ]);
      assert.equal(own.body.last_pipeline, null);
      const other = await call('GET', `/${nightly.id}`, dev2.token);
      expectStatus(other, 200);
      assert.equal('variables' in other.body, false);
      assert.equal('inputs' in other.body, false);
      const admin = await call('GET', `/${nightly.id}`);
      assert.deepEqual(admin.body.variables.map((v: any) => v.key), ['NEW_VAR', 'CONF']);
    });

    it('updates as the owner: reschedules, upserts and removes inputs, expands refs', async () => {
      clock.advance(10 * MINUTE);
      const r = await call('PUT', `/${nightly.id}`, dev.token, {
        cron: '*/15 * * * *',
        description: 'Quarterly hour',
        inputs: [{ name: 'deploy', value: false }, { name: 'envs', destroy: true }, { name: 'extra', value: 'y' }, { name: 'ghost', destroy: true }],
      });
      expectStatus(r, 200);
      assert.equal(r.body.cron, '*/15 * * * *');
      assert.equal(r.body.description, 'Quarterly hour');
      assert.equal(r.body.next_run_at, '2024-01-03T10:15:00.000Z');
      assert.equal(r.body.updated_at, '2024-01-03T10:10:00.000Z');
      assert.deepEqual(r.body.inputs, [{ name: 'deploy', value: false }, { name: 'n', value: 1.5 }, { name: 's', value: 'x' }, { name: 'extra', value: 'y' }]);
      assert.equal('variables' in r.body, false, 'variables only on GET');
      const job = await f.forge.database.db.selectFrom('queue_jobs').selectAll().where('unique_key', '=', `pipeline_schedules.run:${nightly.id}`).executeTakeFirstOrThrow();
      assert.equal(job.run_at, '2024-01-03T10:15:00.000Z', 'the run job moves with next_run_at');

      const feature = await call('PUT', `/${nightly.id}`, dev.token, { ref: 'feature' });
      assert.equal(feature.body.ref, 'refs/heads/feature');
      const ambiguous = await call('PUT', `/${nightly.id}`, dev.token, { ref: 'same' });
      expectStatus(ambiguous, 400);
      assert.deepEqual(ambiguous.body, bad({ ref: ['is ambiguous'] }));
      const blank = await call('PUT', `/${nightly.id}`, dev.token, { ref: '' });
      assert.deepEqual([blank.status, blank.body], [400, bad({ ref: ['is ambiguous'] })]);
      const noValue = await call('PUT', `/${nightly.id}`, dev.token, { inputs: [{ name: 'deploy' }] });
      assert.deepEqual([noValue.status, noValue.body], [400, { error: 'inputs[0][value] is missing' }]);
      const badCron = await call('PUT', `/${nightly.id}`, dev.token, { cron: '0 0 31 2 *' });
      assert.deepEqual([badCron.status, badCron.body], [400, bad({ cron: [' is invalid syntax'] })]);
      const toProd = await call('PUT', `/${nightly.id}`, dev.token, { ref: 'prod' });
      assert.deepEqual([toProd.status, toProd.body], [400, bad({ base: ['The current user is not authorized to update the pipeline schedule'] })]);

      // A Maintainer who does not own the schedule must take ownership first; admins may update.
      expectStatus(await call('PUT', `/${nightly.id}`, maint.token, { description: 'x' }), 403);
      expectStatus(await call('PUT', `/${nightly.id}`, dev2.token, { description: 'x' }), 403);
      expectStatus(await call('PUT', `/${nightly.id}`, reporter.token, { description: 'x' }), 403);
      const root = await call('PUT', `/${nightly.id}`, f.rootToken, { ref: 'main', active: false });
      expectStatus(root, 200);
      assert.deepEqual([root.body.ref, root.body.active, root.body.owner.id], ['refs/heads/main', false, dev.id]);
      assert.equal((await f.forge.database.db.selectFrom('queue_jobs').select('id').where('unique_key', '=', `pipeline_schedules.run:${nightly.id}`).execute()).length, 0, 'inactive: no run job');
      const on = await call('PUT', `/${nightly.id}`, dev.token, { active: 'true' });
      assert.equal(on.body.active, true);
      assert.equal((await f.forge.database.db.selectFrom('queue_jobs').select('run_at').where('unique_key', '=', `pipeline_schedules.run:${nightly.id}`).executeTakeFirstOrThrow()).run_at, '2024-01-03T10:15:00.000Z');
    });

    it('takes ownership (201, then 200 when already owner), reschedules, and needs Maintainer or ownership', async () => {
      expectStatus(await call('POST', `/${nightly.id}/take_ownership`, dev2.token, {}), 403);
      expectStatus(await call('POST', `/${nightly.id}/take_ownership`, reporter.token, {}), 403);
      clock.advance(MINUTE);
      const r = await call('POST', `/${nightly.id}/take_ownership`, maint.token, {});
      expectStatus(r, 201);
      assert.deepEqual(r.body.owner, userBasic(maint));
      assert.equal(r.body.updated_at, '2024-01-03T10:11:00.000Z');
      assert.equal('last_pipeline' in r.body, true);
      const again = await call('POST', `/${nightly.id}/take_ownership`, maint.token, {});
      expectStatus(again, 200);
      assert.equal(again.body.updated_at, '2024-01-03T10:11:00.000Z');
      // The old owner (a Developer) may not take it back; as owner the Maintainer updates it.
      expectStatus(await call('POST', `/${nightly.id}/take_ownership`, dev.token, {}), 403);
      expectStatus(await call('PUT', `/${nightly.id}`, maint.token, { description: 'Mine' }), 200);
      expectStatus(await call('PUT', `/${nightly.id}`, dev.token, { description: 'Not mine' }), 403);
    });

    it('plays now as the caller (201), leaving next_run_at alone; lists the schedule pipelines with filters', async () => {
      expectStatus(await call('POST', `/${nightly.id}/play`, reporter.token, {}), 403);
      const before = (await call('GET', `/${nightly.id}`, maint.token)).body;
      const play = await call('POST', `/${nightly.id}/play`, dev.token, {});
      expectStatus(play, 201);
      assert.deepEqual(play.body, { message: '201 Created' });
      expectStatus(await call('POST', `/${nightly.id}/play`, dev.token, {}), 201);
      assert.equal(await f.forge.deps.queue.runDue(), 1, 'two plays by one user before the run: one run');
      clock.advance(MINUTE);
      expectStatus(await call('POST', `/${nightly.id}/play`, maint.token, {}), 201);
      assert.equal(await f.forge.deps.queue.runDue(), 1);
      const after = (await call('GET', `/${nightly.id}`, maint.token)).body;
      assert.equal(after.next_run_at, before.next_run_at);
      assert.equal(after.last_error, null);
      const pipelines = await f.forge.database.db.selectFrom('ci_pipelines').selectAll().where('pipeline_schedule_id', '=', nightly.id).orderBy('id').execute();
      assert.deepEqual(pipelines.map((p) => p.yaml_errors), [null, null]);
      assert.deepEqual(JSON.parse(pipelines[0].inputs), { deploy: false, envs: [], n: 1.5, s: 'x', extra: 'y' });
      assert.deepEqual(pipelines.map((p) => [p.source, p.user_id, p.ref, p.status]), [['schedule', dev.id, 'main', 'pending'], ['schedule', maint.id, 'main', 'pending']]);
      assert.deepEqual(after.last_pipeline, {
        id: pipelines[1].id,
        iid: pipelines[1].iid,
        project_id: project.id,
        sha: pipelines[1].sha,
        ref: 'main',
        status: 'pending',
        source: 'schedule',
        created_at: pipelines[1].created_at,
        updated_at: pipelines[1].updated_at,
        web_url: `${f.url}/sched/app/-/pipelines/${pipelines[1].id}`,
      });

      // A third pipeline, on a tag, and statuses and times to filter on.
      expectStatus(await call('PUT', `/${nightly.id}`, maint.token, { ref: 'v1.0' }), 200);
      clock.advance(MINUTE);
      expectStatus(await call('POST', `/${nightly.id}/play`, maint.token, {}), 201);
      await f.forge.deps.queue.runDue();
      assert.equal((await call('GET', `/${nightly.id}`, maint.token)).body.last_error, null);
      const ids = (await f.forge.database.db.selectFrom('ci_pipelines').select('id').where('pipeline_schedule_id', '=', nightly.id).orderBy('id').execute()).map((p) => p.id);
      assert.equal(ids.length, 3);
      const db = f.forge.database.db;
      await db.updateTable('ci_pipelines').set({ status: 'success', updated_at: '2024-01-03T12:00:00.000Z' }).where('id', '=', ids[0]).execute();
      await db.updateTable('ci_pipelines').set({ status: 'running', updated_at: '2024-01-03T11:00:00.000Z' }).where('id', '=', ids[1]).execute();
      const list = async (query: string, token = reporter.token) => {
        const r = await call('GET', `/${nightly.id}/pipelines${query}`, token);
        expectStatus(r, 200);
        return r.body.map((p: any) => p.id);
      };
      assert.deepEqual(await list(''), ids);
      assert.deepEqual(await list('?sort=desc'), [...ids].reverse());
      assert.deepEqual(await list('?status=running'), [ids[1]]);
      assert.deepEqual(await list('?scope=finished'), [ids[0]]);
      assert.deepEqual(await list('?scope=running'), [ids[1]]);
      assert.deepEqual(await list('?scope=pending'), [ids[2]]);
      assert.deepEqual(await list('?scope=branches'), [ids[1]], 'the newest per branch');
      assert.deepEqual(await list('?scope=tags'), [ids[2]]);
      assert.deepEqual(await list('?updated_after=2024-01-03T11:00:00Z'), [ids[0], ids[1]]);
      assert.deepEqual(await list('?updated_before=2024-01-03T11:00:00Z&sort=desc'), [ids[2], ids[1]]);
      assert.deepEqual(await list('?created_after=2024-01-03T10:12:00Z'), [ids[1], ids[2]]);
      assert.deepEqual(await list('?created_before=2024-01-03T10:12:00Z'), [ids[0], ids[1]]);
      assert.deepEqual(await list('?per_page=1&page=3'), [ids[2]]);
      const first = (await call('GET', `/${nightly.id}/pipelines`, reporter.token)).body[0];
      assert.deepEqual(Object.keys(first), ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url']);
      for (const [query, error] of [
        ['?status=done', 'status does not have a valid value'],
        ['?scope=all', 'scope does not have a valid value'],
        ['?sort=up', 'sort does not have a valid value'],
        ['?updated_after=yesterday', 'updated_after is invalid'],
      ]) {
        const r = await call('GET', `/${nightly.id}/pipelines${query}`);
        assert.deepEqual([r.status, r.body], [400, { error }]);
      }
      expectStatus(await call('GET', `/${nightly.id}/pipelines`, guest.token), 404);
    });

    it('deletes (Maintainer or owner) answering the schedule; its pipelines stay, unlinked', async () => {
      expectStatus(await call('DELETE', `/${nightly.id}`, dev.token), 403);
      expectStatus(await call('DELETE', `/${nightly.id}`, reporter.token), 403);
      const shown = (await call('GET', `/${nightly.id}`, maint.token)).body;
      const del = await call('DELETE', `/${nightly.id}`, maint.token);
      expectStatus(del, 202);
      const { variables: _v, ...withoutVariables } = shown;
      assert.deepEqual(del.body, withoutVariables);
      expectStatus(await call('GET', `/${nightly.id}`, maint.token), 404);
      expectStatus(await call('DELETE', `/${nightly.id}`, maint.token), 404);
      const db = f.forge.database.db;
      assert.equal((await db.selectFrom('ci_pipelines').select('id').where('pipeline_schedule_id', '=', nightly.id).execute()).length, 0);
      assert.equal((await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).execute()).length, 3);
      for (const table of ['ci_pipeline_schedule_variables', 'ci_pipeline_schedule_inputs'] as const) {
        assert.equal((await db.selectFrom(table).select('id').where('pipeline_schedule_id', '=', nightly.id).execute()).length, 0, table);
      }
      assert.equal((await db.selectFrom('queue_jobs').select('id').where('unique_key', '=', `pipeline_schedules.run:${nightly.id}`).where('status', '=', 'pending').execute()).length, 0);
    });
  });
}
