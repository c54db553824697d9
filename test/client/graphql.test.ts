import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client graphql()`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      await api.groups.create({ name: 'Acme', path: 'acme', visibility: 'public' });
    });
    after(() => f.stop());

    it('sends query, variables and operationName; answers data, field errors, and refusals as ApiError', async () => {
      const { data, errors } = await api.graphql<{ group: { fullPath: string; parent: null } | null; currentUser: { username: string } }, { path: string }>(
        'query Lookup($path: ID!) { group(fullPath: $path) { fullPath parent { id } } currentUser { username } }',
        { path: 'acme' },
        { operationName: 'Lookup' },
      );
      assert.equal(errors, undefined);
      assert.deepEqual(data, { group: { fullPath: 'acme', parent: null }, currentUser: { username: 'root' } });
      const bad = await api.graphql('{ group(fullPath: "acme") { projects(after: "x") { nodes { id } } } }');
      assert.deepEqual(bad, { data: { group: { projects: null } }, errors: [{ message: 'Please provide a valid cursor', locations: [{ line: 1, column: 29 }], path: ['group', 'projects'] }] });
      const refused = await apiError(clientFor(f, { token: 'glpat-wrong' }).graphql('{ currentUser { username } }'));
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, { errors: [{ message: 'Invalid token' }] });
    });
  });
}
