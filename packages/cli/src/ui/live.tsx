/**
 * Live feedback for people on a terminal: a spinner while waiting for the server and a
 * progress bar for transfers, redrawn in place on one line (stderr, so stdout stays the
 * command's output). Off when the stream is not a terminal or with --json.
 */
import { renderToString, Text } from 'ink';
import type { OutputStream } from '../io.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ERASE = '\r\x1b[2K';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function ProgressBar({ label, done, total, width = 30 }: { label: string; done: number; total: number | null; width?: number }) {
  if (total === null || total <= 0) {
    return (
      <Text>
        {label} <Text color="cyan">{formatBytes(done)}</Text>
      </Text>
    );
  }
  const ratio = Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return (
    <Text>
      {label} <Text color="cyan">{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text> {String(Math.floor(ratio * 100)).padStart(3)}% {formatBytes(done)}/{formatBytes(total)}
    </Text>
  );
}

export function renderProgress(label: string, done: number, total: number | null, columns = 120): string {
  return renderToString(<ProgressBar label={label} done={done} total={total} />, { columns });
}

function renderSpinner(label: string, frame: number, columns = 120): string {
  return renderToString(
    <Text>
      <Text color="cyan">{SPINNER[frame % SPINNER.length]}</Text> {label}
    </Text>,
    { columns },
  );
}

/** Whether live feedback goes to this stream. */
export function isLive(out: OutputStream, json: boolean | undefined): boolean {
  return !json && out.isTTY === true;
}

/** A progress bar on one line, redrawn at most every `everyMs`; `finish` draws the last frame. */
export class ProgressLine {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly out: OutputStream,
    private readonly enabled: boolean,
    private readonly label: string,
    private readonly total: number | null,
    private readonly everyMs = 100,
  ) {}

  update(done: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (this.drawn && now - this.last < this.everyMs) return;
    this.last = now;
    this.draw(done);
  }

  /** The final frame and a newline (only when something was drawn or `always`). */
  finish(done: number): void {
    if (!this.enabled) return;
    this.draw(done);
    this.out.write('\n');
  }

  /** Erases the bar (on failure). */
  abort(): void {
    if (this.enabled && this.drawn) this.out.write(ERASE);
  }

  private draw(done: number): void {
    this.out.write(`${ERASE}${renderProgress(this.label, done, this.total, this.out.columns)}`);
    this.drawn = true;
  }
}

/** Shows a spinner with `label` while `work` runs (terminals only); erases it afterwards. */
export async function withSpinner<T>(out: OutputStream, enabled: boolean, label: string, work: () => Promise<T>): Promise<T> {
  if (!enabled) return work();
  let frame = 0;
  out.write(renderSpinner(label, frame, out.columns));
  const timer = setInterval(() => out.write(`${ERASE}${renderSpinner(label, ++frame, out.columns)}`), 80);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    out.write(ERASE);
  }
}
