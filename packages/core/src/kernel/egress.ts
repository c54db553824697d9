/**
 * Outbound HTTP for flow callbacks and migration sources (and webhooks when they come).
 *
 * By default it refuses loopback, private, link-local and other non-public targets, as GitLab
 * refuses "local requests from web hooks and services". One classifier decides, on the address
 * bytes, with IPv4 embedded in IPv6 (mapped, compatible, NAT64, 6to4, Teredo) judged as the IPv4
 * it reaches. It runs twice:
 * - at registration (`refusal(url)`: the URL's IP literal, or every address its name resolves to),
 *   so a blocked URL is answered 422 before anything is stored or sent;
 * - at connect time, in the undici connector every request and every redirect goes through: the
 *   connector resolves the name itself, refuses when any answer is non-public, connects to the
 *   exact address it checked and checks `socket.remoteAddress` once connected, before TLS or
 *   any byte of the request is written. (net.connect never calls a `lookup` for an IP literal,
 *   so a lookup hook alone let `[::ffff:127.0.0.1]` through.)
 * `allowLocal` lifts the policy (tests, local setups); `allowList` lifts it for given addresses.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { connect as netConnect, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Agent, buildConnector, RequestInit, Response } from 'undici';

export interface Egress {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** True when loopback and private targets are allowed (tests, local setups). */
  readonly allowLocal?: boolean;
  /**
   * Why the policy refuses this URL's target (GitLab's text, e.g. "Requests to localhost are not
   * allowed"), or null. A name is resolved and refused when any of its addresses is; a name that
   * does not resolve is not refused here (the connect-time check still applies).
   */
  refusal(url: string): Promise<string | null>;
}

/** A connection the policy refused; the message is GitLab's (`URL is blocked: <reason>`). */
export class EgressRefusedError extends Error {
  constructor(readonly address: string, readonly reason: string) {
    super(`URL is blocked: ${reason}`);
  }
}

/** The refusal behind an error (fetch wraps the connector's error in `cause`), if any. */
export function egressRefusal(err: unknown): EgressRefusedError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof EgressRefusedError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

// ---- addresses ----

/** Why an address is not public; the messages are GitLab's UrlBlocker texts, `reserved` Forgelet's own. */
export type NonPublicKind = 'localhost' | 'loopback' | 'local_network' | 'link_local' | 'shared_address' | 'broadcast' | 'reserved';

const REASONS: Record<NonPublicKind, string> = {
  localhost: 'Requests to localhost are not allowed',
  loopback: 'Requests to loopback addresses are not allowed',
  local_network: 'Requests to the local network are not allowed',
  link_local: 'Requests to the link local network are not allowed',
  shared_address: 'Requests to the shared address space are not allowed',
  broadcast: 'Requests to the limited broadcast address are not allowed',
  reserved: 'Requests to reserved addresses are not allowed',
};

/** One IPv4 part as the URL standard (and inet_aton) reads it: decimal, 0x hex or 0-led octal. */
function ipv4Number(part: string): number | null {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/** IPv4 in any form the URL standard accepts (`127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`). */
function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers = parts.map(ipv4Number);
  if (numbers.some((n) => n === null)) return null;
  const last = numbers.pop()!;
  if (numbers.some((n) => n! > 255) || last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => (value += n! * 256 ** (3 - i)));
  return Uint8Array.of(value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
}

/** IPv6 (brackets and a zone id allowed), with a trailing dotted IPv4 if any. */
function parseIPv6(text: string): Uint8Array | null {
  const t = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!t.includes(':')) return null;
  const halves = t.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    const items = s.split(':');
    for (const [i, g] of items.entries()) {
      if (i === items.length - 1 && g.includes('.')) {
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(g)) return null;
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
        if ([a, b, c, d].some((x) => x > 255)) return null;
        out.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(Number.parseInt(g, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 255;
  });
  return bytes;
}

/** The 4 or 16 bytes of an IP address in any literal form, or null for anything else (a name). */
export function parseAddress(text: string): Uint8Array | null {
  return parseIPv6(text) ?? parseIPv4(text);
}

/** Canonical text of 4 or 16 address bytes (IPv6 uncompressed). */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

const startsWith = (b: Uint8Array, prefix: number[]) => prefix.every((x, i) => b[i] === x);
const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 address an IPv6 address reaches through a standard embedding: IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48`, Teredo `2001:0::/32` (client address inverted).
 */
function embeddedIPv4(b: Uint8Array): Uint8Array | null {
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12);
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return b.slice(12);
  if (zero(b, 0, 12)) return b.slice(12);
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b]) && zero(b, 4, 12)) return b.slice(12);
  if (startsWith(b, [0x20, 0x02])) return b.slice(2, 6);
  if (startsWith(b, [0x20, 0x01, 0x00, 0x00])) return b.slice(12).map((x) => x ^ 0xff);
  return null;
}

/** IPv4 ranges that are not globally reachable (IANA special-purpose registry), most specific first. */
const IPV4_RANGES: [number[], number, NonPublicKind][] = [
  [[0, 0, 0, 0], 8, 'localhost'],
  [[127, 0, 0, 1], 32, 'localhost'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[10, 0, 0, 0], 8, 'local_network'],
  [[172, 16, 0, 0], 12, 'local_network'],
  [[192, 168, 0, 0], 16, 'local_network'],
  [[169, 254, 0, 0], 16, 'link_local'],
  [[100, 64, 0, 0], 10, 'shared_address'],
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[192, 0, 0, 0], 24, 'reserved'], // IETF protocol assignments (incl. NAT64 discovery 192.0.0.170)
  [[192, 0, 2, 0], 24, 'reserved'], // documentation
  [[198, 18, 0, 0], 15, 'reserved'], // benchmarking
  [[198, 51, 100, 0], 24, 'reserved'], // documentation
  [[203, 0, 113, 0], 24, 'reserved'], // documentation
  [[224, 0, 0, 0], 4, 'reserved'], // multicast
  [[240, 0, 0, 0], 4, 'reserved'], // reserved for future use
];

const u32 = (b: ArrayLike<number>) => ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;

function classifyIPv4(b: Uint8Array): NonPublicKind | null {
  const value = u32(b);
  for (const [net, bits, kind] of IPV4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === (u32(net) & mask) >>> 0) return kind;
  }
  return null;
}

function classifyBytes(b: Uint8Array): NonPublicKind | null {
  if (b.length === 4) return classifyIPv4(b);
  if (zero(b, 0, 15) && (b[15] === 0 || b[15] === 1)) return 'localhost'; // :: and ::1
  const v4 = embeddedIPv4(b);
  if (v4) return classifyIPv4(v4);
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return 'local_network'; // local-use NAT64 64:ff9b:1::/48 (RFC 8215)
  if ((b[0]! & 0xfe) === 0xfc) return 'local_network'; // unique local fc00::/7
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'local_network'; // site-local fec0::/10
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link_local'; // fe80::/10
  if (b[0] === 0xff) return 'reserved'; // multicast
  if (startsWith(b, [0x01, 0x00]) && zero(b, 2, 8)) return 'reserved'; // discard-only 100::/64
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8])) return 'reserved'; // documentation 2001:db8::/32
  return null;
}

/**
 * Why an IP address (any literal form) is not public, or null when it is public. Anything that
 * is not an IP address counts as `reserved` (fail closed).
 */
export function classifyAddress(ip: string): NonPublicKind | null {
  const bytes = parseAddress(ip);
  return bytes ? classifyBytes(bytes) : 'reserved';
}

/** True for addresses an outbound call must not reach unless local egress is allowed. */
export function isNonPublicAddress(ip: string): boolean {
  return classifyAddress(ip) !== null;
}

/** The address as compared with this machine's own addresses (the IPv4 it reaches, if embedded). */
function targetKey(bytes: Uint8Array): string {
  return formatAddress(bytes.length === 16 ? (embeddedIPv4(bytes) ?? bytes) : bytes);
}

const interfaceAddresses = (): string[] => Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));

// ---- the policy ----

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface EgressOptions {
  /** Allow loopback and private targets (tests, local setups). */
  allowLocal: boolean;
  timeoutMs?: number;
  /** Name resolution, every address of a name (default: the system resolver, `dns.lookup`). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Non-public targets allowed nonetheless, by address and optionally port (GitLab's "local IP
   * addresses and domain names that hooks and integrations can access").
   */
  allowList?: ReadonlyArray<{ address: string; port?: number }>;
  /**
   * This machine's addresses, refused as localhost as GitLab does (a public address of the server
   * reaches its own services); default: every interface address (`os.networkInterfaces()`).
   */
  localAddresses?: () => string[];
}

/** An IP literal host (brackets allowed) as the one address to connect to; null for a name. */
function literalAddress(host: string): ResolvedAddress[] | null {
  const bytes = parseAddress(host);
  return bytes ? [{ address: formatAddress(bytes), family: bytes.length === 4 ? 4 : 6 }] : null;
}

const systemLookup = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await dnsLookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** How long registration waits for a name to resolve before leaving the decision to connect time. */
const REGISTRATION_LOOKUP_MS = 5_000;

class Policy {
  readonly lookup: (hostname: string) => Promise<ResolvedAddress[]>;
  private readonly allowed: { key: string; port?: number }[];

  constructor(private readonly options: EgressOptions) {
    this.lookup = options.lookup ?? systemLookup;
    this.allowed = (options.allowList ?? []).map((e) => {
      const bytes = parseAddress(e.address);
      if (!bytes) throw new TypeError(`egress allowList: ${e.address} is not an IP address`);
      return { key: targetKey(bytes), port: e.port };
    });
  }

  /** Why connecting to this address and port is refused, or null. */
  refusal(address: string, port: number): string | null {
    if (this.options.allowLocal) return null;
    const bytes = parseAddress(address);
    if (!bytes) return REASONS.reserved;
    const key = targetKey(bytes);
    if (this.allowed.some((e) => e.key === key && (e.port === undefined || e.port === port))) return null;
    const kind = classifyBytes(bytes) ?? (this.isOwnAddress(key) ? 'localhost' : null);
    return kind ? REASONS[kind] : null;
  }

  private isOwnAddress(key: string): boolean {
    return (this.options.localAddresses ?? interfaceAddresses)().some((a) => {
      const bytes = parseAddress(a);
      return bytes !== null && targetKey(bytes) === key;
    });
  }

  /** The first of these addresses the policy refuses, with the reason. */
  firstRefusal(addresses: ResolvedAddress[], port: number): { address: string; reason: string } | null {
    for (const a of addresses) {
      const reason = this.refusal(a.address, port);
      if (reason) return { address: a.address, reason };
    }
    return null;
  }

  /** The addresses to connect to for a host (an IP literal or a name), refused when any is non-public. */
  async resolve(hostname: string, port: number): Promise<ResolvedAddress[]> {
    const addresses = literalAddress(hostname) ?? (await this.lookup(hostname));
    if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    const refused = this.firstRefusal(addresses, port);
    if (refused) throw new EgressRefusedError(refused.address, refused.reason);
    return addresses;
  }
}

// ---- the connector ----

/**
 * undici (~1 MB of code) loads on the first outbound call, not while `forgelet serve` starts.
 * Through require, never import(): `forgelet serve` runs core from a script compiled with a V8
 * code cache, and a script restored from a code cache has no dynamic import callback on
 * Node 20 ("A dynamic import callback was not specified"), so every outbound call failed from
 * the second start on. undici is CommonJS; require loads it the same from ESM and CJS.
 */
let undiciModule: typeof import('undici') | null = null;
const loadUndici = (): typeof import('undici') => (undiciModule ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

/**
 * An undici connector that resolves, checks and connects itself: TCP to the exact address the
 * policy allowed (the next one when a connection fails), `remoteAddress` checked on connect,
 * then TLS over that socket for https (SNI and certificate checks use the URL's host).
 */
function policyConnector(undici: typeof import('undici'), policy: Policy, timeoutMs: number): buildConnector.connector {
  const tlsOver = undici.buildConnector({ timeout: timeoutMs });
  return (opts, callback) => {
    const https = opts.protocol === 'https:';
    const port = Number(opts.port) || (https ? 443 : 80);
    let settled = false;
    let socket: Socket | null = null;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      callback(err, null);
    };
    const timer = setTimeout(() => fail(new undici.errors.ConnectTimeoutError(`Connect Timeout Error (${opts.hostname}:${port}, timeout: ${timeoutMs} ms)`)), timeoutMs);
    const attempt = (addresses: ResolvedAddress[], i: number) => {
      const s = netConnect({ host: addresses[i]!.address, port, family: addresses[i]!.family });
      socket = s;
      const onError = (err: Error) => {
        s.destroy();
        if (!settled && i + 1 < addresses.length) attempt(addresses, i + 1);
        else fail(err);
      };
      s.once('error', onError);
      s.once('connect', () => {
        s.off('error', onError);
        if (settled) return void s.destroy();
        const remote = s.remoteAddress ?? '';
        const reason = policy.refusal(remote, port);
        if (reason) return fail(new EgressRefusedError(remote, reason));
        settled = true;
        clearTimeout(timer);
        s.setNoDelay(true).setKeepAlive(true, 60_000);
        if (https) tlsOver({ ...opts, httpSocket: s }, callback);
        else callback(null, s);
      });
    };
    policy.resolve(opts.hostname, port).then((addresses) => {
      if (!settled) attempt(addresses, 0);
    }, fail);
  };
}

export function createEgress(options: EgressOptions): Egress {
  const policy = new Policy(options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  let agent: Agent | null = null;
  return {
    allowLocal: options.allowLocal,
    async refusal(url) {
      if (options.allowLocal) return null;
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return null;
      }
      const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
      let addresses = literalAddress(u.hostname);
      if (!addresses) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), REGISTRATION_LOOKUP_MS)));
        addresses = (await Promise.race([policy.lookup(u.hostname).catch(() => null), late]).finally(() => clearTimeout(timer))) ?? [];
      }
      return policy.firstRefusal(addresses, port)?.reason ?? null;
    },
    async fetch(url, init = {}) {
      const undici = loadUndici();
      agent ??= new undici.Agent({ connect: policyConnector(undici, policy, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      return undici.fetch(url, { ...init, dispatcher: agent });
    },
  };
}
