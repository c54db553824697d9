import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startServed } from '../../test/support/served.js';
import { main } from './index.js';

it('examples/client-script runs against `forgelet serve`', async () => {
  // The built binary as users start it (test mode), its clock frozen at a known instant, so the schedule's next run is known too.
  const forgelet = await startServed('sqlite', { clock: { now: '2024-06-03T00:00:00Z' } });
  try {
    const lines: string[] = [];
    const { paths, schedule } = await main(forgelet.url, forgelet.rootToken, (l) => lines.push(l));
    assert.deepEqual(paths, ['tooling/bots', 'tooling/ci-templates', 'tooling/release-scripts']);
    assert.equal(lines[0], 'signed in as root');
    assert.equal(lines.at(-1), 'expected: 404 404 Project Not Found');

    assert.deepEqual(
      [schedule.description, schedule.ref, schedule.cron, schedule.cron_timezone, schedule.active, schedule.next_run_at, schedule.owner?.username],
      ['Nightly build', 'refs/heads/main', '0 2 * * *', 'UTC', true, '2024-06-03T02:00:00.000Z', 'root'],
    );
    assert.deepEqual(schedule.variables?.map((v) => [v.key, v.value, v.variable_type]), [['MODE', 'nightly', 'env_var']]);
    assert.equal(lines.at(-2), `schedule ${schedule.id} "Nightly build" on refs/heads/main, next run 2024-06-03T02:00:00.000Z`);

    // The schedule fires when its time comes: advance the clock past 02:00 (running what comes due on the way).
    await forgelet.clock.advance(3 * 3600);
    const res = await forgelet.api<{ ref: string; source: string; created_at: string }[]>('GET', `/projects/tooling%2Fbots/pipeline_schedules/${schedule.id}/pipelines`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.map((p) => [p.ref, p.source, p.created_at]), [['main', 'schedule', '2024-06-03T02:00:00.000Z']]);
  } finally {
    await forgelet.stop();
  }
});
