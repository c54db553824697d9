/**
 * docs/routes.md is the route table as it runs: every route the forge serves, at the `route()`
 * call that declares it. These tests keep the file current and hold the habit it relies on:
 * each route is one `route()` call in a `*.routes.ts` file whose path argument is the full path
 * as a string literal, so searching for a path lands on its declaration.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Route } from '@forgelet/core';
import { declarationProblems, declaresLiteral, forgeRoutes, renderRoutesDoc, ROUTES_DOC } from '../../scripts/routes-doc.js';

describe('docs/routes.md', () => {
  let routes: Route[];
  let testModeOnly: Set<Route>;

  before(async () => {
    ({ routes, testModeOnly } = await forgeRoutes());
  });

  it('is what the route table gives now (else: npm run generate:routes)', () => {
    assert.ok(routes.length > 400, `only ${routes.length} routes`);
    assert.equal(readFileSync(ROUTES_DOC, 'utf8'), renderRoutesDoc(routes, testModeOnly), `${ROUTES_DOC} is stale: run npm run generate:routes`);
  });

  it('lists each route once with its declaration, auth, tier and summary', () => {
    const rows = readFileSync(ROUTES_DOC, 'utf8').split('\n').filter((l) => l.startsWith('| `'));
    assert.equal(rows.length, routes.length);
    const links = rows.filter((r) => r.startsWith('| `GET /api/v4/projects/:id/releases/:tag_name/assets/links` '));
    assert.equal(links.length, 1);
    const m = /^\| [^|]+ \| \[domains\/releases\/releases\.routes\.ts:(\d+)\]\(\.\.\/packages\/core\/src\/domains\/releases\/releases\.routes\.ts#L\1\) \| optional, job token \|  \| List the asset links of a release \|$/.exec(links[0]!);
    assert.ok(m, links[0]);
    const line = readFileSync(new URL('../../packages/core/src/domains/releases/releases.routes.ts', import.meta.url), 'utf8').split('\n')[Number(m[1]) - 1]!;
    assert.ok(line.includes("route('GET', '/projects/:id/releases/:tag_name/assets/links',"), line);
    assert.ok(rows.some((r) => r.startsWith('| `POST /api/v4/groups/:id/member_roles` |') && r.includes('| required | ultimate |')));
    assert.ok(rows.some((r) => r.startsWith('| `PUT /api/v4/forgelet/clock` |') && r.includes('| admin, test mode |')));
  });

  it("points every route at a route() call in a *.routes.ts file naming its full path as a literal", () => {
    assert.deepEqual(declarationProblems(routes), []);
  });

  it('the literal check tells a literal path from a built one (it can fail)', () => {
    const source = [
      "const base = '/projects/:id/things';",
      'export const thingRoutes = [',
      "  route('GET', '/projects/:id/things', { auth: 'optional' },",
      '    async () => ok([])),',
      "  route('POST', base, { auth: 'required' }, create),",
      "  route('PUT', `${base}/:thing_id`, { auth: 'required' }, update),",
      `  route('GET', "/projects/:id/things/Thing(Id=':name')", { auth: 'optional' }, byName),`,
      '];',
    ].join('\n');
    assert.equal(declaresLiteral(source, 3, 'GET', '/projects/:id/things'), true);
    assert.equal(declaresLiteral(source, 7, 'GET', "/projects/:id/things/Thing(Id=':name')"), true);
    assert.equal(declaresLiteral(source, 5, 'POST', '/projects/:id/things'), false);
    assert.equal(declaresLiteral(source, 6, 'PUT', '/projects/:id/things/:thing_id'), false);
    // the right call, the wrong line or method or path
    assert.equal(declaresLiteral(source, 4, 'GET', '/projects/:id/things'), false);
    assert.equal(declaresLiteral(source, 3, 'POST', '/projects/:id/things'), false);
    assert.equal(declaresLiteral(source, 3, 'GET', '/projects/:id/thing'), false);
  });
});
