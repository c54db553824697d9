/** An HTTP receiver on loopback for outbound calls (flow callbacks): every request it got, answered 200. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** What it received, in order. */
  hits: Received[];
  /** `http://127.0.0.1:<port><path>` once started. */
  url(path?: string): string;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function callbackReceiver(): Receiver {
  const hits: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      hits.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('ok');
    });
  });
  return {
    hits,
    url: (path = '') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    start: () => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
