/**
 * The baseline: a bare node:http server in its own process, answering JSON bodies shaped
 * like Forgelet's (templates captured from Forgelet's own answers), built and serialized
 * with JSON.stringify on every request:
 *   node --conditions=source --import tsx bench/bare-child.ts <templates.json>
 *   GET /project   -> one project entity (id varies per request)
 *   GET /projects  -> an array of 100 project entities
 *   POST /issues   -> 201 and one issue entity (its body read first), as an issue creation answers
 *   POST …/envelope/… -> 200 `{"id": <event_id of the envelope header>}` (the body read, its header line parsed), as the Sentry collector answers
 * Prints `READY <json>`; exits on SIGTERM or when stdin closes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const templates = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { project: Record<string, unknown>; page: Record<string, unknown>[]; issue?: Record<string, unknown> };
let n = 0;

function send(res: import('node:http').ServerResponse, body: unknown, headers: Record<string, string> = {}, status = 200) {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  const url = req.url ?? '/';
  n++;
  if (req.method === 'POST' && url.includes('/envelope')) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const nl = body.indexOf(0x0a);
      const header = JSON.parse(body.subarray(0, nl < 0 ? body.length : nl).toString('utf8')) as { event_id?: string };
      send(res, { id: header.event_id });
    });
    return;
  }
  if (url.startsWith('/projects')) {
    // a fresh object per element, as an entity mapper would produce
    return send(
      res,
      templates.page.map((p, i) => ({ ...p, id: n * 100 + i })),
      { 'X-Page': '1', 'X-Per-Page': '100', 'X-Total': '10000', 'X-Total-Pages': '100' },
    );
  }
  if (url.startsWith('/project')) return send(res, { ...templates.project, id: n });
  if (url.startsWith('/issues') && req.method === 'POST') {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => send(res, { ...templates.issue, ...JSON.parse(text), id: n, iid: n }, {}, 201));
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as AddressInfo).port;
  process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
