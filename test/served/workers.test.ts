/**
 * `forgelet serve --workers N`: N server processes on one port (node:cluster), PostgreSQL only.
 * The built bin is started as users start it; the tests look at its process tree, spread
 * requests over fresh connections (the primary hands them to the workers in turn), kill a
 * worker, and stop the whole server with SIGTERM. On SQLite the option is refused up front.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { FORGELET_BIN, REPO_ROOT, startServed, until, type ServedForgelet } from '../support/served.js';

/** Pids of the processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A GET on a connection of its own (no keep-alive), so that requests spread over the workers. */
function getOnce(url: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'PRIVATE-TOKEN': token, Connection: 'close' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('forgelet serve --workers', () => {
  if (DIALECTS.includes('sqlite')) {
    it('sqlite: is refused with a message naming PostgreSQL', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'forgelet-workers-sqlite-'));
      try {
        const child = spawn(process.execPath, [FORGELET_BIN, 'serve', '--workers', '2', '--data', dir, '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (c) => (stderr += c));
        const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
        assert.notEqual(code, 0);
        assert.match(stderr, /--workers 2 needs PostgreSQL/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('is refused with --test-mode (its clock lives in one process)', async () => {
    const child = spawn(process.execPath, [FORGELET_BIN, 'serve', '--workers', '2', '--test-mode', '--database-url', 'postgres://127.0.0.1:1/none', '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.notEqual(code, 0);
    assert.match(stderr, /--workers 2 cannot run with --test-mode/);
  });

  if (!DIALECTS.includes('postgres')) return;

  describe('postgres: two workers on one port', () => {
    let db: { url: string; drop(): Promise<void> };
    let server: ServedForgelet;

    before(async () => {
      db = await createTestDatabaseUrl('postgres');
      server = await startServed('postgres', { databaseUrl: db.url, args: ['--workers', '2'], testMode: false });
    });
    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    it('runs two worker processes under the one started, all answering on the one URL', async () => {
      await until('two workers', async () => childrenOf(server.child.pid!).length === 2);
      const results = await Promise.all(Array.from({ length: 20 }, () => getOnce(`${server.url}/api/v4/user`, server.rootToken)));
      assert.deepEqual(new Set(results.map((r) => `${r.status} ${r.body.username}`)), new Set(['200 root']));
    });

    it('what one worker writes, the next request sees, whichever worker takes it', async () => {
      const project = (await server.api('POST', '/projects', { body: { name: 'workers' } })).body;
      for (let i = 0; i < 10; i++) {
        const put = await server.api('PUT', `/projects/${project.id}`, { body: { description: `round ${i}` } });
        assert.equal(put.status, 200, put.text);
        const reads = await Promise.all(Array.from({ length: 4 }, () => getOnce(`${server.url}/api/v4/projects/${project.id}`, server.rootToken)));
        assert.deepEqual(reads.map((r) => r.body.description), Array(4).fill(`round ${i}`));
      }
    });

    it('a worker that dies is replaced; the server goes on answering', async () => {
      const [victim] = childrenOf(server.child.pid!);
      process.kill(victim!, 'SIGKILL');
      await until('a new worker', async () => {
        const now = childrenOf(server.child.pid!);
        return now.length === 2 && !now.includes(victim!);
      });
      const results = await Promise.all(Array.from({ length: 10 }, () => getOnce(`${server.url}/api/v4/user`, server.rootToken)));
      assert.deepEqual(results.map((r) => r.status), Array(10).fill(200));
      assert.match(server.stderr(), new RegExp(`worker ${victim} exited \\(SIGKILL\\): starting another`));
    });

    it('SIGTERM stops every worker, then the server exits 0', async () => {
      const workers = childrenOf(server.child.pid!);
      assert.equal(workers.length, 2);
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      server.child.kill('SIGTERM');
      assert.equal(await exited, 0);
      for (const pid of workers) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} is gone`);
    });
  });
});
