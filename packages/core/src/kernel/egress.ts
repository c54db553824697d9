/**
 * Outbound HTTP for flow callbacks and migration sources. By default it refuses loopback,
 * private, link-local and other non-public targets (checked on the resolved address, so a
 * public name pointing at 127.0.0.1 is refused too); `allowLocal` lifts that for tests and
 * local setups.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { Agent, RequestInit, Response } from 'undici';

export interface Egress {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** True when loopback and private targets are allowed (tests, local setups). */
  readonly allowLocal?: boolean;
}

export class EgressRefusedError extends Error {
  constructor(readonly target: string) {
    super(`refusing to connect to non-public address ${target}`);
  }
}

function ipv4Private(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  return (
    a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224
  );
}

/** True for addresses an outbound call must not reach unless local egress is allowed. */
export function isNonPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return ipv4Private(ip);
  if (family === 6) {
    const v = ip.toLowerCase();
    if (v === '::' || v === '::1') return true;
    const mapped = v.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped) return ipv4Private(mapped[1]!);
    return v.startsWith('fc') || v.startsWith('fd') || v.startsWith('fe8') || v.startsWith('fe9') || v.startsWith('fea') || v.startsWith('feb') || v.startsWith('ff');
  }
  return true;
}

/**
 * undici (~1 MB of code) loads on the first outbound call, not while `forgelet serve` starts.
 * Through require, never import(): `forgelet serve` runs core from a script compiled with a V8
 * code cache, and a script restored from a code cache has no dynamic import callback on
 * Node 20 ("A dynamic import callback was not specified"), so every outbound call failed from
 * the second start on. undici is CommonJS; require loads it the same from ESM and CJS.
 */
let undiciModule: typeof import('undici') | null = null;
const loadUndici = (): typeof import('undici') => (undiciModule ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

export function createEgress(options: { allowLocal: boolean; timeoutMs?: number }): Egress {
  let agent: Agent | null = null;
  const createAgent = (undici: typeof import('undici')) => new undici.Agent({
    connect: {
      timeout: options.timeoutMs ?? 10_000,
      lookup(hostname, opts, callback) {
        dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
          if (err) return callback(err, [] as never, 0 as never);
          const list = addresses as unknown as LookupAddress[];
          if (!options.allowLocal) {
            const bad = list.find((a) => isNonPublicAddress(a.address));
            if (bad) return callback(new EgressRefusedError(bad.address), [] as never, 0 as never);
          }
          if ((opts as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
          callback(null, list[0]!.address, list[0]!.family);
        });
      },
    },
    headersTimeout: options.timeoutMs ?? 10_000,
    bodyTimeout: options.timeoutMs ?? 10_000,
  });
  return {
    allowLocal: options.allowLocal,
    async fetch(url, init = {}) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      if (!options.allowLocal && isIP(host) && isNonPublicAddress(host)) throw new EgressRefusedError(host);
      const undici = loadUndici();
      agent ??= createAgent(undici);
      return undici.fetch(url, { ...init, dispatcher: agent });
    },
  };
}
