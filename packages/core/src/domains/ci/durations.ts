/**
 * GitLab durations (ChronicDuration): `1 week`, `3 days`, `2 hrs 30 mins`, `90`, `1.5h`.
 * A bare number is seconds; months are 30 days, years 365.25 days, as ChronicDuration counts.
 */
const UNIT_SECONDS: Record<string, number> = {};
const units: [string[], number][] = [
  [['s', 'sec', 'secs', 'second', 'seconds'], 1],
  [['m', 'min', 'mins', 'minute', 'minutes'], 60],
  [['h', 'hr', 'hrs', 'hour', 'hours'], 3600],
  [['d', 'day', 'days'], 86_400],
  [['w', 'wk', 'wks', 'week', 'weeks'], 604_800],
  [['mo', 'mos', 'month', 'months'], 2_592_000],
  [['y', 'yr', 'yrs', 'year', 'years'], 31_557_600],
];
for (const [names, seconds] of units) for (const n of names) UNIT_SECONDS[n] = seconds;

const PART = /(\d+(?:\.\d+)?)\s*([a-z]*)/gy;

/** Seconds in a duration, or null when the text is not one. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase().replace(/\s+and\s+/g, ' ').replace(/,/g, ' ');
  if (text === '') return null;
  let total = 0;
  let pos = 0;
  let parts = 0;
  while (pos < text.length) {
    while (text[pos] === ' ') pos++;
    if (pos >= text.length) break;
    PART.lastIndex = pos;
    const m = PART.exec(text);
    if (!m || m[0] === '') return null;
    const unit = m[2] ?? '';
    const factor = unit === '' ? 1 : UNIT_SECONDS[unit];
    if (factor === undefined) return null;
    total += Number(m[1]) * factor;
    pos = PART.lastIndex;
    parts++;
  }
  return parts ? Math.round(total) : null;
}

/**
 * When artifacts expire: null for `never`, else now + the duration. Undefined when the text is
 * not a duration.
 */
export function expiryFrom(now: Date, expireIn: string): string | null | undefined {
  if (expireIn.trim().toLowerCase() === 'never') return null;
  const seconds = parseDuration(expireIn);
  if (seconds === null) return undefined;
  return new Date(now.getTime() + seconds * 1000).toISOString();
}
