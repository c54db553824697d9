/**
 * DORA metrics (GitLab's Dora::DailyMetrics and Dora::AggregateMetricsService).
 *
 * Writes: `refreshDoraDay` recomputes one row of `dora_daily_metrics` (a project, an
 * environment tier, a UTC day) from that day's records only. It runs when a deployment
 * succeeds (or stops counting), and when an incident opens, closes, reopens, changes type or
 * is deleted, in the transaction of that change:
 *  - deployment_frequency: successful deployments finished that day;
 *  - lead_time_for_changes_in_seconds: median of (deployment finished − merge request
 *    merged) over the merge requests those deployments shipped;
 *  - incidents_count (production only): incidents created that day;
 *  - time_to_restore_service_in_seconds (production only): median of (closed − created)
 *    over incidents closed that day.
 * Reads: a request loads at most one row per project, tier and day of its range, never the
 * raw history. Daily values come from the rows of that day; monthly and all sum the counts
 * and take the median of the daily medians (GitLab's PERCENTILE_CONT), so they can differ
 * slightly from a median over every change. Change failure rate is Σ incidents ÷
 * max(Σ deployments, 1).
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, UnauthorizedError } from '../../kernel/errors.js';
import { can } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { IssueHooks, IssueRow } from '../issues/index.js';
import type { DoraMetricsInput } from './delivery.schema.js';
import { ENVIRONMENT_TIERS } from './delivery.table.js';

type Db = Kysely<Database>;

export const DORA_METRICS = ['deployment_frequency', 'lead_time_for_changes', 'time_to_restore_service', 'change_failure_rate'] as const;
export type DoraMetric = (typeof DORA_METRICS)[number];
export const DORA_INTERVALS = ['all', 'monthly', 'daily'] as const;
/** Same range as value stream analytics. */
export const DORA_MAX_RANGE_DAYS = 180;

export interface DoraPoint {
  date: string | null;
  value: number | null;
}

/** PERCENTILE_CONT(0.5): the middle value, or the mean of the two middle ones; null when empty. */
export function median(values: readonly (number | null)[]): number | null {
  const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const DAY_MS = 86_400_000;

function dayBounds(date: string): { from: string; to: string } {
  const start = Date.parse(`${date}T00:00:00.000Z`);
  return { from: new Date(start).toISOString(), to: new Date(start + DAY_MS).toISOString() };
}

/** Recomputes the row of one project, tier and day from that day's deployments and incidents. */
export async function refreshDoraDay(db: Db, projectId: number, tier: string, date: string): Promise<void> {
  const { from, to } = dayBounds(date);
  const deployments = await db
    .selectFrom('deployments as d')
    .innerJoin('environments as e', 'e.id', 'd.environment_id')
    .select(['d.id', 'd.finished_at'])
    .where('d.project_id', '=', projectId)
    .where('e.tier', '=', tier)
    .where('d.status', '=', 'success')
    .where('d.finished_at', '>=', from)
    .where('d.finished_at', '<', to)
    .execute();
  let leadTime: number | null = null;
  if (deployments.length) {
    const finished = new Map(deployments.map((d) => [d.id, Date.parse(d.finished_at!)]));
    const shipped = await db
      .selectFrom('deployment_merge_requests as dm')
      .innerJoin('merge_requests as mr', 'mr.id', 'dm.merge_request_id')
      .select(['dm.deployment_id', 'mr.merged_at'])
      .where('dm.deployment_id', 'in', [...finished.keys()])
      .execute();
    leadTime = median(shipped.filter((s) => s.merged_at !== null).map((s) => (finished.get(s.deployment_id)! - Date.parse(s.merged_at!)) / 1000));
  }
  let incidents: number | null = null;
  let restore: number | null = null;
  if (tier === 'production') {
    const opened = await db
      .selectFrom('issues')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .where('issue_type', '=', 'incident')
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .executeTakeFirst();
    incidents = Number(opened?.n ?? 0);
    const closed = await db
      .selectFrom('issues')
      .select(['created_at', 'closed_at'])
      .where('project_id', '=', projectId)
      .where('issue_type', '=', 'incident')
      .where('state', '=', 'closed')
      .where('closed_at', '>=', from)
      .where('closed_at', '<', to)
      .execute();
    restore = median(closed.map((i) => (Date.parse(i.closed_at!) - Date.parse(i.created_at)) / 1000));
  }
  const values = {
    deployment_frequency: deployments.length,
    lead_time_for_changes_in_seconds: leadTime,
    incidents_count: incidents,
    time_to_restore_service_in_seconds: restore,
  };
  await db
    .insertInto('dora_daily_metrics')
    .values({ project_id: projectId, environment_tier: tier, date, ...values })
    .onConflict((oc) => oc.columns(['project_id', 'environment_tier', 'date']).doUpdateSet(values))
    .execute();
}

/**
 * The incident hook for the issues domain: refreshes the production days an incident
 * touches (created, closed) before and after a change. Returns `after` unchanged, so a call
 * wraps the value a transaction returns. Cheap when neither side is an incident.
 */
export async function refreshIncidentMetrics<T extends IssueRow | null>(db: Db, before: IssueRow | null, after: T): Promise<T> {
  const relevant = (i: IssueRow | null) => (i && i.issue_type === 'incident' ? i : null);
  const a = relevant(before);
  const b = relevant(after);
  if (!a && !b) return after;
  if (a && b && a.state === b.state && a.closed_at === b.closed_at && a.created_at === b.created_at) return after;
  const days = new Set<string>();
  for (const i of [a, b]) {
    if (!i) continue;
    days.add(i.created_at.slice(0, 10));
    if (i.closed_at) days.add(i.closed_at.slice(0, 10));
  }
  const projectId = (a ?? b)!.project_id;
  for (const day of [...days].sort()) await refreshDoraDay(db, projectId, 'production', day);
  return after;
}

// ---- reading -------------------------------------------------------------------------------

/** `date` minus `months` calendar months, the day clamped to the month's end (Rails' `months.ago`). */
export function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(y, m - 1 - months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

interface DailyRow {
  date: string;
  deployment_frequency: number;
  lead_time_for_changes_in_seconds: number | null;
  incidents_count: number | null;
  time_to_restore_service_in_seconds: number | null;
}

/** One metric over a set of daily rows (GitLab's calculation queries). */
function aggregate(metric: DoraMetric, rows: DailyRow[]): number | null {
  if (!rows.length) return null;
  switch (metric) {
    case 'deployment_frequency':
      return rows.reduce((n, r) => n + Number(r.deployment_frequency), 0);
    case 'lead_time_for_changes':
      return median(rows.map((r) => (r.lead_time_for_changes_in_seconds === null ? null : Number(r.lead_time_for_changes_in_seconds))));
    case 'time_to_restore_service':
      return median(rows.map((r) => (r.time_to_restore_service_in_seconds === null ? null : Number(r.time_to_restore_service_in_seconds))));
    case 'change_failure_rate': {
      const counted = rows.filter((r) => r.incidents_count !== null);
      if (!counted.length) return null;
      const incidents = counted.reduce((n, r) => n + Number(r.incidents_count), 0);
      const deployments = rows.reduce((n, r) => n + Number(r.deployment_frequency), 0);
      return incidents / Math.max(deployments, 1);
    }
  }
}

const DENIED = 'You do not have permission to access dora metrics.';

/**
 * GET /projects/:id/dora/metrics and /groups/:id/dora/metrics (Ultimate, Reporter and up;
 * refused with 401 and GitLab's message). A group covers every project below it.
 */
export async function doraMetrics(ctx: Ctx, kind: 'projects' | 'groups', input: DoraMetricsInput): Promise<DoraPoint[]> {
  const subject = kind === 'projects' ? ({ kind: 'project', project: await findProject(ctx, input.id) } as const) : ({ kind: 'group', group: await findGroup(ctx, input.id) } as const);
  if (!tierAtLeast(ctx.config.tier, 'ultimate') || !(await can(ctx, 'read_dora4_analytics', subject))) {
    throw new UnauthorizedError(undefined, { exact: DENIED });
  }
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const end = input.end_date ?? today;
  const start = input.start_date ?? monthsBefore(today, 3);
  const interval = input.interval ?? 'daily';
  const tiers = input.environment_tiers ?? ['production'];
  const fail = (message: string) => new BadRequestError(message, { raw: true });
  if (daysBetween(start, end) > DORA_MAX_RANGE_DAYS) throw fail(`Date range must be shorter than ${DORA_MAX_RANGE_DAYS} days.`);
  if (!(start < end)) throw fail('The start date must be earlier than the end date.');
  if (!(DORA_INTERVALS as readonly string[]).includes(interval)) throw fail(`The interval must be one of ${DORA_INTERVALS.join(',')}.`);
  if (!(DORA_METRICS as readonly string[]).includes(input.metric)) throw fail(`The metric must be one of ${DORA_METRICS.join(',')}.`);
  if (!tiers.every((t) => (ENVIRONMENT_TIERS as readonly string[]).includes(t))) {
    throw fail(`The environment tiers must be from ${ENVIRONMENT_TIERS.join(', ')}.`);
  }
  const metric = input.metric as DoraMetric;

  let q = ctx.db
    .selectFrom('dora_daily_metrics as m')
    .select(['m.date', 'm.deployment_frequency', 'm.lead_time_for_changes_in_seconds', 'm.incidents_count', 'm.time_to_restore_service_in_seconds'])
    .where('m.environment_tier', 'in', tiers)
    .where('m.date', '>=', start)
    .where('m.date', '<=', end);
  if (subject.kind === 'project') q = q.where('m.project_id', '=', subject.project.id);
  else {
    q = q.where('m.project_id', 'in', (eb) =>
      eb
        .selectFrom('projects as p')
        .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
        .select('p.id')
        .where('n.traversal', 'like', `${subject.group.traversal}%`),
    );
  }
  const rows = (await q.orderBy('m.date').execute()) as DailyRow[];

  const buckets = new Map<string | null, DailyRow[]>();
  for (const row of rows) {
    const key = interval === 'all' ? null : interval === 'monthly' ? `${row.date.slice(0, 7)}-01` : row.date;
    const list = buckets.get(key) ?? [];
    list.push(row);
    buckets.set(key, list);
  }
  if (interval === 'all') return [{ date: null, value: aggregate(metric, rows) }];
  // Monthly: the month's rows (daily medians per project and tier) aggregated as one set.
  return [...buckets.entries()].map(([date, list]) => ({ date, value: aggregate(metric, list) }));
}

/** Delivery's reaction to issues, registered by the wiring (the issues domain's hooks). */
export const deliveryIssueHooks: IssueHooks = {
  issueChanged: async (trx, before, after) => {
    await refreshIncidentMetrics(trx, before, after);
  },
  // A new issue that is not an incident refreshes no day.
  quietOnCreate: async (_db, issue) => issue.issue_type !== 'incident',
};
