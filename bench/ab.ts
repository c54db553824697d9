/**
 * A/B of issue creation between two checkouts (each built: `npm run build`), for a machine too
 * busy for absolute figures: one Forgelet child per tree (bench/server-child.ts on its built
 * packages, SQLite or AB_DATABASE_URL: one PostgreSQL database per tree, comma-separated, as two
 * processes with keys of their own cannot share one), then AB_ROUNDS rounds of a 2 s load of 16 writers
 * against each in turn; prints the server CPU per created issue (min, median, every round).
 *   AB_TREES=/path/a,/path/b node --import tsx bench/ab.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './lib/load.js';
import { cpuSecondsOf, postOnce, spawnLines } from './lib/proc.js';
if (!process.env.AB_TREES) throw new Error('AB_TREES=/path/a,/path/b: the two checkouts to compare');
const trees = process.env.AB_TREES.split(',');
const rounds = Number(process.env.AB_ROUNDS ?? 6);
const token = 'glpat-ab-bench-token-000000';
const dbs = process.env.AB_DATABASE_URL ? process.env.AB_DATABASE_URL.split(',') : [];
if (dbs.length && dbs.length !== trees.length) throw new Error('AB_DATABASE_URL: one database URL per tree');
const kids = [];
for (const [i, tree] of trees.entries()) {
  const db = dbs[i];
  const dir = mkdtempSync(join(tmpdir(), 'ab-'));
  const p = spawnLines(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', join(tree, 'bench/server-child.ts'), JSON.stringify({ dataDir: dir, databaseUrl: db ? `${db}` : undefined, rootToken: token, seedProjects: 1 })], { cwd: tree });
  const ready = JSON.parse(await p.waitLine('READY ', 120000));
  const project = ready.sampleProjectIds[0];
  await postOnce(`${ready.url}/api/v4/projects/${project}/issues`, { 'PRIVATE-TOKEN': token }, { title: 'first' });
  kids.push({ tree, p, ready, project, cpu: [] as number[], rps: [] as number[] });
}
const body = JSON.stringify({ title: 'bench issue', description: 'created by npm run bench' });
for (let r = 0; r < rounds; r++) {
  for (const k of kids) {
    const before = cpuSecondsOf(k.ready.pid)!;
    const res = await runLoad({ origin: k.ready.url, paths: [`/api/v4/projects/${k.project}/issues`], headers: { 'PRIVATE-TOKEN': token }, connections: 16, seconds: 2, warmupSeconds: 0.5, method: 'POST', body, expectStatus: 201 });
    const after = cpuSecondsOf(k.ready.pid)!;
    k.cpu.push(((after - before) * 1e6) / res.completed);
    k.rps.push(res.rps);
    if (res.errors) console.log('errors', res.errors, res.firstError);
  }
}
for (const k of kids) {
  const s = [...k.cpu].sort((a, b) => a - b);
  console.log(`${k.tree}: CPU µs/req min ${s[0]!.toFixed(0)} median ${s[Math.floor(s.length / 2)]!.toFixed(0)} (${k.cpu.map((c) => c.toFixed(0)).join(' ')}); req/s max ${Math.max(...k.rps).toFixed(0)}`);
  k.p.send('stop');
}
setTimeout(() => process.exit(0), 2000);
