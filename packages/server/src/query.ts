/**
 * Query strings and form bodies as Rack parses them: `a[]=1&a[]=2` arrays, `a[b]=1`
 * hashes, `entities[][k]=v` arrays of hashes (a new element when a key repeats), `+` as
 * a space. A plain key given twice keeps both values (python-gitlab sends undeclared lists
 * that way); scalar parameters then take the last.
 */
import { RepeatedValues } from '@forgelet/core';

type Tree = Record<string, unknown>;

function decode(s: string): string {
  // Most keys and values are plain: no copy, no decoder.
  if (!/[%+]/.test(s)) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function splitKey(key: string): string[] {
  const first = key.indexOf('[');
  if (first <= 0) return [key];
  const parts = [key.slice(0, first)];
  const re = /\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(key.slice(first)))) parts.push(m[1]!);
  return parts;
}

function assign(target: Tree, parts: string[], value: string) {
  const [head, ...rest] = parts as [string, ...string[]];
  if (rest.length === 0) {
    const existing = target[head];
    if (existing === undefined) target[head] = value;
    else if (existing instanceof RepeatedValues) existing.push(value);
    else if (typeof existing === 'string') target[head] = RepeatedValues.from([existing, value]) as RepeatedValues;
    else target[head] = value;
    return;
  }
  const [next, ...tail] = rest as [string, ...string[]];
  if (next === '') {
    let list = target[head];
    if (!Array.isArray(list) || list instanceof RepeatedValues) target[head] = list = [];
    const arr = list as unknown[];
    if (tail.length === 0) {
      arr.push(value);
      return;
    }
    // array of hashes: start a new element when the last one already has this key
    let last = arr[arr.length - 1] as Tree | undefined;
    const leaf = tail[0]!;
    if (!last || typeof last !== 'object' || (tail.length === 1 && leaf in last)) {
      last = {};
      arr.push(last);
    }
    assign(last, tail, value);
    return;
  }
  let child = target[head];
  if (!child || typeof child !== 'object' || Array.isArray(child)) target[head] = child = {};
  assign(child as Tree, rest, value);
}

export function parseQuery(text: string): Tree {
  const out: Tree = {};
  if (!text) return out;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (!key) continue;
    const parts = splitKey(key);
    // `a[__proto__][x]=1` would write to Object.prototype: no parameter has that name
    if (parts.includes('__proto__')) continue;
    assign(out, parts, value);
  }
  return out;
}

/** Serialises params back to a query string: keys sorted, arrays as `k%5B%5D=v`, hashes as `k%5Bsub%5D=v`. */
export function buildQuery(params: Record<string, unknown>): string {
  const pairs: string[] = [];
  const enc = encodeURIComponent;
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (value instanceof RepeatedValues) {
      for (const v of value) add(key, v);
    } else if (Array.isArray(value)) {
      for (const v of value) {
        if (v && typeof v === 'object') for (const [k, inner] of Object.entries(v)) add(`${key}[][${k}]`, inner);
        else add(`${key}[]`, v);
      }
    } else if (typeof value === 'object') {
      for (const k of Object.keys(value as object).sort()) add(`${key}[${k}]`, (value as Tree)[k]);
    } else pairs.push(`${enc(key)}=${enc(String(value))}`);
  };
  for (const key of Object.keys(params).sort()) add(key, params[key]);
  return pairs.join('&');
}
