/**
 * packages/cli/src/compiled-runtime.ts: `forgelet serve` loads server and core from the built
 * CommonJS bundle with a V8 code cache. Each test works on a copy of the built bundle (inside
 * the repository, so it still finds node_modules), never on the dist folder other tests use.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachePathFor, loadServeRuntime } from '../../packages/cli/src/compiled-runtime.js';
import { DIALECTS } from '../support/databases.js';
import { DIST, ROOT, distSkipReason } from './cli-process.js';

const BUILT = join(DIST, 'serve', 'serve-runtime.cjs');

function skipReason(): string | false {
  if (!DIALECTS.includes('sqlite')) return 'runs once, with the sqlite dialect';
  return distSkipReason() || (existsSync(BUILT) ? false : `${BUILT} is absent: run \`npm run build\` first`);
}

describe('serve runtime with a V8 code cache', { skip: skipReason() }, () => {
  let dir: string;
  let n = 0;
  /** A fresh copy of the built bundle in a folder of its own. */
  const copy = () => {
    const folder = join(dir, String(++n));
    mkdirSync(folder);
    const bundle = join(folder, 'serve-runtime.cjs');
    copyFileSync(BUILT, bundle);
    return bundle;
  };
  const caches = (bundle: string) => readdirSync(join(bundle, '..')).filter((f) => f.endsWith('.v8cache'));

  before(() => {
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(ROOT, '.tmp', 'runtime-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles the bundle once, writes the cache after startup, then starts from the cache', async () => {
    const bundle = copy();
    const first = await loadServeRuntime(bundle);
    assert.equal(first.how, 'bundle, compiled');
    assert.deepEqual(caches(bundle), []);
    const running = await first.runtime.startForgelet({ port: 0 });
    try {
      const res = await fetch(`${running.url}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': running.rootToken! } });
      assert.equal(res.status, 200);
      assert.match(((await res.json()) as { version: string }).version, /^\d+\.\d+\.\d+/);
    } finally {
      await running.stop();
      await running.forge.close();
    }
    first.saveCache();
    assert.deepEqual(caches(bundle), [cachePathFor(bundle).slice(bundle.length - 'serve-runtime.cjs'.length)]);
    const second = await loadServeRuntime(bundle);
    assert.equal(second.how, 'bundle, cached');
    assert.deepEqual([...second.runtime.TIERS], ['free', 'premium', 'ultimate']);
    second.saveCache(); // nothing to do: the cache was used
    assert.equal(caches(bundle).length, 1);
  });

  it('a cache V8 refuses is compiled around and replaced', async () => {
    const bundle = copy();
    writeFileSync(cachePathFor(bundle), Buffer.from('not a V8 code cache'));
    const refused = await loadServeRuntime(bundle);
    assert.equal(refused.how, 'bundle, compiled');
    refused.saveCache();
    assert.equal((await loadServeRuntime(bundle)).how, 'bundle, cached');
  });

  it('a rebuilt bundle (new modification time) does not use the old cache', async () => {
    const bundle = copy();
    (await loadServeRuntime(bundle)).saveCache();
    assert.equal((await loadServeRuntime(bundle)).how, 'bundle, cached');
    const later = new Date(Date.now() + 60_000);
    utimesSync(bundle, later, later);
    assert.equal((await loadServeRuntime(bundle)).how, 'bundle, compiled');
  });

  it('a cache that cannot be written or read leaves startup working, without one', async () => {
    const bundle = copy();
    mkdirSync(cachePathFor(bundle)); // a folder where the cache file would go
    const loaded = await loadServeRuntime(bundle);
    assert.equal(loaded.how, 'bundle, compiled');
    assert.doesNotThrow(() => loaded.saveCache());
    assert.deepEqual(readdirSync(join(bundle, '..')).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left behind');
    assert.equal((await loadServeRuntime(bundle)).how, 'bundle, compiled');
  });

  it('without a bundle (run from source) the packages are imported', async () => {
    const loaded = await loadServeRuntime(join(dir, 'missing', 'serve-runtime.cjs'));
    assert.equal(loaded.how, 'modules');
    assert.equal(typeof loaded.runtime.startForgelet, 'function');
  });
});
