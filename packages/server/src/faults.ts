/**
 * Fault injection for test suites: added latency, an error status, or a 429 with GitLab's
 * rate-limit headers, on the requests a fault matches (method and path glob), for its next
 * `times` matching calls and/or a `fraction` of them. Applied by the server before routing;
 * the fault routes themselves (`/api/v4/forgelet/faults…`) are never faulted.
 *
 * `fraction` is deterministic: the k-th matching call is hit when ⌊k·fraction⌋ grows
 * (0.5 → calls 2, 4, 6 …; 0.25 → 4, 8 …), so a test sees the same sequence every run.
 *
 * Enabled when the server runs in test mode or was started with `--allow-faults`
 * (FORGELET_ALLOW_FAULTS=1); otherwise the routes do not exist (404).
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { NotFoundError, p, params, ValidationError, type FaultEntity, type FaultSpec, type Reply, type Route } from '@forgelet/core';

export type { FaultEntity, FaultSpec };

export const FAULTS_PATH = '/forgelet/faults';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

interface Fault extends FaultEntity {
  pattern: RegExp;
}

/** What to do to one request. */
export interface FaultHit {
  latencyMs: number;
  status: number | null;
  fault: FaultEntity | null;
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}/?$`);
}

/** `/projects/*` means `/api/v4/projects/*`; `/api/…` and `/-/…` are taken as given. */
function fullPath(path: string): string {
  return path.startsWith('/api/') || path.startsWith('/-/') || path.startsWith('/**') ? path : `/api/v4${path}`;
}

export class FaultInjector {
  private faults: Fault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): FaultEntity {
    const method = spec.method && spec.method !== '*' ? spec.method.toUpperCase() : null;
    const path = fullPath(spec.path);
    const fault: Fault = {
      id: this.nextId++,
      method,
      path,
      status: spec.status ?? null,
      latency_ms: spec.latency_ms ?? 0,
      times: spec.times ?? null,
      fraction: spec.fraction ?? 1,
      retry_after: spec.retry_after ?? 1,
      rate_limit: spec.rate_limit ?? 60,
      remaining: spec.times ?? null,
      matched: 0,
      injected: 0,
      pattern: globToRegExp(path),
    };
    this.faults.push(fault);
    return present(fault);
  }

  list(): FaultEntity[] {
    return this.faults.map(present);
  }

  get(id: number): FaultEntity | null {
    const f = this.faults.find((x) => x.id === id);
    return f ? present(f) : null;
  }

  remove(id: number): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  /**
   * Counts the call against every matching fault; the latency of each one that hits adds
   * up and the first hitting fault with a status decides the answer.
   */
  hit(method: string, path: string): FaultHit | null {
    if (this.faults.length === 0 || isFaultRoute(path)) return null;
    let latencyMs = 0;
    let status: number | null = null;
    let decided: Fault | null = null;
    let any = false;
    for (const f of this.faults) {
      if (f.remaining === 0) continue;
      if (f.method && f.method !== method) continue;
      if (!f.pattern.test(path)) continue;
      f.matched++;
      const k = f.matched;
      if (Math.floor(k * f.fraction + 1e-9) <= Math.floor((k - 1) * f.fraction + 1e-9)) continue;
      if (f.remaining !== null) f.remaining--;
      f.injected++;
      any = true;
      latencyMs += f.latency_ms;
      if (status === null && f.status !== null) {
        status = f.status;
        decided = f;
      }
    }
    return any ? { latencyMs, status, fault: decided && present(decided) } : null;
  }
}

function present(f: Fault): FaultEntity {
  const { pattern: _p, ...rest } = f;
  return { ...rest };
}

export function isFaultRoute(path: string): boolean {
  return path === `/api/v4${FAULTS_PATH}` || path.startsWith(`/api/v4${FAULTS_PATH}/`);
}

/** Writes the injected answer: 429 as GitLab's Rack::Attack throttle, other statuses as GitLab's JSON error. */
export function sendFault(res: ServerResponse, fault: FaultEntity, status: number, now = Date.now()): void {
  if (status === 429) {
    const resetAt = Math.ceil(now / 1000) + fault.retry_after;
    const body = 'Retry later\n';
    res.writeHead(429, {
      'Content-Type': 'text/plain',
      'Content-Length': Buffer.byteLength(body),
      'RateLimit-Name': 'throttle_authenticated_api',
      'RateLimit-Limit': String(fault.rate_limit),
      'RateLimit-Observed': String(fault.rate_limit + fault.injected),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(resetAt),
      'RateLimit-ResetTime': new Date(resetAt * 1000).toUTCString(),
      'Retry-After': String(fault.retry_after),
    });
    res.end(body);
    return;
  }
  const text = JSON.stringify({ message: `${status} ${STATUS_CODES[status] ?? 'Error'}` });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// ---------------------------------------------------------------- routes

function problem(field: string, message: string): never {
  throw new ValidationError([{ field, message }]);
}

function numberOf(raw: string | undefined, field: string, check: (n: number) => boolean, rule: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) problem(field, rule);
  return n;
}

const FaultInput = params({
  method: p.string().optional(),
  path: p.string(),
  status: p.integer().optional(),
  latency_ms: p.integer().min(0).optional(),
  times: p.integer().min(1).optional(),
  fraction: p.string().optional(),
  retry_after: p.integer().min(0).optional(),
  rate_limit: p.integer().min(1).optional(),
});

export function faultRoutes(injector: FaultInjector): Route[] {
  const tag = 'forgelet_faults';
  const json = (status: number, body: unknown): Reply => ({ kind: 'json', status, body });
  const routes: Route[] = [
    {
      method: 'GET', path: FAULTS_PATH, auth: 'admin', tag, summary: 'List injected faults', params: params({}),
      handler: async () => json(200, injector.list()),
    },
    {
      method: 'POST', path: FAULTS_PATH, auth: 'admin', tag, summary: 'Inject a fault (latency, an error status, or a 429)', params: FaultInput,
      handler: async (_ctx, input: any) => {
        const method = input.method === undefined || input.method === '*' ? undefined : String(input.method).toUpperCase();
        if (method && !(METHODS as readonly string[]).includes(method)) problem('method', `must be one of ${METHODS.join(', ')} or *`);
        if (!String(input.path).startsWith('/')) problem('path', 'must start with /');
        if (input.status !== undefined && (input.status < 400 || input.status > 599)) problem('status', 'must be from 400 to 599');
        if (input.status === undefined && !input.latency_ms) problem('status', 'or latency_ms must be given');
        const fraction = numberOf(input.fraction, 'fraction', (n) => n > 0 && n <= 1, 'must be a number greater than 0 and at most 1');
        return json(201, injector.add({ ...input, method, fraction }));
      },
    },
    {
      method: 'DELETE', path: FAULTS_PATH, auth: 'admin', tag, summary: 'Remove every fault', params: params({}),
      handler: async () => {
        injector.clear();
        return { kind: 'empty', status: 204 };
      },
    },
    {
      method: 'GET', path: `${FAULTS_PATH}/:fault_id`, auth: 'admin', tag, summary: 'Get a fault', params: params({ fault_id: p.id() }),
      handler: async (_ctx, input: any) => {
        const fault = injector.get(input.fault_id);
        if (!fault) throw new NotFoundError('Fault');
        return json(200, fault);
      },
    },
    {
      method: 'DELETE', path: `${FAULTS_PATH}/:fault_id`, auth: 'admin', tag, summary: 'Remove a fault', params: params({ fault_id: p.id() }),
      handler: async (_ctx, input: any) => {
        if (!injector.remove(input.fault_id)) throw new NotFoundError('Fault');
        return { kind: 'empty', status: 204 };
      },
    },
  ];
  return routes as Route[];
}

