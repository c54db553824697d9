/**
 * Direct transfer's source client follows redirects itself: the source token goes only to the
 * source's own origin (fetch would carry PRIVATE-TOKEN to whatever host a source redirects to).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgress } from '@forgelet/core';
import { SourceClient } from '../../packages/core/src/domains/bulk-imports/source-client.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

async function listen(handler: (path: string, res: import('node:http').ServerResponse) => void): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url!, headers: req.headers });
    handler(req.url!, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('bulk import source client: redirects', () => {
  let source: Awaited<ReturnType<typeof listen>>;
  let elsewhere: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    elsewhere = await listen((_path, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"version":"17.0.0"}');
    });
    source = await listen((path, res) => {
      if (path === '/api/v4/version') {
        res.statusCode = 302;
        res.setHeader('location', `${elsewhere.url}/api/v4/version`);
        return res.end();
      }
      if (path === '/api/v4/metadata') {
        res.statusCode = 301;
        res.setHeader('location', '/api/v4/metadata-here');
        return res.end();
      }
      if (path === '/api/v4/loop') {
        res.statusCode = 302;
        res.setHeader('location', '/api/v4/loop');
        return res.end();
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"version":"17.1.0"}');
    });
  });
  after(() => {
    source.server.close();
    elsewhere.server.close();
  });
  const client = () => new SourceClient(createEgress({ allowLocal: true }), source.url, 'glpat-source-secret');

  it('drops the token on a redirect to another origin', async () => {
    const r = await client().json('GET', '/version');
    assert.deepEqual(r.body, { version: '17.0.0' });
    assert.equal(source.seen.at(-1)!.headers['private-token'], 'glpat-source-secret');
    assert.equal(elsewhere.seen.length, 1);
    assert.equal(elsewhere.seen[0]!.headers['private-token'], undefined);
  });

  it('keeps it on a redirect within the source', async () => {
    const r = await client().json('GET', '/metadata');
    assert.deepEqual(r.body, { version: '17.1.0' });
    const [first, second] = source.seen.slice(-2);
    assert.deepEqual([first!.path, second!.path], ['/api/v4/metadata', '/api/v4/metadata-here']);
    assert.equal(second!.headers['private-token'], 'glpat-source-secret');
  });

  it('gives up after ten redirects', async () => {
    await assert.rejects(client().json('GET', '/loop'), /too many redirects/);
  });
});
