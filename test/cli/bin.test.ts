// bin/forgelet.js runs the built CLI (packages/cli/dist). These don't depend on the SQL
// dialect, so they run once, only when DIALECTS includes 'sqlite'. Without a build newer than
// packages/cli/src the dist checks are skipped with the reason (`npm test` does not build).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { BIN_CLI, DIST, ROOT, api, distSkipReason, runCli, startServe, tempDir } from './cli-process.js';


/** dist files `file` imports statically (`import … from "./x.js"`, `import "./x.js"`), transitively. */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(DIST, file), 'utf8');
  for (const m of text.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?["']\.\/([^"']+)["']/gm)) staticGraph(m[1]!, seen);
  return seen;
}

/** A temporary directory under `parent` (created if needed), removed by `remove()`. */
function tempDirIn(parent: string, prefix: string): { path: string; remove(): void } {
  mkdirSync(parent, { recursive: true });
  const path = mkdtempSync(join(parent, prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

describe('bin/forgelet.js', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  it('says to run `npm run build` when the CLI is not built', async () => {
    const dir = tempDir();
    after(() => dir.remove());
    mkdirSync(join(dir.path, 'bin'));
    copyFileSync(join(ROOT, 'bin/forgelet.js'), join(dir.path, 'bin/forgelet.js'));
    writeFileSync(join(dir.path, 'package.json'), '{ "type": "module" }\n'); // as in the repo root
    const r = await runCli(['--help'], {}, [join(dir.path, 'bin/forgelet.js')]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^forgelet: the CLI is not built \(.+packages\/cli\/dist\/main\.js is missing\)\.\nRun `npm run build` in .+ \(`npm install` runs it too, through the prepare script\)\.\n$/);
  });

  describe('with the built CLI', { skip: distSkipReason() }, () => {
    it('--help lists the commands', async () => {
      const r = await runCli(['--help'], {}, BIN_CLI);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Usage: forgelet \[options\] \[command\][\s\S]+serve[\s\S]+init[\s\S]+token/);
    });

    it('runs as an executable through its shebang, with the node flags it declares', () => {
      const shebang = readFileSync(join(ROOT, 'bin/forgelet.js'), 'utf8').split('\n')[0]!;
      assert.equal(shebang, '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=4 --expose-gc');
      const out = execFileSync(join(ROOT, 'bin/forgelet.js'), ['--version'], { encoding: 'utf8' });
      assert.match(out, /^\d+\.\d+\.\d+\n$/);
    });

    it('loads Ink and React only through dynamic imports (serve stays fast)', () => {
      for (const file of staticGraph('main.js')) {
        assert.doesNotMatch(readFileSync(join(DIST, file), 'utf8'), /from ["'](ink|react)(\/[^"']*)?["']/, file);
      }
    });

    it('serves from the bundle, writes its code cache, and the next start uses it', async () => {
      // On a copy of the built CLI (inside the repository, so it still finds node_modules): the
      // dist folder other tests use keeps its cache, and this test sees only what its starts write.
      const copyRoot = tempDirIn(join(ROOT, '.tmp'), 'bin-');
      const data = tempDir();
      try {
        cpSync(join(ROOT, 'bin'), join(copyRoot.path, 'bin'), { recursive: true });
        cpSync(DIST, join(copyRoot.path, 'packages/cli/dist'), { recursive: true, filter: (src) => !src.endsWith('.v8cache') });
        writeFileSync(join(copyRoot.path, 'package.json'), '{ "type": "module" }\n');
        const bin = [join(copyRoot.path, 'bin/forgelet.js')];
        const serveDir = join(copyRoot.path, 'packages/cli/dist/serve');
        const caches = () => readdirSync(serveDir).filter((f) => /^serve-runtime\.cjs\.[0-9a-f]{16}\.v8cache$/.test(f));
        assert.deepEqual(caches(), []);

        const server = await startServe(['--port', '0', '--data', data.path], {}, bin);
        const [created, listening] = server.output().stdout.split('\n');
        const rootToken = /^Root user created\. Root token \(shown only now\): (glpat-\S+)$/.exec(created!)?.[1];
        assert.ok(rootToken, created);
        assert.equal(listening, `Forgelet listening on ${server.url}`);
        assert.equal((await api(server.url, 'GET', '/user', rootToken)).status, 200);
        const listed = await runCli(['token', 'list', '--user', 'root'], { FORGELET_URL: server.url, FORGELET_TOKEN: rootToken }, bin);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /^ID\s+NAME\s+USER\s+STATE[^\n]+\n1\s+forgelet-root\s+root\s+active\s/);
        // compiled-runtime.ts: the first start compiles the bundle and writes the cache once it is up
        for (const deadline = Date.now() + 5000; caches().length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
        const written = caches();
        assert.equal(written.length, 1, readdirSync(serveDir).join(', '));
        const stopped = await server.stop('SIGTERM');
        assert.deepEqual([stopped.code, stopped.signal], [0, null]);

        // The second start (with --json, which says how the runtime loaded) uses that cache.
        const again = await startServe(['--port', '0', '--data', data.path, '--json'], {}, bin);
        try {
          assert.equal(JSON.parse(again.ready).runtime, 'bundle, cached');
          assert.equal((await api(again.url, 'GET', '/user', rootToken)).status, 200);
          assert.deepEqual(caches(), written);
        } finally {
          await again.stop('SIGTERM');
        }
      } finally {
        data.remove();
        copyRoot.remove();
      }
    });
  });
});
