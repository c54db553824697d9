/**
 * What every view uses: the client (same API, same permissions as a token of the signed-in
 * user), loading with the API's refusal shown as its own status and message, paged lists that
 * follow the API's pagination headers, and small formatting helpers.
 */
import type { Forgelet, Page } from '@forgelet/client';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { BASE } from '../router.js';

export const ClientContext = createContext<Forgelet>(null as unknown as Forgelet);
export const useClient = () => useContext(ClientContext);

/** Items per page of every list (GitLab's default `per_page`). */
export const PER_PAGE = 20;

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  reload(): void;
}

/** Runs `load` when `keys` change; keeps the last answer while reloading. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data }),
      (error: Error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [...keys, tick]);
  return { data: state.data, error: state.error, reload: () => setTick((t) => t + 1) };
}

export interface Paged<T> extends Loaded<Page<T>> {
  page: number;
  setPage(n: number): void;
}

/** One page of a list at a time (`load(page)`), back to the first page when `keys` change. */
export function usePaged<T>(load: (page: number) => Promise<Page<T>>, keys: unknown[]): Paged<T> {
  const [at, setAt] = useState({ page: 1, key: JSON.stringify(keys) });
  const key = JSON.stringify(keys);
  const page = at.key === key ? at.page : 1;
  const loaded = useLoad(() => load(page), [key, page]);
  return { ...loaded, page, setPage: (n) => setAt({ page: n, key }) };
}

/** The API's status and message of an error (the client's ApiError carries them). */
export function problem(error: Error): string {
  const e = error as Error & { status?: number; body?: { message?: unknown; error?: unknown } };
  const said = e.body?.message ?? e.body?.error;
  return e.status ? `${typeof said === 'string' ? said : `${e.status}`}` : error.message;
}

export function Show<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (props.loaded.error) return <p class="error" role="alert">{problem(props.loaded.error)}</p>;
  if (props.loaded.data === undefined) return <p class="muted" aria-live="polite">Loading…</p>;
  return <>{props.children(props.loaded.data)}</>;
}

/**
 * A paged list: its items (or `empty` when there are none) and, when there is more than one
 * page, previous/next buttons driven by the API's `X-Prev-Page`/`X-Next-Page` (and `X-Total-Pages`
 * when the server counted).
 */
export function PagedList<T>(props: { paged: Paged<T>; label: string; empty: string; children: (items: T[]) => ComponentChildren }) {
  const { paged } = props;
  return (
    <Show loaded={paged}>
      {(page) => {
        const pg = page.pagination;
        const more = pg.nextPage !== null || pg.prevPage !== null || paged.page > 1;
        return (
          <>
            {page.items.length === 0 ? <p class="muted">{props.empty}</p> : props.children(page.items)}
            {more && (
              <nav class="pager" aria-label={`${props.label} pages`}>
                <button type="button" disabled={pg.prevPage === null} onClick={() => paged.setPage(pg.prevPage!)}>
                  Previous<span class="sr-only"> page of {props.label}</span>
                </button>
                <span aria-live="polite">Page {paged.page}{pg.totalPages !== null && ` of ${pg.totalPages}`}</span>
                <button type="button" disabled={pg.nextPage === null} onClick={() => paged.setPage(pg.nextPage!)}>
                  Next<span class="sr-only"> page of {props.label}</span>
                </button>
              </nav>
            )}
          </>
        );
      }}
    </Show>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');
export const projectPath = (id: string | number) => `${BASE}/projects/${id}`;

export function Status(props: { status: string }) {
  return <span class={`status status-${props.status}`}>{props.status}</span>;
}

/** Sizes as people read them. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
