/**
 * Answers to GETs kept in memory and sent again while they are still the answer.
 *
 * A route opts in (`cacheable`: its 200 is made from the database, the actor, the URL and the
 * tier alone). Its answer is kept under the licensed tier (which an embedding application or the
 * test harness may switch), the request's host, URL and credential (the token's digest, never
 * the token) and sent again to the same request while both of these hold:
 *  - the database has not changed: the change generation (core storage/read-cache.ts) is the
 *    one the answer was made under. It moves on any write of this process, any commit of
 *    another process (checked once per turn of the event loop, as the read cache checks), a
 *    restore. An answer is kept only if the generation did not move while it was made;
 *  - the actor's authentication is settled (core access/authenticate.ts settledUntil, on the
 *    injected clock): same UTC date, so no token or membership expired and `last_activity_on`
 *    is today's, and the token's last use recorded. Only anonymous requests and access tokens
 *    qualify; job tokens, deploy tokens, sessions and Sudo authenticate every time.
 *
 * Only plain requests are matched: a GET without a body whose headers are all of a known,
 * harmless set (a credential header other than PRIVATE-TOKEN or a Bearer token, a Sudo header, a
 * cookie, a conditional header: not kept), and no credential in the query string. A request
 * saying `Cache-Control: no-cache` (or `no-store`, `max-age=0`, `Pragma: no-cache`) is answered
 * afresh. Memory is bounded (`maxBytes` of bodies; the oldest go first) and everything is
 * dropped when the generation moves.
 */
import type { IncomingMessage } from 'node:http';
import { digestToken, type Actor } from '@forgelet/core';

/** Headers that change nothing in a cacheable route's answer. */
const HARMLESS = new Set([
  'host',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'connection',
  'keep-alive',
  'content-type',
  'x-request-id',
  'traceparent',
  'tracestate',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-real-ip',
  'via',
  // what fetch() and browsers add
  'origin',
  'referer',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-dest',
  'sec-fetch-user',
  'dnt',
  'priority',
]);

/** Query parameters that carry credentials or change the actor. */
const QUERY_CREDENTIAL = /(?:^|[?&])(?:private_token|access_token|job_token|sudo)=/i;

interface Entry {
  status: number;
  headers: Record<string, string | number>;
  body: Buffer;
  /** The actor it was made for (the access log names the user). */
  actor: Actor;
  /** Valid from (the clock going back drops it) and until (ms, the injected clock). */
  from: number;
  until: number;
}

export interface CachedAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: Buffer;
  actor: Actor;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** The change generation the entries were made under. */
  private generation = -1;
  /** Kept, and sent again (for tests and the bench). */
  stored = 0;
  hits = 0;

  constructor(readonly maxBytes: number) {}

  /** The key of a GET to a cacheable route whose answer may be kept or repeated; null when the request is not plain enough. */
  keyOf(req: IncomingMessage, url: string, tier: string): string | null {
    if (QUERY_CREDENTIAL.test(url)) return null;
    const h = req.headers;
    let token = '';
    for (const name in h) {
      if (HARMLESS.has(name)) continue;
      const value = h[name];
      if (typeof value !== 'string') return null;
      if (name === 'private-token' && token === '') token = value;
      else if (name === 'authorization' && token === '' && /^bearer /i.test(value)) token = value.slice(7).trim();
      else if (name === 'content-length' && value === '0') continue;
      else if (name === 'cache-control' && !/no-cache|no-store|max-age=0/i.test(value)) continue;
      else if (name === 'pragma' && !/no-cache/i.test(value)) continue;
      else return null;
    }
    const host = h.host ?? '';
    return `${tier}\n${host}\n${url}\n${token === '' ? '' : digestToken(token)}`;
  }

  /** The answer kept under `key`, if made under `generation` and valid at `now`. */
  get(key: string, generation: number, now: number): CachedAnswer | undefined {
    if (generation !== this.generation) {
      this.clear();
      this.generation = generation;
      return undefined;
    }
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now < entry.from || now >= entry.until) {
      this.delete(key, entry);
      return undefined;
    }
    this.hits++;
    return entry;
  }

  /** Keeps an answer made under `generation` (the caller checked it has not moved since) at `now`, valid until `until`. */
  set(key: string, generation: number, now: number, until: number, answer: { status: number; headers: Record<string, string | number>; text: string; actor: Actor }): void {
    if (!(until > now) || generation < this.generation) return;
    if (generation !== this.generation) {
      this.clear();
      this.generation = generation;
    }
    const body = Buffer.from(answer.text);
    if (body.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    this.entries.set(key, { status: answer.status, headers: answer.headers, body, actor: answer.actor, from: now, until });
    this.bytes += body.length;
    this.stored++;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k, e);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
