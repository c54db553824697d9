/** What every view of the console shares: the client, the instance, the status line, the space left for lists. */
import { createContext, useContext, useEffect } from 'react';
import type { Forgelet } from '@forgelet/client';

export interface Status {
  tone: 'ok' | 'error' | 'info';
  text: string;
}

export interface ConsoleContext {
  api: Forgelet;
  url: string;
  setStatus(status: Status | null): void;
  /** The key hints of the view in front (bottom line). */
  setHints(hints: string): void;
  /** Turns a failed call into its error line. */
  describe(err: unknown): string;
  /** Lines and columns the current view may use below the header and tabs. */
  body: { rows: number; columns: number };
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const ctx = useContext(Console);
  if (!ctx) throw new Error('useConsole outside the console');
  return ctx;
}

/** Runs an action, with its progress, result or server error on the status line. */
export async function act<T>(ctx: ConsoleContext, pending: string, work: () => Promise<T>, done: (result: T) => string): Promise<T | undefined> {
  ctx.setStatus({ tone: 'info', text: pending });
  try {
    const result = await work();
    ctx.setStatus({ tone: 'ok', text: done(result) });
    return result;
  } catch (err) {
    ctx.setStatus({ tone: 'error', text: ctx.describe(err) });
    return undefined;
  }
}

/** Shows `hints` on the bottom line while the calling view is in front. */
export function useHints(hints: string, active = true): void {
  const ctx = useConsole();
  useEffect(() => {
    if (active) ctx.setHints(hints);
  }, [hints, active]);
}
