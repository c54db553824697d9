/**
 * Every route of the server has a client method: the route table (a test-mode forge's routes
 * plus the fault routes the server adds) is matched, with the server's own Router, against
 * the requests the client sends when every method of every resource is called once with
 * placeholder arguments through a recording fetch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createForge, type Forge, type Method, type Route } from '@forgelet/core';
import { Router } from '@forgelet/server';
import { Forgelet, type FetchInit, type FetchLike } from '@forgelet/client';
import { FaultInjector, faultRoutes } from '../../packages/server/src/faults.js';

/**
 * Routes that are another spelling of a covered route, served by the same handler: a route
 * counts as covered when its canonical path is.
 */
const ALIASES: ReadonlyArray<{ method?: Method; from: RegExp; to: string }> = [
  // The spec names the NuGet protocol `pkgfeed`; `…/packages/pkgfeed/…` mirrors `…/packages/nuget/…`.
  { from: /\/packages\/pkgfeed(?=\/|$)/, to: '/packages/nuget' },
  // GitLab's older name for agent flows; the same routes.
  { from: /^\/ai\/duo_workflows\//, to: '/ai/agent_workflows/' },
  // Grape's optional `.json` format: `…/index` is `…/index.json` without the suffix.
  { from: /\/index$/, to: '/index.json' },
  // NuGet 2.x pushing to a v3 source URL: the v3 push.
  { method: 'PUT', from: /\/packages\/nuget\/index\.json$/, to: '/packages/nuget' },
  // `nuget list` asks for bare `Packages`, the other v2 queries for `Packages()`.
  { from: /\/v2\/Packages$/, to: '/v2/Packages()' },
  // The v2 feed's push and delete: the v3 ones.
  { method: 'PUT', from: /\/packages\/nuget\/v2$/, to: '/packages/nuget' },
  { method: 'DELETE', from: /\/packages\/nuget\/v2\//, to: '/packages/nuget/' },
  // gitbeaker's spellings: group label subscriptions under `issues`, child epics under `links`,
  // a client key to delete named in the body.
  { from: /^\/groups\/:id\/issues\/:label_id\//, to: '/groups/:id/labels/:label_id/' },
  { from: /\/epics\/:epic_iid\/links(?=\/|$)/, to: '/epics/:epic_iid/epics' },
  { method: 'DELETE', from: /\/error_tracking\/client_keys$/, to: '/error_tracking/client_keys/:key_id' },
  // The archive without an extension is `archive.tar.gz`; the client always names the format.
  { from: /\/repository\/archive$/, to: '/repository/archive.:format' },
];

/** Routes the client does not call on purpose, each with its reason. Keep this short. */
const ALLOW_LIST: Readonly<Record<string, string>> = {
  // Ingest endpoints written for Sentry SDKs (DSN auth, Sentry envelope framing), not API callers.
  'POST /error_tracking/collector/api/:id/store': 'Sentry SDK ingest',
  'POST /error_tracking/collector/api/:id/envelope': 'Sentry SDK ingest',
};

/** Methods whose placeholder arguments must take another shape, and every shape that matters. */
const project = { projectId: 1 };
const group = { groupId: 1 };
const ARGUMENTS: Readonly<Record<string, unknown[][]>> = {
  // A NuGet feed is a project's or a group's.
  'nugetFeed.serviceIndex': [[project], [group]],
  'nugetFeed.search': [[project], [group]],
  'nugetFeed.metadata': [[project, 'a'], [group, 'a']],
  'nugetFeed.versionMetadata': [[project, 'a', '1'], [group, 'a', '1']],
  'nugetFeed.v2ServiceDocument': [[project], [group]],
  'nugetFeed.v2Metadata': [[project], [group]],
  'nugetFeed.symbolFile': [[project, 'a.pdb', 'b', 'SHA256:c'], [group, 'a.pdb', 'b', 'SHA256:c']],
};

interface Sent {
  method: string;
  url: string;
  caller: string;
}

const key = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** `METHOD path` with every alias rewritten. */
function canonical(routeKey: string): string {
  const space = routeKey.indexOf(' ');
  const method = routeKey.slice(0, space);
  let path = routeKey.slice(space + 1);
  for (const alias of ALIASES) if (!alias.method || alias.method === method) path = path.replace(alias.from, alias.to);
  return `${method} ${path}`;
}

/** A fetch that answers every request with an empty JSON list or object, recording it. */
function fakeFetch(sent: Sent[], caller: () => string): FetchLike {
  return async (url: string, init: FetchInit) => {
    sent.push({ method: init.method, url, caller: caller() });
    if (init.body && typeof init.body === 'object' && Symbol.asyncIterator in init.body) {
      for await (const _ of init.body as AsyncIterable<Uint8Array>); // drain a multipart body
    }
    const text = init.method === 'GET' ? '[]' : '{}';
    return {
      status: 200,
      headers: new Headers({ 'content-type': 'application/json' }),
      text: async () => text,
      arrayBuffer: async () => new TextEncoder().encode(text).buffer as ArrayBuffer,
      body: null,
    };
  };
}

/** Every method name on an object's prototype chain (below Object.prototype). */
function methodsOf(obj: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(obj); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const desc = Object.getOwnPropertyDescriptor(proto, name)!;
      if (typeof desc.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/** A placeholder for an object argument: every key is present and 1. */
const anything: object = new Proxy(
  {},
  {
    get: (_t, prop) => (typeof prop === 'string' && prop !== 'then' && prop !== 'toJSON' ? 1 : undefined),
    has: () => true,
  },
);

function argumentShapes(name: string, fn: Function): unknown[][] {
  if (ARGUMENTS[name]) return ARGUMENTS[name]!;
  const n = fn.length;
  return [
    [...Array(n).fill(1), {}],
    [...Array(n).fill('1'), {}],
    [...Array(n + 2).fill('1')], // optional string parameters too
    [...Array(n).fill(anything), anything],
  ];
}

async function settle(result: unknown): Promise<void> {
  if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
    for await (const _ of result as AsyncIterable<unknown>) break;
    return;
  }
  await result;
}

/** Calls every method of the client; answers what was sent, by whom. */
async function exercise(client: Forgelet, setCaller: (c: string) => void): Promise<void> {
  const targets: [string, object][] = [['forgelet', client]];
  for (const [prop, value] of Object.entries(client)) {
    if (prop === 'requester' || !value || typeof value !== 'object') continue;
    targets.push([prop, value]);
  }
  for (const [prop, target] of targets) {
    for (const name of methodsOf(target)) {
      const fn = (target as Record<string, Function>)[name]!;
      for (const args of argumentShapes(`${prop}.${name}`, fn)) {
        setCaller(`${prop}.${name}`);
        try {
          await settle(fn.apply(target, args));
        } catch {
          // the fake answers do not fit every method; the request was recorded
        }
      }
    }
  }
}

interface Coverage {
  total: number;
  covered: string[];
  aliased: string[];
  allowed: string[];
  missing: string[];
  /** Client requests that match no route. */
  unmatched: Sent[];
  byRoute: Map<string, Set<string>>;
}

function coverage(routes: Route[], sent: Sent[], apiUrl: string): Coverage {
  const router = new Router(routes);
  const byRoute = new Map<string, Set<string>>();
  const unmatched: Sent[] = [];
  for (const s of sent) {
    // GraphQL (`/api/graphql`) is served beside the route table; test/client/graphql.test.ts covers it.
    if (s.method === 'POST' && s.url.split('?')[0] === `${apiUrl.replace(/\/api\/v4$/, '')}/api/graphql`) continue;
    const path = s.url.slice(apiUrl.length).split('?')[0]!;
    const m = router.match(s.method as Method, path);
    if (m.kind !== 'found') {
      unmatched.push(s);
      continue;
    }
    const k = key(m.route);
    if (!byRoute.has(k)) byRoute.set(k, new Set());
    byRoute.get(k)!.add(s.caller);
  }
  const coveredKeys = new Set([...byRoute.keys()].map((k) => canonical(k)));
  const result: Coverage = { total: routes.length, covered: [], aliased: [], allowed: [], missing: [], unmatched, byRoute };
  for (const r of routes) {
    const k = key(r);
    if (byRoute.has(k)) result.covered.push(k);
    else if (coveredKeys.has(canonical(k))) result.aliased.push(k);
    else if (ALLOW_LIST[canonical(k)] !== undefined) result.allowed.push(k);
    else result.missing.push(k);
  }
  return result;
}

function assertComplete(c: Coverage): void {
  assert.deepEqual(c.missing, [], `routes without a client method (${c.missing.length}):\n  ${c.missing.join('\n  ')}`);
}

describe('client coverage of the route table', () => {
  let forge: Forge;
  let routes: Route[];
  let sent: Sent[];
  const url = 'http://forgelet.test';

  before(async () => {
    forge = await createForge({ databaseUrl: ':memory:', config: { testMode: true } });
    // As the server builds its table in test mode: the forge's routes and the fault routes.
    routes = [...forge.routes, ...faultRoutes(new FaultInjector())];
    sent = [];
    let caller = '';
    const client = new Forgelet({ url, token: 'glpat-coverage', fetch: fakeFetch(sent, () => caller), retries: 0 });
    await exercise(client, (c) => (caller = c));
  });
  after(() => forge.close());

  it('every route has a client method (aliases and the allow-list aside)', () => {
    const c = coverage(routes, sent, `${url}/api/v4`);
    console.log(
      `routes ${c.total}: ${c.covered.length} called by the client, ${c.aliased.length} aliases of called routes, ` +
        `${c.allowed.length} allow-listed, ${c.missing.length} missing`,
    );
    assertComplete(c);
  });

  it('every request the client sends matches a route', () => {
    const c = coverage(routes, sent, `${url}/api/v4`);
    const lines = [...new Set(c.unmatched.map((s) => `${s.caller}: ${s.method} ${s.url.slice(url.length)}`))];
    assert.deepEqual(lines, [], `client requests that match no route:\n  ${lines.join('\n  ')}`);
  });

  it('the allow-list names only existing routes, none of which the client calls', () => {
    const c = coverage(routes, sent, `${url}/api/v4`);
    const keys = new Set(routes.map(key));
    assert.deepEqual(Object.keys(ALLOW_LIST).filter((k) => !keys.has(k)), [], 'allow-listed routes that do not exist');
    assert.deepEqual(Object.keys(ALLOW_LIST).filter((k) => c.byRoute.has(k)), [], 'allow-listed routes the client calls');
  });

  it('a route added without a client method is reported', () => {
    const extra = [
      { ...routes[0]!, method: 'GET' as Method, path: '/projects/:id/not_in_the_client' },
      { ...routes[0]!, method: 'POST' as Method, path: '/projects/:id/pkgfeed_thing' },
    ] as Route[];
    const c = coverage([...routes, ...extra], sent, `${url}/api/v4`);
    assert.deepEqual(c.missing.slice(-2), ['GET /projects/:id/not_in_the_client', 'POST /projects/:id/pkgfeed_thing']);
    assert.throws(() => assertComplete(c), (err: Error) => err.message.includes('\n  GET /projects/:id/not_in_the_client\n  POST /projects/:id/pkgfeed_thing'));
  });
});
