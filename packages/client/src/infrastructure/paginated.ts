/**
 * Offset-paginated lists. `all()` returns a Paginated: `for await` over its items, or over
 * `pages()`, follows the `Link rel="next"` URL page by page; `page(n)` fetches one page.
 */
import type { FetchResponse, QueryParams, Requester } from './requester.js';

/** What the pagination headers of one page said. Counts are null when the server skipped them. */
export interface PaginationInfo {
  page: number | null;
  perPage: number | null;
  /** X-Total; null past the server's count limit. */
  total: number | null;
  totalPages: number | null;
  nextPage: number | null;
  prevPage: number | null;
  /** `Link` header URLs by rel (next, prev, first, last). */
  links: Partial<Record<string, string>>;
}

export interface Page<T> {
  items: T[];
  pagination: PaginationInfo;
}

export class Paginated<T> implements AsyncIterable<T> {
  private last: PaginationInfo | undefined;

  constructor(
    private readonly requester: Requester,
    private readonly path: string,
    private readonly query: QueryParams = {},
  ) {}

  /** Pagination of the last page fetched (undefined before the first). */
  get pagination(): PaginationInfo | undefined {
    return this.last;
  }

  /** One page (1-based), with the list's other params. */
  page(n: number): Promise<Page<T>> {
    return this.fetchPage(this.requester.url(this.path, { ...this.query, page: n }));
  }

  /** Every page from the first requested (`page` param, default 1), following `rel="next"`. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const seen = new Set<string>();
    let url: string | null = this.requester.url(this.path, this.query);
    while (url !== null && !seen.has(url)) {
      seen.add(url);
      const page: Page<T> = await this.fetchPage(url);
      yield page;
      url = nextUrl(url, page.pagination);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** All items of all pages. */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this.pages()) out.push(...page.items);
    return out;
  }

  private async fetchPage(url: string): Promise<Page<T>> {
    const res = await this.requester.send<T[]>('GET', url);
    const pagination = paginationOf(res.headers);
    this.last = pagination;
    return { items: res.data ?? [], pagination };
  }
}

function nextUrl(current: string, info: PaginationInfo): string | null {
  if (info.links.next) return info.links.next;
  if (info.nextPage === null) return null;
  // No Link header: GitLab's X-Next-Page still says where to go.
  const url = new URL(current);
  url.searchParams.set('page', String(info.nextPage));
  return url.toString();
}

function paginationOf(headers: FetchResponse['headers']): PaginationInfo {
  const int = (name: string): number | null => {
    const raw = headers.get(name);
    return raw === null || raw.trim() === '' || !/^\d+$/.test(raw.trim()) ? null : Number(raw);
  };
  return {
    page: int('x-page'),
    perPage: int('x-per-page'),
    total: int('x-total'),
    totalPages: int('x-total-pages'),
    nextPage: int('x-next-page'),
    prevPage: int('x-prev-page'),
    links: parseLinks(headers.get('link')),
  };
}

/** `<url>; rel="next", <url>; rel="first"` → { next, first }. */
export function parseLinks(header: string | null): Partial<Record<string, string>> {
  const links: Partial<Record<string, string>> = {};
  if (!header) return links;
  for (const m of header.matchAll(/<([^>]*)>\s*;\s*rel="?([^",;]+)"?/g)) links[m[2]!] = m[1]!;
  return links;
}
