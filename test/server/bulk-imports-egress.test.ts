/**
 * Direct transfer from a local source on a server without local egress: the source URL is
 * refused at registration with GitLab's 422 (`URL is blocked: …`) in every literal form, and a
 * name that resolved to a public address at registration but to a local one when connecting is
 * refused at connect time with the same answer; the source token never reaches the listener.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgress, type ResolvedAddress } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { expectStatus } from './http.js';

const SOURCE_TOKEN = 'glpat-source-secret-token';

for (const dialect of DIALECTS) {
  describe(`${dialect}: bulk imports from local sources without local egress`, () => {
    const requests: IncomingHttpHeaders[] = [];
    let connections = 0;
    const local = createServer((req, res) => {
      requests.push(req.headers);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ version: '17.5.0', revision: 'x' }));
    });
    local.on('connection', () => connections++);
    let port: number;
    let lookups = 0;
    let dst: TestForgelet;

    before(async () => {
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
      port = (local.address() as AddressInfo).port;
      // `rebind.example` answers a public address first (registration), 127.0.0.1 afterwards.
      const answers: ResolvedAddress[][] = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
      const lookup = async (hostname: string) => {
        if (hostname !== 'rebind.example') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return answers[Math.min(lookups++, 1)]!;
      };
      dst = await startTestServer(dialect, { egress: createEgress({ allowLocal: false, lookup }) });
    });
    after(async () => {
      await dst.stop();
      await new Promise<void>((r) => local.close(() => r()));
    });

    const start = (url: string) =>
      dst.api('POST', '/bulk_imports', {
        body: { configuration: { url, access_token: SOURCE_TOKEN }, entities: [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }] },
      });

    it('refuses a local source URL at registration with GitLab 422 in every form', async () => {
      const cases: [string, string][] = [
        [`http://[::ffff:127.0.0.1]:${port}`, 'Requests to localhost are not allowed'],
        [`http://[::ffff:7f00:1]:${port}`, 'Requests to localhost are not allowed'],
        [`http://127.0.0.1:${port}`, 'Requests to localhost are not allowed'],
        [`http://2130706433:${port}`, 'Requests to localhost are not allowed'],
        [`http://0x7f.1:${port}`, 'Requests to localhost are not allowed'],
        [`http://[::127.0.0.1]:${port}`, 'Requests to localhost are not allowed'],
        [`http://[64:ff9b::127.0.0.1]:${port}`, 'Requests to localhost are not allowed'],
        [`http://[2002:7f00:1::]:${port}`, 'Requests to localhost are not allowed'],
        [`http://[::ffff:a00:1]:${port}`, 'Requests to the local network are not allowed'],
        ['http://192.168.0.10', 'Requests to the local network are not allowed'],
        ['http://169.254.169.254', 'Requests to the link local network are not allowed'],
        ['http://[::ffff:169.254.169.254]', 'Requests to the link local network are not allowed'],
      ];
      for (const [url, reason] of cases) {
        const r = await start(url);
        expectStatus(r, 422);
        assert.deepEqual(r.body, { message: `URL is blocked: ${reason}` }, url);
      }
      assert.equal(lookups, 0);
      assert.equal(connections, 0);
      assert.deepEqual((await dst.api('GET', '/bulk_imports')).body, []);
    });

    it('refuses at connect time a source name that resolves to a local address since registration', async () => {
      const r = await start(`http://rebind.example:${port}`);
      expectStatus(r, 422);
      assert.deepEqual(r.body, { message: 'URL is blocked: Requests to localhost are not allowed' });
      assert.ok(lookups >= 2, String(lookups));
      assert.equal(connections, 0);
      assert.deepEqual(requests, []);
      assert.deepEqual((await dst.api('GET', '/bulk_imports')).body, []);
    });
  });
}
