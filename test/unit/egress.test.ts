/**
 * The outbound policy: the address classifier in every literal form (IPv4 in decimal, octal,
 * hex and short forms; IPv4 embedded in IPv6 as mapped, translated, compatible, NAT64, 6to4 and
 * Teredo), public addresses staying allowed; the registration check (`refusal`); and the
 * connector refusing at connect time for IP literals, names resolving to local addresses,
 * redirects to them, with no connection reaching the local listener.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import {
  classifyAddress,
  createEgress,
  egressRefusal,
  EgressRefusedError,
  formatAddress,
  parseAddress,
  type NonPublicKind,
  type ResolvedAddress,
} from '@forgelet/core';
import { REPO_ROOT } from '../support/served.js';

const NON_PUBLIC: [string, NonPublicKind][] = [
  // IPv4
  ['127.0.0.1', 'localhost'],
  ['127.0.0.2', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['0.0.0.0', 'localhost'],
  ['0.1.2.3', 'localhost'],
  ['10.0.0.1', 'local_network'],
  ['172.16.0.1', 'local_network'],
  ['172.31.255.255', 'local_network'],
  ['192.168.1.1', 'local_network'],
  ['169.254.169.254', 'link_local'],
  ['100.64.0.1', 'shared_address'],
  ['100.127.255.255', 'shared_address'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'reserved'],
  ['239.255.255.250', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.0.170', 'reserved'],
  ['192.0.2.1', 'reserved'],
  // IPv4 in decimal, octal, hex and short forms (as the URL standard and inet_aton read them)
  ['2130706433', 'localhost'],
  ['0x7f000001', 'localhost'],
  ['0177.0.0.1', 'localhost'],
  ['0x7f.0.0.1', 'localhost'],
  ['0x7F.1', 'localhost'],
  ['127.1', 'localhost'],
  ['10.1', 'local_network'],
  ['0', 'localhost'],
  ['0xa9.0xfe.0xa9.0xfe', 'link_local'],
  ['0251.0376.0251.0376', 'link_local'],
  ['2852039166', 'link_local'],
  ['127.0.0.1.', 'localhost'],
  // IPv6
  ['::1', 'localhost'],
  ['::', 'localhost'],
  ['[::1]', 'localhost'],
  ['0:0:0:0:0:0:0:1', 'localhost'],
  ['fd00::1', 'local_network'],
  ['fc00::1', 'local_network'],
  ['fec0::1', 'local_network'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['ff02::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  // IPv4-mapped, as written and as the URL parser rewrites it
  ['::ffff:127.0.0.1', 'localhost'],
  ['::ffff:7f00:1', 'localhost'],
  ['[::ffff:7f00:1]', 'localhost'],
  ['0:0:0:0:0:ffff:7f00:1', 'localhost'],
  ['::FFFF:7F00:2', 'loopback'],
  ['::ffff:a00:1', 'local_network'],
  ['::ffff:10.0.0.1', 'local_network'],
  ['::ffff:a9fe:a9fe', 'link_local'],
  ['::ffff:0.0.0.0', 'localhost'],
  // IPv4-translated and IPv4-compatible
  ['::ffff:0:7f00:1', 'localhost'],
  ['::ffff:0:a00:1', 'local_network'],
  ['::7f00:1', 'localhost'],
  ['::127.0.0.2', 'loopback'],
  ['::a9fe:a9fe', 'link_local'],
  // NAT64 (well-known prefix, embedded; local-use prefix refused whole)
  ['64:ff9b::7f00:1', 'localhost'],
  ['64:ff9b::127.0.0.1', 'localhost'],
  ['64:ff9b::a9fe:a9fe', 'link_local'],
  ['64:ff9b::c0a8:101', 'local_network'],
  ['64:ff9b:1::808:808', 'local_network'],
  ['64:ff9b:1:ffff::1', 'local_network'],
  // 6to4: 2002:AABB:CCDD::/48 reaches AA.BB.CC.DD
  ['2002:7f00:1::', 'localhost'],
  ['2002:a00:1::1', 'local_network'],
  ['2002:a9fe:a9fe:1::1', 'link_local'],
  // Teredo: the client address is the last 32 bits inverted (127.0.0.1 -> 80ff:fffe)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'localhost'],
  ['2001::f5ff:fffe', 'local_network'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'link_local'],
  // not an address at all: fail closed
  ['example.com', 'reserved'],
  ['', 'reserved'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '172.15.255.255',
  '100.128.0.1',
  '100.63.255.255',
  '169.255.0.1',
  '192.169.0.1',
  '134744072', // 8.8.8.8 in decimal
  '0x8.0x8.0x8.0x8',
  '2001:4860::8888',
  '2001:4860:4860::8888',
  '2606:4700::1111',
  '[2606:4700::1111]',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '::ffff:0:808:808',
  '::8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, client 8.8.8.8
  'fbff::1',
  'fe7f::1',
];

describe('egress: the address classifier', () => {
  it('classifies every non-public form by the address it reaches', () => {
    for (const [ip, kind] of NON_PUBLIC) assert.equal(classifyAddress(ip), kind, ip);
  });

  it('keeps public addresses public, also when embedded in IPv6', () => {
    for (const ip of PUBLIC) assert.equal(classifyAddress(ip), null, ip);
  });

  it('parses every literal form to its bytes', () => {
    assert.equal(formatAddress(parseAddress('0x7f.1')!), '127.0.0.1');
    assert.equal(formatAddress(parseAddress('2130706433')!), '127.0.0.1');
    assert.equal(formatAddress(parseAddress('0177.0.0.01')!), '127.0.0.1');
    assert.equal(formatAddress(parseAddress('[::ffff:127.0.0.1]')!), '0:0:0:0:0:ffff:7f00:1');
    assert.equal(formatAddress(parseAddress('1::')!), '1:0:0:0:0:0:0:0');
    for (const bad of ['example.com', '1.2.3.4.5', '256.0.0.1', '1.2.3.256', '4294967296', '09.1.1.1', '1:2:3:4:5:6:7:8:9', '1::2::3', '::ffff:1.2.3', '::ffff:1.2.3.256', '12345::', 'fe80::1::']) {
      assert.equal(parseAddress(bad), null, bad);
    }
  });

  it('agrees with the URL parser, which rewrites the forms before a request', () => {
    for (const [url, kind] of [
      ['http://[::ffff:127.0.0.1]:9/', 'localhost'],
      ['http://[::ffff:10.0.0.1]/', 'local_network'],
      ['http://2130706433/', 'localhost'],
      ['http://0x7f.1/', 'localhost'],
      ['http://0177.0.0.1/', 'localhost'],
      ['http://[64:ff9b::169.254.169.254]/', 'link_local'],
      ['http://[::ffff:8.8.8.8]/', null],
    ] as const) {
      assert.equal(classifyAddress(new URL(url).hostname), kind, url);
    }
  });
});

/** A listener on 127.0.0.1 that counts the TCP connections reaching it. */
async function listener(handler: Parameters<typeof createServer>[1] = (_req, res) => res.end('hello')) {
  const server = createServer(handler);
  const sockets: Socket[] = [];
  server.on('connection', (s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, port, connections: () => sockets.length, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The refusal behind a rejected fetch, asserting there is one. */
async function refused(p: Promise<unknown>): Promise<EgressRefusedError> {
  const err = await p.then(() => assert.fail('the call was not refused'), (e: unknown) => e);
  const refusal = egressRefusal(err);
  assert.ok(refusal, `not a refusal: ${String(err)} ${String((err as { cause?: unknown }).cause)}`);
  return refusal;
}

const lookupOf = (names: Record<string, ResolvedAddress[]>) => async (hostname: string) => {
  const found = names[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

describe('egress: registration check', () => {
  const strict = createEgress({
    allowLocal: false,
    lookup: lookupOf({
      'internal.test': [{ address: '10.0.0.5', family: 4 }],
      'mixed.test': [{ address: '8.8.8.8', family: 4 }, { address: '::1', family: 6 }],
      'public.test': [{ address: '8.8.8.8', family: 4 }],
    }),
  });

  it('refuses local targets with GitLab UrlBlocker reasons', async () => {
    assert.equal(await strict.refusal('http://[::ffff:127.0.0.1]:8080'), 'Requests to localhost are not allowed');
    assert.equal(await strict.refusal('https://127.0.0.1:9/x'), 'Requests to localhost are not allowed');
    assert.equal(await strict.refusal('https://[::1]/x'), 'Requests to localhost are not allowed');
    assert.equal(await strict.refusal('https://169.254.169.254/'), 'Requests to the link local network are not allowed');
    assert.equal(await strict.refusal('http://[::ffff:a00:1]/'), 'Requests to the local network are not allowed');
    assert.equal(await strict.refusal('https://0x7f.1/'), 'Requests to localhost are not allowed');
    assert.equal(await strict.refusal('https://0.0.0.0/'), 'Requests to localhost are not allowed');
    assert.equal(await strict.refusal('https://internal.test/'), 'Requests to the local network are not allowed');
    // A name is refused when any of its addresses is.
    assert.equal(await strict.refusal('https://mixed.test/'), 'Requests to localhost are not allowed');
  });

  it('lets public targets, unresolvable names and allowed setups through', async () => {
    assert.equal(await strict.refusal('https://8.8.8.8/'), null);
    assert.equal(await strict.refusal('https://[2001:4860::8888]/'), null);
    assert.equal(await strict.refusal('https://[::ffff:8.8.8.8]/'), null);
    assert.equal(await strict.refusal('https://public.test/hook'), null);
    assert.equal(await strict.refusal('https://unknown.test/'), null);
    assert.equal(await createEgress({ allowLocal: true }).refusal('http://127.0.0.1/'), null);
    const listed = createEgress({ allowLocal: false, allowList: [{ address: '10.0.0.5', port: 8443 }] });
    assert.equal(await listed.refusal('https://10.0.0.5:8443/'), null);
    assert.equal(await listed.refusal('https://[::ffff:10.0.0.5]:8443/'), null);
    assert.equal(await listed.refusal('https://10.0.0.5/'), 'Requests to the local network are not allowed');
  });

  it("counts this machine's own addresses as localhost, also embedded in IPv6", async () => {
    const own = createEgress({ allowLocal: false, localAddresses: () => ['127.0.0.1', '203.0.114.7', '2a00:1450::7', 'fe80::1%eth0'] });
    assert.equal(await own.refusal('https://203.0.114.7/'), 'Requests to localhost are not allowed');
    assert.equal(await own.refusal('https://[::ffff:203.0.114.7]/'), 'Requests to localhost are not allowed');
    assert.equal(await own.refusal('https://[2a00:1450::7]/'), 'Requests to localhost are not allowed');
    assert.equal(await own.refusal('https://203.0.114.8/'), null);
    assert.equal(await strict.refusal('https://203.0.114.7/'), null);
  });
});

describe('egress: connect-time refusal', () => {
  let target: Awaited<ReturnType<typeof listener>>;
  before(async () => {
    target = await listener();
  });
  after(() => target.close());

  it('refuses every literal form of a local address without connecting', async () => {
    const strict = createEgress({ allowLocal: false });
    for (const host of ['[::ffff:127.0.0.1]', '127.0.0.1', '2130706433', '0x7f.1', '[::ffff:7f00:1]', '0.0.0.0', '[::1]', '[::]', '[::127.0.0.1]']) {
      const refusal = await refused(strict.fetch(`http://${host}:${target.port}/`, { headers: { 'PRIVATE-TOKEN': 'secret' } }));
      assert.match(refusal.message, /^URL is blocked: Requests to localhost are not allowed$/, host);
    }
    assert.equal(target.connections(), 0);
  });

  it('refuses a name that resolves to a local address (the system resolver and an injected one)', async () => {
    const strict = createEgress({ allowLocal: false });
    const viaSystem = await refused(strict.fetch(`http://localhost:${target.port}/`));
    assert.equal(viaSystem.message, 'URL is blocked: Requests to localhost are not allowed');
    const rebinding = createEgress({ allowLocal: false, lookup: lookupOf({ 'api.example.test': [{ address: '127.0.0.1', family: 4 }] }) });
    const viaLookup = await refused(rebinding.fetch(`http://api.example.test:${target.port}/`));
    assert.equal(viaLookup.address, '127.0.0.1');
    assert.equal(target.connections(), 0);
  });

  it('refuses a redirect from an allowed target to a local one', async () => {
    const second = await listener();
    const first = await listener((req, res) => {
      res.writeHead(302, { Location: req.url === '/mapped' ? `http://[::ffff:127.0.0.1]:${second.port}/x` : `http://127.0.0.1:${second.port}/x` }).end();
    });
    try {
      // The first hop is allowed by the allow list (address and port); the second is not.
      const egress = createEgress({ allowLocal: false, allowList: [{ address: '127.0.0.1', port: first.port }] });
      for (const path of ['/plain', '/mapped']) {
        const refusal = await refused(egress.fetch(`http://127.0.0.1:${first.port}${path}`, { headers: { 'PRIVATE-TOKEN': 'secret' } }));
        assert.equal(refusal.message, 'URL is blocked: Requests to localhost are not allowed');
      }
      assert.equal(first.connections() > 0, true);
      assert.equal(second.connections(), 0);
      // The allowed first hop itself is reached.
      const manual = await egress.fetch(`http://127.0.0.1:${first.port}/plain`, { redirect: 'manual' });
      assert.equal(manual.status, 302);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('reaches local targets when local egress is allowed, trying each address of a name', async () => {
    const open = createEgress({ allowLocal: true, lookup: lookupOf({ 'two.test': [{ address: '127.0.0.2', family: 4 }, { address: '127.0.0.1', family: 4 }] }) });
    assert.equal(await (await open.fetch(`http://127.0.0.1:${target.port}/`)).text(), 'hello');
    assert.equal(await (await open.fetch(`http://[::ffff:127.0.0.1]:${target.port}/`)).text(), 'hello');
    // 127.0.0.2 refuses the connection (nothing listens there on this port); 127.0.0.1 answers.
    assert.equal(await (await open.fetch(`http://two.test:${target.port}/`)).text(), 'hello');
  });

  it('speaks TLS over the checked socket with the URL host as SNI, verifying the certificate', async () => {
    const tlsDir = join(REPO_ROOT, 'test/fixtures/tls');
    const credentials = { key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')) };
    const names: string[] = [];
    const server = createTlsServer({ ...credentials, SNICallback: (name, cb) => (names.push(name), cb(null, createSecureContext(credentials))) }, (_req, res) => res.end('tls'));
    server.on('tlsClientError', () => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const lookup = lookupOf({ 'forgelet-tls.test': [{ address: '127.0.0.1', family: 4 }] });
    try {
      const err = await createEgress({ allowLocal: true, lookup }).fetch(`https://forgelet-tls.test:${port}/`).then(() => null, (e: Error) => e);
      // The test certificate is self-signed: the client checked it and refused it.
      assert.match(String((err?.cause as { code?: string })?.code), /SELF_SIGNED/);
      assert.deepEqual(names, ['forgelet-tls.test']);
      await refused(createEgress({ allowLocal: false, lookup }).fetch(`https://forgelet-tls.test:${port}/`));
      assert.deepEqual(names, ['forgelet-tls.test']);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
