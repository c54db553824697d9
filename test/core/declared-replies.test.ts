/**
 * Replies are typed where a route is declared: `ok<T>` is a `JsonReply<200, T>`, `created<T>`
 * a `JsonReply<201, T>`, and a route's type `Route<S, R>` carries the union of what it answers.
 * scripts/openapi-responses.ts documents each route from that declared union; these tests hold
 * both ends: the types (checked by `npm run typecheck`, which covers this file) and what the
 * generator reads from them, including the problem it reports for a reply it cannot document.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { created, json, ok, paged, route, text, type JsonReply, type PageReply, type Route, type TextReply } from '../../packages/core/src/kernel/route.js';
import { answersOf, type RouteSite } from '../../scripts/openapi-responses.js';

const KERNEL_ROUTE = fileURLToPath(new URL('../../packages/core/src/kernel/route.ts', import.meta.url));

describe('declared reply types', () => {
  it('keep literal statuses, content types and body types', () => {
    const a: JsonReply<200, { id: number }> = ok({ id: 1 });
    const b: JsonReply<201, { id: number }> = created({ id: 1 });
    const c: JsonReply<409, { message: string }> = json(409, { message: 'taken' });
    const d: TextReply<200, 'text/csv'> = text('a,b', 'text/csv');
    const e: PageReply<number> = paged({ items: [1], total: 1, page: 1, perPage: 20 } as never);
    // @ts-expect-error a 200 is not a 201
    const wrongStatus: JsonReply<201, { id: number }> = ok({ id: 1 });
    // @ts-expect-error the body's type is kept
    const wrongBody: JsonReply<200, { id: string }> = ok({ id: 1 });
    const r: Route<{}, JsonReply<200, { id: number }> | JsonReply<404, { message: string }>> = route('GET', '/x', { auth: 'none' }, async () =>
      Math.random() < 2 ? ok({ id: 1 }) : json(404, { message: '404 Not found' }),
    );
    assert.deepEqual([a.status, b.status, c.status, d.contentType, e.kind, wrongStatus.status, wrongBody.kind, r.path], [200, 201, 409, 'text/csv', 'page', 200, 'json', '/x']);
  });
});

describe('scripts/openapi-responses.ts reads the declared types', () => {
  let dir: string;
  let file: string;
  let sites: RouteSite[];

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'forgelet-replies-'));
    file = path.join(dir, 'things.routes.ts');
    const kernel = path.relative(dir, KERNEL_ROUTE).replace(/\.ts$/, '.js');
    const source = [
      `import { created, json, ok, route, stream, text, type Reply } from '${kernel}';`,
      `import { Readable } from 'node:stream';`,
      `interface Thing { id: number; name: string | null; tags: string[] }`,
      `const wide = async (): Promise<Reply> => ok({ id: 1 });`,
      `export const routes = [`,
      `  route('GET', '/things/:id', { auth: 'none' }, async () => ok<Thing>({ id: 1, name: null, tags: [] })),`,
      `  route('POST', '/things', { auth: 'none' }, async () => (Math.random() < 0.5 ? created({ id: 1 }) : json(409, { message: 'taken' }))),`,
      `  route('GET', '/things/:id/raw', { auth: 'none' }, async () => (Math.random() < 0.5 ? text('a', 'text/csv') : stream(Readable.from([]), 'application/zip'))),`,
      `  route('GET', '/wide', { auth: 'none' }, wide),`,
      `  route('GET', '/untyped', { auth: 'none' }, async () => ok(JSON.parse('{}'))),`,
      `];`,
      '',
    ].join('\n');
    writeFileSync(file, source);
    const lines = source.split('\n');
    sites = ['GET /things/:id', 'POST /things', 'GET /things/:id/raw', 'GET /wide', 'GET /untyped'].map((name) => {
      const [method, p] = name.split(' ');
      return { name, file, line: lines.findIndex((l) => l.includes(`route('${method}', '${p}'`)) + 1 };
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('documents each status, kind, content type and body schema; reports what it cannot', () => {
    const { table, problems } = answersOf(sites);
    assert.deepEqual(table['GET /things/:id'], [
      {
        status: 200,
        kind: 'json',
        schema: {
          type: 'object',
          properties: { id: { type: 'number' }, name: { type: ['null', 'string'] }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['id', 'name', 'tags'],
          additionalProperties: false,
        },
      },
    ]);
    assert.deepEqual(
      table['POST /things']!.map((r) => [r.status, r.kind]),
      [
        [201, 'json'],
        [409, 'json'],
      ],
    );
    assert.deepEqual(table['GET /things/:id/raw'], [
      { status: 200, kind: 'stream', contentTypes: ['application/zip'] },
      { status: 200, kind: 'text', contentTypes: ['text/csv'] },
    ]);
    // A reply typed only as `Reply`: every variant but the page (whose status is always 200) lacks a status, the page its item type.
    assert.equal(problems.filter((p) => p.startsWith('GET /wide ') && /no literal status/.test(p)).length, 5, problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('GET /wide ') && /page items are untyped/.test(p)), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('GET /untyped ') && /JSON body is untyped/.test(p)), problems.join('\n'));
    assert.equal(problems.length, 7, problems.join('\n'));
  });

  it('reports a site with no route() call', () => {
    const { problems } = answersOf([{ name: 'GET /nowhere', file, line: 1 }]);
    assert.deepEqual(
      problems.map((p) => p.replace(/ at .*/, '')),
      ['GET /nowhere: no route() call'],
    );
  });
});
