/**
 * The closed set of errors core throws. None of them knows an HTTP status: the server maps
 * `code` to a status in one table. `body` is the GitLab-shaped JSON body for the answer.
 */
export type ErrorCode =
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_param'
  | 'bad_request'
  | 'conflict'
  | 'unprocessable'
  | 'precondition'
  | 'not_modified'
  | 'too_large'
  | 'rate_limited'
  | 'insufficient_scope'
  | 'invalid_token'
  | 'moved'
  | 'method_not_allowed'
  | 'unavailable';

export type ErrorBody = Record<string, unknown>;

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  /** GitLab's JSON body for this error. */
  abstract readonly body: ErrorBody;
  /** Extra response headers (Retry-After, WWW-Authenticate ...). */
  headers: Record<string, string> = {};
}

/** 404 `{"message":"404 Project Not Found"}`; `resource` null gives the bare `404 Not Found`. */
export class NotFoundError extends DomainError {
  readonly code = 'not_found';
  readonly body: ErrorBody;
  constructor(resource: string | null = null, options: { exact?: string } = {}) {
    const message = options.exact ?? (resource ? `404 ${resource} Not Found` : '404 Not Found');
    super(message);
    this.body = { message };
  }
}

/** 401 `{"message":"401 Unauthorized"}`, or a reason after a dash. */
export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
  readonly body: ErrorBody;
  constructor(reason?: string, options: { exact?: string } = {}) {
    const message = options.exact ?? (reason ? `401 Unauthorized - ${reason}` : '401 Unauthorized');
    super(message);
    this.body = { message };
  }
}

/** 401 for an expired or revoked token, OAuth-style body as GitLab sends. */
export class InvalidTokenError extends DomainError {
  readonly code = 'invalid_token';
  readonly body: ErrorBody;
  constructor(kind: 'expired' | 'revoked') {
    const description =
      kind === 'expired'
        ? 'Token is expired. You can either do re-authorization or token refresh.'
        : 'Token was revoked. You have to re-authorize from the user.';
    super(description);
    this.body = { error: 'invalid_token', error_description: description };
  }
}

/** 403 for a token whose scopes do not allow the request. */
export class InsufficientScopeError extends DomainError {
  readonly code = 'insufficient_scope';
  readonly body: ErrorBody;
  constructor(scope = 'api') {
    const description = 'The request requires higher privileges than provided by the access token.';
    super(description);
    this.body = { error: 'insufficient_scope', error_description: description, scope };
  }
}

/** 403 `{"message":"403 Forbidden"}` or `"403 Forbidden - <reason>"`. */
export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
  readonly body: ErrorBody;
  constructor(reason?: string, options: { exact?: string } = {}) {
    const message = options.exact ?? (reason ? `403 Forbidden - ${reason}` : '403 Forbidden');
    super(message);
    this.body = { message };
  }
}

/** 400 `{"error":"name is missing, id is invalid"}`: a parameter failed validation. */
export class ValidationError extends DomainError {
  readonly code = 'invalid_param';
  readonly body: ErrorBody;
  constructor(readonly problems: ReadonlyArray<{ field: string; message: string }>) {
    const text = problems.map((p) => `${p.field} ${p.message}`).join(', ');
    super(text);
    this.body = { error: text };
  }
}

/** 400 with a `message`: `"400 Bad request - <reason>"`, a model-error hash, or an exact message. */
export class BadRequestError extends DomainError {
  readonly code = 'bad_request';
  readonly body: ErrorBody;
  constructor(message: string | Record<string, string[]> | string[], options: { raw?: boolean } = {}) {
    const value = typeof message === 'string' && !options.raw ? `400 Bad request - ${message}` : message;
    super(typeof value === 'string' ? value : JSON.stringify(value));
    this.body = { message: value };
  }
}

/** 409 `{"message":"409 Conflict"}`, a custom message, or GitLab's model-error list. */
export class ConflictError extends DomainError {
  readonly code = 'conflict';
  readonly body: ErrorBody;
  constructor(message: string | string[] | Record<string, string[]> = '409 Conflict') {
    super(typeof message === 'string' ? message : JSON.stringify(message));
    this.body = { message };
  }
}

/** 422 `{"message": ...}` (model validation on the few routes that use 422). */
export class UnprocessableError extends DomainError {
  readonly code = 'unprocessable';
  readonly body: ErrorBody;
  constructor(message: unknown) {
    super(typeof message === 'string' ? message : JSON.stringify(message));
    this.body = { message };
  }
}

/** 405 `{"message":"405 Method Not Allowed"}`: GitLab's `not_allowed!` (e.g. merging what is not mergeable). */
export class MethodNotAllowedError extends DomainError {
  readonly code = 'method_not_allowed';
  readonly body: ErrorBody = { message: '405 Method Not Allowed' };
  constructor() {
    super('405 Method Not Allowed');
  }
}

/** 412 on a stale precondition. */
export class PreconditionError extends DomainError {
  readonly code = 'precondition';
  readonly body: ErrorBody;
  constructor(message = '412 Precondition Failed') {
    super(message);
    this.body = { message };
  }
}

/** 413 when a body or upload is over its limit. */
export class TooLargeError extends DomainError {
  readonly code = 'too_large';
  readonly body: ErrorBody;
  constructor(message = '413 Request Entity Too Large') {
    super(message);
    this.body = { message };
  }
}

/** 429 with Retry-After. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited';
  readonly body: ErrorBody;
  constructor(retryAfterSeconds: number) {
    super('rate limited');
    this.body = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}

/** 503 when a dependency (worker, source instance) cannot be reached. */
export class UnavailableError extends DomainError {
  readonly code = 'unavailable';
  readonly body: ErrorBody;
  constructor(message = '503 Service Unavailable') {
    super(message);
    this.body = { message };
  }
}

/** 304: an outcome, not a failure, but it must stop the handler (no body). */
export class NotModifiedError extends DomainError {
  readonly code = 'not_modified';
  readonly body: ErrorBody = {};
  constructor() {
    super('304 Not Modified');
  }
}

/**
 * A project was reached by a path it has since been renamed from. GET answers 301 to the
 * same URL with the numeric id; other verbs 405, as GitLab does.
 */
export class MovedError extends DomainError {
  readonly code = 'moved';
  readonly body: ErrorBody = { message: 'Non GET methods are not allowed for moved projects' };
  constructor(
    /** The path the caller used (decoded). */
    readonly oldPath: string,
    readonly id: number,
  ) {
    super(`moved to ${id}`);
  }
}

/** The one table from error code to HTTP status, used by the server. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  not_found: 404,
  unauthorized: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  invalid_param: 400,
  bad_request: 400,
  conflict: 409,
  unprocessable: 422,
  precondition: 412,
  not_modified: 304,
  too_large: 413,
  rate_limited: 429,
  moved: 405,
  method_not_allowed: 405,
  unavailable: 503,
};

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}
