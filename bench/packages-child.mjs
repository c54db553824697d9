/**
 * Forgelet for the `packages` case, in its own process. Plain JavaScript so that it runs on
 * the BUILT packages with plain node, or on the sources under tsx when they are not built:
 *   node bench/packages-child.mjs '<json config>'
 * Starts startForgelet on a data dir (SQLite) or a database URL; creates a project and seeds
 * `names` × `versions` NuGet packages straight into the tables (batched, one transaction per
 * batch; every 5th version a prerelease) with one package file row each; also starts the
 * baseline: a bare node:http server in the same process that streams a request body to a
 * file and answers 201. Prints `READY <json>` (url, bareUrl, pid, projectId, dialect,
 * sources, seeded, seedMs), then obeys stdin lines:
 *   mem    answer `MEM <json>` (process.memoryUsage() in MB)
 *   stop   stop the server and exit 0
 */
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { startForgelet } from '@forgelet/server';
import { normalizeVersion, versionSortKey } from '@forgelet/core';

const config = JSON.parse(process.argv[2] ?? '{}');
const running = await startForgelet({
  dataDir: config.dataDir,
  databaseUrl: config.databaseUrl,
  blobUrl: config.blobUrl,
  rootToken: config.rootToken,
  port: 0,
  host: '127.0.0.1',
  workers: false,
  logger: { info: () => {}, error: (line, err) => process.stderr.write(`${line} ${err instanceof Error ? err.stack : (err ?? '')}\n`) },
});

async function api(method, path, body) {
  const res = await fetch(`${running.url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': config.rootToken, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const project = await api('POST', '/projects', { name: `packages-${Date.now()}` });
const db = running.forge.deps.db;
const names = config.names ?? 1000;
const versions = config.versions ?? 10;
const t0 = performance.now();
const now = new Date().toISOString();
const BATCH = 500;
let rows = [];
let seeded = 0;
async function flush() {
  if (!rows.length) return;
  const batch = rows;
  rows = [];
  await db.transaction().execute(async (trx) => {
    const ids = await trx.insertInto('packages').values(batch).returning(['id', 'lower_name', 'version']).execute();
    await trx
      .insertInto('package_files')
      .values(ids.map((p) => ({ package_id: p.id, file_kind: 'package', file_name: `${p.lower_name}.${p.version.toLowerCase()}.nupkg`, blob_key: `bench/none/${p.id}`, size: 1234, file_sha256: '0'.repeat(64), created_at: now })))
      .execute();
  });
  seeded += batch.length;
}
for (let n = 0; n < names; n++) {
  const name = `Bench.Pkg${String(n).padStart(5, '0')}.${['Core', 'Tools', 'Data', 'Web'][n % 4]}`;
  for (let v = 0; v < versions; v++) {
    const version = v % 5 === 4 ? `1.${v}.0-beta.${v}` : `1.${v}.${n % 7}`;
    rows.push({
      project_id: project.id,
      package_type: 'nuget',
      name,
      lower_name: name.toLowerCase(),
      version,
      normalized_version: normalizeVersion(version),
      version_sort: versionSortKey(version),
      prerelease: version.includes('-') ? 1 : 0,
      authors: 'Bench',
      description: `Package ${n} for the benchmark`,
      summary: null,
      title: null,
      tags: 'bench nuget',
      project_url: null,
      icon_url: null,
      license_url: null,
      dependency_groups: '[]',
      last_downloaded_at: null,
      created_at: now,
      updated_at: now,
    });
    if (rows.length >= BATCH) await flush();
  }
}
await flush();
const seedMs = performance.now() - t0;

// The baseline: the same body streamed to a file by a bare node:http server.
const bare = createServer((req, res) => {
  pipeline(req, createWriteStream(join(config.dataDir, `bare-${Date.now()}.bin`)))
    .then(() => {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end('{"message":"201 Created"}');
    })
    .catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${bare.address().port}`;

const sources = import.meta.resolve('@forgelet/server').includes('/src/');
process.stdout.write(
  `READY ${JSON.stringify({ url: running.url, bareUrl, pid: process.pid, projectId: project.id, dialect: running.forge.deps.dialect, sources, seeded, seedMs })}\n`,
);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  bare.close();
  await running.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

const mb = (n) => Math.round((n / 1048576) * 10) / 10;
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = line.trim();
  if (cmd === 'mem') {
    const m = process.memoryUsage();
    process.stdout.write(`MEM ${JSON.stringify({ rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) })}\n`);
  } else if (cmd === 'stop') await stop();
}
await stop();
