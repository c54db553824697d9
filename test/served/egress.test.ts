/**
 * The served binary without `--allow-local-egress` (as `forgelet serve` runs by default): a
 * direct transfer from `http://[::ffff:127.0.0.1]:PORT` (the URL parser rewrites it to
 * `[::ffff:7f00:1]`, which slipped past the old check) and flow callbacks to local targets are
 * refused with GitLab's 422, and neither the source token nor a request reaches the local
 * listener.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const SOURCE_TOKEN = 'glpat-served-source-secret';

for (const dialect of DIALECTS) {
  describe(`${dialect}: the served binary refuses local egress by default`, () => {
    let connections = 0;
    const local = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ version: '17.5.0', revision: 'x', scopes: ['api'], id: 1 }));
    });
    local.on('connection', () => connections++);
    let port: number;
    let f: ServedForgelet;

    before(async () => {
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
      port = (local.address() as AddressInfo).port;
      f = await startServed(dialect, { allowLocalEgress: false });
    });
    after(async () => {
      await f?.stop();
      await new Promise<void>((r) => local.close(() => r()));
    });

    it('refuses a migration from an IPv4-mapped loopback source with 422 and sends it nothing', async () => {
      for (const url of [`http://[::ffff:127.0.0.1]:${port}`, `http://[::ffff:7f00:1]:${port}`, `http://localhost:${port}`]) {
        const r = await f.api('POST', '/bulk_imports', {
          body: { configuration: { url, access_token: SOURCE_TOKEN }, entities: [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }] },
        });
        assert.equal(r.status, 422, `${url}: ${r.text}`);
        assert.deepEqual(r.body, { message: 'URL is blocked: Requests to localhost are not allowed' }, url);
      }
      assert.equal(connections, 0);
      assert.deepEqual((await f.api('GET', '/bulk_imports')).body, []);
      assert.ok(!f.stdoutLines().join('\n').includes(SOURCE_TOKEN) && !f.stderr().includes(SOURCE_TOKEN));
    });

    it('refuses flow callbacks to local targets at registration with 422', async () => {
      for (const [url, reason] of [
        [`https://127.0.0.1:${port}/x`, 'Requests to localhost are not allowed'],
        [`https://[::1]:${port}/x`, 'Requests to localhost are not allowed'],
        [`https://[::ffff:127.0.0.1]:${port}/x`, 'Requests to localhost are not allowed'],
        ['https://169.254.169.254/', 'Requests to the link local network are not allowed'],
      ] as const) {
        const r = await f.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url, token: 'x' } });
        assert.equal(r.status, 422, `${url}: ${r.text}`);
        assert.deepEqual(r.body, { message: { url: [`is blocked: ${reason}`] } }, url);
      }
      assert.deepEqual((await f.api('GET', '/ai/agent_workflows/flow_callbacks')).body, []);
      assert.equal(connections, 0);
    });
  });
}
