/**
 * The node:http shell around the core: route, authenticate, parse parameters, call the
 * handler, write the answer, log one line. Graceful shutdown finishes requests in flight.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  changeGeneration,
  currentChangeGeneration,
  expireReadCache,
  isDomainError,
  MovedError,
  parseParams,
  STATUS_BY_CODE,
  UnauthorizedError,
  ForbiddenError,
  matchGitHttpPath,
  type Actor,
  type Credentials,
  type Forge,
  type Method,
  type Route,
  type RouteRequest,
} from '@forgelet/core';
import { bodyStream, parseBody } from './body.js';
import { parseQuery } from './query.js';
import { sendError, sendJson, sendReply, type WrittenJson } from './respond.js';
import { Router } from './router.js';
import { serveGraphql } from './graphql.js';
import { GRAPHQL_EXPLORER_HTML } from './graphql-explorer.js';
import { FaultInjector, faultRoutes, sendFault } from './faults.js';
import { ConsoleHandler, sessionCredentialsOf } from './console.js';
import { clientGone, DEFAULT_CONNECTION_LIMITS, serverOptions, type ConnectionLimits } from './connection.js';
import { ResponseCache } from './response-cache.js';

export interface Logger {
  info(line: string): void;
  error(line: string, err?: unknown): void;
}

/**
 * Access log lines are gathered and written once per turn of the event loop (a write per
 * request costs a system call each); errors go out at once, after the lines before them.
 */
let pendingLines = '';
let flushQueued = false;
let exitHooked = false;
function flushLines(): void {
  flushQueued = false;
  if (pendingLines === '') return;
  const out = pendingLines;
  pendingLines = '';
  process.stdout.write(out);
}

export const consoleLogger: Logger = {
  info: (line) => {
    pendingLines += `${line}\n`;
    if (pendingLines.length > 65536) return flushLines();
    if (flushQueued) return;
    flushQueued = true;
    setImmediate(flushLines);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', flushLines);
    }
  },
  error: (line, err) => {
    flushLines();
    process.stderr.write(`${line}${err ? ` ${err instanceof Error ? err.stack : String(err)}` : ''}\n`);
  },
};

export const silentLogger: Logger = { info: () => {}, error: () => {} };

export interface ServerOptions {
  logger?: Logger;
  /**
   * Build pagination links from the request's Host header instead of the external URL
   * (when no external URL was configured, so clients see their own host back).
   */
  linksFromHost?: boolean;
  /** Fault injection (`/api/v4/forgelet/faults`); on in test mode even without this. */
  allowFaults?: boolean;
  /** Timeouts and the connection cap (default DEFAULT_CONNECTION_LIMITS). */
  connections?: Partial<ConnectionLimits>;
  /** The built web console (index.html and assets/), served at `/` and `/-/console`; null or absent: none. */
  consoleDir?: string | null;
  /** Bytes of answers kept to repeat cacheable GETs (response-cache.ts); 0: none. Default DEFAULT_RESPONSE_CACHE_BYTES. */
  responseCacheBytes?: number;
}

export const DEFAULT_RESPONSE_CACHE_BYTES = 8 * 1024 * 1024;

const API_PREFIX = '/api/v4';
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
const PACKAGES_REALM = 'Basic realm="GitLab Packages Registry"';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

function credentialsOf(req: IncomingMessage, query: Record<string, unknown>): Credentials {
  const h = req.headers;
  const creds: Credentials = {};
  creds.privateToken = str(h['private-token']) ?? str(query.private_token);
  creds.jobToken = str(h['job-token']) ?? str(query.job_token);
  const auth = h.authorization ?? '';
  const space = auth.indexOf(' ');
  const scheme = space > 0 ? auth.slice(0, space).toLowerCase() : '';
  const value = space > 0 ? auth.slice(space + 1).trim() : '';
  if (scheme === 'bearer' && value) creds.bearer = value;
  if (scheme === 'basic' && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) creds.basic = { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  creds.deployToken = str(h['deploy-token']);
  const apiKey = str(h['x-nuget-apikey']);
  if (apiKey && !creds.privateToken && !creds.jobToken && !creds.bearer) creds.privateToken = apiKey;
  creds.sudo = str(h.sudo) ?? str(query.sudo);
  // The console's cookie counts only when the request names no other credentials.
  if (!creds.privateToken && !creds.jobToken && !creds.bearer && !creds.basic && !creds.deployToken) {
    creds.session = sessionCredentialsOf(req, (req.method ?? 'GET').toUpperCase());
  }
  return creds;
}

/** Package routes answer a 401 with the registry's Basic challenge. */
function basicChallenge(route: Route, err: unknown): unknown {
  if (route.basicAuth && isDomainError(err) && STATUS_BY_CODE[err.code] === 401) err.headers['WWW-Authenticate'] = PACKAGES_REALM;
  return err;
}

/** Query params minus credentials, so pagination links never repeat a token. */
function withoutCredentials(query: Record<string, unknown>): Record<string, unknown> {
  const { private_token: _p, job_token: _j, access_token: _a, sudo: _s, ...rest } = query;
  return rest;
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A route request whose header copy is made only when a handler reads it. */
class LazyRouteRequest implements RouteRequest {
  private copied: Record<string, string | undefined> | undefined;
  body?: AsyncIterable<Uint8Array>;
  constructor(
    private readonly req: IncomingMessage,
    readonly method: Method,
    readonly path: string,
    readonly ip: string,
    readonly uploads: string[],
  ) {}
  get headers(): Record<string, string | undefined> {
    return (this.copied ??= headersOf(this.req));
  }
  set headers(value: Record<string, string | undefined>) {
    this.copied = value;
  }
}

/** Request ids: 16 hex digits cut from a pool of random bytes refilled 512 ids at a time. */
let idPool = Buffer.alloc(0);
let idOffset = 0;
function newRequestId(): string {
  if (idOffset >= idPool.length) {
    idPool = randomBytes(8 * 512);
    idOffset = 0;
  }
  const id = idPool.toString('hex', idOffset, idOffset + 8);
  idOffset += 8;
  return id;
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

export class ForgeletServer {
  readonly http: Server;
  private readonly router: Router;
  /** The injected faults, when fault injection is on. */
  readonly faults: FaultInjector | null;
  private readonly logger: Logger;
  private readonly linksFromHost: boolean;
  private readonly console: ConsoleHandler;
  /** Answers repeated to cacheable GETs; null when off. */
  readonly responses: ResponseCache | null;
  private inFlight = 0;
  private closing = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly forge: Forge,
    options: ServerOptions = {},
  ) {
    this.faults = options.allowFaults || forge.deps.config.testMode ? new FaultInjector() : null;
    this.router = new Router(this.faults ? [...forge.routes, ...faultRoutes(this.faults)] : forge.routes);
    this.logger = options.logger ?? consoleLogger;
    this.linksFromHost = options.linksFromHost ?? false;
    this.console = new ConsoleHandler(forge, options.consoleDir ?? null);
    const cacheBytes = options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES;
    this.responses = cacheBytes > 0 ? new ResponseCache(cacheBytes) : null;
    const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connections };
    this.http = createServer(serverOptions(limits), (req, res) => void this.handle(req, res));
    if (limits.maxConnections > 0) {
      this.http.maxConnections = limits.maxConnections;
      let lastReport = 0;
      let dropped = 0;
      this.http.on('drop', () => {
        dropped++;
        const now = Date.now();
        if (now - lastReport < 10_000) return;
        this.logger.error(`${new Date(now).toISOString()} refused ${dropped} connection(s): ${limits.maxConnections} open (--max-connections)`);
        lastReport = now;
        dropped = 0;
      });
    }
  }

  /** Starts listening; resolves with the base URL. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    const addr = this.http.address() as AddressInfo;
    const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return `http://${shownHost}:${addr.port}`;
  }

  /** Stops accepting connections, waits for requests in flight, stops workers, closes the database. */
  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.http.closeAllConnections();
    await closed;
    await this.forge.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    this.inFlight++;
    // This request sees every commit made before it arrived, by any process.
    expireReadCache(this.forge.deps.db);
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : newRequestId();
    res.setHeader('X-Request-Id', requestId);
    if (this.closing) res.setHeader('Connection', 'close');
    const seen: { actor: Actor | null } = { actor: null };
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    try {
      await this.dispatch(req, res, url, path, q < 0 ? '' : url.slice(q + 1), seen);
    } catch (err) {
      this.fail(res, err, req, path);
    } finally {
      if (this.logger !== silentLogger) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const who = seen.actor?.user?.username ?? '-';
        this.logger.info(`${new Date().toISOString()} ${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms user=${who} rid=${requestId}`);
      }
      if (--this.inFlight === 0 && this.idleWaiters.length) this.idleWaiters.splice(0).forEach((w) => w());
    }
  }

  private fail(res: ServerResponse, err: unknown, req: IncomingMessage, path: string) {
    if (clientGone(req, res)) {
      // nginx's 499 in the access log: the client closed the connection before the answer
      if (!res.headersSent) res.statusCode = 499;
      res.destroy();
      return;
    }
    if (res.headersSent) {
      this.logger.error(`error after headers sent on ${req.method} ${path}`, err);
      res.destroy();
      return;
    }
    if (err instanceof MovedError && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(301, { Location: this.movedLocation(req, path, err) });
      res.end();
      return;
    }
    if (isDomainError(err)) {
      sendError(res, err);
      return;
    }
    this.logger.error(`500 on ${req.method} ${path}`, err);
    sendJson(res, 500, { message: '500 Internal Server Error' });
  }

  /** The request URL with the segment that named the old path replaced by the project id. */
  private movedLocation(req: IncomingMessage, path: string, err: MovedError): string {
    const url = req.url ?? path;
    const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
    const segments = path.split('/').map((seg) => {
      try {
        return decodeURIComponent(seg).toLowerCase() === err.oldPath.toLowerCase() ? String(err.id) : seg;
      } catch {
        return seg;
      }
    });
    return `${this.forge.deps.config.externalUrl}${segments.join('/')}${query}`;
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, url: string, path: string, queryText: string, seen: { actor: Actor | null }) {
    const method = (req.method ?? 'GET').toUpperCase();
    // Injected faults come before routing (never on the fault routes themselves).
    const fault = this.faults?.hit(method, path);
    if (fault) {
      if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
      if (fault.status !== null && fault.fault) return sendFault(res, fault.fault, fault.status);
    }
    if (path === '/-/health') return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('GitLab OK');
    if (path === '/-/liveness') return sendJson(res, 200, { status: 'ok' });
    if (path === '/-/readiness') {
      const healthy = await this.forge.health();
      return sendJson(res, healthy ? 200 : 503, { status: healthy ? 'ok' : 'failed', master_check: [{ status: healthy ? 'ok' : 'failed' }] });
    }
    if (path === '/-/graphql-explorer' && (method === 'GET' || method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'" });
      return void res.end(method === 'HEAD' ? undefined : GRAPHQL_EXPLORER_HTML);
    }
    if (path === '/api/graphql') {
      return serveGraphql(this.forge, req, res, queryText, (query) => credentialsOf(req, query), seen, (err) => this.logger.error(`GraphQL resolver error on ${path}`, err));
    }
    if (!path.startsWith(`${API_PREFIX}/`) && matchGitHttpPath(path)) return this.gitHttp(req, res, method, path, queryText, seen);
    if (await this.console.handle(req, res, path, method)) return;
    if (!path.startsWith(`${API_PREFIX}/`) || !METHODS.has(method)) return sendJson(res, 404, { error: '404 Not Found' });
    const apiPath = path.slice(API_PREFIX.length);
    const match = this.router.match(method as Method, apiPath);
    if (match.kind === 'not_found') return sendJson(res, 404, { error: '404 Not Found' });
    if (match.kind === 'method_not_allowed') return sendJson(res, 405, { error: '405 Not Allowed' });
    const route = match.route;
    // A cacheable GET answered before, the database unchanged since: the same answer (response-cache.ts).
    const cacheKey = route.cacheable && method === 'GET' && this.responses ? this.responses.keyOf(req, url, this.forge.deps.config.tier) : null;
    let generation: number | undefined;
    if (cacheKey !== null) {
      const checked = changeGeneration(this.forge.deps.db);
      generation = typeof checked === 'number' || checked === undefined ? checked : await checked;
      const hit = generation === undefined ? undefined : this.responses!.get(cacheKey, generation, this.forge.deps.clock.now().getTime());
      if (hit) {
        seen.actor = hit.actor;
        res.writeHead(hit.status, hit.headers);
        res.end(hit.body);
        return;
      }
    }
    const query = parseQuery(queryText);

    const actor = await this.authenticate(req, route, query);
    seen.actor = actor;

    let bodyParams: Record<string, unknown> = {};
    let uploads: string[] = [];
    const limits = this.forge.deps.config.limits;
    if (!route.rawBody) {
      const parsed = await parseBody(req, {
        bodyLimit: limits.bodyBytes,
        uploadLimit: Math.min(route.uploadLimit ?? Infinity, limits.uploadBytes),
        uploadTooLarge: route.uploadTooLarge,
        blobs: this.forge.deps.blobs,
      });
      bodyParams = parsed.params;
      uploads = parsed.uploads;
    }
    try {
      const params = parseParams(route.params, { ...query, ...bodyParams, ...match.params });
      const request: RouteRequest = new LazyRouteRequest(req, method as Method, apiPath, req.socket.remoteAddress ?? '', uploads);
      if (route.rawBody) request.body = bodyStream(req);
      const ctx = this.forge.context(actor);
      const reply = await route.handler(ctx, params, request);
      await this.forge.recordActivity(actor);
      const host = req.headers.host;
      const base = this.linksFromHost && host && /^[\w.:[\]-]+$/.test(host) ? `http://${host}` : this.forge.deps.config.externalUrl;
      const linkBase = `${base}${path}`;
      const written = await sendReply(res, reply, { linkBase, query: withoutCredentials(query), head: method === 'HEAD' });
      if (cacheKey !== null && generation !== undefined && written?.status === 200) this.keep(cacheKey, generation, actor, written);
    } finally {
      if (uploads.length) await Promise.all(uploads.map((k) => this.forge.deps.blobs.delete(k)));
    }
  }

  /** Keeps a cacheable route's answer, unless the database changed while it was made or its actor must authenticate every time. */
  private keep(key: string, generation: number, actor: Actor, written: WrittenJson): void {
    if (currentChangeGeneration(this.forge.deps.db) !== generation) return;
    const until = this.forge.settledUntil(actor);
    if (until === undefined) return;
    this.responses!.set(key, generation, this.forge.deps.clock.now().getTime(), until, { ...written, actor });
  }

  /** Git smart HTTP: core decides and streams git's output; the body goes to git gunzipped as it arrives. */
  private async gitHttp(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: string, seen: { actor: Actor | null }) {
    const { reply, actor } = await this.forge.gitHttp({ method, path, query, headers: headersOf(req), body: bodyStream(req) });
    seen.actor = actor;
    await sendReply(res, reply, { linkBase: path, query: {}, head: method === 'HEAD' });
  }

  private async authenticate(req: IncomingMessage, route: Route, query: Record<string, unknown>): Promise<Actor> {
    if (route.auth === 'none') return this.forge.context({ kind: 'anonymous', user: null, token: null, isAdmin: false }).actor;
    let actor: Actor;
    try {
      actor = await this.forge.authenticate(credentialsOf(req, query), route);
    } catch (err) {
      throw basicChallenge(route, err);
    }
    // A deploy token has no user; it authenticates only where package routes accept it (authenticate decides).
    if (route.auth !== 'optional' && !actor.user && !actor.deployToken) throw basicChallenge(route, new UnauthorizedError());
    if (route.auth === 'admin' && !actor.isAdmin) throw new ForbiddenError();
    this.forge.checkScopes(actor, (req.method ?? 'GET').toUpperCase() as Method, route.scopes);
    return actor;
  }
}
