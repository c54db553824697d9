import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildQuery, parseQuery } from '@forgelet/server';
import { RepeatedValues, p, params, parseParams } from '@forgelet/core';

describe('Rack-style query and form parsing', () => {
  it('parses arrays, hashes, arrays of hashes and + as space', () => {
    const q = parseQuery('iids%5B%5D=1&iids%5B%5D=2&search=a+b&configuration[url]=https%3A%2F%2Fx&configuration[access_token]=t' +
      '&entities[][source_type]=group_entity&entities[][source_full_path]=a&entities[][source_type]=project_entity&entities[][source_full_path]=b');
    assert.deepEqual(q.iids, ['1', '2']);
    assert.equal(q.search, 'a b');
    assert.deepEqual(q.configuration, { url: 'https://x', access_token: 't' });
    assert.deepEqual(q.entities, [
      { source_type: 'group_entity', source_full_path: 'a' },
      { source_type: 'project_entity', source_full_path: 'b' },
    ]);
  });

  it('keeps repeated plain keys for array params and the last value for scalars', () => {
    const q = parseQuery('in=title&in=cadence_title&state=opened&state=closed');
    assert.ok(q.in instanceof RepeatedValues);
    const schema = params({ in: p.array(p.enum(['title', 'cadence_title'])), state: p.string() });
    assert.deepEqual(parseParams(schema, q), { in: ['title', 'cadence_title'], state: 'closed' });
  });

  it('a key through __proto__ is dropped, never written to Object.prototype', () => {
    const q = parseQuery('__proto__[polluted]=1&a[__proto__][polluted]=2&a[b]=3&c[][__proto__]=4&ok=5');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(q)), { a: { b: '3' }, ok: '5' });
  });

  it('builds sorted queries that parse back to the same params', () => {
    const text = buildQuery({ search: 'a b', per_page: 100, iids: ['1', '2'], page: 2, configuration: { url: 'u' } });
    assert.equal(text, 'configuration%5Burl%5D=u&iids%5B%5D=1&iids%5B%5D=2&page=2&per_page=100&search=a%20b');
    assert.deepEqual(parseQuery(text), { configuration: { url: 'u' }, iids: ['1', '2'], page: '2', per_page: '100', search: 'a b' });
  });
});
