import pg from 'pg';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgelet } from '@forgelet/server';
import { createPgDatabase } from './lib/pg.js';
const log: string[] = [];
let on = false;
const orig = (pg.Client.prototype as any).query;
(pg.Client.prototype as any).query = function (...args: any[]) {
  const t = typeof args[0] === 'string' ? args[0] : args[0]?.text;
  const r = orig.apply(this, args);
  if (on && /registration/.test(String(t))) { const i = log.length; log.push(String(t).replace(/\s+/g, ' ').slice(0, 200) + ' ' + JSON.stringify(args[1]).slice(0, 40)); if (r && r.then) r.then((x: any) => { log[i] += ' -> ' + JSON.stringify(x?.rows ?? x).slice(0, 60); }); }
  else if (on) log.push(String(t).replace(/\s+/g, ' ').slice(0, 200));
  return r;
};
const db = await createPgDatabase(process.argv[2]!);
const r = await startForgelet({ dataDir: mkdtempSync(join(tmpdir(), 'qc-')), databaseUrl: db.url, rootToken: 'glpat-qcount-000000000000' });
const h = { 'PRIVATE-TOKEN': 'glpat-qcount-000000000000', 'content-type': 'application/json' };
const p = await (await fetch(`${r.url}/api/v4/projects`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'q' }) })).json() as any;
for (let i = 0; i < 3; i++) await fetch(`${r.url}/api/v4/projects/${p.id}/issues`, { method: 'POST', headers: h, body: JSON.stringify({ title: 't' + i }) }).then((x) => x.text());
for (const path of [`/projects/${p.id}/issues`, `/projects/${p.id}`, `/projects/${p.id}`, `/projects/${p.id}`, `/projects/${p.id}`, `/projects/${p.id}/issues/1`, `/projects/${p.id}/issues/1`]) {
  on = true;
  const method = path.endsWith('issues') ? 'POST' : 'GET';
  await new Promise((r) => setTimeout(r, 20));
  const res = await fetch(`${r.url}/api/v4${path}`, { method, headers: h, body: method === 'POST' ? JSON.stringify({ title: 'counted', description: 'x' }) : undefined });
  await res.text();
  on = false;
  console.log(`== ${method} ${path}: ${res.status}, ${log.length} queries`);
  for (const l of log) console.log('  ' + l.slice(0, 250));
  log.length = 0;
}
await r.stop();
await db.drop();
