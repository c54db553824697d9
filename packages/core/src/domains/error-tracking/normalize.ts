/**
 * From what a Sentry SDK sends to what Forgelet stores: one event (exception or message)
 * reduced to its title, culprit, fingerprint, user, release and stack trace; one session
 * update or session aggregate reduced to counters. Pure functions over untrusted JSON: any
 * shape is accepted or refused with a reason, never thrown on.
 */
import { createHash, randomUUID } from 'node:crypto';

/** A stack frame as Forgelet shows it: Sentry's fields plus GitLab's numbered context lines. */
export interface StackFrame {
  filename: string | null;
  abs_path: string | null;
  function: string | null;
  module: string | null;
  lineno: number | null;
  colno: number | null;
  in_app: boolean | null;
  /** `[line number, source line]` around the frame's line, as GitLab's StacktraceBuilder gives. */
  context: [number, string][];
}

export interface EventUser {
  id: string | null;
  username: string | null;
  email: string | null;
  ip_address: string | null;
}

export interface NormalizedEvent {
  kind: 'exception' | 'message';
  eventId: string;
  fingerprint: string;
  title: string;
  type: string | null;
  message: string | null;
  culprit: string | null;
  platform: string | null;
  level: string | null;
  environment: string | null;
  release: string | null;
  occurredAt: string;
  user: EventUser | null;
  /** `id:…`, `username:…`, `email:…` or `ip:…`: the first identifying field, null for anonymous events. */
  userKey: string | null;
  frames: StackFrame[];
  payload: string;
  /** `payload` is the whole event: `stackFramesOf` its parse gives `frames` again (else it lost parts, PAYLOAD_CAP). */
  payloadComplete: boolean;
}

/** A `session` item: the latest state of one SDK session. */
export interface SessionUpdate {
  sid: string;
  release: string;
  environment: string;
  /** ok | exited | crashed | abnormal | errored */
  status: string;
  errors: number;
  startedAt: string;
  at: string;
}

/** A `sessions` item: counts of ended sessions (request-mode SDKs). */
export interface SessionAggregate {
  release: string;
  environment: string;
  exited: number;
  errored: number;
  crashed: number;
  abnormal: number;
  at: string;
}

export type Normalized<T> = { ok: true; value: T } | { ok: false; reason: 'unsupported' };

const MAX_TITLE = 255;
const MAX_TEXT = 8192;
const MAX_SHORT = 255;
const MAX_FRAMES = 200;
const MAX_CONTEXT_LINE = 500;
/** Events larger than this keep their payload without the heavy, optional parts. */
export const PAYLOAD_CAP = 256 * 1024;
/** Sentry Relay's clock-drift rules: timestamps further off than this take the receive time. */
const MAX_PAST_MS = 30 * 24 * 3600_000;
const MAX_FUTURE_MS = 60_000;

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Text for a text column: strings (numbers as text), without NUL (PostgreSQL refuses it), capped. */
export function text(v: unknown, max = MAX_SHORT): string | null {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' && Number.isFinite(v)) s = String(v);
  else return null;
  // eslint-disable-next-line no-control-regex
  s = s.replace(/\u0000/g, '');
  if (s === '') return null;
  return s.length > max ? s.slice(0, max) : s;
}

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null);

/** Epoch seconds (number or numeric text) or RFC 3339 text; naive text is UTC. */
export function parseTimestamp(v: unknown): Date | null {
  let ms: number;
  if (typeof v === 'number') ms = v * 1000;
  else if (typeof v === 'string') {
    const t = v.trim();
    if (/^\d+(\.\d+)?$/.test(t)) ms = Number(t) * 1000;
    else {
      if (!/^\d{4}-\d{2}-\d{2}/.test(t)) return null;
      const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(t) || !t.includes('T') ? t : `${t}Z`;
      // Python sends microseconds; Date parses at most milliseconds reliably.
      ms = Date.parse(zoned.replace(/(\.\d{3})\d+/, '$1'));
    }
  } else return null;
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The event's time, or the receive time when missing or outside Relay's clock-drift window. */
export function occurredAt(v: unknown, received: Date): string {
  const d = parseTimestamp(v);
  if (!d) return received.toISOString();
  const t = d.getTime();
  if (t > received.getTime() + MAX_FUTURE_MS || t < received.getTime() - MAX_PAST_MS) return received.toISOString();
  return t > received.getTime() ? received.toISOString() : d.toISOString();
}

function firstLine(s: string): string {
  const i = s.search(/\r?\n/);
  return i < 0 ? s : s.slice(0, i);
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** `exception.values` as a list of objects (the Go SDK sends the list directly). */
function exceptionValues(event: Json): Json[] {
  const raw = Array.isArray(event.exception) ? event.exception : isObject(event.exception) ? event.exception.values : undefined;
  return Array.isArray(raw) ? raw.filter(isObject) : [];
}

/** The message text: `logentry`/`message` as object (`formatted`, then `message`) or string. */
function messageOf(event: Json): { formatted: string | null; template: string | null } {
  for (const source of [event.logentry, event.message]) {
    if (typeof source === 'string') {
      const t = text(source, MAX_TEXT);
      if (t) return { formatted: t, template: t };
    } else if (isObject(source)) {
      const formatted = text(source.formatted, MAX_TEXT) ?? text(source.message, MAX_TEXT);
      if (formatted) return { formatted, template: text(source.message, MAX_TEXT) ?? formatted };
    }
  }
  return { formatted: null, template: null };
}

function contextLines(frame: Json, lineno: number | null): [number, string][] {
  if (lineno === null) return [];
  const lines = (v: unknown): (string | null)[] => (Array.isArray(v) ? v.map((l) => text(l, MAX_CONTEXT_LINE) ?? (typeof l === 'string' ? '' : null)) : []);
  const pre = lines(frame.pre_context);
  const post = lines(frame.post_context);
  const line = typeof frame.context_line === 'string' ? (text(frame.context_line, MAX_CONTEXT_LINE) ?? '') : null;
  const out: [number, string][] = [];
  pre.forEach((l, i) => l !== null && out.push([lineno - pre.length + i, l]));
  if (line !== null) out.push([lineno, line]);
  post.forEach((l, i) => l !== null && out.push([lineno + 1 + i, l]));
  return out.slice(0, 64);
}

function normalizeFrames(raw: unknown): StackFrame[] {
  if (!isObject(raw) || !Array.isArray(raw.frames)) return [];
  let frames = raw.frames.filter(isObject);
  // Keep both ends of very deep stacks (the entry point and where it failed).
  if (frames.length > MAX_FRAMES) frames = [...frames.slice(0, 50), ...frames.slice(frames.length - (MAX_FRAMES - 50))];
  return frames.map((f) => {
    const lineno = int(f.lineno);
    return {
      filename: text(f.filename, 1024),
      abs_path: text(f.abs_path, 1024),
      function: text(f.function, 1024),
      module: text(f.module, 1024),
      lineno,
      colno: int(f.colno),
      in_app: typeof f.in_app === 'boolean' ? f.in_app : null,
      context: contextLines(f, lineno),
    };
  });
}

/** Frames of the first exception (newest first) that has any, else the event's own stacktrace. */
function framesOf(values: Json[], primary: Json | null, event: Json): StackFrame[] {
  if (primary) {
    const own = normalizeFrames(primary.stacktrace);
    if (own.length) return own;
  }
  for (let i = values.length - 1; i >= 0; i--) {
    const frames = normalizeFrames(values[i]!.stacktrace);
    if (frames.length) return frames;
  }
  return normalizeFrames(event.stacktrace);
}

/**
 * What identifies a frame for grouping: where (module, else file) and what (function; the
 * source line when the SDK sent it, the line number only for anonymous code). Line numbers
 * alone would split an error in two at every unrelated edit above it.
 */
function frameKey(f: StackFrame): string {
  const where = f.module ?? f.filename ?? f.abs_path ?? '';
  const source = f.context.find(([n]) => n === f.lineno)?.[1]?.trim() ?? '';
  const fallback = f.function === null && f.lineno !== null ? String(f.lineno) : '';
  return `${where}|${f.function ?? ''}|${source || fallback}`;
}

/** The innermost in-app frames (all frames when the SDK marked none in-app), at most 5. */
function groupingFrames(frames: StackFrame[]): string[] {
  const inApp = frames.filter((f) => f.in_app === true);
  const chosen = (inApp.length ? inApp : frames).slice(-5);
  return chosen.map((f) => frameKey(f));
}

/** GitLab's actor: the event's transaction, else `function(module)` of the last frame. */
function culpritOf(event: Json, frames: StackFrame[]): string | null {
  const explicit = text(event.culprit, MAX_SHORT) ?? text(event.transaction, MAX_SHORT);
  if (explicit) return explicit;
  const last = frames[frames.length - 1];
  if (!last || !last.function) return null;
  return truncate(`${last.function}(${last.module ?? last.filename ?? ''})`, MAX_SHORT);
}

function userOf(event: Json, requestIp: string): { user: EventUser | null; key: string | null } {
  if (!isObject(event.user)) return { user: null, key: null };
  const u = event.user;
  let ip = text(u.ip_address, 64);
  if (ip === '{{auto}}') ip = requestIp ? text(requestIp.replace(/^::ffff:/, ''), 64) : null;
  const user: EventUser = { id: text(u.id, MAX_SHORT), username: text(u.username, MAX_SHORT), email: text(u.email, MAX_SHORT), ip_address: ip };
  const key = user.id !== null ? `id:${user.id}` : user.username !== null ? `username:${user.username}` : user.email !== null ? `email:${user.email.toLowerCase()}` : ip !== null ? `ip:${ip}` : null;
  if (key === null) return { user: null, key: null };
  return { user, key };
}

const DEFAULT_VARIABLE = /^\{\{\s*default\s*\}\}$/i;

/** Fingerprints of recent grouping inputs: the events of one error keep giving the same (a hash is most of the cost). */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 1024;

function hashOf(components: string[]): string {
  const input = JSON.stringify(components);
  let hash = recentHashes.get(input);
  if (hash === undefined) {
    hash = createHash('sha256').update(input).digest('hex').slice(0, 32);
    if (recentHashes.size >= RECENT_HASHES) recentHashes.delete(recentHashes.keys().next().value!);
    recentHashes.set(input, hash);
  }
  return hash;
}

/**
 * The event as stored: `raw`, the JSON text it was parsed from when it was not changed since,
 * else the event serialized; past PAYLOAD_CAP without the heavy, optional parts (then no longer
 * `complete`).
 */
function payloadOf(event: Json, raw: string | undefined): { text: string; complete: boolean } {
  const full = raw ?? JSON.stringify(event);
  if (full.length <= PAYLOAD_CAP) return { text: full, complete: true };
  const slim: Json = { ...event };
  for (const key of ['breadcrumbs', 'modules', 'debug_meta', 'extra', 'contexts', 'request', 'spans', '_meta']) delete slim[key];
  const stripFrames = (st: unknown) =>
    isObject(st) && Array.isArray(st.frames)
      ? { ...st, frames: st.frames.map((f) => (isObject(f) ? { ...f, vars: undefined, pre_context: undefined, post_context: undefined } : f)) }
      : st;
  const values = exceptionValues(event).map((v) => ({ ...v, stacktrace: stripFrames(v.stacktrace) }));
  if (values.length) slim.exception = { values };
  if (slim.stacktrace) slim.stacktrace = stripFrames(slim.stacktrace);
  const reduced = JSON.stringify(slim);
  if (reduced.length <= PAYLOAD_CAP) return { text: reduced, complete: false };
  return { text: JSON.stringify({ event_id: event.event_id ?? null, truncated: true, level: event.level ?? null, platform: event.platform ?? null }), complete: false };
}

/** `event_id` as 32 lower-case hex digits (UUIDs lose their dashes); a new one when missing or malformed. */
export function eventIdOf(v: unknown): string {
  if (typeof v === 'string') {
    const hex = v.replace(/-/g, '').toLowerCase();
    if (/^[0-9a-f]{32}$/.test(hex)) return hex;
  }
  return randomUUID().replace(/-/g, '');
}

/**
 * One event, or 'unsupported' when it has neither an exception (type or value) nor a message.
 * A synthetic exception without a type (what @sentry/node 11 adds to captureMessage) counts
 * as a message.
 */
export function normalizeEvent(event: unknown, received: Date, requestIp = '', raw?: string): Normalized<NormalizedEvent> {
  if (!isObject(event)) return { ok: false, reason: 'unsupported' };
  const values = exceptionValues(event);
  const { formatted, template } = messageOf(event);
  const primary = primaryOf(values);
  const synthetic = primary !== null && !text(primary.type) && isObject(primary.mechanism) && primary.mechanism.synthetic === true;
  const kind: 'exception' | 'message' | null = primary && !(synthetic && formatted) ? 'exception' : formatted ? 'message' : null;
  if (!kind) return { ok: false, reason: 'unsupported' };

  const frames = framesOf(values, primary, event);
  let type: string | null = null;
  let message: string | null;
  let title: string;
  let defaults: string[];
  if (kind === 'exception') {
    type = text(primary!.type, MAX_SHORT);
    const value = text(primary!.value, MAX_TEXT);
    message = value ?? formatted;
    title = truncate(type && value ? `${type}: ${firstLine(value)}` : (type ?? firstLine(value ?? '')), MAX_TITLE);
    defaults = ['exception', type ?? '', value ?? '', ...groupingFrames(frames)];
  } else {
    message = formatted;
    title = truncate(firstLine(formatted!) || formatted!, MAX_TITLE);
    defaults = ['message', template ?? formatted!];
  }

  let components = defaults;
  if (Array.isArray(event.fingerprint) && event.fingerprint.length > 0) {
    components = [];
    for (const part of event.fingerprint.slice(0, 64)) {
      const s = typeof part === 'string' ? part : JSON.stringify(part) ?? '';
      if (DEFAULT_VARIABLE.test(s.trim())) components.push('{{default}}', ...defaults);
      else components.push(`=${s.slice(0, 1024)}`);
    }
  }
  const { user, key } = userOf(event, requestIp);
  const payload = payloadOf(event, raw);
  return {
    ok: true,
    value: {
      kind,
      eventId: eventIdOf(event.event_id),
      fingerprint: hashOf(components),
      title: title || '<unlabeled event>',
      type,
      message,
      culprit: culpritOf(event, frames),
      platform: text(event.platform, 64),
      level: text(event.level, 32) ?? (kind === 'exception' ? 'error' : 'info'),
      environment: text(event.environment, MAX_SHORT),
      release: text(event.release, MAX_SHORT),
      occurredAt: occurredAt(event.timestamp, received),
      user,
      userKey: key,
      frames,
      payload: payload.text,
      payloadComplete: payload.complete,
    },
  };
}

/** The last exception value with a type or a value: the one an event is about. */
function primaryOf(values: Json[]): Json | null {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i]!;
    if (text(v.type) || text(v.value)) return v;
  }
  return null;
}

/** The stack trace `normalizeEvent` gives an event (a stored, complete payload parsed again). */
export function stackFramesOf(event: unknown): StackFrame[] {
  if (!isObject(event)) return [];
  const values = exceptionValues(event);
  return framesOf(values, primaryOf(values), event);
}

function attrsOf(payload: Json): { release: string; environment: string } {
  const attrs = isObject(payload.attrs) ? payload.attrs : {};
  return { release: text(attrs.release) ?? '', environment: text(attrs.environment) ?? '' };
}

const count = (v: unknown): number => {
  const n = int(v);
  return n !== null && n > 0 ? Math.min(n, 1_000_000_000) : 0;
};

const SESSION_STATUSES = new Set(['ok', 'exited', 'crashed', 'abnormal', 'errored']);

/** A `session` item (`sid`, `status`, `errors`, `started`, `attrs`); a session without `sid` counts on its own. */
export function normalizeSession(payload: unknown, received: Date): Normalized<SessionUpdate> {
  if (!isObject(payload)) return { ok: false, reason: 'unsupported' };
  const { release, environment } = attrsOf(payload);
  const status = typeof payload.status === 'string' && SESSION_STATUSES.has(payload.status) ? payload.status : 'ok';
  const started = parseTimestamp(payload.started);
  return {
    ok: true,
    value: {
      sid: text(payload.sid, 64) ?? randomUUID(),
      release,
      environment,
      status,
      errors: count(payload.errors),
      startedAt: started && started.getTime() <= received.getTime() ? started.toISOString() : received.toISOString(),
      at: received.toISOString(),
    },
  };
}

/** A `sessions` item: pre-aggregated counts (request-mode SDKs). */
export function normalizeSessionAggregates(payload: unknown, received: Date): Normalized<SessionAggregate> {
  if (!isObject(payload)) return { ok: false, reason: 'unsupported' };
  const { release, environment } = attrsOf(payload);
  const delta: SessionAggregate = { release, environment, exited: 0, errored: 0, crashed: 0, abnormal: 0, at: received.toISOString() };
  for (const a of Array.isArray(payload.aggregates) ? payload.aggregates.filter(isObject) : []) {
    delta.exited += count(a.exited);
    delta.errored += count(a.errored);
    delta.crashed += count(a.crashed);
    delta.abnormal += count(a.abnormal);
  }
  return { ok: true, value: delta };
}
