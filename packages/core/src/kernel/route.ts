/**
 * The REST contract as data. Each domain declares its routes here-shaped (method, path,
 * auth, parameter schema, handler) with no node:http types; the server serves the
 * collected table, and the OpenAPI document and the client come from the same declarations.
 */
import { sep } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ResponseDecl } from './openapi.js';
import type { Page } from './pagination.js';
import { params as declareParams, type InferShape, type ObjectField, type Shape } from './params.js';
import type { Tier } from './tiers.js';

/**
 * What a handler receives. The kernel knows nothing of it: the access layer, which defines the
 * request context (dependencies and actor), fills it in by augmentation (access/context.ts), so
 * routes are typed against the real context without the kernel importing from above.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface RouteContext {}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/**
 * none: credentials ignored; optional: anonymous allowed; required: a user or job;
 * admin: an administrator.
 */
export type AuthMode = 'none' | 'optional' | 'required' | 'admin';

export interface RouteRequest {
  method: Method;
  /** Path under /api/v4 as requested (still encoded). */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** Client address. */
  ip: string;
  /** The raw body, for routes declared with `rawBody` (already gunzipped). */
  body?: AsyncIterable<Uint8Array>;
  /** Keys of blobs the server stored for multipart file parts; unclaimed ones are deleted after the handler. */
  uploads?: string[];
}

export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'page'; status: number; page: Page<unknown>; headers?: Record<string, string> }
  | { kind: 'empty'; status: number; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string; contentType: string; headers?: Record<string, string> }
  | { kind: 'stream'; status: number; body: Readable; contentType: string; size?: number; headers?: Record<string, string> }
  | { kind: 'redirect'; status: number; location: string };

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ kind: 'json', status: 200, body, headers });
export const created = (body: unknown): Reply => ({ kind: 'json', status: 201, body });
export const accepted = (body: unknown = { message: '202 Accepted' }): Reply => ({ kind: 'json', status: 202, body });
export const noContent = (): Reply => ({ kind: 'empty', status: 204 });
export const paged = (page: Page<unknown>): Reply => ({ kind: 'page', status: 200, page });
export const text = (body: string, contentType = 'text/plain', status = 200): Reply => ({ kind: 'text', status, body, contentType });

export interface RouteOptions<S extends Shape> {
  auth: AuthMode;
  params?: ObjectField<S>;
  /** One line for the OpenAPI document. */
  summary?: string;
  /** Scopes any one of which allows the call; default: api, plus read_api for GET/HEAD. */
  scopes?: readonly string[];
  /** CI job tokens may call this route. */
  jobToken?: boolean;
  /** HTTP Basic with username + token (package feeds). */
  basicAuth?: boolean;
  /** Group in the OpenAPI document and client. */
  tag?: string;
  /**
   * The lowest tier that has the endpoint (a Premium or Ultimate feature of GitLab), for
   * docs/routes.md; below it the use case answers as GitLab does for an unlicensed feature.
   */
  tier?: Tier;
  /** The handler reads the body itself (`req.body`); only query and path give params. */
  rawBody?: boolean;
  /** Largest accepted multipart file in bytes (config.limits.uploadBytes when that is lower). */
  uploadLimit?: number;
  /**
   * The reason of the 400 (GitLab's `bad_request!`) for a file over the limit, as the route's
   * GitLab endpoint answers it; without it, 413.
   */
  uploadTooLarge?: string;
  /**
   * The answers for the OpenAPI document, only when scripts/openapi-responses.ts cannot read
   * them from the handler (normally they are generated from its code and the entity types).
   */
  response?: readonly ResponseDecl[];
}

export interface Route<S extends Shape = Shape> extends RouteOptions<S> {
  method: Method;
  path: string;
  params: ObjectField<S>;
  handler: (ctx: RouteContext, params: InferShape<S>, req: RouteRequest) => Promise<Reply>;
}

export function route<S extends Shape = {}>(
  method: Method,
  path: string,
  options: RouteOptions<S>,
  handler: (ctx: RouteContext, params: InferShape<S>, req: RouteRequest) => Promise<Reply>,
): Route<Shape> {
  const params = options.params ?? (declareParams({}) as unknown as ObjectField<S>);
  const declared = { ...options, method, path, params, handler } as unknown as Route<Shape>;
  if (SOURCES !== null) {
    const site: { stack?: string } = {};
    Error.captureStackTrace(site, route);
    callers.set(declared, site);
  }
  return declared;
}

/** Where a route is declared: the file of its `route()` call, relative to packages/core/src, and the line. */
export interface RouteDeclaration {
  file: string;
  line: number;
}

/**
 * packages/core/src when core runs from its TypeScript sources (tsx: the tests, the scripts,
 * `npm run generate:routes`); then route() keeps its caller's stack, formatted (source-mapped)
 * only when asked for. A bundled build (dist, the CLI's server chunk) has no sources to point
 * at: nothing is captured and routeDeclaration() answers undefined.
 */
const SOURCES = import.meta.url.endsWith('/kernel/route.ts') ? fileURLToPath(new URL('../', import.meta.url)) : null;
const callers = new WeakMap<Route, { stack?: string }>();

/** The `route()` call that declared a route (undefined in a bundled build, or for a route not made by route()). */
export function routeDeclaration(declared: Route): RouteDeclaration | undefined {
  const stack = callers.get(declared)?.stack;
  if (SOURCES === null || stack === undefined) return undefined;
  // The first frame is route()'s caller: `at <anonymous> (/src/x.routes.ts:12:3)`, `at file:///src/x.routes.ts:12:3`.
  const frame = stack.split('\n').find((l) => l.trimStart().startsWith('at '));
  const m = frame === undefined ? null : /((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?$/.exec(frame.trim());
  if (!m) return undefined;
  const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
  if (!file.startsWith(SOURCES)) return undefined;
  return { file: file.slice(SOURCES.length).split(sep).join('/'), line: Number(m[2]) };
}
