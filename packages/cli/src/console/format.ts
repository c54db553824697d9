/** Text helpers of the console: error lines, times, status colours, fixed-width cells. */
import { ApiError } from '@forgelet/client';

/** One line for a failed call: the server's message with its status, or why the server is unreachable. */
export function errorText(err: unknown, url: string): string {
  if (err instanceof ApiError) {
    const text = err.message.replace(/\s+/g, ' ').trim();
    return text.startsWith(String(err.status)) ? text : `${err.status} ${text}`;
  }
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (err instanceof TypeError || cause?.code) return `cannot reach Forgelet at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
  return err instanceof Error ? err.message : String(err);
}

/** `2024-05-01T10:20:30.000Z` → `2024-05-01 10:20` (UTC); '' for null. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '';
}

const COLORS: Record<string, string> = {
  success: 'green', finished: 'green', resolved: 'green', active: 'green',
  failed: 'red', timeout: 'red', unresolved: 'red',
  canceled: 'yellow', canceling: 'yellow', ignored: 'yellow', skipped: 'yellow', paused: 'yellow', stopped: 'yellow', inactive: 'yellow',
  running: 'cyan', started: 'cyan', pending: 'cyan', created: 'gray', manual: 'magenta', scheduled: 'magenta', waiting_for_resource: 'cyan',
};

export function statusColor(status: string): string | undefined {
  return COLORS[status];
}

/** Pads or cuts `text` to exactly `width` characters (an ellipsis marks a cut). */
export function fit(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (width <= 0) return '';
  if (flat.length <= width) return flat.padEnd(width);
  return `${flat.slice(0, Math.max(0, width - 1))}…`;
}
