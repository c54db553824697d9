/**
 * One keyboard for many views: the console reads keys once (App) and offers each key to the
 * deepest view first; a handler returns false to pass the key to the view around it. Handlers
 * register during the commit (layout effect) and always see their latest render, so a key that
 * follows a screen change reaches the new screen, never the old one.
 */
import { createContext, useContext, useLayoutEffect, useMemo, useRef, type ReactNode } from 'react';
import type { Key } from 'ink';

/** false: not handled here, offer it to the enclosing view. */
export type KeyHandler = (input: string, key: Key) => boolean | void;

interface Entry {
  depth: number;
  handler: { current: KeyHandler };
  active: { current: boolean };
}

interface Layer {
  entries: Set<Entry>;
  depth: number;
}

const Keys = createContext<Layer>({ entries: new Set(), depth: 0 });

/** The registry of a console; the App dispatches to it. */
export function createKeyRegistry(): Set<Entry> {
  return new Set();
}

export function KeyRoot({ registry, children }: { registry: Set<Entry>; children: ReactNode }) {
  const value = useMemo(() => ({ entries: registry, depth: 0 }), [registry]);
  return <Keys.Provider value={value}>{children}</Keys.Provider>;
}

/** Views inside get keys before the view around them. */
export function KeyLayer({ children }: { children: ReactNode }) {
  const parent = useContext(Keys);
  const value = useMemo(() => ({ entries: parent.entries, depth: parent.depth + 1 }), [parent]);
  return <Keys.Provider value={value}>{children}</Keys.Provider>;
}

export function useKeys(handler: KeyHandler, active = true): void {
  const { entries, depth } = useContext(Keys);
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const activeRef = useRef(active);
  activeRef.current = active;
  useLayoutEffect(() => {
    const entry: Entry = { depth, handler: handlerRef, active: activeRef };
    entries.add(entry);
    return () => void entries.delete(entry);
  }, [entries, depth]);
}

/** Offers the key to the active handlers, deepest first, until one takes it; false when none did. */
export function dispatchKey(registry: Set<Entry>, input: string, key: Key): boolean {
  const ordered = [...registry].filter((e) => e.active.current).sort((a, b) => b.depth - a.depth);
  for (const entry of ordered) if (entry.handler.current(input, key) !== false) return true;
  return false;
}
