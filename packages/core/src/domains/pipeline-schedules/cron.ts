/**
 * Cron expressions and time zones of pipeline schedules, and when a schedule runs next.
 *
 * GitLab (Gitlab::Ci::CronParser) accepts 5-field cron lines and the zones ActiveSupport knows:
 * its display names ("Pacific Time (US & Canada)") and any IANA id. `next_run_at` is the
 * cron's next instant after now in the schedule's zone; GitLab then rounds it up to the next
 * run of its scheduling worker (`3-59/10 * * * *`, UTC) because the worker only looks every
 * ten minutes. Forgelet fires at the cron's own instant by default (`scheduleTiming: 'exact'`)
 * and reproduces GitLab's rounding with `scheduleTiming: 'gitlab'`.
 */
import { Cron } from 'croner';
import railsTimezone from 'rails-timezone';

export type ScheduleTiming = 'exact' | 'gitlab';
export const SCHEDULE_TIMINGS: readonly ScheduleTiming[] = ['exact', 'gitlab'];

/** GitLab's `pipeline_schedule_worker` cron (gitlab.yml default), read in UTC. */
export const GITLAB_WORKER_CRON = '3-59/10 * * * *';

/** Nicknames Fugit expands (GitLab's parser); `@reboot` has no instant and is refused. */
const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/**
 * The IANA zone a schedule's `cron_timezone` stands for, or null when GitLab would refuse it:
 * an ActiveSupport name maps through its table, otherwise the text must be an IANA id in its
 * exact spelling (TZInfo is case-sensitive).
 */
export function resolveTimeZone(name: string): string | null {
  if (typeof name !== 'string' || name.trim() === '') return null;
  const mapped = railsTimezone.from(name);
  if (mapped) return mapped;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // Intl ignores case; TZInfo does not: `america/new_york` is not a zone there.
    if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return null;
    return name;
  } catch {
    return null;
  }
}

function normalizeCron(cron: string): string {
  return cron.trim().replace(/\s+/g, ' ');
}

/** A croner job (never started) for a cron line in an IANA zone; null when the line is not valid. */
function cronOf(cron: string, zone: string): Cron | null {
  const line = normalizeCron(cron);
  if (line === '' || line.startsWith('@reboot')) return null;
  if (line.startsWith('@') ? !NICKNAMES.has(line.toLowerCase()) : line.split(' ').length !== 5) return null;
  try {
    return new Cron(line.startsWith('@') ? line.toLowerCase() : line, { timezone: zone, paused: true, mode: '5-part' });
  } catch {
    return null;
  }
}

/** True when GitLab's cron validator accepts the line (checked in UTC, as GitLab does). */
export function isValidCron(cron: string): boolean {
  const job = cronOf(cron, 'UTC');
  if (!job) return false;
  try {
    // A syntactically valid line that never matches (`0 0 30 2 *`) has no next run.
    return job.nextRun(new Date(Date.UTC(2000, 0, 1))) !== null;
  } catch {
    return false;
  }
}

/** The cron's next instant strictly after `from`, in the zone (an ActiveSupport or IANA name). */
export function nextCronInstant(cron: string, timeZone: string, from: Date): Date | null {
  const zone = resolveTimeZone(timeZone);
  if (!zone) return null;
  const job = cronOf(cron, zone);
  if (!job) return null;
  try {
    return job.nextRun(from);
  } catch {
    return null;
  }
}

/**
 * When a schedule runs next, seen at `now`: the cron's next instant, or with `gitlab` timing the
 * first tick of GitLab's worker at or after it. Null when the cron or zone is not valid.
 */
export function nextRunAt(cron: string, timeZone: string, now: Date, timing: ScheduleTiming = 'exact'): Date | null {
  const ideal = nextCronInstant(cron, timeZone, now);
  if (!ideal || timing === 'exact') return ideal;
  // Cron instants fall on whole minutes, so "at or after" is "after one second earlier".
  return nextCronInstant(GITLAB_WORKER_CRON, 'UTC', new Date(ideal.getTime() - 1000));
}
