/** Sentry-shaped payloads and raw collector calls for the error tracking suites. */
import { randomUUID } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { requestHead } from '../support/raw-http.js';
import type { TestForgelet } from '../support/server.js';
import { expectStatus, rawRequest, type RawResponse } from './http.js';

export interface Frame {
  filename?: string;
  module?: string;
  function?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
}

/** Frames as @sentry/node sends them (outermost first). */
export const NODE_FRAMES: Frame[] = [
  { filename: 'node:internal/main', module: 'node:internal/main', function: 'run', lineno: 100, colno: 5, in_app: false },
  { filename: '/app/src/server.js', module: 'server', function: 'handle', lineno: 20, colno: 3, in_app: true, context_line: '  return checkout(cart);' },
  {
    filename: '/app/src/checkout.js',
    module: 'checkout',
    function: 'checkout',
    lineno: 42,
    colno: 11,
    in_app: true,
    pre_context: ['function checkout(cart) {', '  const total = sum(cart);'],
    context_line: "  throw new TypeError('cart is empty');",
    post_context: ['}'],
  },
];

export function eventId(): string {
  return randomUUID().replace(/-/g, '');
}

export function exceptionEvent(options: {
  type?: string;
  value?: string;
  frames?: Frame[];
  user?: Record<string, unknown> | null;
  release?: string;
  timestamp?: number | string;
  fingerprint?: unknown[];
  platform?: string;
  event_id?: string;
} = {}): Record<string, unknown> {
  const event: Record<string, unknown> = {
    event_id: options.event_id ?? eventId(),
    level: 'error',
    platform: options.platform ?? 'node',
    environment: 'production',
    exception: {
      values: [
        {
          type: options.type ?? 'TypeError',
          value: options.value ?? 'cart is empty',
          stacktrace: { frames: options.frames ?? NODE_FRAMES },
          mechanism: { type: 'generic', handled: true },
        },
      ],
    },
  };
  if (options.user !== null) event.user = options.user ?? { id: 'u-1' };
  if (options.release !== undefined) event.release = options.release;
  if (options.timestamp !== undefined) event.timestamp = options.timestamp;
  if (options.fingerprint !== undefined) event.fingerprint = options.fingerprint;
  return event;
}

export function messageEvent(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { event_id: eventId(), level: 'warning', platform: 'python', message, ...extra };
}

/** An envelope: header line, then `{type}` headers with payloads (`length` given when `withLength`). */
export function envelope(header: Record<string, unknown>, items: { type: string; payload: unknown; withLength?: boolean }[], trailingNewline = false): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header))];
  for (const item of items) {
    const payload = Buffer.isBuffer(item.payload) ? item.payload : Buffer.from(typeof item.payload === 'string' ? item.payload : JSON.stringify(item.payload));
    const h: Record<string, unknown> = { type: item.type };
    if (item.withLength) h.length = payload.length;
    parts.push(Buffer.from(`\n${JSON.stringify(h)}\n`), payload);
  }
  if (trailingNewline) parts.push(Buffer.from('\n'));
  return Buffer.concat(parts);
}

export const collectorPath = (projectId: number | string, kind: 'store' | 'envelope', query = '') =>
  `/api/v4/error_tracking/collector/api/${projectId}/${kind}/${query ? `?${query}` : ''}`;

export const sentryAuth = (key: string) => `Sentry sentry_key=${key}, sentry_version=7, sentry_client=sentry.python/1.9.10`;

/** The head of a gzipped store of `length` bytes to a project, with a key no project has. */
export function storeHead(projectId: number | string, length: number): string {
  return requestHead('POST', collectorPath(projectId, 'store'), {
    'Content-Type': 'application/json',
    'Content-Encoding': 'gzip',
    'X-Sentry-Auth': sentryAuth('glet_00000000000000000000000000000000'),
    'Content-Length': length,
  });
}

/** Python-style: gzipped JSON to the store endpoint with X-Sentry-Auth. */
export function store(f: TestForgelet, projectId: number | string, key: string, event: unknown, options: { gzip?: boolean; deflate?: boolean } = {}): Promise<RawResponse> {
  const json = Buffer.from(typeof event === 'string' ? event : JSON.stringify(event));
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Sentry-Auth': sentryAuth(key) };
  let body = json;
  if (options.gzip !== false && !options.deflate) {
    body = gzipSync(json);
    headers['Content-Encoding'] = 'gzip';
  }
  if (options.deflate) {
    body = deflateSync(json);
    headers['Content-Encoding'] = 'deflate';
  }
  return rawRequest(f.url, 'POST', collectorPath(projectId, 'store'), { headers, body });
}

/** Node-style: an envelope, key in the query string, no content type, chunked. */
export function sendEnvelope(f: TestForgelet, projectId: number | string, key: string | null, body: Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  const query = key ? `sentry_version=7&sentry_key=${key}&sentry_client=sentry.javascript.node%2F10.78.0` : '';
  return rawRequest(f.url, 'POST', collectorPath(projectId, 'envelope', query), { headers, body, chunked: true });
}

/** Enables integrated tracking (as root) and returns the project's first key. */
export async function enableTracking(f: TestForgelet, projectId: number): Promise<{ key: string; dsn: string; keyId: number }> {
  const put = await f.api('PUT', `/projects/${projectId}/error_tracking/settings?active=true&integrated=true`, { body: {} });
  expectStatus(put, 200);
  const keys = await f.api('GET', `/projects/${projectId}/error_tracking/client_keys`);
  expectStatus(keys, 200);
  return { key: keys.body[0].public_key, dsn: keys.body[0].sentry_dsn, keyId: keys.body[0].id };
}
