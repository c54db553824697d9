// `forgelet runner` against a scripted fake of GitLab's runner API: exact requests (headers,
// Content-Range, multipart), log resends after a short Range, 416, cancellation, dependency
// artifacts, masking and file variables. The end-to-end test against Forgelet is runner.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { openPromise } from 'yauzl';
import { execFileSync, spawn } from 'node:child_process';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { BIN_CLI, cliEnv, ROOT } from './cli-process.js';

const RUNNER_TOKEN = 'glrt-fake-runner-token-0001';
/** The job's commit and repository: a bare repository made in `before` from `files` (git fetches it by a file URL). */
let SHA = '';
let REPO_URL = '';

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function fakeIo(env: NodeJS.ProcessEnv = {}): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env },
    stdout: () => out,
    stderr: () => err,
  };
}

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

function job(id: number, extra: Record<string, unknown>) {
  return {
    id,
    token: `glcbt-job-token-${id}`,
    allow_git_fetch: true,
    job_info: { id, name: `job${id}`, stage: 'build', project_id: 7, project_name: 'demo' },
    git_info: { repo_url: REPO_URL, ref: 'main', sha: SHA, before_sha: '0'.repeat(40), ref_type: 'branch', refspecs: [], depth: 20 },
    runner_info: { timeout: 60 },
    variables: [
      { key: 'CI_JOB_TOKEN', value: `glcbt-job-token-${id}`, public: false, masked: true },
      { key: 'CI_PIPELINE_ID', value: '900', public: true, masked: false },
    ],
    steps: [],
    image: null,
    services: [],
    artifacts: [],
    cache: [],
    dependencies: [],
    features: { trace_sections: true },
    ...extra,
  };
}

describe('forgelet runner against a fake GitLab runner API', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  const work = mkdtempSync(join(tmpdir(), 'forgelet-runner-fake-'));
  let server: Server;
  let url: string;
  const requests: Recorded[] = [];
  const queue: unknown[] = [];
  const traces = new Map<number, Buffer>();
  const truncatedOnce = new Set<number>();
  const uploads: { jobId: number; query: URLSearchParams; fields: Record<string, string>; filename: string; file: Buffer; contentLength: string | undefined }[] = [];
  let dependencyZip: Buffer;

  const files: Record<string, { content: string; mode: string }> = {
    'build.sh': { content: '#!/bin/sh\nmkdir -p out/nested\necho "built by $CI_JOB_NAME" > out/result.txt\necho deep > out/nested/deep.txt\necho building\n', mode: '100755' },
    'src/main.c': { content: 'int main(void) { return 0; }\n', mode: '100644' },
    'docs/read me.md': { content: '# docs\n', mode: '100644' },
  };

  function reply(res: import('node:http').ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
    const text = body === undefined ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...(typeof body === 'object' && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers });
    res.end(text);
  }

  function parseMultipart(req: Recorded) {
    const boundary = /boundary=(.+)$/.exec(String(req.headers['content-type']))![1]!;
    const parts = req.body.toString('latin1').split(`--${boundary}`).slice(1, -1);
    const fields: Record<string, string> = {};
    let file = Buffer.alloc(0);
    let filename = '';
    for (const part of parts) {
      const [head, ...rest] = part.split('\r\n\r\n');
      const content = rest.join('\r\n\r\n').replace(/\r\n$/, '');
      const name = /name="([^"]+)"/.exec(head!)![1]!;
      const fn = /filename="([^"]+)"/.exec(head!);
      if (fn) {
        filename = fn[1]!;
        file = Buffer.from(content, 'latin1');
      } else fields[name] = content;
    }
    return { fields, file, filename };
  }

  before(async () => {
    const src = join(work, 'src');
    for (const [path, file] of Object.entries(files)) {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), file.content, { mode: file.mode === '100755' ? 0o755 : 0o644 });
    }
    const gitIn = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString().trim();
    gitIn(work, 'init', '-q', src);
    gitIn(src, 'add', '.');
    gitIn(src, 'commit', '-q', '-m', 'Sources');
    SHA = gitIn(src, 'rev-parse', 'HEAD');
    gitIn(work, 'clone', '-q', '--bare', src, join(work, 'demo.git'));
    REPO_URL = `file://${join(work, 'demo.git')}`;

    const dep = new ZipFile();
    dep.addBuffer(Buffer.from('from an earlier stage\n'), 'dep/input.txt');
    dep.end();
    const depFile = join(work, 'dep.zip');
    await pipeline(dep.outputStream, createWriteStream(depFile));
    dependencyZip = readFileSync(depFile);

    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const u = new URL(req.url!, 'http://x');
        const r: Recorded = { method: req.method!, path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
        requests.push(r);
        const json = () => JSON.parse(r.body.toString() || '{}');
        const jobToken = req.headers['job-token'];
        let m: RegExpExecArray | null;
        if (r.method === 'POST' && r.path === '/api/v4/runners/verify') {
          return json().token === RUNNER_TOKEN ? reply(res, 200, '200') : reply(res, 403, { message: '403 Forbidden' });
        }
        if (r.method === 'POST' && r.path === '/api/v4/jobs/request') {
          if (json().token !== RUNNER_TOKEN) return reply(res, 403, { message: '403 Forbidden' });
          const next = queue.shift();
          return next ? reply(res, 201, next) : reply(res, 204, undefined, { 'X-GitLab-Last-Update': 'lu-1' });
        }
        if ((m = /^\/api\/v4\/jobs\/(\d+)\/trace$/.exec(r.path)) && r.method === 'PATCH') {
          const id = Number(m[1]);
          if (jobToken !== `glcbt-job-token-${id}`) return reply(res, 403, { message: '403 Forbidden' });
          const current = traces.get(id) ?? Buffer.alloc(0);
          const start = Number(String(req.headers['content-range']).split('-')[0]);
          if (start !== current.length) return reply(res, 416, { message: '416 Range Not Satisfiable' }, { Range: `0-${current.length}` });
          let stored = Buffer.concat([current, r.body]);
          // the first patch of job 101 is only partly kept: the runner must resend the rest
          if (id === 101 && !truncatedOnce.has(id) && stored.length > 10) {
            truncatedOnce.add(id);
            stored = stored.subarray(0, 10);
          }
          const reported = stored.length;
          // job 102's log is lost after its first patch is acknowledged: the next one gets a 416 and starts over
          if (id === 102 && !truncatedOnce.has(id)) {
            truncatedOnce.add(id);
            stored = Buffer.alloc(0);
          }
          traces.set(id, stored);
          const canceled = id === 103 && stored.toString().includes('started');
          return reply(res, 202, undefined, { Range: `0-${reported}`, 'Job-Status': canceled ? 'canceled' : 'running' });
        }
        if ((m = /^\/api\/v4\/jobs\/(\d+)$/.exec(r.path)) && r.method === 'PUT') {
          const id = Number(m[1]);
          if (json().token !== `glcbt-job-token-${id}`) return reply(res, 403, { message: '403 Forbidden' });
          return id === 103 ? reply(res, 403, { message: '403 Forbidden' }, { 'Job-Status': 'canceled' }) : reply(res, 200, '200');
        }
        if ((m = /^\/api\/v4\/jobs\/(\d+)\/artifacts$/.exec(r.path)) && r.method === 'POST') {
          const { fields, file, filename } = parseMultipart(r);
          uploads.push({ jobId: Number(m[1]), query: r.query, fields, filename, file, contentLength: req.headers['content-length'] });
          return reply(res, 201, '201');
        }
        if ((m = /^\/api\/v4\/jobs\/(\d+)\/artifacts$/.exec(r.path)) && r.method === 'GET') {
          if (m[1] !== '50' || jobToken !== 'glcbt-job-token-101') return reply(res, 404, { message: '404 Not Found' });
          return reply(res, 200, dependencyZip, { 'content-type': 'application/octet-stream' });
        }
        reply(res, 404, { message: `404 ${r.method} ${r.path} Not Found` });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses a bad token with exit 1, and an unreachable server with exit 1', async () => {
    const bad = fakeIo();
    assert.equal(await run(['runner', '--url', url, '--token', 'glrt-nope', '--once'], bad.io), 1);
    assert.match(bad.stderr(), /^error: the runner token was refused \(403 403 Forbidden\): check --token/);
    // a port nothing listens on (just closed)
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const none = fakeIo();
    assert.equal(await run(['runner', '--url', `http://127.0.0.1:${port}`, '--token', RUNNER_TOKEN, '--once'], none.io), 1);
    assert.equal(none.stderr(), `error: cannot reach Forgelet at http://127.0.0.1:${port}: ECONNREFUSED\n`);
    const usage = fakeIo();
    assert.equal(await run(['runner', '--url', url, '--once'], usage.io), 2);
    assert.match(usage.stderr(), /a runner token is needed/);
    const interval = fakeIo();
    assert.equal(await run(['runner', '--url', url, '--token', RUNNER_TOKEN, '--poll-interval', 'x'], interval.io), 2);
  });

  it('runs a passing, a failing and a canceled job, then exits 0 when none is left', async () => {
    requests.length = 0;
    queue.push(
      job(101, {
        variables: [
          ...job(101, {}).variables,
          { key: 'SECRET', value: 'hunter2-hunter2', public: false, masked: true },
          { key: 'GREETING', value: 'hi from $CI_JOB_NAME', public: true, masked: false },
          { key: 'CONFIG_FILE', value: 'key=value\n', public: false, masked: false, file: true },
        ],
        steps: [
          { name: 'script', script: ['./build.sh', 'echo "secret is $SECRET"', 'echo "$GREETING"', 'cat "$CONFIG_FILE"', 'cat dep/input.txt', 'test -x build.sh', 'cat "docs/read me.md"'], timeout: 60, when: 'on_success', allow_failure: false },
          { name: 'after_script', script: ['echo "after: $CI_JOB_STATUS"'], timeout: 60, when: 'always', allow_failure: true },
        ],
        artifacts: [
          { name: null, untracked: false, paths: ['out/', '$CI_PROJECT_DIR/src/*.c'], exclude: ['out/nested/**'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
          { name: null, untracked: false, paths: ['nothing-here/*.txt'], when: 'always', expire_in: null, artifact_type: 'archive', artifact_format: 'zip' },
          { name: null, untracked: false, paths: ['out/'], when: 'on_failure', artifact_type: 'archive', artifact_format: 'zip' },
        ],
        dependencies: [{ id: 50, name: 'prep', token: 'glcbt-job-token-101', artifacts_file: { filename: 'artifacts.zip', size: dependencyZip.length } }],
      }),
      job(102, {
        job_info: { id: 102, name: 'test', stage: 'test', project_id: 7, project_name: 'demo' },
        steps: [
          { name: 'script', script: ['echo before', 'echo failing > fail.log', 'sleep 1.3', 'exit 3', 'echo never'], timeout: 60, when: 'on_success', allow_failure: false },
          { name: 'after_script', script: ['echo "after: $CI_JOB_STATUS"', 'exit 9'], timeout: 60, when: 'always', allow_failure: true },
        ],
        artifacts: [
          { paths: ['fail.log'], when: 'on_failure', artifact_type: 'archive', artifact_format: 'zip', name: 'logs' },
          { paths: ['fail.log'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' },
        ],
      }),
      job(103, {
        job_info: { id: 103, name: 'slow', stage: 'test', project_id: 7, project_name: 'demo' },
        steps: [{ name: 'script', script: ['echo started', 'sleep 20', 'echo finished'], timeout: 60, when: 'on_success', allow_failure: false }],
        artifacts: [{ paths: ['build.sh'], when: 'always', artifact_type: 'archive', artifact_format: 'zip' }],
      }),
    );
    const f = fakeIo();
    const started = Date.now();
    const code = await run(['runner', '--url', url, '--token', RUNNER_TOKEN, '--once', '--work-dir', join(work, 'builds'), '--json'], f.io);
    assert.equal(code, 0, f.stderr());
    assert.ok(Date.now() - started < 15_000, 'the canceled job did not wait for its sleep');
    const outcomes = f.stdout().trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(
      outcomes.map((o) => ({ ...o, duration: typeof o.duration })),
      [
        { job: 101, name: 'job101', stage: 'build', project_id: 7, pipeline_id: null, status: 'success', failure_reason: null, exit_code: null, duration: 'number' },
        { job: 102, name: 'test', stage: 'test', project_id: 7, pipeline_id: null, status: 'failed', failure_reason: 'script_failure', exit_code: 3, duration: 'number' },
        { job: 103, name: 'slow', stage: 'test', project_id: 7, pipeline_id: null, status: 'canceled', failure_reason: null, exit_code: null, duration: 'number' },
      ],
    );

    // protocol: verify, then requests until a 204; every job call carries its job token
    assert.equal(requests[0]!.path, '/api/v4/runners/verify');
    const jobRequests = requests.filter((r) => r.path === '/api/v4/jobs/request');
    assert.equal(jobRequests.length, 4);
    const body = JSON.parse(jobRequests[0]!.body.toString());
    assert.equal(body.token, RUNNER_TOKEN);
    assert.match(body.system_id, /^s_[0-9a-f]{12}$/);
    assert.deepEqual({ ...body.info, version: '', features: {} }, {
      name: 'forgelet-runner', version: '', revision: 'forgelet', platform: process.platform,
      architecture: process.arch === 'x64' ? 'amd64' : process.arch, executor: 'shell', shell: body.info.shell, features: {},
    });
    assert.equal(body.info.features.artifacts, true);
    assert.equal(body.info.features.cancelable, true);
    assert.equal('last_update' in body, false, '--once asks without last_update');

    // the log: Content-Range offsets follow the server's Range; nothing lost or doubled
    const patches = requests.filter((r) => r.method === 'PATCH' && r.path === '/api/v4/jobs/101/trace');
    assert.ok(patches.length >= 2);
    assert.equal(patches[0]!.headers['content-range'], `0-${patches[0]!.body.length}`);
    assert.equal(patches[1]!.headers['content-range'], `10-${10 + patches[1]!.body.length}`);
    const log101 = plain(traces.get(101)!.toString());
    assert.match(log101, /^Running with forgelet-runner \S+\n/);
    assert.match(log101, new RegExp(`\\nChecking out ${SHA.slice(0, 8)} as detached HEAD \\(ref is main\\)\\.\\.\\.\\n`));
    assert.match(log101, /\nDownloading artifacts for prep \(50\)\.\.\.\n/);
    assert.match(log101, /\n\$ \.\/build\.sh\nbuilding\n\$ echo "secret is \$SECRET"\nsecret is \[MASKED\]\n\$ echo "\$GREETING"\nhi from job101\n\$ cat "\$CONFIG_FILE"\nkey=value\n\$ cat dep\/input\.txt\nfrom an earlier stage\n\$ test -x build\.sh\n\$ cat "docs\/read me\.md"\n# docs\n/);
    assert.match(log101, /\n\$ echo "after: \$CI_JOB_STATUS"\nafter: success\n/);
    assert.match(log101, /\nout\/: found 4 matching artifact files and directories\n.*\/src\/\*\.c: found 1 matching artifact files and directories\nout\/nested\/\*\*: excluded 2 matching artifact files and directories\n/);
    assert.match(log101, /\nWARNING: nothing-here\/\*\.txt: no matching files\. Ensure that the artifact path is relative to the working directory \(/);
    assert.match(log101, /\nJob succeeded\n$/);
    assert.doesNotMatch(log101, /hunter2-hunter2|glcbt-job-token-101/);

    const put101 = requests.filter((r) => r.method === 'PUT' && r.path === '/api/v4/jobs/101');
    assert.equal(put101.length, 1);
    const final101 = JSON.parse(put101[0]!.body.toString());
    assert.deepEqual(final101, {
      token: 'glcbt-job-token-101', state: 'success', checksum: final101.output.checksum,
      output: { checksum: final101.output.checksum, bytesize: traces.get(101)!.length },
    });
    assert.match(final101.checksum, /^crc32:[0-9a-f]{8}$/);

    // artifacts: one upload for 101 (the second entry matched nothing, the third is on_failure)
    const up101 = uploads.filter((u) => u.jobId === 101);
    assert.equal(up101.length, 1);
    assert.deepEqual(up101[0]!.fields, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' });
    assert.deepEqual(Object.fromEntries(up101[0]!.query), { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' });
    assert.equal(up101[0]!.filename, 'artifacts.zip');
    assert.ok(Number(up101[0]!.contentLength) > up101[0]!.file.length);
    const zipPath = join(work, 'up101.zip');
    writeFileSync(zipPath, up101[0]!.file);
    const zip = await openPromise(zipPath, {});
    const names: string[] = [];
    for await (const e of zip.eachEntry()) names.push(e.fileName);
    assert.deepEqual(names, ['out/', 'out/result.txt', 'src/main.c']);

    // the failing job: stops at exit 3, after_script runs (its failure ignored), on_failure artifacts
    const patches102 = requests.filter((r) => r.method === 'PATCH' && r.path === '/api/v4/jobs/102/trace');
    const starts102 = patches102.map((r) => r.headers['content-range']!.split('-')[0]);
    assert.equal(starts102[0], '0');
    assert.notEqual(starts102[1], '0', 'the second patch continues after the acknowledged bytes');
    assert.equal(starts102.filter((s) => s === '0').length, 2, 'after the 416 (Range: 0-0) the log is resent from the start');
    const log102 = plain(traces.get(102)!.toString());
    assert.match(log102, /^Running with forgelet-runner /);
    assert.match(log102, /\n\$ echo before\nbefore\n\$ echo failing > fail\.log\n\$ sleep 1\.3\n\$ exit 3\n/);
    assert.doesNotMatch(log102, /never/);
    assert.match(log102, /\nafter: failed\n\$ exit 9\nWARNING: after_script failed, but job will continue unaffected: exit code 9\n/);
    assert.match(log102, /\nERROR: Job failed: exit code 3\n$/);
    const final102 = JSON.parse(requests.find((r) => r.method === 'PUT' && r.path === '/api/v4/jobs/102')!.body.toString());
    assert.equal(final102.state, 'failed');
    assert.equal(final102.failure_reason, 'script_failure');
    assert.equal(final102.exit_code, 3);
    const up102 = uploads.filter((u) => u.jobId === 102);
    assert.equal(up102.length, 1);
    assert.equal(up102[0]!.filename, 'logs.zip');

    // the canceled job: killed, no artifacts, no final state
    const log103 = plain(traces.get(103)!.toString());
    assert.match(log103, /\$ sleep 20\n/);
    assert.doesNotMatch(log103, /finished/);
    assert.equal(uploads.filter((u) => u.jobId === 103).length, 0);
    assert.equal(requests.filter((r) => r.method === 'PUT' && r.path === '/api/v4/jobs/103').length, 0);
  });

  it('stops cleanly on SIGTERM: the running job finishes first, then exit 0', async () => {
    requests.length = 0;
    queue.push(
      job(104, { steps: [{ name: 'script', script: ['echo start', 'sleep 1', 'echo done'], timeout: 60, when: 'on_success', allow_failure: false }] }),
    );
    const child = spawn(process.execPath, [...BIN_CLI, 'runner', '--url', url, '--token', RUNNER_TOKEN, '--poll-interval', '0.2', '--work-dir', join(work, 'builds')], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    for (const deadline = Date.now() + 20_000; queue.length > 0; ) {
      assert.ok(Date.now() < deadline, `the runner never took the job: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /waiting for jobs from http:\/\/127\.0\.0\.1:\d+ \(Ctrl-C to stop\)\nSIGTERM: stopping after the current job/);
    assert.match(stdout, /^job 104 job104 \(stage build\) success in \d+\.\ds\n$/);
    assert.match(plain(traces.get(104)!.toString()), /\n\$ echo done\ndone\n/);
    const final = requests.filter((r) => r.method === 'PUT' && r.path === '/api/v4/jobs/104').map((r) => JSON.parse(r.body.toString()).state);
    assert.deepEqual(final, ['success']);
  });
});
