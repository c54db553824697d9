/**
 * Testing against an in-process Forgelet with node:test (picked up by `npm test`):
 *
 *   node --conditions=source --import tsx --test examples/testing-with-forgelet/schedules.test.ts
 *
 * Starts Forgelet on port 0 with an in-memory database (test mode), seeds a world from
 * world.yaml, creates an hourly pipeline schedule over plain HTTP, advances the clock a day
 * and sees 24 scheduled pipelines; then snapshots, changes things and restores.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseSeedText } from '@forgelet/core';
import { Forgelet } from '@forgelet/client';
import { startForgelet, type RunningForgelet } from '@forgelet/server';

const ALICE = 'glpat-example-alice-0001'; // from world.yaml

describe('testing with Forgelet (node:test)', () => {
  let forgelet: RunningForgelet;
  let api: Forgelet; // root
  let projectId: number;

  /** Plain HTTP, as any GitLab client would call it. */
  async function http(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${forgelet.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  }

  before(async () => {
    // No arguments: port 0, in memory, test mode on.
    forgelet = await startForgelet();
    // Time stands still at a known instant until the test moves it.
    forgelet.clock.set('2024-06-03T00:00:00Z', { frozen: true });
    api = new Forgelet({ url: forgelet.url, token: forgelet.rootToken! });
    const world = parseSeedText(readFileSync(new URL('./world.yaml', import.meta.url), 'utf8'));
    const created = await api.harness.seed(world as object);
    projectId = created.projects['acme/app']!;
  });
  after(() => forgelet.stop());

  it('an hourly schedule fires 24 times when the clock advances a day', async () => {
    const schedule = await http('POST', `/projects/${projectId}/pipeline_schedules`, ALICE, {
      description: 'Hourly', ref: 'main', cron: '0 * * * *',
    });
    assert.equal(schedule.status, 201);

    const advanced = await api.harness.advanceClock(24 * 3600);
    assert.equal(advanced.now, '2024-06-04T00:00:00.000Z');

    const pipelines = await http('GET', `/projects/${projectId}/pipelines?source=schedule&per_page=100`, ALICE);
    assert.equal(pipelines.status, 200);
    assert.equal(pipelines.body.length, 24);
    const again = await http('GET', `/projects/${projectId}/pipeline_schedules/${schedule.body.id}`, ALICE);
    assert.equal(again.body.next_run_at, '2024-06-04T01:00:00.000Z');
  });

  it('snapshot, change, restore: the old state is back', async () => {
    await api.harness.snapshot('before-changes');

    await api.issues.edit(projectId, 1, { state_event: 'close' });
    await api.issues.create(projectId, { title: 'Created after the snapshot' });
    assert.equal((await api.issues.all(projectId, { state: 'opened' }).toArray()).length, 2);

    await api.harness.restore('before-changes');
    const open = await api.issues.all(projectId, { state: 'opened' }).toArray();
    assert.deepEqual(open.map((i) => i.title).sort(), ['Dark mode', 'Login fails on Safari']);
  });

  it('every test can start from the same world', async () => {
    await api.harness.restore('before-changes');
    const issues = await http('GET', `/projects/${projectId}/issues?labels=bug`, ALICE);
    assert.deepEqual(issues.body.map((i: { title: string }) => i.title), ['Login fails on Safari']);
  });
});
