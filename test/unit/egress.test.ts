import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgress, EgressRefusedError, isNonPublicAddress } from '@forgelet/core';

describe('egress policy', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('classifies loopback, private, link-local and mapped addresses as non-public', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      assert.equal(isNonPublicAddress(ip), true, ip);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700::1111']) assert.equal(isNonPublicAddress(ip), false, ip);
  });

  it('refuses loopback by IP and by name unless local egress is allowed', async () => {
    const strict = createEgress({ allowLocal: false });
    await assert.rejects(strict.fetch(`http://127.0.0.1:${port}/`), EgressRefusedError);
    await assert.rejects(strict.fetch(`http://localhost:${port}/`), (err: Error) => {
      const cause = (err as { cause?: unknown }).cause ?? err;
      return cause instanceof EgressRefusedError || /non-public/.test(String((cause as Error).message));
    });
    const open = createEgress({ allowLocal: true });
    const res = await open.fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), 'hello');
  });
});
