/**
 * bodyStream (packages/server/src/body.ts): a request's chunks as an async iterable, read from
 * the request's events. What every body reader relies on: every byte in order, the request
 * paused while its reader is busy (a slow reader never buffers a large upload), a reader that
 * stops early leaves the request usable for an answer, and a client that goes away mid-body
 * is an error for the reader rather than a hang.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyStream } from '../../packages/server/src/body.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

describe('bodyStream', () => {
  let server: Server;
  let port = 0;
  let handler: Handler = async () => {};
  before(async () => {
    server = createServer((req, res) => {
      handler(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** POSTs `chunks` one by one (each after the previous was flushed); resolves with the answer. */
  const post = (chunks: Buffer[]) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ port, method: 'POST', path: '/', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      const writeNext = (i: number) => {
        if (i === chunks.length) return req.end();
        if (req.write(chunks[i])) setImmediate(() => writeNext(i + 1));
        else req.once('drain', () => writeNext(i + 1));
      };
      writeNext(0);
    });

  it('gives every byte in order to a slow reader, holding the request paused meanwhile', async () => {
    const chunks = Array.from({ length: 64 }, () => randomBytes(64 * 1024));
    let pausedWhileBusy = 0;
    handler = async (req, res) => {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of bodyStream(req)) {
        hash.update(chunk);
        size += chunk.length;
        await new Promise((r) => setTimeout(r, 2));
        if (req.isPaused()) pausedWhileBusy++;
      }
      res.end(`${size} ${hash.digest('hex')}`);
    };
    const sent = Buffer.concat(chunks);
    const answer = await post(chunks);
    assert.equal(answer.body, `${sent.length} ${createHash('sha256').update(sent).digest('hex')}`);
    assert.ok(pausedWhileBusy > 0, 'the request was paused while its reader was busy');
  });

  it('an empty body ends at once', async () => {
    handler = async (req, res) => {
      let n = 0;
      for await (const chunk of bodyStream(req)) n += chunk.length;
      res.end(String(n));
    };
    assert.deepEqual(await post([]), { status: 200, body: '0' });
  });

  it('a reader that stops early leaves the request undestroyed: its answer reaches the client', async () => {
    handler = async (req, res) => {
      for await (const chunk of bodyStream(req)) {
        assert.ok(chunk.length > 0);
        break;
      }
      assert.equal(req.destroyed, false);
      res.writeHead(413).end('too large');
      req.resume(); // what connection.ts does with the rest
    };
    const answer = await post(Array.from({ length: 8 }, () => Buffer.alloc(16 * 1024, 1)));
    assert.deepEqual(answer, { status: 413, body: 'too large' });
  });

  it('a client that goes away mid-body fails the reader', async () => {
    let outcome: Promise<string> | undefined;
    const started = new Promise<void>((resolve) => {
      handler = async (req) => {
        outcome = (async () => {
          try {
            for await (const _ of bodyStream(req)) resolve();
            return 'ended';
          } catch (err) {
            return `failed: ${(err as Error).message}`;
          }
        })();
        await outcome;
      };
    });
    const req = request({ port, method: 'POST', path: '/', headers: { 'content-length': '1000000' } });
    req.on('error', () => {});
    req.write(Buffer.alloc(1000, 1));
    await started;
    req.destroy();
    assert.match(await outcome!, /^failed: /);
  });
});
