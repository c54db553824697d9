/**
 * The job log: masked, size-limited, kept in memory (so a 416 can resend from any offset)
 * and streamed to the server with `PATCH /jobs/:id/trace` while the job runs.
 */
import { StringDecoder } from 'node:string_decoder';
import * as zlib from 'node:zlib';
import { ApiError, traceLength, type Forgelet } from '@forgelet/client';

/** gitlab-runner's default `output_limit` (4096 KiB). */
export const DEFAULT_OUTPUT_LIMIT = 4 * 1024 * 1024;

export const ANSI = {
  green: '\x1b[32;1m',
  yellow: '\x1b[0;33m',
  red: '\x1b[31;1m',
  cyan: '\x1b[36;1m',
  reset: '\x1b[0;m',
};

/**
 * Replaces masked values with `[MASKED]` in a stream of text, holding back the last few
 * characters so a value split across two chunks is still caught.
 */
export class Masker {
  private readonly values: string[];
  private readonly hold: number;
  private pending = '';

  constructor(values: Iterable<string>) {
    this.values = [...new Set([...values].filter((v) => v.length > 0))].sort((a, b) => b.length - a.length);
    this.hold = this.values.length === 0 ? 0 : this.values[0]!.length - 1;
  }

  private mask(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join('[MASKED]');
    return out;
  }

  /** Masked text that is safe to emit now. */
  push(text: string): string {
    if (this.values.length === 0) return text;
    const masked = this.mask(this.pending + text);
    const cut = Math.max(0, masked.length - this.hold);
    this.pending = masked.slice(cut);
    return masked.slice(0, cut);
  }

  /** Whatever is held back. */
  flush(): string {
    const rest = this.mask(this.pending);
    this.pending = '';
    return rest;
  }
}

let crcTable: Uint32Array | null = null;
/** CRC-32 (IEEE), as `crc32:<hex>` in the final job update. */
export function crc32(data: Buffer, initial = 0): number {
  const native = (zlib as { crc32?: (d: Buffer, v?: number) => number }).crc32;
  if (native) return native(data, initial);
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = (initial ^ 0xffffffff) >>> 0;
  for (const byte of data) crc = (crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)) >>> 0;
  return (crc ^ 0xffffffff) >>> 0;
}

export class JobTrace {
  private chunks: Buffer[] = [];
  private whole: Buffer | null = Buffer.alloc(0);
  private length = 0;
  private limited = false;
  private readonly masker: Masker;
  private readonly decoders = new Map<string, StringDecoder>();

  constructor(
    masked: Iterable<string>,
    private readonly limit = DEFAULT_OUTPUT_LIMIT,
  ) {
    this.masker = new Masker(masked);
  }

  get size(): number {
    return this.length;
  }

  private append(text: string): void {
    if (text === '' || this.limited) return;
    let bytes = Buffer.from(text, 'utf8');
    if (this.length + bytes.length > this.limit) {
      bytes = bytes.subarray(0, this.limit - this.length);
      this.limited = true;
      const note = Buffer.from(
        `\n${ANSI.yellow}Job's log exceeded limit of ${this.limit} bytes.\nJob execution will continue but no more output will be collected.${ANSI.reset}\n`,
      );
      this.chunks.push(bytes, note);
      this.length += bytes.length + note.length;
    } else {
      this.chunks.push(bytes);
      this.length += bytes.length;
    }
    this.whole = null;
  }

  /** Raw process output (bytes of one stream, decoded as UTF-8 across chunk edges). */
  output(stream: string, chunk: Buffer): void {
    let decoder = this.decoders.get(stream);
    if (!decoder) this.decoders.set(stream, (decoder = new StringDecoder('utf8')));
    this.append(this.masker.push(decoder.write(chunk)));
  }

  /** Emits what the decoders and the masker hold back (end of a step). */
  settle(): void {
    for (const decoder of this.decoders.values()) this.append(this.masker.push(decoder.end()));
    this.decoders.clear();
    this.append(this.masker.flush());
  }

  /** A runner message line (masked too). */
  line(text: string, color?: keyof typeof ANSI): void {
    this.settle();
    this.append(this.masker.push(`${color ? ANSI[color] : ''}${text}${color ? ANSI.reset : ''}\n`));
    this.append(this.masker.flush());
  }

  bytes(from = 0): Buffer {
    if (!this.whole) {
      this.whole = Buffer.concat(this.chunks);
      this.chunks = [this.whole];
    }
    return this.whole.subarray(from);
  }

  checksum(): string {
    return `crc32:${crc32(this.bytes()).toString(16).padStart(8, '0')}`;
  }
}

export type CancelReason = 'canceled' | 'forbidden';

/**
 * Sends new log bytes every `intervalMs` and, when nothing was written for a while, a
 * `PUT /jobs/:id {state: running}` keep-alive, so a cancellation (`Job-Status: canceled`,
 * or 403 once the job is no longer running) is noticed.
 */
export class TraceSender {
  private sent = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;
  private stopped = false;
  private lastContact = Date.now();
  private canceled = false;

  constructor(
    private readonly api: Forgelet,
    private readonly jobId: number,
    private readonly jobToken: string,
    private readonly trace: JobTrace,
    private readonly onCancel: (reason: CancelReason) => void,
    private readonly intervalMs = 1000,
    private readonly keepAliveMs = 10_000,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.busy ??= this.poll().finally(() => (this.busy = null));
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  private cancel(reason: CancelReason): void {
    if (this.canceled) return;
    this.canceled = true;
    this.onCancel(reason);
  }

  private async poll(): Promise<void> {
    try {
      if (this.trace.size > this.sent) await this.sendOnce();
      else if (Date.now() - this.lastContact >= this.keepAliveMs && !this.canceled) await this.keepAlive();
    } catch {
      // network trouble, a server error: the next tick retries
    }
  }

  /** `PUT /jobs/:id {state: running}`: learns of a cancellation while the job prints nothing. */
  private async keepAlive(): Promise<void> {
    let reply;
    try {
      reply = await this.api.runnerJobs.update(this.jobId, this.jobToken, { state: 'running' });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      this.lastContact = Date.now();
      // the job no longer runs there
      if (err.status === 403 || err.status === 404) this.cancel('forbidden');
      return;
    }
    this.lastContact = Date.now();
    if (reply.jobStatus === 'canceled' || reply.jobStatus === 'canceling') this.cancel('canceled');
  }

  /** One PATCH of everything not yet acknowledged; false when the server refuses the job. */
  private async sendOnce(): Promise<boolean> {
    const bytes = this.trace.bytes(this.sent);
    if (bytes.length === 0) return true;
    const offset = this.sent;
    let reply;
    try {
      reply = await this.api.runnerJobs.appendTrace(this.jobId, this.jobToken, Buffer.from(bytes), offset);
    } catch (err) {
      if (err instanceof ApiError) this.lastContact = Date.now();
      if (ApiError.is(err, 416)) {
        // the server holds a different amount: resend from its size
        this.sent = Math.min(traceLength(err.headers?.get('range')) ?? 0, this.trace.size);
        return true;
      }
      if (ApiError.is(err, 403, 404)) {
        this.cancel('forbidden');
        return false;
      }
      throw err;
    }
    this.lastContact = Date.now();
    this.sent = reply.size <= this.trace.size ? reply.size : offset + bytes.length;
    if (reply.jobStatus === 'canceled' || reply.jobStatus === 'canceling') this.cancel('canceled');
    return true;
  }

  /** Stops the timer and sends what is left (a few attempts). */
  async finish(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.busy) await this.busy;
    for (let attempt = 0; attempt < 20 && this.trace.size > this.sent; attempt++) {
      try {
        if (!(await this.sendOnce())) return;
      } catch {
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 3000)));
      }
    }
  }

  get acknowledged(): number {
    return this.sent;
  }
}
