/**
 * The same checks in vitest style (beforeAll/afterAll/expect). Not run by `npm test`
 * (vitest is not a dependency of Forgelet); to run it:
 *
 *   cd examples/testing-with-forgelet/vitest && npx vitest run
 *
 * vitest.config.ts beside this file resolves the workspace packages from their sources.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSeedText } from '@forgelet/core';
import { Forgelet } from '@forgelet/client';
import { startForgelet, type RunningForgelet } from '@forgelet/server';

let forgelet: RunningForgelet;
let api: Forgelet;
let projectId: number;

beforeAll(async () => {
  forgelet = await startForgelet(); // port 0, in memory, test mode
  forgelet.clock.set('2024-06-03T00:00:00Z', { frozen: true });
  api = new Forgelet({ url: forgelet.url, token: forgelet.rootToken! });
  const created = await api.harness.seed(parseSeedText(readFileSync(new URL('../world.yaml', import.meta.url), 'utf8')) as object);
  projectId = created.projects['acme/app']!;
  await api.harness.snapshot('seeded');
});

afterAll(() => forgelet.stop());

// Each test starts from the seeded world, at the same instant.
beforeEach(async () => {
  await forgelet.restore('seeded');
  forgelet.clock.set('2024-06-03T00:00:00Z', { frozen: true });
});

describe('testing with Forgelet (vitest)', () => {
  it('an hourly schedule fires 24 times in a day', async () => {
    const alice = new Forgelet({ url: forgelet.url, token: 'glpat-example-alice-0001' });
    const res = await alice.requester.send('POST', alice.requester.url(`projects/${projectId}/pipeline_schedules`), {
      description: 'Hourly', ref: 'main', cron: '0 * * * *',
    });
    expect(res.status).toBe(201);
    await forgelet.clock.advance(24 * 3600);
    const pipelines = await alice.requester.get<unknown[]>(`projects/${projectId}/pipelines`, { source: 'schedule', per_page: 100 });
    expect(pipelines).toHaveLength(24);
  });

  it('changes made by one test are gone in the next', async () => {
    await api.issues.create(projectId, { title: 'Only in this test' });
    expect(await api.issues.all(projectId).toArray()).toHaveLength(3);
  });

  it('starts again from the seeded world', async () => {
    const titles = (await api.issues.all(projectId).toArray()).map((i) => i.title).sort();
    expect(titles).toEqual(['Dark mode', 'Login fails on Safari']);
    const schedules = await api.requester.get<unknown[]>(`projects/${projectId}/pipeline_schedules`);
    expect(schedules).toEqual([]);
  });
});
