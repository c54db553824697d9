/**
 * The `git` case (issue 26): git over smart HTTP through `forgelet serve` (the built bin, as
 * users start it) against `git http-backend` behind a plain node:http server, in the same run
 * on the same machine:
 *  - clone: a repository of BENCH_GIT_COMMITS (10,000) commits and BENCH_GIT_MB (100) MB of
 *    objects (incompressible blobs, so the pack is that size), cloned from Forgelet and from the
 *    bare server over the very same repository directory (Forgelet's own, read only), rounds
 *    alternating; the ratio of the medians (target ≤ 1.3);
 *  - push: BENCH_GIT_PUSH_COMMITS (1,000) new commits on a new branch, with a `.gitlab-ci.yml`
 *    (a push pipeline) and a push webhook, into Forgelet and into a copy of the repository behind
 *    the bare server (git's own time); Forgelet's extra time (target < 2 s). Each round pushes
 *    a branch of its own, and afterwards the pipelines and the webhook deliveries are counted.
 * Repositories are generated with `git fast-import`, streamed (nothing held in memory). SQLite,
 * or PostgreSQL with BENCH_DATABASE_URL (a throwaway database in it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { createPgDatabase } from './pg.js';
import { getOnce, postOnce, sleep, startServeBin, stopChild } from './proc.js';

export interface GitBenchOptions {
  work: string;
  commits: number;
  megabytes: number;
  pushCommits: number;
  rounds: number;
  /** PostgreSQL server to create a throwaway database in; SQLite otherwise. */
  databaseUrl?: string;
}

export interface GitBenchResult {
  commits: number;
  packMb: number;
  /** Clone wall times (ms), per round. */
  forgeletCloneMs: number[];
  bareCloneMs: number[];
  cloneRatio: number;
  forgeletPushMs: number[];
  barePushMs: number[];
  /** Median of Forgelet's push time minus the bare server's, per round. */
  pushOverheadMs: number;
  pipelines: number;
  webhookCommits: number[];
  /** The initial push of the whole repository (information). */
  seedPushMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = spawnSync('git', args, { cwd: options.cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...options.env }, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

async function timedGit(args: string[], cwd?: string): Promise<number> {
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')} failed (${code}): ${stderr}`))));
  });
  return performance.now() - t0;
}

/**
 * Writes `commits` commits on `ref` (from `from`, or a new history) into the repository at
 * `dir` with `git fast-import`, each changing one of 500 files to `blobBytes` random bytes;
 * the first commit of a new history also adds `.gitlab-ci.yml`.
 */
async function fastImport(dir: string, ref: string, commits: number, blobBytes: number, from: string | null): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const write = (chunk: string | Buffer) => (child.stdin.write(chunk) ? Promise.resolve() : new Promise<void>((r) => child.stdin.once('drain', r)));
  const when = 1_700_000_000;
  for (let i = 0; i < commits; i++) {
    const message = `Change ${i} on ${ref}\n`;
    let head = `commit ${ref}\nauthor Bench <bench@example.com> ${when + i} +0000\ncommitter Bench <bench@example.com> ${when + i} +0000\ndata ${Buffer.byteLength(message)}\n${message}`;
    if (i === 0 && from) head += `from ${from}\n`;
    if (i === 0 && !from) {
      const ci = 'build:\n  script: echo built\n';
      head += `M 100644 inline .gitlab-ci.yml\ndata ${Buffer.byteLength(ci)}\n${ci}\n`;
    }
    await write(`${head}M 100644 inline file-${i % 500}.bin\ndata ${blobBytes}\n`);
    await write(randomBytes(blobBytes));
    await write('\n');
  }
  await write('done\n');
  child.stdin.end();
  if ((await exited) !== 0) throw new Error(`git fast-import failed: ${stderr}`);
}

/**
 * `git http-backend` behind a plain node:http server (the CGI contract: request line and headers
 * in the environment, the body on stdin, `Status:` and headers then the body on stdout).
 */
async function startBareServer(projectRoot: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: 'bench',
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    };
    const cgi = spawn('git', ['-c', 'http.receivepack=true', 'http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headerDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headerDone) {
        if (!res.write(chunk)) {
          cgi.stdout.pause();
          res.once('drain', () => cgi.stdout.resume());
        }
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headerDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A receiver for the project's push webhook: the number of commits each push event carried. */
async function startHookReceiver(): Promise<{ url: string; commits: number[]; close: () => Promise<void> }> {
  const commits: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { object_kind?: string; total_commits_count?: number };
        if (body.object_kind === 'push') commits.push(body.total_commits_count ?? -1);
      } catch {}
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, commits, close: () => new Promise<void>((r) => server.close(() => r())) };
}


export async function runGit(options: GitBenchOptions, log: (line: string) => void = () => {}): Promise<GitBenchResult> {
  const { work, commits, megabytes, pushCommits, rounds } = options;
  const dir = join(work, 'git');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const blobBytes = Math.max(1, Math.floor((megabytes * 1024 * 1024) / commits));
  const source = join(dir, 'source.git');
  git(['init', '-q', '--bare', '-b', 'main', source]);
  let t0 = performance.now();
  await fastImport(source, 'refs/heads/main', commits, blobBytes, null);
  git(['repack', '-adq'], { cwd: source }); // one pack, as a server that ran gc holds it
  const packMb = Number(git(['count-objects', '-v'], { cwd: source }).match(/size-pack: (\d+)/)![1]) / 1024;
  log(`git: generated ${commits} commits, ${packMb.toFixed(0)} MB pack in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const rootToken = `glpat-${randomBytes(10).toString('hex')}`;
  const dataDir = join(dir, 'data');
  const database = options.databaseUrl ? await createPgDatabase(options.databaseUrl, 'forgelet_bench_git') : null;
  const hooks = await startHookReceiver();
  const { origin, child } = await startServeBin(dataDir, rootToken, ['--allow-local-egress', ...(database ? ['--database-url', database.url] : [])]);
  let bare: { url: string; close: () => Promise<void> } | null = null;
  let pushBare: { url: string; close: () => Promise<void> } | null = null;
  try {
    const auth = { 'PRIVATE-TOKEN': rootToken };
    const created = await postOnce(`${origin}/api/v4/projects`, auth, { name: 'bench', path: 'bench', visibility: 'private' }, 30_000);
    if (created.status !== 201) throw new Error(`create project: ${created.status} ${created.body}`);
    const project = JSON.parse(created.body) as { id: number; path_with_namespace: string };
    const hook = await postOnce(`${origin}/api/v4/projects/${project.id}/hooks`, auth, { url: hooks.url, push_events: true }, 30_000);
    if (hook.status !== 201) throw new Error(`create hook: ${hook.status} ${hook.body}`);
    const remote = `${origin.replace('http://', `http://root:${rootToken}@`)}/${project.path_with_namespace}.git`;
    t0 = performance.now();
    git(['push', '-q', remote, 'main'], { cwd: source });
    const seedPushMs = performance.now() - t0;
    log(`git: pushed the repository into Forgelet in ${(seedPushMs / 1000).toFixed(1)} s`);

    // Clones: Forgelet and git http-backend over Forgelet's own repository directory.
    const repositories = join(dataDir, 'repositories');
    git(['repack', '-adq'], { cwd: join(repositories, `${project.id}.git`) }); // both serve one pack
    bare = await startBareServer(repositories);
    const forgeletCloneMs: number[] = [];
    const bareCloneMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const pair: [string, string, number[]][] = [
        [remote, join(dir, `clone-f${round}`), forgeletCloneMs],
        [`${bare.url}/${project.id}.git`, join(dir, `clone-b${round}`), bareCloneMs],
      ];
      if (round % 2 === 1) pair.reverse();
      for (const [url, target, times] of pair) {
        times.push(await timedGit(['clone', '-q', '--no-checkout', url, target]));
        rmSync(target, { recursive: true, force: true });
      }
      log(`git: clone round ${round + 1}: Forgelet ${forgeletCloneMs.at(-1)!.toFixed(0)} ms, http-backend ${bareCloneMs.at(-1)!.toFixed(0)} ms`);
    }

    // Pushes of new branches: into Forgelet, and into a copy behind http-backend (git's own time).
    const work2 = join(dir, 'pusher.git');
    git(['clone', '-q', '--bare', source, work2]);
    const copies = join(dir, 'bare-root');
    mkdirSync(copies);
    git(['clone', '-q', '--bare', source, join(copies, 'bench.git')]);
    pushBare = await startBareServer(copies);
    const mainSha = git(['rev-parse', 'main'], { cwd: work2 }).trim();
    for (let round = 0; round < rounds; round++) await fastImport(work2, `refs/heads/push-${round}`, pushCommits, 512, mainSha);
    const forgeletPushMs: number[] = [];
    const barePushMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const branch = `push-${round}`;
      forgeletPushMs.push(await timedGit(['push', '-q', remote, branch], work2));
      barePushMs.push(await timedGit(['push', '-q', `${pushBare.url}/bench.git`, branch], work2));
      log(`git: push round ${round + 1} (${pushCommits} commits): Forgelet ${forgeletPushMs.at(-1)!.toFixed(0)} ms, http-backend ${barePushMs.at(-1)!.toFixed(0)} ms`);
    }
    // What the pushes started: a pipeline per branch, a push webhook per push (delivered by a job).
    let pipelines = 0;
    const deadline = performance.now() + 30_000;
    for (;;) {
      const r = await getOnce(`${origin}/api/v4/projects/${project.id}/pipelines?per_page=100`, auth, 10_000);
      const refs = new Set((JSON.parse(r.body) as { ref: string }[]).map((p) => p.ref));
      pipelines = [...Array(rounds).keys()].filter((i) => refs.has(`push-${i}`)).length;
      if ((pipelines === rounds && hooks.commits.length >= rounds + 1) || performance.now() > deadline) break;
      await sleep(200);
    }
    const cloneRatio = median(forgeletCloneMs) / median(bareCloneMs);
    const pushOverheadMs = median(forgeletPushMs.map((f, i) => f - barePushMs[i]!));
    return { commits, packMb, forgeletCloneMs, bareCloneMs, cloneRatio, forgeletPushMs, barePushMs, pushOverheadMs, pipelines, webhookCommits: hooks.commits.filter((n) => n !== commits), seedPushMs };
  } finally {
    await bare?.close();
    await pushBare?.close();
    await hooks.close();
    await stopChild(child);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
