import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  clampPerPage,
  MAX_PER_PAGE,
  p,
  params,
  parseBoolean,
  parseParams,
  RepeatedValues,
  STATUS_BY_CODE,
  ValidationError,
} from '@forgelet/core';

/** The `error` text of the 400 a schema answers for `raw`, or null when it parses. */
function errorOf(schema: Parameters<typeof parseParams>[0], raw: Record<string, unknown>): string | null {
  try {
    parseParams(schema, raw);
    return null;
  } catch (err) {
    assert.ok(err instanceof ValidationError, `expected a ValidationError, got ${String(err)}`);
    assert.equal(err.code, 'invalid_param');
    assert.equal(STATUS_BY_CODE[err.code], 400);
    assert.deepEqual(Object.keys(err.body), ['error']);
    return err.body.error as string;
  }
}

const repeated = (...values: string[]) => RepeatedValues.from(values) as RepeatedValues;

describe('params: presence, defaults, nulls', () => {
  it('lists every missing required parameter in declaration order, joined by ", "', () => {
    const schema = params({ name: p.string(), path: p.string(), description: p.string().optional() });
    assert.equal(errorOf(schema, {}), 'name is missing, path is missing');
    assert.equal(errorOf(schema, { path: 'x' }), 'name is missing');
    assert.deepEqual(parseParams(schema, { name: 'n', path: 'p' }), { name: 'n', path: 'p' });
  });

  it('reports missing and invalid parameters together', () => {
    const schema = params({ name: p.string(), id: p.id(), state: p.enum(['opened', 'closed']) });
    assert.equal(errorOf(schema, { id: 'abc', state: 'merged' }), 'name is missing, id is invalid, state does not have a valid value');
  });

  it('ignores undeclared keys', () => {
    const schema = params({ name: p.string() });
    assert.deepEqual(parseParams(schema, { name: 'x', private_token: 't', sudo: 'root', other: { a: 1 } }), { name: 'x' });
  });

  it('applies defaults only when the key is absent', () => {
    const schema = params({ page: p.integer().min(1).default(1), per_page: p.integer().min(1).default(20), sort: p.enum(['asc', 'desc']).default('desc') });
    assert.deepEqual(parseParams(schema, {}), { page: 1, per_page: 20, sort: 'desc' });
    assert.deepEqual(parseParams(schema, { page: '3', per_page: '50', sort: 'asc' }), { page: 3, per_page: 50, sort: 'asc' });
    assert.deepEqual(parseParams(schema, { page: null }), { page: 1, per_page: 20, sort: 'desc' }, 'null counts as absent');
  });

  it('treats null as absent unless the field is nullable', () => {
    assert.equal(errorOf(params({ name: p.string() }), { name: null }), 'name is missing');
    const schema = params({ expires_at: p.date().nullable().optional(), note: p.string().optional() });
    assert.deepEqual(parseParams(schema, { expires_at: null, note: null }), { expires_at: null });
    assert.deepEqual(parseParams(schema, {}), {});
    assert.ok(!('expires_at' in parseParams(schema, {})), 'absent optional keys stay absent');
  });

  it('modifiers return new fields and leave the original untouched', () => {
    const base = p.string();
    const optional = base.optional();
    const withDefault = base.default('x');
    assert.equal(errorOf(params({ a: base }), {}), 'a is missing');
    assert.deepEqual(parseParams(params({ a: optional }), {}), {});
    assert.deepEqual(parseParams(params({ a: withDefault }), {}), { a: 'x' });
    const blank = base.nonBlank();
    assert.deepEqual(parseParams(params({ a: base }), { a: '' }), { a: '' });
    assert.equal(errorOf(params({ a: blank }), { a: '' }), 'a is empty');
  });
});

describe('params: scalar coercions', () => {
  it('string: accepts numbers and booleans as text, refuses objects and arrays', () => {
    const schema = params({ s: p.string() });
    assert.deepEqual(parseParams(schema, { s: 12 }), { s: '12' });
    assert.deepEqual(parseParams(schema, { s: false }), { s: 'false' });
    assert.equal(errorOf(schema, { s: { a: 1 } }), 's is invalid');
    assert.equal(errorOf(params({ s: p.string().max(3) }), { s: 'abcd' }), 's is expected to have length less than or equal to 3');
    assert.deepEqual(parseParams(params({ s: p.string().max(3) }), { s: 'abc' }), { s: 'abc' });
    assert.equal(errorOf(params({ s: p.string().regex(/^[a-z]+$/) }), { s: 'A1' }), 's is invalid');
  });

  it('nonBlank: empty or whitespace-only strings are "is empty"', () => {
    const schema = params({ name: p.string().nonBlank() });
    assert.equal(errorOf(schema, { name: '' }), 'name is empty');
    assert.equal(errorOf(schema, { name: '   ' }), 'name is empty');
    assert.deepEqual(parseParams(schema, { name: ' a ' }), { name: ' a ' });
  });

  it('integer: digits from text or JSON integers; anything else is invalid', () => {
    const schema = params({ n: p.integer() });
    for (const [raw, value] of [['42', 42], [' 7 ', 7], ['-3', -3], [5, 5], [0, 0]] as const) {
      assert.deepEqual(parseParams(schema, { n: raw }), { n: value }, `n=${JSON.stringify(raw)}`);
    }
    for (const raw of ['1.5', 1.5, 'abc', '12abc', '0x10', true, [1], { n: 1 }, '99999999999999999999']) {
      assert.equal(errorOf(schema, { n: raw }), 'n is invalid', `n=${JSON.stringify(raw)}`);
    }
  });

  it('integer minimum and id: below the minimum "does not have a valid value"', () => {
    assert.equal(errorOf(params({ per_page: p.integer().min(1) }), { per_page: '0' }), 'per_page does not have a valid value');
    assert.equal(errorOf(params({ id: p.id() }), { id: 0 }), 'id does not have a valid value');
    assert.equal(errorOf(params({ id: p.id() }), { id: '-1' }), 'id does not have a valid value');
    assert.deepEqual(parseParams(params({ id: p.id() }), { id: '1' }), { id: 1 });
  });

  it('boolean: Grape words in lower, Capitalized and UPPER case, JSON booleans and 1/0', () => {
    const schema = params({ b: p.boolean() });
    const truthy = ['true', 't', '1', 'yes', 'y', 'on'];
    const falsy = ['false', 'f', '0', 'no', 'n', 'off'];
    const cases = (w: string) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()];
    for (const w of truthy.flatMap(cases)) assert.deepEqual(parseParams(schema, { b: w }), { b: true }, w);
    for (const w of falsy.flatMap(cases)) assert.deepEqual(parseParams(schema, { b: w }), { b: false }, w);
    assert.deepEqual(parseParams(schema, { b: true }), { b: true });
    assert.deepEqual(parseParams(schema, { b: false }), { b: false });
    assert.deepEqual(parseParams(schema, { b: 1 }), { b: true });
    assert.deepEqual(parseParams(schema, { b: 0 }), { b: false });
    for (const raw of ['maybe', '', 'truthy', 2, {}, ['true']]) assert.equal(errorOf(schema, { b: raw }), 'b is invalid', JSON.stringify(raw));
  });

  it('parseBoolean: the same words, undefined for anything else', () => {
    assert.equal(parseBoolean('True'), true);
    assert.equal(parseBoolean('OFF'), false);
    assert.equal(parseBoolean(' yes '), true);
    assert.equal(parseBoolean('nope'), undefined);
    assert.equal(parseBoolean(null), undefined);
    assert.equal(parseBoolean(2), undefined);
  });

  it('enum: exact, case-sensitive string values; numeric values also from text', () => {
    const sort = params({ sort: p.enum(['asc', 'desc']) });
    assert.deepEqual(parseParams(sort, { sort: 'asc' }), { sort: 'asc' });
    assert.equal(errorOf(sort, { sort: 'ASC' }), 'sort does not have a valid value');
    assert.equal(errorOf(sort, { sort: 'up' }), 'sort does not have a valid value');
    const level = params({ access_level: p.enum([10, 20, 30] as const) });
    assert.deepEqual(parseParams(level, { access_level: '20' }), { access_level: 20 });
    assert.deepEqual(parseParams(level, { access_level: 30 }), { access_level: 30 });
    assert.equal(errorOf(level, { access_level: '25' }), 'access_level does not have a valid value');
    assert.equal(errorOf(level, { access_level: 'developer' }), 'access_level does not have a valid value');
  });

  it('datetime: ISO 8601 with offsets, a bare date is midnight UTC', () => {
    const schema = params({ at: p.datetime() });
    const parse = (raw: unknown) => (parseParams(schema, { at: raw }).at as Date).toISOString();
    assert.equal(parse('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000Z');
    assert.equal(parse('2024-01-02T03:04:05.678+02:00'), '2024-01-02T01:04:05.678Z');
    assert.equal(parse('2024-01-02'), '2024-01-02T00:00:00.000Z');
    for (const raw of ['yesterday', '', '2024-13-45', 1700000000]) assert.equal(errorOf(schema, { at: raw }), 'at is invalid', JSON.stringify(raw));
  });

  it('date: kept as YYYY-MM-DD, datetimes cut to their UTC date', () => {
    const schema = params({ due: p.date() });
    assert.deepEqual(parseParams(schema, { due: '2024-02-29' }), { due: '2024-02-29' });
    assert.deepEqual(parseParams(schema, { due: '2024-01-02T23:30:00-02:00' }), { due: '2024-01-03' });
    assert.equal(errorOf(schema, { due: 'soon' }), 'due is invalid');
    assert.equal(errorOf(schema, { due: 20240101 }), 'due is invalid');
  });

  it('json: passes any value through untouched', () => {
    const schema = params({ meta: p.json().optional() });
    const meta = { a: [1, { b: null }], c: 'x' };
    assert.deepEqual(parseParams(schema, { meta }), { meta });
    assert.deepEqual(parseParams(schema, { meta: false }), { meta: false });
  });
});

describe('params: repeated keys, arrays, hashes', () => {
  it('a scalar given several times (in=a&in=b) takes the last value', () => {
    const schema = params({ search: p.string(), page: p.integer() });
    assert.deepEqual(parseParams(schema, { search: repeated('a', 'b'), page: repeated('1', '3') }), { search: 'b', page: 3 });
  });

  it('arrays take JSON arrays, repeated keys and single values, coercing each element', () => {
    const schema = params({ ids: p.array(p.integer()) });
    assert.deepEqual(parseParams(schema, { ids: ['1', 2, '3'] }), { ids: [1, 2, 3] });
    assert.deepEqual(parseParams(schema, { ids: repeated('4', '5') }), { ids: [4, 5] });
    assert.deepEqual(parseParams(schema, { ids: '6' }), { ids: [6] });
    assert.deepEqual(parseParams(schema, { ids: [] }), { ids: [] });
  });

  it('a bad element is reported once for the whole array', () => {
    const schema = params({ ids: p.array(p.integer()) });
    assert.equal(errorOf(schema, { ids: ['1', 'x', 'y'] }), 'ids is invalid');
    assert.equal(errorOf(schema, { ids: { a: 1 } }), 'ids is invalid');
    const scopes = params({ scopes: p.array(p.enum(['api', 'read_api'])) });
    assert.equal(errorOf(scopes, { scopes: ['api', 'root'] }), 'scopes does not have a valid value');
  });

  it('commaSeparated arrays also split "1,2"; plain arrays do not', () => {
    assert.deepEqual(parseParams(params({ ids: p.array(p.id()).commaSeparated() }), { ids: '1, 2,3' }), { ids: [1, 2, 3] });
    assert.deepEqual(parseParams(params({ ids: p.array(p.id()).commaSeparated() }), { ids: '' }), { ids: [] });
    assert.deepEqual(parseParams(params({ ids: p.array(p.id()).commaSeparated() }), { ids: ['7', '8'] }), { ids: [7, 8] });
    assert.equal(errorOf(params({ ids: p.array(p.id()) }), { ids: '1,2' }), 'ids is invalid');
  });

  it('arrays of hashes: JSON arrays or form index hashes, errors name the element', () => {
    const schema = params({
      entities: p.array(p.object({ source_type: p.enum(['group_entity', 'project_entity']), source_full_path: p.string(), migrate_projects: p.boolean().default(true) })),
    });
    assert.deepEqual(parseParams(schema, { entities: [{ source_type: 'group_entity', source_full_path: 'a/b', migrate_projects: 'false' }] }), {
      entities: [{ source_type: 'group_entity', source_full_path: 'a/b', migrate_projects: false }],
    });
    // `entities[1][...]=…&entities[0][...]=…` arrives as a hash keyed by index
    assert.deepEqual(
      parseParams(schema, { entities: { '1': { source_type: 'project_entity', source_full_path: 'y' }, '0': { source_type: 'group_entity', source_full_path: 'x' } } }),
      {
        entities: [
          { source_type: 'group_entity', source_full_path: 'x', migrate_projects: true },
          { source_type: 'project_entity', source_full_path: 'y', migrate_projects: true },
        ],
      },
    );
    assert.equal(
      errorOf(schema, { entities: [{ source_type: 'group_entity', source_full_path: 'ok' }, { source_type: 'bad' }] }),
      'entities[1][source_type] does not have a valid value, entities[1][source_full_path] is missing',
    );
  });

  it('nested hashes validate their keys under the parent name', () => {
    const schema = params({ configuration: p.object({ url: p.string(), access_token: p.string() }) });
    assert.deepEqual(parseParams(schema, { configuration: { url: 'https://x', access_token: 't', extra: 1 } }), {
      configuration: { url: 'https://x', access_token: 't' },
    });
    assert.equal(errorOf(schema, { configuration: { url: 'https://x' } }), 'configuration[access_token] is missing');
    assert.equal(errorOf(schema, { configuration: 'https://x' }), 'configuration is invalid');
    assert.equal(errorOf(schema, {}), 'configuration is missing');
  });
});

describe('params: rules between parameters', () => {
  it('exactlyOneOf', () => {
    const schema = params({ user_id: p.string().optional(), username: p.string().optional() }, { exactlyOneOf: [['user_id', 'username']] });
    assert.equal(errorOf(schema, {}), 'user_id, username are missing, exactly one parameter must be provided');
    assert.equal(errorOf(schema, { user_id: '1', username: 'a' }), 'user_id, username are mutually exclusive');
    assert.deepEqual(parseParams(schema, { username: 'a' }), { username: 'a' });
    assert.equal(errorOf(schema, { user_id: null, username: null }), 'user_id, username are missing, exactly one parameter must be provided');
  });

  it('atLeastOneOf', () => {
    const schema = params({ name: p.string().optional(), path: p.string().optional() }, { atLeastOneOf: [['name', 'path']] });
    assert.equal(errorOf(schema, {}), 'name, path are missing, at least one parameter must be provided');
    assert.deepEqual(parseParams(schema, { path: 'p' }), { path: 'p' });
    assert.deepEqual(parseParams(schema, { name: 'n', path: 'p' }), { name: 'n', path: 'p' });
  });

  it('mutuallyExclusive and allOrNone', () => {
    const excl = params({ a: p.string().optional(), b: p.string().optional() }, { mutuallyExclusive: [['a', 'b']] });
    assert.equal(errorOf(excl, { a: '1', b: '2' }), 'a, b are mutually exclusive');
    assert.deepEqual(parseParams(excl, {}), {});
    const all = params({ a: p.string().optional(), b: p.string().optional() }, { allOrNone: [['a', 'b']] });
    assert.equal(errorOf(all, { b: '2' }), 'a, b provide all or none of parameters');
    assert.deepEqual(parseParams(all, { a: '1', b: '2' }), { a: '1', b: '2' });
    assert.deepEqual(parseParams(all, {}), {});
  });

  it('rule and field problems are reported together', () => {
    const schema = params(
      { user_id: p.string().optional(), username: p.string().optional(), access_level: p.enum([10, 20] as const) },
      { exactlyOneOf: [['user_id', 'username']] },
    );
    const text = errorOf(schema, { access_level: '15' })!;
    assert.match(text, /user_id, username are missing, exactly one parameter must be provided/);
    assert.match(text, /access_level does not have a valid value/);
  });
});

describe('params: JSON schema for the OpenAPI document', () => {
  it('describes types, required keys, enums and defaults', () => {
    const schema = params({
      name: p.string().max(10).describe('The name'),
      page: p.integer().min(1).default(1),
      state: p.enum(['opened', 'closed']).optional(),
      ids: p.array(p.id()).optional(),
      at: p.datetime().optional(),
    }).schema();
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 10, description: 'The name' },
        page: { type: 'integer', default: 1 },
        state: { type: 'string', enum: ['opened', 'closed'] },
        ids: { type: 'array', items: { type: 'integer' } },
        at: { type: 'string', format: 'date-time' },
      },
      required: ['name'],
    });
  });
});

describe('pagination limits', () => {
  it('clampPerPage keeps 1..100', () => {
    assert.equal(MAX_PER_PAGE, 100);
    assert.equal(clampPerPage(500), 100);
    assert.equal(clampPerPage(100), 100);
    assert.equal(clampPerPage(20), 20);
    assert.equal(clampPerPage(0), 1);
  });
});
