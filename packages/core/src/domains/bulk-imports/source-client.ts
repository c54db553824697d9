/**
 * The destination's view of a source instance: REST calls through ctx.egress with the source
 * token, GitLab's paging (`X-Next-Page`), and relation exports (request, status, download).
 */
import { gunzipSync } from 'node:zlib';
import { egressRefusal, type Egress } from '../../kernel/egress.js';

/** GitLab's BulkImports::NetworkError: a failed HTTP exchange with the source. */
export class SourceNetworkError extends Error {
  readonly className = 'BulkImports::NetworkError';
  constructor(message: string, readonly status: number | null = null, readonly blocked = false) {
    super(message);
  }
}

export interface SourceResponse<T = any> {
  status: number;
  body: T;
  headers: Headers | { get(name: string): string | null };
}

/** Redirects followed per request (fetch's own limit is 20; GitLab's HTTP client follows 10). */
const MAX_REDIRECTS = 10;

export class SourceClient {
  constructor(private readonly egress: Egress, readonly baseUrl: string, private readonly token: string) {}

  url(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
    const u = new URL(`${this.baseUrl.replace(/\/+$/, '')}/api/v4${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /**
   * Sends the request and follows redirects itself (at most MAX_REDIRECTS): the source token goes
   * only to the source's own origin. fetch would carry `PRIVATE-TOKEN` to any host a source
   * redirects to (it strips only `Authorization`); a redirect elsewhere (an export on object
   * storage) is followed without it.
   */
  private async send(method: string, path: string, query: Record<string, string | number | boolean | undefined> = {}) {
    const url = this.url(path, query);
    const origin = new URL(url).origin;
    let res;
    try {
      let target = url;
      let verb = method;
      for (let hop = 0; ; hop++) {
        const headers: Record<string, string> = { Accept: 'application/json' };
        if (new URL(target).origin === origin) headers['PRIVATE-TOKEN'] = this.token;
        res = await this.egress.fetch(target, { method: verb, headers, redirect: 'manual' });
        const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
        if (!location) break;
        if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects (more than ${MAX_REDIRECTS})`);
        await res.body?.cancel().catch(() => {});
        target = new URL(location, target).toString();
        if (!/^https?:$/.test(new URL(target).protocol)) throw new Error(`redirect to an unsupported URL scheme: ${new URL(target).protocol}`);
        // 303 (and 301/302 after a POST, as browsers and fetch do) continue as GET
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && verb === 'POST')) verb = 'GET';
      }
    } catch (err) {
      // GitLab's BulkImports::NetworkError carries the UrlBlocker's "URL is blocked: …" as is.
      const refusal = egressRefusal(err);
      if (refusal) throw new SourceNetworkError(refusal.message, null, true);
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      throw new SourceNetworkError(`${(err as Error).message}${cause ? `: ${cause}` : ''}`);
    }
    return { res, path: new URL(url).pathname };
  }

  /** JSON from the source; a non-2xx answer is a SourceNetworkError unless `allow` lists it. */
  async json<T = any>(method: string, path: string, query: Record<string, string | number | boolean | undefined> = {}, allow: number[] = []): Promise<SourceResponse<T>> {
    const { res, path: p } = await this.send(method, path, query);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (!res.ok && !allow.includes(res.status)) {
      throw new SourceNetworkError(`Unsuccessful response ${res.status} from ${p} Body: ${typeof body === 'string' ? body : JSON.stringify(body)}`, res.status);
    }
    return { status: res.status, body: body as T, headers: res.headers };
  }

  /** A file from the source, as a stream (never whole in memory); a non-2xx answer is a SourceNetworkError. */
  async download(path: string, query: Record<string, string | number | boolean | undefined> = {}): Promise<AsyncIterable<Uint8Array>> {
    const { res, path: p } = await this.send('GET', path, query);
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      throw new SourceNetworkError(`Unsuccessful response ${res.status} from ${p} Body: ${text.slice(0, 200)}`, res.status);
    }
    return res.body as AsyncIterable<Uint8Array>;
  }

  /** Only the status of a GET (the body is not read: it may be a large file). */
  async status(path: string, query: Record<string, string | number | boolean | undefined> = {}): Promise<number> {
    const { res } = await this.send('GET', path, query);
    await res.body?.cancel().catch(() => {});
    return res.status;
  }

  /** Bytes (gunzipped when gzip) from the source. */
  async ndjson(path: string, query: Record<string, string | number | boolean | undefined>): Promise<unknown[]> {
    const { res, path: p } = await this.send('GET', path, query);
    const buf = Buffer.from(await res.arrayBuffer());
    if (!res.ok) throw new SourceNetworkError(`Unsuccessful response ${res.status} from ${p} Body: ${buf.toString('utf8').slice(0, 200)}`, res.status);
    const text = (buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8');
    return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  }
}

/** Path segment for a group or project full path. */
export const enc = (fullPath: string) => encodeURIComponent(fullPath);
