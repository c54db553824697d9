/**
 * Shared fixtures for the real-client tests: a group holding many projects, created
 * quickly through the raw HTTP API (the clients under test only read them); and helpers
 * for asserting on gitbeaker failures and running python-gitlab step scripts.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { GitbeakerRequestError } from '@gitbeaker/rest';
import type { ForgeletHttp } from '../support/server.js';

export interface BulkProject {
  id: number;
  name: string;
}

/** Name marker: every sixth project is `beta-NNN`, the others `alpha-NNN`. */
export function bulkName(i: number): string {
  return `${i % 6 === 0 ? 'beta' : 'alpha'}-${String(i).padStart(3, '0')}`;
}

/**
 * Creates `count` private projects in the group `namespaceId` (as root), `batch` at a time.
 * With 250 projects that is 208 `alpha-*` and 42 `beta-*`.
 */
export async function createBulkProjects(f: ForgeletHttp, namespaceId: number, count = 250, batch = 25): Promise<BulkProject[]> {
  const out: BulkProject[] = [];
  for (let start = 0; start < count; start += batch) {
    const indexes = Array.from({ length: Math.min(batch, count - start) }, (_, k) => start + k);
    const created = await Promise.all(
      indexes.map(async (i) => {
        const name = bulkName(i);
        const r = await f.api('POST', '/projects', { body: { name, path: name, namespace_id: namespaceId, visibility: 'private' } });
        if (r.status !== 201) throw new Error(`POST /projects ${name}: ${r.status} ${r.text}`);
        return { id: r.body.id as number, name };
      }),
    );
    out.push(...created);
  }
  return out;
}

/** Parses a GitLab `Link` header into rel → URL. */
export function parseLink(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>; rel="([^"]+)"/g)) out[m[2]] = m[1];
  return out;
}

// ---------------------------------------------------------------------------------------
// Helpers for the work-item suites (work-items-gitbeaker.test.ts, work-items-python.test.ts).

/** How gitbeaker surfaced a refused request: the HTTP status and the error message it built. */
export interface GitbeakerFailure {
  status: number;
  message: string;
}

/** Awaits a gitbeaker call that must fail with a GitbeakerRequestError; fails the test otherwise. */
export async function gitbeakerFailure(promise: Promise<unknown>): Promise<GitbeakerFailure> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GitbeakerRequestError, `expected GitbeakerRequestError, got ${String(err)}`);
    assert.ok(err.cause?.response, 'GitbeakerRequestError without cause.response');
    return { status: err.cause.response.status, message: err.message };
  }
  assert.fail('the request succeeded but was expected to fail');
}

/**
 * Debian's python3 (python-gitlab 3.12 lives in its dist-packages, not pyenv's). TEST_SYSTEM_PYTHON
 * replaces it (tool-guard.test.ts points it at nothing to hide python from the suites).
 */
export const SYSTEM_PYTHON = process.env.TEST_SYSTEM_PYTHON || '/usr/bin/python3';

/** Null when `import gitlab` works under SYSTEM_PYTHON, else why not. */
export function probePythonGitlab(): string | null {
  const r = spawnSync(SYSTEM_PYTHON, ['-c', 'import gitlab; print(gitlab.__version__)'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) return `${SYSTEM_PYTHON} cannot run: ${r.error.message}`;
  if (r.status !== 0) return `${SYSTEM_PYTHON} cannot import gitlab (apt-get install -y python3-gitlab): ${r.stderr.trim().split('\n').pop()}`;
  return null;
}

/** What a python step reports when it raised instead of returning its results. */
export interface PythonStepError {
  type: string;
  message: string;
  response_code: number | null;
  trace?: string;
}
export type PythonStep = Record<string, any> & { warnings: string[]; ms: number; error?: PythonStepError };

/** Runs a python script that prints one JSON object (one key per step) on stdout. */
export function runPythonSteps(script: string, env: Record<string, string>): Promise<{ results: Record<string, PythonStep>; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(SYSTEM_PYTHON, [script], { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${SYSTEM_PYTHON} ${script} failed: ${err.message}\n${stderr}`));
      try {
        resolve({ results: JSON.parse(stdout), ms: Math.round(performance.now() - t0) });
      } catch (e) {
        reject(new Error(`python printed no JSON (${(e as Error).message}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** A step's results, failing the test with python's error when the step raised. */
export function pythonStep(results: Record<string, PythonStep>, name: string): PythonStep {
  const s = results[name];
  assert.ok(s, `python step ${name} did not run`);
  if (s.error) assert.fail(`python step ${name} raised ${s.error.type} (${s.error.response_code}): ${s.error.message}\n${s.error.trace ?? ''}`);
  return s;
}

// ---------------------------------------------------------------------------------------
// Python scripts that hand control back to the test process (planning-python.test.ts).

/** How a python script asks to pause: the line `@@forgelet-pause <name>` on stderr. */
export const PYTHON_PAUSE = '@@forgelet-pause';

/** What the test process does while a python script waits (run the queue, move the clock…). */
export type PythonPauseHandlers = Record<string, () => unknown | Promise<unknown>>;

/**
 * Like runPythonSteps, for a script that pauses: when it writes `@@forgelet-pause <name>`
 * on stderr and waits for a line on stdin, `onPause[name]` runs here and its result is sent
 * back as one JSON line (null when it returns nothing). A missing or failing handler ends
 * the script and fails the run. `pauses` lists the handlers' results in order.
 */
export function runPythonStepsWithPauses(
  script: string,
  env: Record<string, string>,
  onPause: PythonPauseHandlers,
): Promise<{ results: Record<string, PythonStep>; ms: number; pauses: [string, unknown][] }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(SYSTEM_PYTHON, [script], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const pauses: [string, unknown][] = [];
    let stdout = '';
    let stderr = '';
    let pending = '';
    let failure: Error | null = null;
    const fail = (err: Error) => {
      failure ??= err;
      child.kill();
    };
    const timer = setTimeout(() => fail(new Error(`${SYSTEM_PYTHON} ${script} timed out`)), 120_000);
    // Pauses are handled one at a time, in the order the script asks for them.
    let queue: Promise<void> = Promise.resolve();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.startsWith(`${PYTHON_PAUSE} `)) {
          stderr += `${line}\n`;
          continue;
        }
        const name = line.slice(PYTHON_PAUSE.length + 1).trim();
        queue = queue.then(async () => {
          const handler = onPause[name];
          if (!handler) return fail(new Error(`python paused at "${name}", which has no handler`));
          try {
            const value = (await handler()) ?? null;
            pauses.push([name, value]);
            child.stdin.write(`${JSON.stringify(value)}\n`);
          } catch (err) {
            fail(new Error(`pause handler "${name}" failed: ${(err as Error).stack ?? err}`));
          }
        });
      }
    });
    child.stdin.on('error', () => {}); // the script may exit without reading
    child.on('error', (err) => fail(err));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      stderr += pending;
      if (failure) return reject(new Error(`${failure.message}\n${stderr}`));
      if (code !== 0) return reject(new Error(`${SYSTEM_PYTHON} ${script} exited with ${code ?? signal}:\n${stderr}`));
      try {
        resolve({ results: JSON.parse(stdout), ms: Math.round(performance.now() - t0), pauses });
      } catch (e) {
        reject(new Error(`python printed no JSON (${(e as Error).message}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------
// What gitbeaker put on the wire (planning-gitbeaker.test.ts).

/** One request seen by fetch: method, path after `/api/v4` with its query string, response status. */
export type FetchExchange = [method: string, path: string, status: number];

/**
 * Records every request made through the global fetch (gitbeaker's requester uses it) until
 * restore(). Paths keep their encoding (`%20`, `%5B%5D`), so tests can assert what was sent.
 */
export function recordFetch(): { exchanges: FetchExchange[]; restore(): void } {
  const original = globalThis.fetch;
  const exchanges: FetchExchange[] = [];
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const path = `${url.pathname.replace(/^\/api\/v4/, '')}${url.search}`;
    const response = await original(input, init);
    exchanges.push([method, path, response.status]);
    return response;
  };
  return {
    exchanges,
    restore() {
      globalThis.fetch = original;
    },
  };
}
