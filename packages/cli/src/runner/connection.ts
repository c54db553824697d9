/**
 * How the runner talks to its server: through @forgelet/client, one client for the runner's
 * own calls and one per job holding the job's token (repository files, artifacts, log, state).
 * The client's retries are off: the runner retries in its own way, call by call (the log, the
 * final state, uploads, the job poll), as gitlab-runner does.
 */
import { ApiError, Forgelet, type ForgeletOptions } from '@forgelet/client';
import { networkFailure } from '../remote.js';

export const RUNNER_NAME = 'forgelet-runner';

/** The runner token was refused (401/403 on verify or jobs/request). */
export class RunnerAuthError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RunnerAuthError';
  }
}

/** The server answered something the protocol does not allow (a job without id or token). */
export class RunnerProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunnerProtocolError';
  }
}

export class RunnerConnection {
  /** The client of the runner's own calls (verify, jobs/request), authenticated by the runner token in the body. */
  readonly runnerClient: Forgelet;

  constructor(
    readonly url: string,
    readonly userAgent: string,
  ) {
    this.runnerClient = this.client();
  }

  /** A client sending `jobToken` as `JOB-TOKEN` (or an access token as `PRIVATE-TOKEN`) on every call. */
  client(auth: string | Pick<ForgeletOptions, 'token' | 'jobToken'> = {}): Forgelet {
    return new Forgelet({ url: this.url, userAgent: this.userAgent, retries: 0, ...(typeof auth === 'string' ? { jobToken: auth } : auth) });
  }

  /** A failed call in a line for the log or stderr: `PUT /jobs/5: 500 boom`, `cannot reach <url>: ECONNREFUSED`. */
  describe(err: unknown): string {
    return describeFailure(this.url, err);
  }
}

/** A failed call in a line: `PUT /jobs/5: 500 boom`, `cannot reach <url>: ECONNREFUSED`, else the error's message. */
export function describeFailure(url: string, err: unknown): string {
  if (err instanceof ApiError) {
    const path = new URL(err.url).pathname.replace(/^.*?\/api\/v4(?=\/)/, '');
    const message = err.message.length > 200 ? `${err.message.slice(0, 200)}…` : err.message;
    return `${err.method} ${path}: ${err.status} ${message}`;
  }
  const unreachable = networkFailure(err);
  if (unreachable !== null) return `cannot reach ${url}: ${unreachable}`;
  return (err as Error)?.message ?? String(err);
}

/** Whether a call failed before any answer (the connection could not be made or broke). */
export function isNetworkFailure(err: unknown): boolean {
  return networkFailure(err) !== null;
}
