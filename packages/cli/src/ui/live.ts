/**
 * Live feedback for people on a terminal: a spinner while waiting for the server and a
 * progress bar for transfers, redrawn in place on one line (stderr, so stdout stays the
 * command's output). Off when the stream is not a terminal or with --json.
 */
import type { OutputStream } from '../io.js';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
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

type RenderModule = typeof import('./live-render.js');
let renderModule: Promise<RenderModule> | undefined;
/** Ink (and React) load only when a terminal shows live feedback: `forgelet serve` never pays for them. */
const loadRender = (): Promise<RenderModule> => (renderModule ??= import('./live-render.js'));

/** Whether live feedback goes to this stream. */
export function isLive(out: OutputStream, json: boolean | undefined): boolean {
  return !json && out.isTTY === true;
}

/** What a progress bar counts: bytes (shown as KiB, MiB …) or items (plain counts). */
export type ProgressUnit = 'bytes' | 'items';

/** A progress bar on one line, redrawn at most every `everyMs`; `finish` draws the last frame. */
export class ProgressLine {
  private last = 0;
  private drawn = false;

  /** Opens the bar (loading Ink first when it is shown). */
  static async open(out: OutputStream, enabled: boolean, label: string, total: number | null, everyMs = 100, unit: ProgressUnit = 'bytes'): Promise<ProgressLine> {
    return new ProgressLine(out, enabled ? await loadRender() : null, label, total, everyMs, unit);
  }

  private constructor(
    private readonly out: OutputStream,
    /** Null when nothing is shown (not a terminal, or --json). */
    private readonly render: RenderModule | null,
    private readonly label: string,
    private total: number | null,
    private readonly everyMs: number,
    private readonly unit: ProgressUnit,
  ) {}

  /** `total` when it became known after the bar was opened. */
  update(done: number, total?: number): void {
    if (total !== undefined) this.total = total;
    if (!this.render) return;
    const now = Date.now();
    if (this.drawn && now - this.last < this.everyMs) return;
    this.last = now;
    this.draw(this.render, done);
  }

  /** The final frame and a newline. */
  finish(done: number): void {
    if (!this.render) return;
    this.draw(this.render, done);
    this.out.write('\n');
  }

  /** Erases the bar (on failure). */
  abort(): void {
    if (this.render && this.drawn) this.out.write(ERASE);
  }

  private draw(render: RenderModule, done: number): void {
    this.out.write(`${ERASE}${render.renderProgress(this.label, done, this.total, this.out.columns, this.unit)}`);
    this.drawn = true;
  }
}

/** Shows a spinner with `label` while `work` runs (terminals only); erases it afterwards. */
export async function withSpinner<T>(out: OutputStream, enabled: boolean, label: string, work: () => Promise<T>): Promise<T> {
  if (!enabled) return work();
  const { renderSpinner } = await loadRender();
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
