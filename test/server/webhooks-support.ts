/** A loopback receiver for webhook deliveries: every request, answered with the scripted status (the last one repeats). */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface HookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Answers from now on: status, body and extra headers; status 0 never answers (a target that hangs). */
  answer(status: number, body?: string, headers?: Record<string, string>): void;
  /** Answers for paths starting with `prefix` (taking precedence over `answer`), e.g. a failing target beside working ones. */
  answerAt(prefix: string, status: number, body?: string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function hookReceiver(): Promise<HookReceiver> {
  const deliveries: Delivery[] = [];
  type Reply = { status: number; body: string; headers: Record<string, string> };
  let reply: Reply = { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };
  const byPrefix = new Map<string, Reply>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      deliveries.push({ path: req.url!, headers: req.headers, body });
      const r = [...byPrefix].find(([prefix]) => req.url!.startsWith(prefix))?.[1] ?? reply;
      if (r.status === 0) return;
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    answer(status, body = '', headers = {}) {
      reply = { status, body, headers };
    },
    answerAt(prefix, status, body = '', headers = {}) {
      byPrefix.set(prefix, { status, body, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
