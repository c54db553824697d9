/**
 * Sentry's envelope format: a JSON header line, then items, each a JSON header line and a
 * payload. A payload is `length` bytes when the item header says so (it may hold newlines),
 * else it runs to the next newline or the end. The last newline is optional (@sentry/node
 * omits it, sentry-python sends it). Parsed on bytes: `length` counts bytes, not characters.
 */
import { inflateSync } from 'node:zlib';
import { isObject } from './normalize.js';

export interface EnvelopeItem {
  type: string;
  header: Record<string, unknown>;
  payload: Buffer;
}

export interface Envelope {
  header: Record<string, unknown>;
  items: EnvelopeItem[];
}

/** Thrown for bytes that are not an envelope; the collector answers "Failed to parse sentry request". */
export class EnvelopeParseError extends Error {}

const NL = 0x0a;

function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new EnvelopeParseError('invalid JSON');
  }
  if (!isObject(value)) throw new EnvelopeParseError('not a JSON object');
  return value;
}

/** The line starting at `from` (without its `\n` or `\r\n`) and where the next one starts. */
function lineAt(body: Buffer, from: number): { line: Buffer; next: number } {
  const end = body.indexOf(NL, from);
  const stop = end < 0 ? body.length : end;
  const line = body.subarray(from, stop > from && body[stop - 1] === 0x0d ? stop - 1 : stop);
  return { line, next: end < 0 ? body.length : end + 1 };
}

const MAX_ITEMS = 1000;
const MAX_INFLATED = 20 * 1024 * 1024;

export function parseEnvelope(body: Buffer): Envelope {
  let pos = 0;
  const first = lineAt(body, pos);
  if (first.line.length === 0) throw new EnvelopeParseError('empty envelope');
  const header = parseJsonObject(first.line);
  pos = first.next;
  const items: EnvelopeItem[] = [];
  while (pos < body.length) {
    const h = lineAt(body, pos);
    pos = h.next;
    if (h.line.toString('utf8').trim() === '') continue; // blank lines between items
    if (items.length >= MAX_ITEMS) throw new EnvelopeParseError('too many items');
    const itemHeader = parseJsonObject(h.line);
    const type = typeof itemHeader.type === 'string' ? itemHeader.type : '';
    if (!type) throw new EnvelopeParseError('item without type');
    let payload: Buffer;
    if (itemHeader.length !== undefined && itemHeader.length !== null) {
      const length = itemHeader.length;
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || pos + length > body.length) {
        throw new EnvelopeParseError('bad item length');
      }
      payload = body.subarray(pos, pos + length);
      pos += length;
      if (body[pos] === 0x0d) pos++;
      if (body[pos] === NL) pos++;
    } else {
      const p = lineAt(body, pos);
      payload = p.line;
      pos = p.next;
    }
    items.push({ type, header: itemHeader, payload });
  }
  return { header, items };
}

/**
 * A store body: JSON, or what old SDKs (raven) sent: base64 of zlib-deflated JSON.
 * Returns undefined when it is neither.
 */
export function parseStoreBody(body: Buffer): unknown {
  const textBody = body.toString('utf8').trim();
  try {
    return JSON.parse(textBody);
  } catch {
    // fall through
  }
  if (!/^[A-Za-z0-9+/=_-]+$/.test(textBody)) return undefined;
  try {
    return JSON.parse(inflateSync(Buffer.from(textBody, 'base64'), { maxOutputLength: MAX_INFLATED }).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The public key in a DSN (`scheme://<key>[:secret]@host/…`), or null. */
export function keyOfDsn(dsn: unknown): string | null {
  if (typeof dsn !== 'string') return null;
  try {
    const url = new URL(dsn);
    return url.username ? decodeURIComponent(url.username) : null;
  } catch {
    return null;
  }
}

/** `sentry_key=<k>` from an `X-Sentry-Auth` header (`Sentry sentry_key=…, sentry_version=7, …`). */
export function keyOfAuthHeader(header: string | undefined): string | null {
  if (!header) return null;
  const m = /sentry_key=(\w+)/.exec(header);
  return m ? m[1]! : null;
}
