import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startForgelet } from '@forgelet/server';
import { main } from './index.js';

it('examples/client-script runs against an in-process Forgelet', async () => {
  const forgelet = await startForgelet();
  // A known instant, so the schedule's next run is known too.
  forgelet.clock.set('2024-06-03T00:00:00Z', { frozen: true });
  try {
    const lines: string[] = [];
    const { paths, schedule } = await main(forgelet.url, forgelet.rootToken!, (l) => lines.push(l));
    assert.deepEqual(paths, ['tooling/bots', 'tooling/ci-templates', 'tooling/release-scripts']);
    assert.equal(lines[0], 'signed in as root');
    assert.equal(lines.at(-1), 'expected: 404 404 Project Not Found');

    assert.deepEqual(
      [schedule.description, schedule.ref, schedule.cron, schedule.cron_timezone, schedule.active, schedule.next_run_at, schedule.owner?.username],
      ['Nightly build', 'refs/heads/main', '0 2 * * *', 'UTC', true, '2024-06-03T02:00:00.000Z', 'root'],
    );
    assert.deepEqual(schedule.variables?.map((v) => [v.key, v.value, v.variable_type]), [['MODE', 'nightly', 'env_var']]);
    assert.equal(lines.at(-2), `schedule ${schedule.id} "Nightly build" on refs/heads/main, next run 2024-06-03T02:00:00.000Z`);

    // The schedule fires when its time comes: advance the clock past 02:00.
    await forgelet.clock.advance(3 * 3600);
    const res = await fetch(`${forgelet.url}/api/v4/projects/tooling%2Fbots/pipeline_schedules/${schedule.id}/pipelines`, {
      headers: { 'PRIVATE-TOKEN': forgelet.rootToken! },
    });
    const pipelines = (await res.json()) as { ref: string; source: string }[];
    assert.deepEqual(pipelines.map((p) => [p.ref, p.source]), [['main', 'schedule']]);
  } finally {
    await forgelet.stop();
  }
});
