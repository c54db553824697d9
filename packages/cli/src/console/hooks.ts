/** State hooks of the console: paged lists that load on demand, terminal size, debounced values. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStdout } from 'ink';
import type { Page } from '@forgelet/client';

export const PAGE_SIZE = 20;

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: string | null;
  /** True while more pages exist on the server. */
  more: boolean;
  /** Total from X-Total when the server sent it. */
  total: number | null;
  /** Fetches the next page unless one is loading or none is left. */
  loadMore(): void;
  /** Drops what was loaded and fetches the first page again. */
  reload(): void;
  /** Replaces one loaded item (after an action changed it). */
  replace(match: (item: T) => boolean, next: T): void;
}

/**
 * A list read page by page: the first page when `key` changes (a new filter or parent), the
 * next one when the view asks (the cursor nears the end). Never the whole list at once.
 */
export function usePaged<T>(key: string, fetchPage: (page: number, perPage: number) => Promise<Page<T>>, describe: (err: unknown) => string): PagedList<T> {
  const [state, setState] = useState<{ items: T[]; next: number | null; loading: boolean; error: string | null; total: number | null }>({
    items: [], next: 1, loading: true, error: null, total: null,
  });
  const generation = useRef(0);
  const busy = useRef(false);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;
  const describer = useRef(describe);
  describer.current = describe;

  const load = useCallback((page: number, reset: boolean) => {
    const gen = reset ? ++generation.current : generation.current;
    busy.current = true;
    setState((s) => ({ ...(reset ? { items: [], total: null } : { items: s.items, total: s.total }), next: reset ? 1 : s.next, loading: true, error: null }));
    fetcher.current(page, PAGE_SIZE).then(
      (res) => {
        if (gen !== generation.current) return;
        busy.current = false;
        const next = res.pagination.nextPage ?? (res.items.length === PAGE_SIZE && res.pagination.totalPages === null ? page + 1 : null);
        setState((s) => ({ items: reset ? res.items : [...s.items, ...res.items], next, loading: false, error: null, total: res.pagination.total }));
      },
      (err: unknown) => {
        if (gen !== generation.current) return;
        busy.current = false;
        setState((s) => ({ ...s, loading: false, error: describer.current(err) }));
      },
    );
  }, []);

  useEffect(() => {
    load(1, true);
  }, [key, load]);

  // Handlers may run before the next render: they read the latest state, not their render's.
  const latest = useRef(state);
  latest.current = state;
  return {
    items: state.items,
    loading: state.loading,
    error: state.error,
    more: state.next !== null,
    total: state.total,
    loadMore: () => {
      const { next, error } = latest.current;
      if (!busy.current && next !== null && !error) load(next, false);
    },
    reload: () => load(1, true),
    replace: (match, next) => setState((s) => ({ ...s, items: s.items.map((i) => (match(i) ? next : i)) })),
  };
}

/** Columns and rows of the terminal, following resizes. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout]);
  return size;
}

/** `value`, once it has not changed for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** Calls `tick` every `ms` while `active`. */
export function useInterval(tick: () => void, ms: number, active = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}
