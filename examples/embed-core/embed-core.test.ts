import { it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from './index.js';

it('examples/embed-core runs and lists the projects it created', async () => {
  assert.deepEqual(await main(() => {}), ['platform/api', 'platform/web']);
});
