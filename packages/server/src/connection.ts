/**
 * The connection policy of the HTTP server: timeouts, a cap on open connections, and what
 * happens to a request body nobody read.
 *
 * Many answers come before the body is read: a 401 or 404 before a JSON body is parsed, a 413
 * once a decompressed body passes the limit, a 400 once an upload passes its limit. Node keeps
 * such a connection alive but stops reading it (the body was piped into a decompressor that is
 * gone), so the next request on the socket is never answered. Here, an answer written while
 * the body is still arriving either keeps the connection and drains a small declared rest
 * (at most DRAIN_BYTES), or says `Connection: close` and, after the answer, reads and drops
 * what the client still sends, for at most LINGER_BYTES and LINGER_MS, before closing (a
 * socket closed with unread input is reset, and the reset can destroy the answer before the
 * client has read it: the "lingering close" of nginx and Apache).
 */
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/** Timeouts and the connection cap (forgelet serve flags, StartOptions, ServerOptions). */
export interface ConnectionLimits {
  /** Time to receive a request's headers, from the connection or the previous answer (ms; 0: none). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (ms; 0: none). */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection between requests (ms). */
  keepAliveTimeoutMs: number;
  /** Open connections at most; a connection past the cap is closed at once (0: no cap). */
  maxConnections: number;
}

/**
 * Defaults after GitLab's front end: Puma waits 30 s for a request's first data
 * (`first_data_timeout`); a whole request gets Node's (and Workhorse's proxy) 5 minutes; an
 * idle kept-alive connection 5 s (Node's default, which clients such as undici expect); and
 * at most 1,024 connections (below the usual open-file limit, far above what a test suite or
 * a team opens).
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

/** A declared body up to this size is drained after an early answer and the connection kept. */
export const DRAIN_BYTES = 1024 * 1024;
/** After an early answer with `Connection: close`: what is read and dropped before the socket closes. */
export const LINGER_BYTES = 8 * 1024 * 1024;
export const LINGER_MS = 5_000;

/** The `http.createServer` options for the limits (checked every second or quarter of the shortest timeout, so a timeout is late by at most that). */
export function serverOptions(limits: ConnectionLimits) {
  const requestTimeout = limits.requestTimeoutMs;
  // Node refuses a header timeout above the request timeout.
  const headersTimeout = requestTimeout > 0 && limits.headersTimeoutMs > requestTimeout ? requestTimeout : limits.headersTimeoutMs;
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, (headersTimeout || 4000) / 4, (requestTimeout || 4000) / 4)),
    ServerResponse: BodyAwareResponse,
  };
}

/**
 * True when the request has a body that has not (all) arrived yet. (`complete` alone is not
 * enough: it is set after the 'request' event, so an answer written at once to a GET would
 * count as early.)
 */
function bodyPending(req: IncomingMessage): boolean {
  if (req.complete || req.destroyed) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A response that, when written before its request's body was read, decides what becomes of the rest. */
export class BodyAwareResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    if (!this.headersSent && bodyPending(this.req)) this.answerBeforeBody();
    return (super.writeHead as (code: number, ...args: unknown[]) => this)(statusCode, ...rest);
  }

  private answerBeforeBody(): void {
    const req = this.req;
    const declared = Number(req.headers['content-length']);
    const small = req.headers['transfer-encoding'] === undefined && Number.isFinite(declared) && declared <= DRAIN_BYTES;
    if (small) {
      // Node drains a body nobody touched; one that was piped somewhere must be resumed here.
      this.once('finish', () => {
        if (bodyPending(req)) {
          req.unpipe();
          req.resume();
        }
      });
      return;
    }
    this.setHeader('Connection', 'close');
    const socket = req.socket as Socket & { destroySoon?: () => void };
    // Node ends a `Connection: close` answer with socket.destroySoon(): the socket is destroyed
    // as soon as the answer is out, and the unread body makes that a reset.
    socket.destroySoon = () => lingerThenClose(socket, req);
  }
}

/** Ends the answer, then reads and drops the rest of the body (bounded) before closing. */
function lingerThenClose(socket: Socket, req: IncomingMessage): void {
  socket.end();
  let dropped = 0;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  if (!bodyPending(req)) return close();
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) close();
  });
  req.once('end', close);
  req.once('error', close);
  req.resume();
}

/**
 * True when the client went away before its answer was written (a body cut off, a reset, a
 * download nobody reads any more): whatever failed then failed for that reason, is not a
 * server fault and is never logged as a 500.
 */
export function clientGone(req: IncomingMessage, res: ServerResponse): boolean {
  return !req.socket || req.socket.destroyed || (req.destroyed && !req.complete) || (res.destroyed && !res.writableFinished);
}
