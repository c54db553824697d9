/**
 * Matches a request path against the route table. The path is split on `/` before each
 * segment is decoded once, so `:id` may be `group%2Fproject`. At each position static
 * segments win over segments with embedded params (`Packages(Id=':name',Version=':version')`),
 * which win over `:params`, then a `*greedy` param followed by more segments (one or more
 * segments, longest first: `*ref_name/download`), then a trailing `*rest` (greedy, may hold
 * slashes).
 */
import type { Method, Route } from '@forgelet/core';

interface Node {
  statics: Map<string, Node>;
  /** Segments with embedded params, by their template. */
  patterns: Map<string, { re: RegExp; node: Node }>;
  param: Node | null;
  /** A `*name` that more segments follow. */
  greedy: Node | null;
  rest: Map<Method, Route> | null;
  routes: Map<Method, Route>;
}

const newNode = (): Node => ({ statics: new Map(), patterns: new Map(), param: null, greedy: null, rest: null, routes: new Map() });

const WHOLE = /^[:*]([A-Za-z0-9_]+)$/;
const EMBEDDED = /:([A-Za-z0-9_]+)/g;

/** Names of a route's params (`:name`, `*name`, and those embedded in a segment), in order (routes may name one position differently). */
function paramNames(path: string): string[] {
  return path.split('/').flatMap((part) => {
    const whole = WHOLE.exec(part);
    if (whole) return [whole[1]!];
    return [...part.matchAll(EMBEDDED)].map((m) => m[1]!);
  });
}

/** A segment with embedded params as an anchored expression: its literal text, each param any text (shortest first). */
function patternOf(part: string): RegExp {
  const literal = part.split(EMBEDDED).map((piece, i) => (i % 2 ? '(.*?)' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${literal.join('')}$`);
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed' }
  | { kind: 'not_found' };

/** Matches remembered per method and path (routing is a pure function of both). */
const MEMO_SIZE = 1024;

export class Router {
  private readonly root = newNode();
  private readonly names = new Map<Route, string[]>();
  private readonly memo = new Map<string, Match>();

  constructor(routes: Route[]) {
    for (const r of routes) this.add(r);
  }

  add(route: Route): void {
    this.names.set(route, paramNames(route.path));
    let node = this.root;
    const parts = route.path.split('/').filter(Boolean);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.startsWith('*')) {
        if (i < parts.length - 1) {
          node.greedy ??= newNode();
          node = node.greedy;
          continue;
        }
        node.rest ??= new Map();
        this.put(node.rest, route);
        return;
      }
      if (part.startsWith(':')) {
        node.param ??= newNode();
        node = node.param;
      } else if (part.includes(':')) {
        let pattern = node.patterns.get(part);
        if (!pattern) node.patterns.set(part, (pattern = { re: patternOf(part), node: newNode() }));
        node = pattern.node;
      } else {
        let next = node.statics.get(part);
        if (!next) node.statics.set(part, (next = newNode()));
        node = next;
      }
    }
    this.put(node.routes, route);
    this.memo.clear();
  }

  private put(map: Map<Method, Route>, route: Route) {
    if (map.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    map.set(route.method, route);
  }

  /** The route for a request path (params frozen: shared by every request for that path). */
  match(method: Method, rawPath: string): Match {
    const key = `${method} ${rawPath}`;
    let hit = this.memo.get(key);
    if (!hit) {
      hit = this.walk(method, rawPath);
      if (hit.kind === 'found') Object.freeze(hit.params);
      if (this.memo.size >= MEMO_SIZE) this.memo.clear();
      this.memo.set(key, hit);
    }
    return hit;
  }

  private walk(method: Method, rawPath: string): Match {
    const segments = rawPath.split('/').filter((s) => s !== '');
    let decoded: string[];
    try {
      decoded = segments.map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not_found' };
    }
    let pathExists = false;
    const lookup = method === 'HEAD' ? (m: Map<Method, Route>) => m.get('HEAD') ?? m.get('GET') : (m: Map<Method, Route>) => m.get(method);
    const found = (route: Route, values: string[]): Match => {
      const params: Record<string, string> = {};
      this.names.get(route)!.forEach((name, i) => (params[name] = values[i]!));
      return { kind: 'found', route, params };
    };
    const walk = (node: Node, i: number, values: string[]): Match | null => {
      if (i === decoded.length) {
        if (node.routes.size) {
          pathExists = true;
          const route = lookup(node.routes);
          if (route) return found(route, values);
        }
        return null;
      }
      const seg = decoded[i]!;
      const next = node.statics.get(seg);
      if (next) {
        const hit = walk(next, i + 1, values);
        if (hit) return hit;
      }
      for (const { re, node: child } of node.patterns.values()) {
        const m = re.exec(seg);
        if (!m) continue;
        const hit = walk(child, i + 1, [...values, ...m.slice(1)]);
        if (hit) return hit;
      }
      if (node.param && seg !== '') {
        const hit = walk(node.param, i + 1, [...values, seg]);
        if (hit) return hit;
      }
      if (node.greedy) {
        for (let end = decoded.length - 1; end > i; end--) {
          const hit = walk(node.greedy, end, [...values, decoded.slice(i, end).join('/')]);
          if (hit) return hit;
        }
      }
      if (node.rest) {
        pathExists = true;
        const route = lookup(node.rest);
        if (route) return found(route, [...values, decoded.slice(i).join('/')]);
      }
      return null;
    };
    const hit = walk(this.root, 0, []);
    if (hit) return hit;
    return pathExists ? { kind: 'method_not_allowed' } : { kind: 'not_found' };
  }
}
