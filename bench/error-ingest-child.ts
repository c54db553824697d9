/**
 * Forgelet for the `error-ingest` case, in its own process:
 *   node --conditions=source --import tsx bench/error-ingest-child.ts '<json config>'
 * Starts startForgelet on a data dir (SQLite) or a database URL, creates a project with
 * integrated error tracking, prints `READY <json>` (url, project id, public key, pid), then
 * obeys stdin lines:
 *   flush   write what the ingest buffer holds; answer `FLUSHED <json>` (rows, errors, ms, buffer stats)
 *   stop    stop the server (which writes the buffer too) and exit 0
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { ingestBufferOf } from '@forgelet/core';
import { startForgelet } from '@forgelet/server';

interface ChildConfig {
  dataDir: string;
  databaseUrl?: string;
  rootToken: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const running = await startForgelet({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, rootToken: config.rootToken, port: 0, host: '127.0.0.1', workers: false });

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${running.url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': config.rootToken, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const project = await api('POST', '/projects', { name: `errors-${Date.now()}` });
const settings = await api('PUT', `/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
const key = new URL(settings.gitlab_dsn).username;
process.stdout.write(`READY ${JSON.stringify({ url: running.url, projectId: project.id, key, pid: process.pid, dialect: running.forge.deps.dialect })}\n`);

async function counts() {
  const db = running.forge.deps.db;
  const events = await db.selectFrom('error_tracking_error_events').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow();
  const errors = await db.selectFrom('error_tracking_errors').select(['event_count', 'user_count']).where('project_id', '=', project.id).execute();
  return { rows: Number(events.n), errors: errors.length, counted: errors.reduce((n, e) => n + Number(e.event_count), 0) };
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await running.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

for await (const line of createInterface({ input: process.stdin })) {
  const cmd = line.trim();
  if (cmd === 'flush') {
    const t0 = performance.now();
    const buffer = ingestBufferOf(running.forge.deps);
    await buffer.flush();
    const ms = performance.now() - t0;
    process.stdout.write(`FLUSHED ${JSON.stringify({ ...(await counts()), ms, stats: buffer.stats })}\n`);
  } else if (cmd === 'stop') await stop();
}
await stop();
