/** A scrolling table with a cursor: the window follows the selected row; the rest stays on the server until needed. */
import { useEffect, useRef, useState } from 'react';
import { Box, Text, type Key } from 'ink';
import { fit } from './format.js';
import type { PagedList } from './hooks.js';

export interface Column {
  title: string;
  /** Fixed width; the last column without one takes the rest of the line. */
  width?: number;
}

export interface Cell {
  text: string;
  color?: string;
}

/** The new cursor for a navigation key (arrows, page keys, home/end), or null for other keys. */
export function moveCursor(key: Key, selected: number, length: number, page: number): number | null {
  if (length === 0) return null;
  let next: number;
  if (key.upArrow) next = selected - 1;
  else if (key.downArrow) next = selected + 1;
  else if (key.pageUp) next = selected - page;
  else if (key.pageDown) next = selected + page;
  else if (key.home) next = 0;
  else if (key.end) next = length - 1;
  else return null;
  return Math.max(0, Math.min(length - 1, next));
}

export interface Cursor {
  /** The selected row, for rendering. */
  selected: number;
  /** The selected row right now, for key handlers (keys can arrive faster than renders). */
  current(): number;
  set(index: number): void;
  /** Moves on a navigation key; false for other keys. */
  move(key: Key, page: number): boolean;
}

/** Cursor state over a paged list; fetches the next page when the cursor comes near the end. */
export function useCursor<T>(list: PagedList<T>): Cursor {
  const [selected, setSelected] = useState(0);
  const ref = useRef(0);
  const length = list.items.length;
  const lengthRef = useRef(length);
  lengthRef.current = length;
  const set = (index: number) => {
    ref.current = index;
    setSelected(index);
  };
  useEffect(() => {
    if (selected > 0 && selected >= length) set(Math.max(0, length - 1));
  }, [length, selected]);
  useEffect(() => {
    if (list.more && !list.loading && !list.error && selected >= length - 3) list.loadMore();
  }, [selected, length, list.more, list.loading, list.error]);
  return {
    selected: Math.min(selected, Math.max(0, length - 1)),
    current: () => Math.min(ref.current, Math.max(0, lengthRef.current - 1)),
    set,
    move(key, page) {
      const next = moveCursor(key, ref.current, lengthRef.current, page);
      if (next === null) return false;
      set(next);
      return true;
    },
  };
}

export function ListView({ columns, rows, selected, height, width, empty, list }: {
  columns: Column[];
  rows: Cell[][];
  selected: number;
  /** Lines for rows (the header and footer lines come on top). */
  height: number;
  width: number;
  empty: string;
  list: Pick<PagedList<unknown>, 'loading' | 'error' | 'more' | 'total'>;
}) {
  const fixed = columns.reduce((sum, c) => sum + (c.width ?? 0) + 1, 0);
  const widths = columns.map((c) => c.width ?? Math.max(8, width - fixed - 1));
  const visible = Math.max(1, height - (list.error ? 1 : 0));
  const start = Math.max(0, Math.min(selected - Math.floor(visible / 2), rows.length - visible));
  const shown = rows.slice(start, start + visible);
  const line = (cells: Cell[]) => cells.map((c, i) => fit(c.text, widths[i]!)).join(' ');
  let footer = '';
  if (list.loading) footer = 'loading…';
  else if (rows.length > 0) footer = `${selected + 1}/${list.total ?? rows.length}${list.more ? '  (more load as you scroll)' : ''}`;
  return (
    <Box flexDirection="column">
      <Text bold>{line(columns.map((c) => ({ text: c.title })))}</Text>
      {list.error ? <Text color="red">✗ {list.error}</Text> : null}
      {rows.length === 0 && !list.loading && !list.error ? <Text dimColor>{empty}</Text> : null}
      {shown.map((cells, i) => {
        const index = start + i;
        const isSelected = index === selected;
        return (
          <Text key={index} inverse={isSelected} wrap="truncate-end">
            {cells.map((c, j) => (
              <Text key={j} color={isSelected ? undefined : c.color}>
                {fit(c.text, widths[j]!)}
                {j < cells.length - 1 ? ' ' : ''}
              </Text>
            ))}
          </Text>
        );
      })}
      <Text dimColor>{footer}</Text>
    </Box>
  );
}
