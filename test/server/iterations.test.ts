import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { scheduleCadenceIterations } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2024-01-03T10:00:00.000Z'; // a Wednesday
const WEEK = 7 * 86_400_000;
const FORBIDDEN = { message: '403 Forbidden' };
const GROUP_NOT_FOUND = { message: '404 Group Not Found' };

const enc = (ref: string | number) => encodeURIComponent(String(ref));
const dates = (list: any[]) => list.map((i) => [i.start_date, i.due_date, i.state, i.sequence]);

/** Rows of every table the iteration endpoints write. */
async function rowCounts(f: TestForgelet): Promise<Record<string, number>> {
  const db = f.forge.database.db;
  const out: Record<string, number> = {};
  for (const table of ['iteration_cadences', 'iterations', 'queue_jobs', 'internal_ids'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: group iterations and cadences`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any; // private `plan`
    let sub: any; // private `plan/sub`
    let weekly: any; // automatic cadence of `plan`
    let train: any; // manual cadence of `plan`

    const list = async (ref: string | number, query = '', token?: string | null) => {
      const r = await f.api('GET', `/groups/${enc(ref)}/iterations${query ? `?${query}` : ''}`, { token });
      expectStatus(r, 200);
      return r.body as any[];
    };
    const createCadence = (ref: string | number, body: Record<string, unknown>, token?: string | null) =>
      f.api('POST', `/forgelet/groups/${enc(ref)}/iteration_cadences`, { token, body });
    const createIteration = (ref: string | number, body: Record<string, unknown>, token?: string | null) =>
      f.api('POST', `/forgelet/groups/${enc(ref)}/iterations`, { token, body });

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { clock, workers: false });
      [owner, reporter, guest, outsider] = await createUsers(f, ['itowner', 'itreporter', 'itguest', 'itoutsider']);
      group = await createGroup(f, owner.token, { name: 'Plan', path: 'plan' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id });
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
    });
    after(() => f.stop());

    it('an automatic cadence schedules its iterations through the queue, and again when the next one starts', async () => {
      const r = await createCadence(group.id, { title: 'Weekly', start_date: '2024-01-01', duration_in_weeks: 1, iterations_in_advance: 2, description: 'Team cadence' }, reporter.token);
      expectStatus(r, 201);
      weekly = r.body;
      assert.deepEqual(weekly, {
        id: weekly.id,
        title: 'Weekly',
        description: 'Team cadence',
        start_date: '2024-01-01',
        duration_in_weeks: 1,
        iterations_in_advance: 2,
        automatic: true,
        active: true,
        roll_over: false,
        group_id: group.id,
        created_at: T0,
        updated_at: T0,
      });
      assert.deepEqual(await list(group.id), [], 'nothing before the queue runs');

      assert.equal(await f.forge.deps.queue.runDue(), 1);
      const first = await list(group.id);
      assert.deepEqual(dates(first), [
        ['2024-01-01', '2024-01-07', 2, 1],
        ['2024-01-08', '2024-01-14', 1, 2],
        ['2024-01-15', '2024-01-21', 1, 3],
      ]);
      const it0 = first[0];
      assert.deepEqual(it0, {
        id: it0.id,
        iid: 1,
        sequence: 1,
        group_id: group.id,
        title: null,
        description: null,
        state: 2,
        created_at: T0,
        updated_at: T0,
        start_date: '2024-01-01',
        due_date: '2024-01-07',
        web_url: `${f.url}/groups/plan/-/iterations/${it0.id}`,
      });
      assert.deepEqual(first.map((i) => i.iid), [1, 2, 3]);

      // The job waits for the next iteration's start; re-runs add nothing.
      const job = await f.forge.database.db.selectFrom('queue_jobs').selectAll().where('unique_key', '=', `iterations.schedule:${weekly.id}`).executeTakeFirstOrThrow();
      assert.equal(job.status, 'pending');
      assert.equal(job.run_at, '2024-01-08T00:00:00.000Z');
      assert.equal(await f.forge.deps.queue.runDue(), 0);
      assert.equal(await scheduleCadenceIterations(f.forge.database.db, weekly.id, clock.now()), '2024-01-08');
      assert.equal((await list(group.id)).length, 3);

      clock.advance(3 * WEEK); // 2024-01-24
      assert.equal(await f.forge.deps.queue.runDue(), 1);
      assert.deepEqual(dates(await list(group.id)), [
        ['2024-01-01', '2024-01-07', 3, 1],
        ['2024-01-08', '2024-01-14', 3, 2],
        ['2024-01-15', '2024-01-21', 3, 3],
        ['2024-01-22', '2024-01-28', 2, 4],
        ['2024-01-29', '2024-02-04', 1, 5],
        ['2024-02-05', '2024-02-11', 1, 6],
      ]);
      const again = await f.forge.database.db.selectFrom('queue_jobs').selectAll().where('unique_key', '=', `iterations.schedule:${weekly.id}`).execute();
      assert.deepEqual(again.map((j) => [j.id, j.status, j.run_at]), [[job.id, 'pending', '2024-01-29T00:00:00.000Z']]);
      assert.equal(await f.forge.deps.queue.runDue(), 0);
    });

    it('filters by state from the dates and the clock (opened = upcoming + current; started = current)', async () => {
      const states = async (state: string) => (await list(group.id, `state=${state}`)).map((i) => i.start_date);
      assert.deepEqual(await states('upcoming'), ['2024-01-29', '2024-02-05']);
      assert.deepEqual(await states('current'), ['2024-01-22']);
      assert.deepEqual(await states('started'), ['2024-01-22']);
      assert.deepEqual(await states('opened'), ['2024-01-22', '2024-01-29', '2024-02-05']);
      assert.deepEqual(await states('closed'), ['2024-01-01', '2024-01-08', '2024-01-15']);
      assert.equal((await states('all')).length, 6);
      const bad = await f.api('GET', `/groups/${group.id}/iterations?state=active`);
      expectStatus(bad, 400);
      assert.deepEqual(bad.body, { error: 'state does not have a valid value' });
    });

    it('manual cadences take iterations by hand; overlapping dates are refused without a write', async () => {
      const r = await createCadence('plan', { title: 'Release train', automatic: false }, reporter.token);
      expectStatus(r, 201);
      train = r.body;
      assert.equal(train.start_date, '2024-01-24', 'a manual cadence starts today by default');
      assert.deepEqual([train.automatic, train.duration_in_weeks, train.iterations_in_advance, train.roll_over], [false, null, null, false]);

      const beta = await createIteration(group.id, { cadence_id: train.id, title: 'Beta two', start_date: '2024-02-12', due_date: '2024-02-25' }, reporter.token);
      expectStatus(beta, 201);
      const alpha = await createIteration(group.id, { cadence_id: train.id, title: 'Alpha one', description: 'First', start_date: '2024-01-15', due_date: '2024-01-28' }, reporter.token);
      expectStatus(alpha, 201);
      assert.deepEqual([alpha.body.iid, alpha.body.sequence, alpha.body.title, alpha.body.description, alpha.body.state], [8, 1, 'Alpha one', 'First', 2]);
      const manual = (await list(group.id)).filter((i) => i.title !== null);
      assert.deepEqual(manual.map((i) => [i.title, i.sequence, i.state]), [['Alpha one', 1, 2], ['Beta two', 2, 1]], 'sequence follows the start dates');

      const before = await rowCounts(f);
      const overlap = await createIteration(group.id, { cadence_id: train.id, title: 'Gamma', start_date: '2024-02-20', due_date: '2024-03-01' }, reporter.token);
      expectStatus(overlap, 400);
      assert.deepEqual(overlap.body, { message: { base: ['Dates cannot overlap with other existing Iterations within this iterations cadence'] } });
      const backwards = await createIteration(group.id, { cadence_id: train.id, start_date: '2024-03-10', due_date: '2024-03-01' }, reporter.token);
      expectStatus(backwards, 400);
      assert.deepEqual(backwards.body, { message: { due_date: ['must be greater than start date'] } });
      const taken = await createIteration(group.id, { cadence_id: train.id, title: 'Beta two', start_date: '2024-04-01', due_date: '2024-04-07' }, reporter.token);
      expectStatus(taken, 400);
      assert.deepEqual(taken.body, { message: { title: ['has already been taken'] } });
      const automatic = await createIteration(group.id, { cadence_id: weekly.id, start_date: '2024-05-01', due_date: '2024-05-07' }, reporter.token);
      expectStatus(automatic, 400);
      assert.deepEqual(automatic.body, { message: '400 Bad request - Iterations cannot be manually added to cadences that use automatic scheduling' });
      const missing = await createIteration(group.id, { cadence_id: train.id, start_date: 'soon' }, reporter.token);
      expectStatus(missing, 400);
      assert.deepEqual(missing.body, { error: 'start_date is invalid, due_date is missing' });
      const elsewhere = await createIteration(sub.id, { cadence_id: train.id, start_date: '2024-06-01', due_date: '2024-06-07' }, owner.token);
      expectStatus(elsewhere, 404);
      assert.deepEqual(elsewhere.body, { message: '404 Iteration Cadence Not Found' });
      assert.deepEqual(await rowCounts(f), before);
    });

    it('searches titles and cadence titles with `in` as brackets or repeated keys (python-gitlab)', async () => {
      const titles = async (query: string) => (await list(group.id, query)).map((i) => i.title ?? i.start_date);
      assert.deepEqual(await titles('search=ALPHA'), ['Alpha one']);
      assert.deepEqual(await titles('search=weekly'), [], '`in` defaults to title');
      assert.equal((await titles('search=weekly&in[]=cadence_title')).length, 6);
      assert.deepEqual(await titles('search=beta&in=title&in=cadence_title'), ['Beta two']);
      assert.deepEqual(await titles('search=train&in=title&in=cadence_title'), ['Alpha one', 'Beta two']);
      assert.deepEqual(await titles('search=100%25'), [], '% is matched literally');
      const bad = await f.api('GET', `/groups/${group.id}/iterations?search=x&in=body`);
      expectStatus(bad, 400);
      assert.deepEqual(bad.body, { error: 'in does not have a valid value' });
    });

    it('includes ancestors by default, descendants on request; updated_before/after', async () => {
      const subCadence = await createCadence(sub.id, { title: 'Sub cadence', automatic: false }, owner.token);
      expectStatus(subCadence, 201);
      expectStatus(await createIteration('plan/sub', { cadence_id: subCadence.body.id, title: 'Sub one', start_date: '2024-03-04', due_date: '2024-03-10' }, owner.token), 201);

      const fromSub = await list('plan/sub');
      assert.equal(fromSub.length, 9);
      assert.deepEqual(fromSub.at(-1).web_url, `${f.url}/groups/plan/sub/-/iterations/${fromSub.at(-1).id}`);
      assert.deepEqual((await list('plan/sub', 'include_ancestors=False')).map((i) => i.title), ['Sub one']);
      assert.equal((await list(group.id)).length, 8);
      assert.deepEqual((await list(group.id, 'include_descendants=true&search=sub')).map((i) => i.title), ['Sub one']);
      // order: due date, then title, then id
      const all = await list(group.id, 'include_descendants=true');
      const keys = all.map((i) => `${i.due_date} ${i.title ?? '~'} ${String(i.id).padStart(6, '0')}`);
      assert.deepEqual(keys, [...keys].sort());

      const later = await list(group.id, `updated_after=${encodeURIComponent('2024-01-10T00:00:00Z')}`);
      assert.deepEqual(later.map((i) => i.start_date), ['2024-01-15', '2024-01-22', '2024-01-29', '2024-02-05', '2024-02-12']);
      const earlier = await list(group.id, 'updated_before=2024-01-10T00:00:00Z');
      assert.deepEqual(earlier.map((i) => i.start_date), ['2024-01-01', '2024-01-08', '2024-01-15']);
    });

    it('paginates in SQL', async () => {
      const r = await f.api('GET', `/groups/${group.id}/iterations?per_page=3&page=2`);
      expectStatus(r, 200);
      assert.equal(r.headers.get('x-total'), '8');
      assert.equal(r.headers.get('x-total-pages'), '3');
      assert.deepEqual(r.body.map((i: any) => i.start_date), ['2024-01-15', '2024-01-22', '2024-01-29']);
    });

    it('permissions: readers list, Reporters manage, outsiders see nothing', async () => {
      assert.equal((await list(group.id, '', guest.token)).length, 8);
      const out = await f.api('GET', `/groups/${group.id}/iterations`, { token: outsider.token });
      expectStatus(out, 404);
      assert.deepEqual(out.body, GROUP_NOT_FOUND);
      const anon = await f.api('GET', `/groups/${group.id}/iterations`, { token: null });
      expectStatus(anon, 404);
      const cadences = await f.api('GET', `/forgelet/groups/${group.id}/iteration_cadences`, { token: guest.token });
      expectStatus(cadences, 200);
      assert.deepEqual(cadences.body.map((c: any) => c.title), ['Weekly', 'Release train']);

      const before = await rowCounts(f);
      const byGuest = await createCadence(group.id, { title: 'Nope', automatic: false }, guest.token);
      expectStatus(byGuest, 403);
      assert.deepEqual(byGuest.body, FORBIDDEN);
      expectStatus(await createIteration(group.id, { cadence_id: train.id, start_date: '2024-09-01', due_date: '2024-09-07' }, guest.token), 403);
      expectStatus(await f.api('PUT', `/forgelet/groups/${group.id}/iteration_cadences/${train.id}`, { token: guest.token, body: { title: 'x' } }), 403);
      expectStatus(await f.api('DELETE', `/forgelet/groups/${group.id}/iteration_cadences/${train.id}`, { token: guest.token }), 403);
      const byOutsider = await createCadence(group.id, { title: 'Nope', automatic: false }, outsider.token);
      expectStatus(byOutsider, 404);
      assert.deepEqual(byOutsider.body, GROUP_NOT_FOUND);
      const byAnon = await createCadence(group.id, { title: 'Nope', automatic: false }, null);
      expectStatus(byAnon, 401);
      assert.deepEqual(await rowCounts(f), before);
      const unknown = await f.api('GET', `/forgelet/groups/${group.id}/iteration_cadences/999999`);
      expectStatus(unknown, 404);
      assert.deepEqual(unknown.body, { message: '404 Iteration Cadence Not Found' });
    });

    it('bad cadence input answers 400 and writes nothing', async () => {
      const before = await rowCounts(f);
      const cases: [Record<string, unknown>, unknown][] = [
        [{ start_date: '2024-02-01' }, { error: 'title is missing' }],
        [{ title: ' ' }, { error: 'title is empty' }],
        [{ title: 'A', automatic: 'maybe' }, { error: 'automatic is invalid' }],
        [{ title: 'A', start_date: 'never' }, { error: 'start_date is invalid' }],
        [{ title: 'A' }, { message: { start_date: ["can't be blank"], duration_in_weeks: ["can't be blank"], iterations_in_advance: ["can't be blank"] } }],
        [
          { title: 'A', start_date: '2024-02-01', duration_in_weeks: 5, iterations_in_advance: 11 },
          { message: { duration_in_weeks: ['is not included in the list'], iterations_in_advance: ['is not included in the list'] } },
        ],
        [
          { title: 'A', start_date: '2024-01-10', duration_in_weeks: 2, iterations_in_advance: 1 },
          { message: { base: ['The automation start date would retroactively create a past iteration. 2024-01-11 is the earliest possible start date.'] } },
        ],
      ];
      for (const [body, expected] of cases) {
        const r = await createCadence(group.id, body, reporter.token);
        expectStatus(r, 400);
        assert.deepEqual(r.body, expected, JSON.stringify(body));
      }
      const moveIntoActive = await f.api('PUT', `/forgelet/groups/${group.id}/iteration_cadences/${weekly.id}`, { token: reporter.token, body: { start_date: '2024-01-25' } });
      expectStatus(moveIntoActive, 400);
      assert.deepEqual(moveIntoActive.body, { message: { base: ['The automation start date must come after the active iteration 2024-01-22 - 2024-01-28.'] } });
      assert.deepEqual(await rowCounts(f), before);
    });

    it('updating a cadence re-schedules it; deactivating stops it; delete removes its iterations', async () => {
      const put = (body: Record<string, unknown>) => f.api('PUT', `/forgelet/groups/${group.id}/iteration_cadences/${weekly.id}`, { token: reporter.token, body });
      const more = await put({ iterations_in_advance: 4, roll_over: true });
      expectStatus(more, 200);
      assert.deepEqual([more.body.iterations_in_advance, more.body.roll_over, more.body.updated_at], [4, true, clock.now().toISOString()]);
      assert.equal(await f.forge.deps.queue.runDue(), 1, 'the waiting job was made due');
      assert.deepEqual((await list(group.id, 'state=upcoming&search=weekly&in=cadence_title')).map((i) => i.start_date), ['2024-01-29', '2024-02-05', '2024-02-12', '2024-02-19']);

      // a later start and a longer duration re-align the iterations that have not started
      const moved = await put({ start_date: '2024-02-01', duration_in_weeks: 2 });
      expectStatus(moved, 200);
      await f.forge.deps.queue.runDue();
      assert.deepEqual(dates(await list(group.id, 'state=opened&search=weekly&in=cadence_title')), [
        ['2024-01-22', '2024-01-28', 2, 4],
        ['2024-02-01', '2024-02-14', 1, 5],
        ['2024-02-15', '2024-02-28', 1, 6],
        ['2024-02-29', '2024-03-13', 1, 7],
        ['2024-03-14', '2024-03-27', 1, 8],
      ]);

      expectStatus(await put({ active: false }), 200);
      clock.advance(8 * WEEK);
      await f.forge.deps.queue.runDue();
      assert.equal((await list(group.id, 'state=upcoming&search=weekly&in=cadence_title')).length, 0, 'an inactive cadence is not scheduled');

      const manual = await put({ automatic: false });
      expectStatus(manual, 200);
      assert.deepEqual([manual.body.automatic, manual.body.duration_in_weeks, manual.body.iterations_in_advance, manual.body.roll_over], [false, null, null, false]);

      const del = await f.api('DELETE', `/forgelet/groups/${group.id}/iteration_cadences/${weekly.id}`, { token: reporter.token });
      expectStatus(del, 204);
      assert.equal(del.text, '');
      assert.deepEqual((await list(group.id)).map((i) => i.title), ['Alpha one', 'Beta two']);
      expectStatus(await f.api('GET', `/forgelet/groups/${group.id}/iteration_cadences/${weekly.id}`), 404);
    });

    it('concurrent scheduling runs of one cadence add each iteration once', async () => {
      const today = clock.now().toISOString().slice(0, 10);
      const r = await createCadence(sub.id, { title: 'Race', start_date: today, duration_in_weeks: 1, iterations_in_advance: 3 }, owner.token);
      expectStatus(r, 201);
      const db = f.forge.database.db;
      await Promise.all([
        f.forge.deps.queue.runDue(),
        scheduleCadenceIterations(db, r.body.id, clock.now()),
        scheduleCadenceIterations(db, r.body.id, clock.now()),
        scheduleCadenceIterations(db, r.body.id, clock.now()),
      ]);
      const rows = await db.selectFrom('iterations').selectAll().where('iteration_cadence_id', '=', r.body.id).orderBy('start_date').execute();
      assert.deepEqual(rows.map((i) => i.sequence), [1, 2, 3, 4]);
      assert.equal(rows[0]!.start_date, today);
      assert.equal(new Set(rows.map((i) => i.iid)).size, 4);
    });
  });

  describe(`${dialect}: iterations on the free tier`, () => {
    let f: TestForgelet;
    let group: any;
    let outsider: User;

    before(async () => {
      f = await startTestServer(dialect, { tier: 'free', workers: false });
      [outsider] = await createUsers(f, ['freeoutsider']);
      group = await createGroup(f, f.rootToken, { name: 'Free', path: 'free' });
    });
    after(() => f.stop());

    it('answers 403 on a readable group and 404 on an unreadable one', async () => {
      for (const [method, path, body] of [
        ['GET', `/groups/${group.id}/iterations`, undefined],
        ['GET', `/forgelet/groups/${group.id}/iteration_cadences`, undefined],
        ['POST', `/forgelet/groups/${group.id}/iteration_cadences`, { title: 'A', automatic: false }],
      ] as const) {
        const r = await f.api(method, path, { body });
        expectStatus(r, 403);
        assert.deepEqual(r.body, FORBIDDEN);
        const hidden = await f.api(method, path, { body, token: outsider.token });
        expectStatus(hidden, 404);
        assert.deepEqual(hidden.body, GROUP_NOT_FOUND);
      }
      assert.equal(Number((await f.forge.database.db.selectFrom('iteration_cadences').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 0);
    });
  });
}
