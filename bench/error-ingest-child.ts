/**
 * Forgelet for the `error-ingest` case, in its own process:
 *   node [--conditions=source] --import tsx bench/error-ingest-child.ts '<json config>'
 * (the built packages without the condition, the sources with it). Starts startForgelet on a
 * data dir (SQLite) or a database URL, creates a project with integrated error tracking,
 * prints `READY <json>` (url, project id, public key, pid), then obeys stdin lines:
 *   count              answer `COUNT <json>`: event rows, errors and their event counts as
 *                      stored now (nothing is written first), the ingest buffer's stats
 *   prof:start         start the in-process V8 CPU profiler; answers `PROFSTARTED`
 *   prof:stop <file>   stop it, write <file>, answer `PROF <file>`
 *   stop               stop the server and exit 0
 */
import { profilerCommand } from './lib/child-profiler.js';
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
  const [cmd, arg] = line.trim().split(/\s+/, 2);
  if (cmd === 'count') {
    process.stdout.write(`COUNT ${JSON.stringify({ ...(await counts()), stats: ingestBufferOf(running.forge.deps).stats })}\n`);
  } else if (await profilerCommand(cmd, arg)) {
    // done
  } else if (cmd === 'stop') await stop();
}
await stop();
