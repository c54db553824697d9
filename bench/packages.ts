/**
 * The package feed benchmark, in bench/run.ts's style (`name: value (target …) PASS|FAIL`):
 *   node --conditions=source --import tsx bench/packages.ts
 * or as the `packages` case of `npm run bench` (BENCH_ONLY=packages). bench/lib/packages.ts
 * does the work (runPackages) and prints the table (reportPackages) for both.
 *
 *  1. search latency over 10,000 package versions (1,000 names × 10): median and p95 of
 *     `GET …/nuget/query` in four shapes, and of a registration index (target: p95 < 100 ms,
 *     median < 50 ms, absolute budgets);
 *  2. push throughput of a 50 MB package through `PUT …/nuget` against a bare node:http
 *     server streaming the same body to a file (target ≥ 0.30 of the baseline), with the
 *     server's RSS flat (growth during three pushes < 40 MB).
 *
 * Env: BENCH_PUSH_MB (50), BENCH_SEARCHES (100), BENCH_DATABASE_URL (postgres://… for a
 * PostgreSQL run; a throwaway database is created and dropped). Always exits 0.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportPackages, runPackages } from './lib/packages.js';
import { createPgDatabase } from './lib/pg.js';

const num = (v: string | undefined, d: number) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : d);
const PUSH_MB = num(process.env.BENCH_PUSH_MB, 50);
const SEARCHES = num(process.env.BENCH_SEARCHES, 100);
const ROOT_TOKEN = `glpat-bench-${randomBytes(8).toString('hex')}`;

type Status = 'PASS' | 'FAIL';
const result = (name: string, value: string, target: string, status: Status) => console.log(`${name}: ${value} (target ${target}) ${status}`);
const info = (line: string) => console.log(`  ${line}`);

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'forgelet-bench-packages-'));
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>> | null = null;
  try {
    if (process.env.BENCH_DATABASE_URL) pgdb = await createPgDatabase(process.env.BENCH_DATABASE_URL);
    console.log(`\n== packages. NuGet feed: search over 10,000 package versions; pushes of a ${PUSH_MB} MB package`);
    const r = await runPackages({ work, databaseUrl: pgdb?.url, rootToken: ROOT_TOKEN, pushMb: PUSH_MB, searches: SEARCHES });
    reportPackages(r, PUSH_MB, { info, result });
  } catch (err) {
    info(`error: ${(err as Error).stack ?? err}`);
    result('packages', 'error', 'runs', 'FAIL');
  } finally {
    await pgdb?.drop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
