import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startForgelet } from '@forgelet/server';
import { main } from './index.js';

it('examples/client-script runs against an in-process Forgelet', async () => {
  const forgelet = await startForgelet();
  try {
    const lines: string[] = [];
    const paths = await main(forgelet.url, forgelet.rootToken!, (l) => lines.push(l));
    assert.deepEqual(paths, ['tooling/bots', 'tooling/ci-templates', 'tooling/release-scripts']);
    assert.equal(lines[0], 'signed in as root');
    assert.equal(lines.at(-1), 'expected: 404 404 Project Not Found');
  } finally {
    await forgelet.stop();
  }
});
