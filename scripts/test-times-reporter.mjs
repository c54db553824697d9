// A second node:test reporter (scripts/test.mjs adds it after spec): at the end of the run it
// prints the files that took longest, summing each file's top-level tests and suites, and so
// shows where the suite's time goes (CI has 2 cores and npm test must stay well under 20 min).
// Bundled files are named back to their sources (.test-build/<pid>/test/x.test.mjs).

import { relative } from 'node:path';

const SHOWN = 15;

export default async function* fileTimes(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    const file = relative(process.cwd(), event.data.file.replace(/\.test-build\/\d+\//, '').replace(/\.test\.mjs$/, '.test.ts'));
    perFile.set(file, (perFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  if (rows.length === 0) return;
  let out = `\nforgelet tests: the ${Math.min(SHOWN, rows.length)} slowest of ${rows.length} files (their top-level tests summed; ${(total / 1000).toFixed(0)} s in all)\n`;
  for (const [file, ms] of rows.slice(0, SHOWN)) out += `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`;
  yield out;
}
