// Test runner: `node scripts/test.mjs [files or dirs...]` (called by `npm test`).
//
// - collects *.test.ts / *.test.tsx under test/ and examples/ (or the given paths)
// - TEST_DIALECTS (default "sqlite,postgres"); when postgres is requested and
//   TEST_DATABASE_URL is unset, starts a throwaway cluster (scripts/pg-cluster.mjs)
//   and passes its URL to the test processes
// - builds the CLI (`npm run build`) when a source file of packages/* is newer than
//   the served bundle, then starts `bin/forgelet.js serve` once so that its V8 code cache
//   exists: the real-client suites run against the served binary as users start it
//   (test/support/served.ts), which must load from that cache
// - bundles the test files with the sources they import (scripts/test-bundle.mjs: a process
//   no longer spends 2 s of CPU loading @forgelet/core through tsx's loader hooks) and runs
//   node's test runner on the bundles (one process per file), with source maps; exits with its
//   exit code. TEST_BUNDLE=0 runs the .ts files under tsx instead.
//
// Env: TEST_DIALECTS, TEST_DATABASE_URL, TEST_CONCURRENCY, TEST_BUNDLE.

import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_ROOTS = ['test', 'examples'];
const KNOWN_DIALECTS = ['sqlite', 'postgres'];
const TEST_FILE = /\.test\.tsx?$/;
const SKIP_DIRS = new Set(['node_modules', '.git']);

function fail(msg) {
  console.error(`scripts/test.mjs: ${msg}`);
  process.exit(2);
}

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(p, out);
    } else if ((e.isFile() || e.isSymbolicLink()) && TEST_FILE.test(e.name)) {
      out.push(p);
    }
  }
}

function collectFiles(args) {
  const found = [];
  if (args.length === 0) {
    for (const r of DEFAULT_ROOTS) walk(path.join(ROOT, r), found);
  } else {
    for (const a of args) {
      const p = path.resolve(a);
      if (!existsSync(p)) fail(`no such file or directory: ${a}`);
      if (statSync(p).isDirectory()) walk(p, found);
      else found.push(p); // explicitly named files are run even without the .test.ts suffix
    }
  }
  // Relative to the repo root (the child's cwd) for readable reporter output.
  return [...new Set(found.map((f) => path.relative(ROOT, f) || f))].sort();
}

const args = process.argv.slice(2).filter((a) => a !== '--');
const files = collectFiles(args);
if (files.length === 0) {
  fail(
    args.length
      ? `no test files (*.test.ts, *.test.tsx) found in: ${args.join(' ')}`
      : `no test files (*.test.ts, *.test.tsx) found under ${DEFAULT_ROOTS.join('/, ')}/`,
  );
}

const dialects = (process.env.TEST_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim().toLowerCase())
  .filter(Boolean);
if (dialects.length === 0) fail('TEST_DIALECTS is empty');
for (const d of dialects) {
  if (!KNOWN_DIALECTS.includes(d)) fail(`unknown dialect "${d}" in TEST_DIALECTS (known: ${KNOWN_DIALECTS.join(', ')})`);
}

const concurrencyEnv = process.env.TEST_CONCURRENCY;
if (concurrencyEnv !== undefined && !/^\d+$/.test(concurrencyEnv.trim())) {
  fail(`TEST_CONCURRENCY must be a positive integer, got "${concurrencyEnv}"`);
}
const concurrency = Math.max(2, Number(concurrencyEnv?.trim() || availableParallelism()));

const env = { ...process.env, TEST_DIALECTS: [...new Set(dialects)].join(',') };

let cluster = null;
let bundleDir = null; // this run's test bundles (removed at exit)
let clusterStarting = null; // promise while startCluster() is in flight
let child = null;
let exiting = false;
let signalExitCode = null; // set when we were asked to stop

async function stopCluster() {
  // A signal during startup must not orphan the half-started cluster.
  if (clusterStarting) await clusterStarting.catch(() => {});
  if (!cluster) return;
  const c = cluster;
  cluster = null;
  try {
    await c.stop();
  } catch (err) {
    console.error(`scripts/test.mjs: failed to stop PostgreSQL cluster: ${err?.message ?? err}`);
  }
}

async function finish(code) {
  if (exiting) return;
  exiting = true;
  await stopCluster();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  process.exit(code);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    const code = 128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig]);
    signalExitCode ??= code;
    if (child && child.exitCode === null && child.signalCode === null) {
      // Let the test runner shut down (it is usually signalled too, via the
      // process group); the 'exit' handler then stops the cluster. Force it
      // after a grace period.
      try {
        child.kill(sig);
      } catch {}
      setTimeout(() => {
        try {
          child.kill('SIGKILL');
        } catch {}
        void finish(code);
      }, 5000).unref();
    } else {
      void finish(code);
    }
  });
}

let pgNote = '';
if (dialects.includes('postgres')) {
  if (process.env.TEST_DATABASE_URL) {
    pgNote = ' (postgres: TEST_DATABASE_URL)';
  } else {
    const { startCluster } = await import('./pg-cluster.mjs');
    const t0 = performance.now();
    clusterStarting = startCluster().then((c) => (cluster = c));
    try {
      await clusterStarting;
    } catch (err) {
      // (initdb etc. also get Ctrl-C; don't print their noise when we're being interrupted)
      if (signalExitCode === null) console.error(err?.message ?? err);
      await finish(signalExitCode ?? 1);
    } finally {
      clusterStarting = null;
    }
    if (exiting) await new Promise(() => {}); // a signal arrived while starting; finish() exits
    env.TEST_DATABASE_URL = cluster.url;
    pgNote = ` (postgres: throwaway cluster on port ${cluster.port}, started in ${Math.round(performance.now() - t0)} ms)`;
  }
}

// ---- the served binary: built from the current sources, started once (code cache) ----

const BUNDLE = path.join(ROOT, 'packages/cli/dist/serve/serve-runtime.cjs');

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function buildIfStale() {
  const sources = Math.max(
    ...['core', 'server', 'client', 'cli'].map((pkg) => newestMtime(path.join(ROOT, 'packages', pkg, 'src'))),
    newestMtime(path.join(ROOT, 'packages/server/console')),
    statSync(path.join(ROOT, 'packages/cli/tsup.config.ts')).mtimeMs,
    statSync(path.join(ROOT, 'packages/cli/tsup.serve.config.ts')).mtimeMs,
  );
  const built = ['cli/dist/main.js', 'cli/dist/serve/serve-runtime.cjs', 'server/dist/console/index.html']
    .map((f) => path.join(ROOT, 'packages', f))
    .reduce((min, f) => Math.min(min, existsSync(f) ? statSync(f).mtimeMs : 0), Infinity);
  if (built >= sources) return;
  console.log('forgelet tests: packages/*/src is newer than packages/cli/dist: npm run build');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) fail(`npm run build failed (exit ${r.status ?? r.signal})`);
}

/** Starts the built `forgelet serve` once and waits for the code cache it writes once up. */
async function warmCodeCache() {
  const caches = () => readdirSync(path.dirname(BUNDLE)).filter((f) => f.endsWith('.v8cache'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'forgelet-warm-'));
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FORGELET_')));
  const server = spawn(path.join(ROOT, 'bin/forgelet.js'), ['serve', '--json', '--port', '0', '--data', dataDir], {
    cwd: ROOT,
    env: cleanEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  server.stderr.setEncoding('utf8').on('data', (d) => (out += d));
  const exited = new Promise((res) => server.on('exit', res));
  const started = Date.now() - 1000; // (mtime granularity)
  try {
    const deadline = Date.now() + 30_000;
    let runtime = null;
    while (Date.now() < deadline && server.exitCode === null) {
      const line = out.split('\n')[0];
      if (out.includes('\n') && line.startsWith('{')) {
        runtime = JSON.parse(line).runtime;
        if (runtime === 'bundle, cached') return; // a cache for this build and these flags exists
        if (caches().some((f) => statSync(path.join(path.dirname(BUNDLE), f)).mtimeMs >= started)) return; // written by this start
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    fail(`the built forgelet serve did not start and write its code cache (runtime: ${runtime}):\n${out}`);
  } finally {
    server.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

buildIfStale();
await warmCodeCache();

console.log(
  `forgelet tests: dialects=${env.TEST_DIALECTS}, ${files.length} file${files.length === 1 ? '' : 's'}, concurrency=${concurrency}${pgNote}`,
);

const bundled = process.env.TEST_BUNDLE !== '0';
let runFiles = files;
if (bundled) {
  const { bundleTests } = await import('./test-bundle.mjs');
  const t0 = performance.now();
  try {
    // A directory per run: two runs in one checkout (a helper's sqlite and postgres runs side by
    // side) must not delete each other's bundles; those of runs no longer alive go.
    const buildRoot = path.join(ROOT, '.test-build');
    for (const e of existsSync(buildRoot) ? readdirSync(buildRoot, { withFileTypes: true }) : []) {
      if (!e.isDirectory() || !/^\d+$/.test(e.name) || Number(e.name) === process.pid) continue;
      try {
        process.kill(Number(e.name), 0);
      } catch {
        rmSync(path.join(buildRoot, e.name), { recursive: true, force: true });
      }
    }
    bundleDir = path.join(buildRoot, String(process.pid));
    const map = await bundleTests(ROOT, files, bundleDir);
    runFiles = files.map((f) => map.get(f));
  } catch (err) {
    console.error(`scripts/test.mjs: bundling the tests failed: ${err?.message ?? err}`);
    await finish(1);
  }
  console.log(`forgelet tests: bundled in ${Math.round(performance.now() - t0)} ms (${path.relative(ROOT, bundleDir)}/)`);
}

const nodeArgs = [
  ...(bundled ? ['--enable-source-maps'] : ['--conditions=source', '--import', 'tsx']),
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${path.join(ROOT, 'scripts/test-times-reporter.mjs')}`,
  '--test-reporter-destination=stdout',
  ...runFiles,
];

child = spawn(process.execPath, nodeArgs, { cwd: ROOT, env, stdio: 'inherit' });
child.on('error', (err) => {
  console.error(`scripts/test.mjs: failed to start node: ${err.message}`);
  void finish(1);
});
child.on('exit', (code, signal) => {
  if (signal) console.error(`scripts/test.mjs: test runner killed by ${signal}`);
  void finish(signalExitCode ?? code ?? 1);
});
