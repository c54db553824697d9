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

export class SourceClient {
  constructor(private readonly egress: Egress, readonly baseUrl: string, private readonly token: string) {}

  url(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
    const u = new URL(`${this.baseUrl.replace(/\/+$/, '')}/api/v4${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  private async send(method: string, path: string, query: Record<string, string | number | boolean | undefined> = {}) {
    const url = this.url(path, query);
    let res;
    try {
      res = await this.egress.fetch(url, { method, headers: { 'PRIVATE-TOKEN': this.token, Accept: 'application/json' } });
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
