/**
 * How often an error happened: GET /forgelet/projects/:id/error_tracking/errors/:error_id/frequency,
 * per hour over 24 hours (the hourly counts the ingest keeps for a week) or per UTC day over 30
 * days (counted from the stored events, kept 90 days), as Sentry's `stats` periods `24h` and `30d`.
 */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { ErrorFrequencyInput } from './error-tracking.schema.js';
import { findError, frequencyHours, projectFor } from './errors.js';

const DAY_MS = 86_400_000;

export interface ErrorFrequencyEntity {
  period: '24h' | '30d';
  /** `[start of the hour or day (ISO), events]`, oldest first, ending with the current hour or day; empty buckets are 0. */
  frequency: [string, number][];
}

/** The 30 UTC day starts ending with today. */
function frequencyDays(now: Date): string[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: 30 }, (_, i) => new Date(today - (29 - i) * DAY_MS).toISOString());
}

export async function getErrorFrequency(ctx: Ctx, input: ErrorFrequencyInput): Promise<ErrorFrequencyEntity> {
  const project = await projectFor(ctx, input.id, 'read_sentry_issue');
  const error = await findError(ctx, project, input.error_id);
  const now = ctx.clock.now();
  if (input.period === '24h') {
    const hours = frequencyHours(now);
    const rows = await ctx.db
      .selectFrom('error_tracking_error_frequency')
      .select(['hour_start', 'count'])
      .where('error_id', '=', error.id)
      .where('hour_start', '>=', hours[0]!)
      .where('hour_start', '<=', hours[23]!)
      .execute();
    const byHour = new Map(rows.map((r) => [r.hour_start, Number(r.count)]));
    return { period: '24h', frequency: hours.map((h) => [h, byHour.get(h) ?? 0]) };
  }
  const days = frequencyDays(now);
  const end = new Date(Date.parse(days[29]!) + DAY_MS).toISOString();
  // Timestamps are ISO text on both dialects: the first 10 characters are the UTC day.
  const day = sql<string>`substr(occurred_at, 1, 10)`;
  const rows = await ctx.db
    .selectFrom('error_tracking_error_events')
    .select([day.as('day'), (eb) => eb.fn.countAll().as('events')])
    .where('error_id', '=', error.id)
    .where('occurred_at', '>=', days[0]!)
    .where('occurred_at', '<', end)
    .groupBy(day)
    .execute();
  const byDay = new Map(rows.map((r) => [r.day, Number(r.events)]));
  return { period: '30d', frequency: days.map((d) => [d, byDay.get(d.slice(0, 10)) ?? 0]) };
}
