/**
 * The REST contract as data. Each domain declares its routes here-shaped (method, path,
 * auth, parameter schema, handler) with no node:http types; the server serves the
 * collected table, and the OpenAPI document and the client come from the same declarations.
 */
import { sep } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
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

/**
 * A handler's answers, typed at the declaration: the constructors below keep the status as a
 * literal type and the body's type, so a route's type (`Route<S, R>`) carries the union of
 * what it can answer. scripts/openapi-responses.ts reads that declared union, route by route
 * from the runtime table, to write the OpenAPI answers.
 */
type Headers = Record<string, string>;
export interface JsonReply<Status extends number = number, T = unknown> { kind: 'json'; status: Status; body: T; headers?: Headers }
export interface PageReply<T = unknown> { kind: 'page'; status: 200; page: Page<T>; headers?: Headers }
export interface EmptyReply<Status extends number = number> { kind: 'empty'; status: Status; headers?: Headers }
export interface TextReply<Status extends number = number, Type extends string = string> { kind: 'text'; status: Status; body: string; contentType: Type; headers?: Headers }
export interface StreamReply<Status extends number = number, Type extends string = string> {
  kind: 'stream';
  status: Status;
  body: Readable;
  contentType: Type;
  size?: number;
  headers?: Headers;
}
export interface RedirectReply<Status extends number = number> { kind: 'redirect'; status: Status; location: string }

export type Reply = JsonReply | PageReply | EmptyReply | TextReply | StreamReply | RedirectReply;

/** A JSON body with any status (`ok`, `created`, `accepted` name the common ones). */
export const json = <Status extends number, T>(status: Status, body: T, headers?: Headers): JsonReply<Status, T> => ({ kind: 'json', status, body, headers });
export const ok = <T>(body: T, headers?: Headers): JsonReply<200, T> => ({ kind: 'json', status: 200, body, headers });
export const created = <T>(body: T): JsonReply<201, T> => ({ kind: 'json', status: 201, body });
/** GitLab's `202 Accepted` answer (`{"message": "202 Accepted"}` unless a body is given). */
export function accepted(): JsonReply<202, { message: string }>;
export function accepted<T>(body: T): JsonReply<202, T>;
export function accepted(body: unknown = { message: '202 Accepted' }): JsonReply<202, unknown> {
  return { kind: 'json', status: 202, body };
}
export const noContent = (): EmptyReply<204> => ({ kind: 'empty', status: 204 });
/** No body, with a status (`noContent` for 204) and headers (a HEAD answer, a runner's 204). */
export const empty = <Status extends number>(status: Status, headers?: Headers): EmptyReply<Status> => ({ kind: 'empty', status, headers });
/** A body streamed from `body` (200), with its length when known. */
export const stream = <Type extends string>(body: Readable, contentType: Type, options: { size?: number; headers?: Headers } = {}): StreamReply<200, Type> => ({
  kind: 'stream',
  status: 200,
  body,
  contentType,
  size: options.size,
  headers: options.headers,
});
/** A download: application/octet-stream, `Content-Disposition: attachment` with the file's name (RFC 6266 and 5987 spellings). */
export function attachment(body: Readable, size: number, fileName: string): StreamReply<200, 'application/octet-stream'> {
  const plain = fileName.replace(/["\\\r\n]/g, '_');
  return stream(body, 'application/octet-stream', { size, headers: { 'Content-Disposition': `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(fileName)}` } });
}
export const redirect = (location: string): RedirectReply<302> => ({ kind: 'redirect', status: 302, location });
export const paged = <T>(page: Page<T>): PageReply<T> => ({ kind: 'page', status: 200, page });
/** A text body: text/plain and 200 unless given. */
export function text(body: string): TextReply<200, 'text/plain'>;
export function text<Type extends string>(body: string, contentType: Type): TextReply<200, Type>;
export function text<Type extends string, Status extends number>(body: string, contentType: Type, status: Status, headers?: Headers): TextReply<Status, Type>;
export function text(body: string, contentType = 'text/plain', status = 200, headers?: Headers): TextReply {
  return { kind: 'text', status, body, contentType, headers };
}

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
   * A GET whose 200 answer is made from the database, the actor, the URL and the licensed tier
   * alone (no clock, no request header, no file or repository on disk, no other setting that
   * changes while the server runs): the server may send the same answer
   * again, from memory, until the database changes or the actor's authentication is due again
   * (server/response-cache.ts).
   */
  cacheable?: boolean;
}

/** A declared route; `R` is the union of its answers (the handler's declared reply type). */
export interface Route<S extends Shape = Shape, R extends Reply = Reply> extends RouteOptions<S> {
  method: Method;
  path: string;
  params: ObjectField<S>;
  handler: (ctx: RouteContext, params: InferShape<S>, req: RouteRequest) => Promise<R>;
}

export function route<S extends Shape = {}, R extends Reply = Reply>(
  method: Method,
  path: string,
  options: RouteOptions<S>,
  handler: (ctx: RouteContext, params: InferShape<S>, req: RouteRequest) => Promise<R>,
): Route<Shape, R> {
  const params = options.params ?? (declareParams({}) as unknown as ObjectField<S>);
  const declared = { ...options, method, path, params, handler } as unknown as Route<Shape, R>;
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
const callers = new WeakMap<Route<Shape, Reply>, { stack?: string }>();

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
