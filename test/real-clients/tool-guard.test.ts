/**
 * The real-client suites and examples that need a tool from outside npm (python-gitlab,
 * sentry-sdk, ruby-gitlab, NuGet.exe and mono…) may skip only outside CI, saying why (test/support/tools.ts).
 * Here every such file runs with those tools hidden (PATH holds only node; TEST_SYSTEM_PYTHON
 * points at no python): with CI=true each file fails naming the missing tool, without CI a
 * suite is skipped and prints the reason. Before the guard, the NuGet suites and the NuGet
 * example passed on CI with no NuGet test run.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/served.js';
import { DIALECTS } from '../support/databases.js';
import { bundleTests } from '../../scripts/test-bundle.mjs';

let runs = 0;

/** *.test.ts files under `dir` (recursively, node_modules left out). */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const SELF = relative(REPO_ROOT, new URL(import.meta.url).pathname);
const all = [...testFiles(join(REPO_ROOT, 'test')), ...testFiles(join(REPO_ROOT, 'examples'))]
  .map((f) => relative(REPO_ROOT, f))
  .filter((f) => f !== SELF)
  .sort();
const source = (f: string) => readFileSync(join(REPO_ROOT, f), 'utf8');
/** Files that probe for an outside tool, and those that hand the probe's answer to toolSkip. */
const probing = all.filter((f) => /\bprobe[A-Z]\w*\(\)/.test(source(f)));
const guarded = all.filter((f) => /\btoolSkip\(/.test(source(f)));

/**
 * Runs `files` under node's test runner (TAP) with the tools hidden: PATH is a directory that
 * holds node alone, python is nowhere. The exit code, the whole output, and what each file that
 * failed on loading printed.
 */
async function runHidden(files: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; byFile: Map<string, string>; all: string }> {
  const bin = mkdtempSync(join(tmpdir(), 'forgelet-tool-guard-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  // The files bundled as the suite runs them (scripts/test-bundle.mjs): under tsx each one spent
  // about 2 s of CPU loading the sources, over a minute for the guarded files.
  const outDir = join(REPO_ROOT, '.test-build', `tool-guard-${process.pid}-${++runs}`);
  const bundles = await bundleTests(REPO_ROOT, files, outDir);
  const sourceOf = new Map([...bundles].map(([file, bundle]) => [bundle, file]));
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'CI' && k !== 'NODE_TEST_CONTEXT' && !k.startsWith('FORGELET_')));
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-reporter=tap', '--test-concurrency=2', ...files.map((f) => bundles.get(f)!)],
    {
      cwd: REPO_ROOT,
      // Loading a file must not start anything: the guard acts before any server (sqlite only, no cluster).
      env: { ...base, PATH: bin, TEST_SYSTEM_PYTHON: '/nonexistent/python3', TEST_DIALECTS: 'sqlite', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      rmSync(bin, { recursive: true, force: true });
      rmSync(outDir, { recursive: true, force: true });
      // The runner reports files in order; a file that failed on loading is a subtest named by its
      // path, and what it printed comes just before that `# Subtest:` line.
      const byFile = new Map<string, string>();
      let from = 0;
      for (const m of out.matchAll(/^# Subtest: (.+)$/gm)) {
        const file = sourceOf.get(relative(REPO_ROOT, m[1]!)) ?? relative(REPO_ROOT, m[1]!);
        if (files.includes(file) && !byFile.has(file)) byFile.set(file, out.slice(from, m.index));
        from = m.index! + m[0].length;
      }
      resolve({ code, byFile, all: out });
    });
  });
}

describe('real-client suites that need outside tools', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  it('every file that probes for a tool hands the answer to toolSkip; the python, sentry-sdk, ruby-gitlab and NuGet suites and the NuGet example are among them', () => {
    assert.deepEqual(probing.filter((f) => !guarded.includes(f)), [], 'files that probe without toolSkip');
    for (const f of [
      'test/real-clients/python-gitlab.test.ts',
      'test/real-clients/work-items-python.test.ts',
      'test/real-clients/ci-runner-e2e.test.ts',
      'test/real-clients/sentry-python.test.ts',
      'test/real-clients/nuget-v2.test.ts',
      'test/real-clients/nuget-v3.test.ts',
      'test/real-clients/hooks-ruby-gitlab.test.ts',
      'test/real-clients/variables-ruby-gitlab.test.ts',
      'examples/nuget-push/nuget-push.test.ts',
    ]) {
      assert.ok(guarded.includes(f), `${f} does not use toolSkip`);
    }
  });

  it('with CI=true and the tools hidden, every such file fails, naming the missing tool', async () => {
    const run = await runHidden(guarded, { CI: 'true' });
    assert.notEqual(run.code, 0, run.all);
    assert.match(run.all, new RegExp(`# fail ${guarded.length}\\b`), run.all);
    assert.match(run.all, /# pass 0\b/, run.all);
    for (const f of guarded) {
      const text = run.byFile.get(f) ?? '';
      assert.match(text, /unavailable: .* \(CI is set: every real-client suite must run there, none may skip\)/, `${f}:\n${text}`);
    }
    for (const f of guarded.filter((g) => /nuget/.test(g))) assert.match(run.byFile.get(f)!, /NuGet\.exe [\d.]+ .* unavailable: (script|mono|nuget)/);
    for (const f of guarded.filter((g) => /ruby-gitlab/.test(g))) assert.match(run.byFile.get(f)!, /ruby-gitlab unavailable: ruby-gitlab cannot run/);
    for (const f of guarded.filter((g) => /python/.test(g))) {
      assert.match(run.byFile.get(f)!, /(python-gitlab|sentry-sdk) unavailable: \/nonexistent\/python3 cannot run/);
    }
  });

  it('without CI, a suite is skipped and prints why', async () => {
    const files = ['test/real-clients/nuget-v2.test.ts', 'test/real-clients/work-items-python.test.ts'];
    const run = await runHidden(files, {});
    assert.equal(run.code, 0, run.all);
    assert.match(run.all, /# fail 0\b/, run.all);
    assert.match(run.all, /# test\/real-clients\/nuget-v2\.test\.ts: skipped, NuGet\.exe 2\.8\.7 \(Debian nuget under mono\) unavailable: /);
    assert.match(run.all, /# test\/real-clients\/work-items-python\.test\.ts: skipped, python-gitlab unavailable: \/nonexistent\/python3 cannot run/);
    assert.match(run.all, /# SKIP python-gitlab unavailable/);
    assert.match(run.all, /# SKIP NuGet\.exe 2\.8\.7/);
  });
});
