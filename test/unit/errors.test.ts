import { it } from 'node:test';
import assert from 'node:assert/strict';
import {
  BadRequestError, ConflictError, ForbiddenError, MethodNotAllowedError, InsufficientScopeError, InvalidTokenError, MovedError, NotFoundError,
  NotModifiedError, PreconditionError, RateLimitedError, STATUS_BY_CODE, TooLargeError, UnauthorizedError, UnavailableError,
  UnprocessableError, ValidationError, type DomainError, type ErrorCode,
} from '@forgelet/core';

/** Every error class, its code, the status the server answers and GitLab's body. */
const CASES: [DomainError, ErrorCode, number, unknown][] = [
  [new NotFoundError('Project'), 'not_found', 404, { message: '404 Project Not Found' }],
  [new NotFoundError(), 'not_found', 404, { message: '404 Not Found' }],
  [new UnauthorizedError(), 'unauthorized', 401, { message: '401 Unauthorized' }],
  [new InvalidTokenError('expired'), 'invalid_token', 401, { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' }],
  [new InvalidTokenError('revoked'), 'invalid_token', 401, { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }],
  [new InsufficientScopeError(), 'insufficient_scope', 403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' }],
  [new ForbiddenError(), 'forbidden', 403, { message: '403 Forbidden' }],
  [new ForbiddenError('Must be admin to use sudo'), 'forbidden', 403, { message: '403 Forbidden - Must be admin to use sudo' }],
  [new ValidationError([{ field: 'name', message: 'is missing' }, { field: 'id', message: 'is invalid' }]), 'invalid_param', 400, { error: 'name is missing, id is invalid' }],
  [new BadRequestError('Malformed JSON body'), 'bad_request', 400, { message: '400 Bad request - Malformed JSON body' }],
  [new BadRequestError({ path: ['has already been taken'] }, { raw: true }), 'bad_request', 400, { message: { path: ['has already been taken'] } }],
  [new ConflictError(), 'conflict', 409, { message: '409 Conflict' }],
  [new ConflictError('Member already exists'), 'conflict', 409, { message: 'Member already exists' }],
  [new UnprocessableError(['Name is invalid']), 'unprocessable', 422, { message: ['Name is invalid'] }],
  [new PreconditionError(), 'precondition', 412, { message: '412 Precondition Failed' }],
  [new TooLargeError(), 'too_large', 413, { message: '413 Request Entity Too Large' }],
  [new RateLimitedError(60), 'rate_limited', 429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } }],
  [new UnavailableError(), 'unavailable', 503, { message: '503 Service Unavailable' }],
  [new NotModifiedError(), 'not_modified', 304, {}],
  [new MovedError('a/b', 7), 'moved', 405, { message: 'Non GET methods are not allowed for moved projects' }],
  [new MethodNotAllowedError(), 'method_not_allowed', 405, { message: '405 Method Not Allowed' }],
  [new ConflictError(['Another open merge request already exists for this source branch: !1']), 'conflict', 409, { message: ['Another open merge request already exists for this source branch: !1'] }],
];

it('every error code maps to one status and GitLab body', () => {
  for (const [err, code, status, body] of CASES) {
    assert.equal(err.code, code, err.constructor.name);
    assert.equal(STATUS_BY_CODE[err.code], status, code);
    assert.deepEqual(err.body, body, code);
  }
  const covered = new Set(CASES.map(([, code]) => code));
  const unpinned = Object.keys(STATUS_BY_CODE).filter((c) => !covered.has(c as ErrorCode));
  assert.deepEqual(unpinned, [], 'a new error code needs a case here');
  assert.equal(new RateLimitedError(60).headers['Retry-After'], '60');
});
