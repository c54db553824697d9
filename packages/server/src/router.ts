/**
 * Matches a request path against the route table. The path is split on `/` before each
 * segment is decoded once, so `:id` may be `group%2Fproject`. Static segments win over
 * `:params`, which win over a trailing `*rest` (greedy, may hold slashes).
 */
import type { Method, Route } from '@forgelet/core';

interface Node {
  statics: Map<string, Node>;
  param: Node | null;
  rest: Map<Method, Route> | null;
  routes: Map<Method, Route>;
}

const newNode = (): Node => ({ statics: new Map(), param: null, rest: null, routes: new Map() });

/** Names of a route's `:params` and `*rest`, in order (routes may name one position differently). */
function paramNames(path: string): string[] {
  return path
    .split('/')
    .filter((p) => p.startsWith(':') || p.startsWith('*'))
    .map((p) => p.slice(1));
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
        if (i !== parts.length - 1) throw new Error(`*rest must be last in ${route.path}`);
        node.rest ??= new Map();
        this.put(node.rest, route);
        return;
      }
      if (part.startsWith(':')) {
        node.param ??= newNode();
        node = node.param;
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
      if (node.param && seg !== '') {
        const hit = walk(node.param, i + 1, [...values, seg]);
        if (hit) return hit;
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
