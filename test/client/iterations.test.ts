import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Forgelet } from '@forgelet/client';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { buildProgram, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const T0 = '2024-01-03T10:00:00.000Z';

function fakeIo(env: NodeJS.ProcessEnv): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s), columns: 120 }, stderr: { write: (s: string) => (err += s) }, env },
    stdout: () => out,
    stderr: () => err,
  };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: client group iterations and cadences`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let api: Forgelet;
    let iterations: Forgelet['groupIterations'];
    let cadences: Forgelet['iterationCadences'];
    let group: { id: number; full_path: string };
    let sub: { id: number; full_path: string };

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { clock, workers: false });
      api = clientFor(f);
      iterations = api.groupIterations;
      cadences = api.iterationCadences;
      group = await api.groups.create({ name: 'Plan', path: 'plan' });
      sub = await api.groups.create({ name: 'Sub', path: 'sub', parent_id: group.id });
    });
    after(() => f.stop());

    it('creates, shows, edits and lists cadences; the server schedules the iterations', async () => {
      const weekly = await cadences.create('plan', { title: 'Weekly', start_date: '2024-01-01', duration_in_weeks: 1, iterations_in_advance: 2 });
      assert.deepEqual([weekly.title, weekly.automatic, weekly.active, weekly.group_id], ['Weekly', true, true, group.id]);
      assert.deepEqual(await cadences.show(group.id, weekly.id), weekly);
      await f.forge.deps.queue.runDue();
      const list = await iterations.all(group.full_path).toArray();
      assert.deepEqual(list.map((i) => [i.start_date, i.due_date, i.state]), [
        ['2024-01-01', '2024-01-07', 2],
        ['2024-01-08', '2024-01-14', 1],
        ['2024-01-15', '2024-01-21', 1],
      ]);

      const edited = await cadences.edit(group.id, weekly.id, { title: 'Weekly sprints', description: 'Team' });
      assert.deepEqual([edited.title, edited.description], ['Weekly sprints', 'Team']);
      const manual = await cadences.create(group.id, { title: 'Releases', automatic: false });
      assert.deepEqual((await cadences.all(group.id).toArray()).map((c) => c.title), ['Weekly sprints', 'Releases']);

      const created = await iterations.create(group.id, { cadence_id: manual.id, title: 'R1', start_date: '2024-02-01', due_date: '2024-02-14' });
      assert.deepEqual([created.title, created.sequence, created.state, created.web_url], ['R1', 1, 1, `${f.url}/groups/plan/-/iterations/${created.id}`]);
      const overlap = await apiError(iterations.create(group.id, { cadence_id: manual.id, start_date: '2024-02-10', due_date: '2024-02-20' }));
      assert.equal(overlap.status, 400);
      assert.deepEqual(overlap.body, { message: { base: ['Dates cannot overlap with other existing Iterations within this iterations cadence'] } });

      await cadences.remove(group.id, manual.id);
      const gone = await apiError(cadences.show(group.id, manual.id));
      assert.equal(gone.status, 404);
    });

    it('sends `in` as an array and filters by state, search and ancestors', async () => {
      const rec = recordingFetch();
      const recorded = clientFor(f, { fetch: rec.fetch }).groupIterations;
      const found = await recorded.all(group.id, { state: 'upcoming', search: 'sprints', in: ['title', 'cadence_title'], include_ancestors: false }).toArray();
      assert.deepEqual(found.map((i) => i.start_date), ['2024-01-08', '2024-01-15']);
      assert.match(rec.sent[0]!.url, /\?state=upcoming&search=sprints&in%5B%5D=title&in%5B%5D=cadence_title&include_ancestors=false$/);
      assert.equal((await iterations.all(sub.id).toArray()).length, 3, "a subgroup lists its ancestors' iterations");
      assert.equal((await iterations.all(sub.id, { include_ancestors: false }).toArray()).length, 0);
      const later = await iterations.all(group.id, { updated_after: new Date('2024-01-04T00:00:00Z') }).toArray();
      assert.deepEqual(later, []);
    });

    it('the CLI lists and creates cadences and lists iterations', async () => {
      const cli = async (args: string[]) => {
        const io = fakeIo({ FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken });
        const program = await buildProgram(io.io);
        let code = 0;
        try {
          await program.parseAsync(args, { from: 'user' });
        } catch (err) {
          code = (err as { exitCode?: number }).exitCode ?? 1;
          io.io.stderr.write(String((err as Error).message));
        }
        return { code, stdout: io.stdout(), stderr: io.stderr() };
      };

      const made = await cli(['iterations', 'cadences', 'create', '--group', 'plan/sub', '--title', 'Biweekly', '--start-date', '2024-01-08', '--duration-in-weeks', '2', '--iterations-in-advance', '1', '--json']);
      assert.equal(made.code, 0, made.stderr);
      const cadence = JSON.parse(made.stdout);
      assert.deepEqual([cadence.title, cadence.duration_in_weeks, cadence.iterations_in_advance, cadence.automatic], ['Biweekly', 2, 1, true]);
      await f.forge.deps.queue.runDue();

      const listed = await cli(['iterations', 'cadences', 'list', '--group', 'plan/sub']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^ID +TITLE +SCHEDULING +ACTIVE +START +DURATION +IN ADVANCE\n\d+ +Biweekly +automatic +yes +2024-01-08 +2w +1\n$/);

      const json = await cli(['iterations', 'list', '--group', 'plan/sub', '--state', 'upcoming', '--json']);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout).map((i: any) => [i.start_date, i.group_id]), [
        ['2024-01-08', group.id],
        ['2024-01-15', group.id], // due 2024-01-21 like the next: then title (both null), then id
        ['2024-01-08', sub.id],
      ]);
      const text = await cli(['iterations', 'list', '--group', 'plan/sub', '--search', 'biweekly']);
      assert.match(text.stdout, /^ID +IID +SEQ +STATE +START +DUE +TITLE\n\d+ +1 +1 +upcoming +2024-01-08 +2024-01-21\n$/);

      const bad = await cli(['iterations', 'list', '--group', 'plan', '--state', 'soon']);
      assert.equal(bad.code, 2);
      const refused = await cli(['iterations', 'cadences', 'create', '--group', 'plan', '--title', 'X', '--duration-in-weeks', '9', '--start-date', '2024-02-01', '--iterations-in-advance', '1']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /400/);
    });
  });
}
