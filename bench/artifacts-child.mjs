/**
 * Forgelet for the `artifacts` case, in its own process. Plain JavaScript so that it runs on
 * the BUILT packages with plain node (what a deployment runs; the RSS budget is about that),
 * or on the sources under tsx (`--conditions=source --import tsx`) when they are not built:
 *   node bench/artifacts-child.mjs '<json config>'
 * Starts startForgelet on a data dir (SQLite) or a database URL, creates a project whose CI
 * file has the job `bundle`, and a project runner (unless `reuse` names them: a second
 * process on the same data); prints `READY <json>` (url, pid, project id, runner token,
 * dialect, sources), then obeys stdin lines:
 *   mem    answer `MEM <json>` (process.memoryUsage() in MB)
 *   stop   stop the server and exit 0
 */
import { createInterface } from 'node:readline';
import { startForgelet } from '@forgelet/server';
import { recordCommit } from '@forgelet/core';

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

let ready;
if (config.reuse) {
  // A second process on the data of the first: the archive is there already.
  ready = { ...config.reuse };
} else {
  const project = await api('POST', '/projects', { name: `artifacts-${Date.now()}` });
  const ctx = await running.forge.contextFor('root');
  const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
  await recordCommit(ctx, row, {
    branch: 'main',
    commit_message: 'CI',
    actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'bundle:\n  script: make\n  artifacts:\n    paths: [out/]\n    expire_in: 1 week\n' }],
  });
  const runner = await api('POST', '/user/runners', { runner_type: 'project_type', project_id: project.id });
  ready = { projectId: project.id, runnerToken: runner.token };
}
const sources = import.meta.resolve('@forgelet/server').includes('/src/');
process.stdout.write(`READY ${JSON.stringify({ ...ready, url: running.url, pid: process.pid, dialect: running.forge.deps.dialect, sources })}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
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
