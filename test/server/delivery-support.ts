/**
 * Shared by the delivery suites (server and real clients): a DORA history seeded through the
 * API with a stepped clock, and the metrics computed independently from what the seeding
 * recorded.
 *
 * The history (project `api`): 22 production deployments (3 failed, one starting before and
 * finishing after midnight) and 8 staging ones (1 failed), 10 merge requests merged into
 * main and 4 incidents, over 60 days from 2024-03-01; plus a second project (`web`) with 3
 * production deployments, a merge request and an incident.
 */
import assert from 'node:assert/strict';
import { commitFiles } from '../support/repository.js';
import type { ServedForgelet } from '../support/served.js';
import type { TestForgelet } from '../support/server.js';
import { expectStatus } from './http.js';

export const D0 = Date.parse('2024-03-01T00:00:00.000Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const DORA_METRICS = ['deployment_frequency', 'lead_time_for_changes', 'time_to_restore_service', 'change_failure_rate'] as const;
export type Metric = (typeof DORA_METRICS)[number];
/** The seeded history spans these days. */
export const SEED_START = '2024-03-01';
export const SEED_END = '2024-04-29';

export interface SeededDeploy {
  project: 'api' | 'web';
  env: 'production' | 'staging';
  /** Index into the project's main heads: k is the commit after merge request k. */
  shaIndex: number;
  outcome: 'success' | 'failed';
  finishedAt: number;
}
export interface SeededIncident {
  project: 'api' | 'web';
  createdAt: number;
  closedAt: number;
}
export interface DoraHistory {
  deploys: SeededDeploy[];
  incidents: SeededIncident[];
  /** Merge times (ms) per project, in merge order. */
  mergedAt: Record<string, number[]>;
}

export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Seeds the history in the projects `ids.api` and `ids.web` (which must have a `main`
 * branch) as `token` (a Maintainer of both), freezing the server's clock with `setClock` at
 * each event's time. Leaves the clock at day 60, 12:00.
 */
export async function seedDoraHistory(
  f: TestForgelet | ServedForgelet,
  setClock: (frozenAt: Date) => unknown,
  token: string,
  ids: { api: number; web: number },
): Promise<DoraHistory> {
  const at = async (ms: number) => {
    await setClock(new Date(ms));
  };
  const history: DoraHistory = { deploys: [], incidents: [], mergedAt: { api: [], web: [] } };
  const heads: Record<string, string[]> = { api: [], web: [] };
  for (const p of ['api', 'web'] as const) {
    const branch = await f.api('GET', `/projects/${ids[p]}/repository/branches/main`, { token });
    expectStatus(branch, 200);
    heads[p]!.push(branch.body.commit.id);
  }
  // The timeline: [time, action]. Actions run in time order with the clock set to their time.
  const events: [number, () => Promise<void>][] = [];
  const merge = (project: 'api' | 'web', t: number, n: number) =>
    events.push([t, async () => {
      await at(t - 30 * 60_000);
      await commitFiles(f, ids[project], `mr-${n}`, { [`mr-${n}.txt`]: String(n) }, { startBranch: 'main' });
      const mr = await f.api('POST', `/projects/${ids[project]}/merge_requests`, { token, body: { source_branch: `mr-${n}`, target_branch: 'main', title: `MR ${n}` } });
      expectStatus(mr, 201);
      await at(t);
      const merged = await f.api('PUT', `/projects/${ids[project]}/merge_requests/${mr.body.iid}/merge`, { token });
      expectStatus(merged, 200);
      history.mergedAt[project]!.push(Date.parse(merged.body.merged_at));
      heads[project]!.push(merged.body.merge_commit_sha);
    }]);
  const deploy = (project: 'api' | 'web', env: 'production' | 'staging', t: number, minutes: number, outcome: 'success' | 'failed') => {
    const record: SeededDeploy = { project, env, shaIndex: -1, outcome, finishedAt: t + minutes * 60_000 };
    let id = 0;
    events.push([t, async () => {
      record.shaIndex = heads[project]!.length - 1;
      const r = await f.api('POST', `/projects/${ids[project]}/deployments`, {
        token,
        body: { environment: env, ref: 'main', sha: heads[project]![record.shaIndex], tag: false, status: 'running' },
      });
      expectStatus(r, 201);
      id = r.body.id;
    }]);
    events.push([record.finishedAt, async () => {
      expectStatus(await f.api('PUT', `/projects/${ids[project]}/deployments/${id}`, { token, body: { status: outcome } }), 200);
    }]);
    history.deploys.push(record);
  };
  const incident = (project: 'api' | 'web', t: number, hours: number) => {
    const record: SeededIncident = { project, createdAt: t, closedAt: t + hours * HOUR };
    let iid = 0;
    events.push([t, async () => {
      const r = await f.api('POST', `/projects/${ids[project]}/issues`, { token, body: { title: 'Outage', issue_type: 'incident' } });
      expectStatus(r, 201);
      assert.equal(r.body.issue_type, 'incident');
      iid = r.body.iid;
    }]);
    events.push([record.closedAt, async () => {
      const r = await f.api('PUT', `/projects/${ids[project]}/issues/${iid}`, { token, body: { state_event: 'close' } });
      expectStatus(r, 200);
      assert.equal(Date.parse(r.body.closed_at), record.closedAt);
    }]);
    history.incidents.push(record);
  };

  const prodDays = [0, 2, 3, 5, 7, 8, 8, 14, 16, 19, 21, 24, 26, 30, 33, 37, 40, 44, 44, 51, 54, 58];
  prodDays.forEach((d, i) => {
    // deployment 10 starts before midnight and finishes after it
    const start = i === 10 ? D0 + d * DAY + 23 * HOUR + 50 * 60_000 : D0 + d * DAY + (9 + (i % 5) * 2) * HOUR + i * 60_000;
    deploy('api', 'production', start, i === 10 ? 40 : 20 + i * 3, [3, 9, 15].includes(i) ? 'failed' : 'success');
  });
  [1, 6, 12, 18, 25, 32, 43, 56].forEach((d, i) => deploy('api', 'staging', D0 + d * DAY + 15 * HOUR + i * 60_000, 10, i === 4 ? 'failed' : 'success'));
  [1, 4, 9, 13, 20, 27, 33, 41, 48, 55].forEach((d, i) => merge('api', D0 + d * DAY + (8 + (i % 3)) * HOUR + 17 * 60_000, i + 1));
  [[10, 5], [22, 30], [35, 2], [50, 50]].forEach(([d, h]) => incident('api', D0 + d! * DAY + 13 * HOUR, h!));
  [3, 8, 30].forEach((d, i) => deploy('web', 'production', D0 + d * DAY + 11 * HOUR + i * 60_000, 15, 'success'));
  merge('web', D0 + 5 * DAY + 10 * HOUR, 1);
  incident('web', D0 + 8 * DAY + 20 * HOUR, 7);

  events.sort((a, b) => a[0] - b[0]);
  for (const [t, action] of events) {
    await at(t);
    await action();
  }
  assert.equal(history.deploys.filter((d) => d.project === 'api').length, 30);
  assert.equal(history.mergedAt.api!.length, 10);
  assert.equal(history.incidents.filter((i) => i.project === 'api').length, 4);
  await at(D0 + 60 * DAY + 12 * HOUR);
  return history;
}

export interface Row {
  date: string;
  df: number;
  lt: number | null;
  incidents: number | null;
  ttrs: number | null;
}

export function median(values: number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The daily rows, independently: per project and tier, a row for each day on which a
 * successful deployment of that tier finished or, for production, an incident opened or
 * closed. Lead time: each successful deployment ships the merge requests not shipped to its
 * environment yet — for the environment's first deployment every one merged by then, later
 * those after the previous successful deployment's commit up to its own (history is linear).
 */
export function expectedRows(h: DoraHistory, projects: string[], tiers: string[]): Row[] {
  const rows: Row[] = [];
  for (const project of projects) {
    for (const tier of tiers) {
      const ok = h.deploys.filter((d) => d.project === project && d.env === tier && d.outcome === 'success');
      const samples = new Map<string, number[]>();
      const linked = new Set<number>();
      let previous: number | null = null;
      for (const d of ok) {
        const shipped = (h.mergedAt[project] ?? [])
          .map((t, i) => ({ t, k: i + 1 }))
          .filter(({ t, k }) => !linked.has(k) && (previous === null ? t <= d.finishedAt : k > previous && k <= d.shaIndex));
        for (const { k } of shipped) linked.add(k);
        const list = samples.get(day(d.finishedAt)) ?? [];
        list.push(...shipped.map(({ t }) => (d.finishedAt - t) / 1000));
        samples.set(day(d.finishedAt), list);
        previous = d.shaIndex;
      }
      const days = new Set(ok.map((d) => day(d.finishedAt)));
      const mine = tier === 'production' ? h.incidents.filter((i) => i.project === project) : [];
      for (const i of mine) {
        days.add(day(i.createdAt));
        days.add(day(i.closedAt));
      }
      for (const date of days) {
        rows.push({
          date,
          df: ok.filter((d) => day(d.finishedAt) === date).length,
          lt: median(samples.get(date) ?? []),
          incidents: tier === 'production' ? mine.filter((i) => day(i.createdAt) === date).length : null,
          ttrs: tier === 'production' ? median(mine.filter((i) => day(i.closedAt) === date).map((i) => (i.closedAt - i.createdAt) / 1000)) : null,
        });
      }
    }
  }
  return rows;
}

function aggregate(metric: Metric, rows: Row[]): number | null {
  if (!rows.length) return null;
  const values = (pick: (r: Row) => number | null) => rows.map(pick).filter((v): v is number => v !== null);
  switch (metric) {
    case 'deployment_frequency':
      return rows.reduce((n, r) => n + r.df, 0);
    case 'lead_time_for_changes':
      return median(values((r) => r.lt));
    case 'time_to_restore_service':
      return median(values((r) => r.ttrs));
    case 'change_failure_rate': {
      const counted = rows.filter((r) => r.incidents !== null);
      if (!counted.length) return null;
      return counted.reduce((n, r) => n + r.incidents!, 0) / Math.max(rows.reduce((n, r) => n + r.df, 0), 1);
    }
  }
}

export type Point = { date: string | null; value: number | null };

/** The series the API must answer for `rows` within [start, end]: counts summed, times the median of the daily medians. */
export function expectedSeries(metric: Metric, interval: string, all: Row[], start: string, end: string): Point[] {
  const rows = all.filter((r) => r.date >= start && r.date <= end).sort((a, b) => a.date.localeCompare(b.date));
  if (interval === 'all') return [{ date: null, value: aggregate(metric, rows) }];
  const key = (r: Row) => (interval === 'monthly' ? `${r.date.slice(0, 7)}-01` : r.date);
  const keys = [...new Set(rows.map(key))];
  return keys.map((k) => ({ date: k, value: aggregate(metric, rows.filter((r) => key(r) === k)) }));
}

/** Equal dates, values equal within 1e-6 (medians of seconds with milliseconds). */
export function assertSeries(actual: Point[], expected: Point[], label: string): void {
  assert.deepEqual(actual.map((p) => p.date), expected.map((p) => p.date), `${label}: dates`);
  actual.forEach((p, i) => {
    const e = expected[i]!.value;
    if (e === null || p.value === null) assert.equal(p.value, e, `${label} ${p.date}`);
    else assert.ok(Math.abs(p.value - e) < 1e-6, `${label} ${p.date}: ${p.value} != ${e}`);
  });
  assert.ok(expected.length > 0, `${label}: nothing to compare`);
}
