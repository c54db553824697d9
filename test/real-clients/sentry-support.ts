/**
 * For the Sentry SDK suites: a recording proxy between the SDK and Forgelet (it keeps each
 * request's method, URL, headers and raw body, forwards it unchanged, chunked when it came
 * chunked, and keeps the answer), and a child-process runner.
 */
import { execFile } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as sent (still compressed when the SDK compressed it). */
  body: Buffer;
  status: number;
  response: string;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The body as text, gunzipped when the request said `Content-Encoding: gzip`. */
export function bodyText(r: RecordedRequest): string {
  return (r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body).toString('utf8');
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const targetUrl = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: targetUrl.host };
      delete headers.connection;
      const chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? ''));
      const forward = request({ host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          const response = Buffer.concat(parts);
          requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, status: answer.statusCode ?? 0, response: response.toString('utf8') });
          const { connection: _c, 'transfer-encoding': _t, ...out } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...out, 'content-length': response.length });
          res.end(response);
        });
      });
      forward.on('error', (err) => {
        res.writeHead(502);
        res.end(String(err));
      });
      if (chunked) {
        for (let i = 0; i < body.length; i += 1024) forward.write(body.subarray(i, i + 1024));
        forward.end();
      } else forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The DSN with its host swapped for the proxy's. */
export function dsnVia(dsn: string, proxyUrl: string): string {
  const url = new URL(dsn);
  url.host = new URL(proxyUrl).host;
  return url.toString();
}

export function runProgram(file: string, args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}
