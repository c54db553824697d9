/**
 * Suites that need a tool from outside npm (python-gitlab and sentry-sdk under Debian's python3,
 * NuGet.exe under mono…) probe for it first. What a missing tool means is decided here, once:
 * on CI every such suite must run, so a missing tool fails the file; elsewhere the suite is
 * skipped and says why. test/real-clients/tool-guard.test.ts runs every file that calls
 * `toolSkip` with the tools hidden and proves both.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** True when `CI` is set (.ci/run exports CI=true), unless it says 0 or false. */
export function onCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && !/^(0|false)$/i.test(ci);
}

/**
 * The `skip` option for a suite that needs `tool`, given what its probe found: `missing` is
 * null (or false) when the tool works, else why it does not. On CI a missing tool throws, which
 * fails the test file; elsewhere the reason is printed and returned (the suite is skipped).
 */
export function toolSkip(tool: string, missing: string | null | false): string | false {
  if (!missing) return false;
  const why = `${tool} unavailable: ${missing}`;
  if (onCi()) throw new Error(`${why} (CI is set: every real-client suite must run there, none may skip)`);
  // (A bundle the runner made, .test-build/<run>/test/x.test.mjs, is named by its source.)
  const file = process.argv[1] ? relative(ROOT, process.argv[1]).replace(/^\.test-build\/[^/]+\//, '').replace(/\.test\.mjs$/, '.test.ts') : 'a test file';
  console.log(`# ${file}: skipped, ${why}`);
  return why;
}
