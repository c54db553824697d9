/**
 * HTTP/1.1 over one TCP connection, byte for byte: what a test of connection handling needs
 * and no HTTP client gives (several requests on one socket whatever the client would decide,
 * half-sent bodies, trickled headers, knowing when the server closed).
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface WireResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export interface Connection {
  socket: Socket;
  /** Sends bytes as they are. */
  write(data: string | Buffer): Promise<void>;
  /** The next answer, or 'closed' when the server closed first, or 'timeout'. `head`: the answer to a HEAD (no body whatever its length says). */
  next(timeoutMs?: number, options?: { head?: boolean }): Promise<WireResponse | 'closed' | 'timeout'>;
  /** Resolves with the milliseconds since connecting when the server closes the connection. */
  closed: Promise<number>;
  readonly isClosed: boolean;
  destroy(): void;
}

/** Opens a connection to the server of `url`. */
export async function openConnection(url: string): Promise<Connection> {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  const opened = Date.now();
  let buffer: Buffer = Buffer.alloc(0);
  let ended = false;
  let wake: (() => void) | null = null;
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  socket.on('data', (d: Buffer) => {
    buffer = Buffer.concat([buffer, d]);
    wake?.();
  });
  socket.on('error', () => {});
  socket.once('close', () => {
    ended = true;
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });

  /** One complete answer from the front of the buffer, or null while incomplete. */
  const take = (head: boolean): WireResponse | null => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const lines = buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    let rest: Buffer;
    if (headers['transfer-encoding'] === 'chunked' && !head) {
      const parts: Buffer[] = [];
      let at = end + 4;
      for (;;) {
        const nl = buffer.indexOf('\r\n', at);
        if (nl < 0) return null;
        const size = parseInt(buffer.subarray(at, nl).toString('latin1'), 16);
        if (buffer.length < nl + 2 + size + 2) return null;
        parts.push(buffer.subarray(nl + 2, nl + 2 + size));
        at = nl + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
      rest = buffer.subarray(at);
    } else {
      const length = head || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
      if (buffer.length < end + 4 + length) return null;
      body = buffer.subarray(end + 4, end + 4 + length);
      rest = buffer.subarray(end + 4 + length);
    }
    buffer = rest;
    return { status, headers, body, text: body.toString('utf8') };
  };

  return {
    socket,
    closed,
    get isClosed() {
      return ended;
    },
    write: (data) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed || socket.writableEnded) return resolve();
        socket.write(data, () => resolve());
      }),
    async next(timeoutMs = 3000, options = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = take(options.head ?? false);
        if (r) return r;
        if (ended) return 'closed';
        const left = deadline - Date.now();
        if (left <= 0) return 'timeout';
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    },
    destroy: () => socket.destroy(),
  };
}

/** The request head: method, path, headers (Host added), then the blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string | number> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: forgelet.test'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Sends a request (head and body) and reads its answer, then checks the connection is still
 * good: a `GET /-/liveness` on the same socket is answered, unless the answer said
 * `Connection: close` and the server then closed the socket (within `closeWithinMs`).
 * Returns the answer and what became of the connection.
 */
export async function exchangeAndReuse(
  url: string,
  head: string,
  body: Buffer | string = '',
  options: { timeoutMs?: number; closeWithinMs?: number } = {},
): Promise<{ answer: WireResponse; connection: 'reused' | 'closed' }> {
  const c = await openConnection(url);
  try {
    // The body is written while the answer may already be on its way (as clients do).
    const sent = c.write(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]));
    const answer = await c.next(options.timeoutMs ?? 10_000);
    if (typeof answer === 'string') throw new Error(`no answer: ${answer}`);
    if ((answer.headers.connection ?? '').toLowerCase() === 'close') {
      const within = options.closeWithinMs ?? 10_000;
      const result = await Promise.race([c.closed.then(() => 'closed' as const), new Promise<'open'>((r) => setTimeout(() => r('open'), within))]);
      if (result !== 'closed') throw new Error(`answered ${answer.status} with Connection: close but left the connection open for ${within} ms`);
      return { answer, connection: 'closed' };
    }
    await sent;
    await c.write(requestHead('GET', '/-/liveness'));
    const again = await c.next(options.timeoutMs ?? 5_000);
    if (typeof again === 'string') throw new Error(`answered ${answer.status} and kept the connection, but the next request on it got no answer (${again})`);
    if (again.status !== 200) throw new Error(`the next request on the connection answered ${again.status}: ${again.text}`);
    return { answer, connection: 'reused' };
  } finally {
    c.destroy();
  }
}

/** A body in `Transfer-Encoding: chunked` framing. */
export function chunked(body: Buffer | string, chunkSize = 64 * 1024): Buffer {
  const data = Buffer.from(body);
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunkSize) {
    const piece = data.subarray(i, i + chunkSize);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** A gzip body about `wire` bytes on the wire (random: it does not shrink) that inflates past `limit`. */
export function gzipPast(limit: number, wire: number): Buffer {
  return gzipSync(Buffer.concat([randomBytes(wire), Buffer.alloc(4 * limit, 0x20)]));
}
