/** A GitLab-shaped error body (`{"message": ...}`, `{"error": ...}`), or the raw text of a non-JSON one. */
export type ApiErrorBody = { message?: unknown; error?: unknown; error_description?: string; [key: string]: unknown } | string;

export interface ApiErrorCause {
  request: { method: string; url: string };
}

/**
 * An answer with status >= 400. `message` is GitLab's `error` or `message`, as GitLab clients
 * show it; `status`, `body`, `method`, `url` and `headers` say what was asked and answered.
 *
 * ```ts
 * try { await api.projects.show('a/b'); } catch (err) { if (ApiError.is(err, 404)) …; else throw err; }
 * ```
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  declare readonly cause: ApiErrorCause;
  /** The answer's headers (e.g. `Retry-After`, `RateLimit-*` of a 429), when known. */
  readonly headers: { get(name: string): string | null } | null;

  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    request: ApiErrorCause['request'],
    headers: { get(name: string): string | null } | null = null,
  ) {
    super(messageOf(status, body), { cause: { request } });
    this.headers = headers;
  }

  /** Whether `err` is an ApiError (with one of `statuses`, when given). */
  static is(err: unknown, ...statuses: number[]): err is ApiError {
    return err instanceof ApiError && (statuses.length === 0 || statuses.includes(err.status));
  }

  get method(): string {
    return this.cause.request.method;
  }

  get url(): string {
    return this.cause.request.url;
  }

  /** 400: a missing or invalid parameter (`body.message` / `body.error` names it). */
  get isBadRequest(): boolean {
    return this.status === 400;
  }

  /** 401: no or a bad token. */
  get isUnauthorized(): boolean {
    return this.status === 401;
  }

  get isForbidden(): boolean {
    return this.status === 403;
  }

  /** 404: absent, or hidden from the caller (GitLab answers 404 for what one may not see). */
  get isNotFound(): boolean {
    return this.status === 404;
  }

  get isConflict(): boolean {
    return this.status === 409;
  }

  /** 429 or 503 still failing after the client's retries (or with retries off). */
  get isRetryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
}

function messageOf(status: number, body: ApiErrorBody): string {
  if (typeof body === 'string') return body.trim() || `${status}`;
  const described = body.error ?? body.message;
  if (described === undefined || described === null) return `${status}`;
  return typeof described === 'string' ? described : JSON.stringify(described);
}
