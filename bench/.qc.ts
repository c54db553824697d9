import pg from 'pg';
import { startForgelet } from '@forgelet/server';
const seen: string[] = [];
let on = false;
const orig = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (this: unknown, ...args: any[]) {
  if (on) seen.push(String(typeof args[0] === 'string' ? args[0] : args[0]?.text ?? args[0]?.name).replace(/\s+/g, ' ').slice(0, 160));
  return orig.apply(this, args);
};
const admin = new pg.Client(process.argv[2]); await admin.connect(); const dbn = 'qc' + Date.now(); await admin.query(`create database ${dbn}`); await admin.end();
const running = await startForgelet({ dataDir: '/tmp/me/sp-data', databaseUrl: process.argv[2].replace(/\/postgres$/, '/' + dbn), rootToken: 'glpat-rootrootrootroot0001', port: 0, host: '127.0.0.1' });
const h = { 'PRIVATE-TOKEN': 'glpat-rootrootrootroot0001', 'Content-Type': 'application/json' };
const p = await (await fetch(`${running.url}/api/v4/projects`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'sp' + Date.now() }) })).json();
for (let i = 0; i < 5; i++) await (await fetch(`${running.url}/api/v4/projects/${p.id}/issues`, { method: 'POST', headers: h, body: JSON.stringify({ title: 'x' }) })).text();
for (let i = 0; i < 3; i++) {
  on = true; seen.length = 0;
  await (await fetch(`${running.url}/api/v4/projects/${p.id}/issues`, { method: 'POST', headers: h, body: JSON.stringify({ title: 'x' }) })).text();
  on = false;
  console.log(`--- ${seen.length} queries`); for (const q of seen) console.log('  ', q);
}
{
  const counts = new Map<string, number>();
  const o = (pg.Client.prototype as any).query;
  (pg.Client.prototype as any).query = function (this: unknown, ...args: any[]) {
    const k = String(typeof args[0] === 'string' ? args[0] : args[0]?.text ?? args[0]?.name).replace(/\s+/g, ' ').slice(0, 60);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    return o.apply(this, args);
  };
  let n = 0; const end = Date.now() + 3000;
  await Promise.all(Array.from({ length: 16 }, async () => { while (Date.now() < end) { const r = await fetch(`${running.url}/api/v4/projects/${p.id}/issues`, { method: "POST", headers: h, body: JSON.stringify({ title: "x" }) }); const t = await r.text(); if (r.status !== 201 && n < 100000) { console.log(r.status, t.slice(0, 200)); n += 100000; } n++; } }));
  console.log('requests', n); for (const [k, v] of counts) console.log(v, k);
}
await running.stop();
