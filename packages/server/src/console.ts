/**
 * The web console: its static files (built by packages/server/console/build.mjs into
 * dist/console) at `/` and `/-/console`, and its session (sign in, current, sign out) at
 * `/-/console/session`. The page itself talks to `/api/v4` through the client SDK; those
 * requests carry the session cookie, which the API accepts like a token (credentialsOf).
 *
 * The cookie is `HttpOnly` and `SameSite=Strict`; writes need the session's CSRF token in
 * `X-CSRF-Token`. Sign-in takes JSON only (a cross-site form cannot send it without a CORS
 * preflight, which is never granted) and refuses another Origin, so the token or password
 * travels in a body, never in a URL or the access log (which logs the path alone).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize, sep } from 'node:path';
import { BadRequestError, CONSOLE_SESSION_TTL_MS, UnauthorizedError, type Forge, type SessionCredentials } from '@forgelet/core';
import { bodyStream, readLimited } from './body.js';
import { sendJson } from './respond.js';

export const SESSION_COOKIE = '_forgelet_session';
export const CONSOLE_PREFIX = '/-/console';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

/** Nothing loads from elsewhere: scripts, styles and requests stay on this origin. */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The session cookie's secret, from the Cookie header. */
export function sessionSecretOf(req: IncomingMessage): string | undefined {
  const cookie = req.headers.cookie;
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[\w-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** What a request's cookie says, for the API's authentication. */
export function sessionCredentialsOf(req: IncomingMessage, method: string): SessionCredentials | undefined {
  const secret = sessionSecretOf(req);
  if (!secret) return undefined;
  const csrf = req.headers['x-csrf-token'];
  return { secret, csrf: typeof csrf === 'string' ? csrf : undefined, write: method !== 'GET' && method !== 'HEAD' };
}

export class ConsoleHandler {
  private index: Buffer | null = null;

  constructor(
    private readonly forge: Forge,
    /** Where the built console is (index.html and assets/); null when it was not built. */
    private readonly dir: string | null,
  ) {}

  /** True when `path` belongs to the console (it has then answered). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, method: string): Promise<boolean> {
    if (path !== '/' && path !== CONSOLE_PREFIX && !path.startsWith(`${CONSOLE_PREFIX}/`)) return false;
    if (path === `${CONSOLE_PREFIX}/session`) {
      await this.session(req, res, method);
      return true;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      sendJson(res, 405, { error: '405 Not Allowed' });
      return true;
    }
    if (path.startsWith(`${CONSOLE_PREFIX}/assets/`)) this.asset(req, res, path.slice(`${CONSOLE_PREFIX}/assets/`.length), method === 'HEAD');
    else this.page(res, method === 'HEAD');
    return true;
  }

  private page(res: ServerResponse, head: boolean) {
    // Embedded servers (startForgelet without consoleDir) answer as before: no page here.
    if (!this.dir || !existsSync(join(this.dir, 'index.html'))) return sendJson(res, 404, { error: '404 Not Found' });
    this.index ??= readFileSync(join(this.dir, 'index.html'));
    res.writeHead(200, { ...PAGE_HEADERS, 'Content-Type': TYPES['.html']!, 'Content-Length': this.index.length, 'Cache-Control': 'no-store' });
    res.end(head ? undefined : this.index);
  }

  private asset(req: IncomingMessage, res: ServerResponse, name: string, head: boolean) {
    const root = this.dir ? join(this.dir, 'assets') : null;
    const file = root ? normalize(join(root, name)) : null;
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (!root || !file || !file.startsWith(root + sep) || !type || !existsSync(file) || !statSync(file).isFile()) {
      sendJson(res, 404, { error: '404 Not Found' });
      return;
    }
    // Built files carry their content hash in the name: cached for good. A .gz beside them is served when accepted.
    const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && existsSync(`${file}.gz`);
    const body = readFileSync(gz ? `${file}.gz` : file);
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': body.length,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
      ...(gz && { 'Content-Encoding': 'gzip' }),
    });
    res.end(head ? undefined : body);
  }

  private async session(req: IncomingMessage, res: ServerResponse, method: string) {
    const secret = sessionSecretOf(req);
    if (method === 'GET') {
      if (!secret) throw new UnauthorizedError();
      const current = await this.forge.console.current(secret);
      return sendJson(res, 200, { user: current.user, csrf_token: current.csrfToken, expires_at: current.expiresAt }, { 'Cache-Control': 'no-store' });
    }
    if (method === 'DELETE') {
      if (secret) {
        // Signing out is a write: only the page that holds the session's CSRF token may do it.
        const creds = sessionCredentialsOf(req, method)!;
        await this.forge.authenticate({ session: creds }, {});
        await this.forge.console.signOut(secret);
      }
      res.writeHead(204, { 'Set-Cookie': this.cookie('', 0) }).end();
      return;
    }
    if (method !== 'POST') return sendJson(res, 405, { error: '405 Not Allowed' });
    if (!String(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
      throw new BadRequestError('sign in with a JSON body', {});
    }
    const origin = req.headers.origin;
    if (origin && origin !== 'null' && new URL(origin).host !== req.headers.host) throw new BadRequestError('sign in from another origin', {});
    let input: Record<string, unknown>;
    try {
      input = JSON.parse((await readLimited(bodyStream(req), 64 * 1024)).toString('utf8')) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof Error && err.name === 'SyntaxError') throw new BadRequestError('400 Bad request', { raw: true });
      throw err;
    }
    const pick = (k: string) => (typeof input?.[k] === 'string' ? (input[k] as string) : undefined);
    const session = await this.forge.console.signIn({ token: pick('token'), login: pick('login'), password: pick('password') });
    sendJson(
      res,
      201,
      { user: session.user, csrf_token: session.csrfToken, expires_at: session.expiresAt },
      { 'Set-Cookie': this.cookie(session.secret, CONSOLE_SESSION_TTL_MS / 1000), 'Cache-Control': 'no-store' },
    );
  }

  private cookie(value: string, maxAge: number): string {
    const secure = this.forge.deps.config.externalUrl.startsWith('https:') ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
  }
}
