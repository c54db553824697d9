/**
 * `/api/graphql` over HTTP, as GitLab routes it: POST with a JSON body (an object, or an array
 * for an Apollo-style batch), form fields or an `application/graphql` text body, and GET with
 * `query`, `variables` and `operationName` in the query string. Credentials as the REST API
 * takes them (PRIVATE-TOKEN, `Authorization: Bearer`, a CI job token); none gives anonymous
 * access to public data; a token that does not authenticate answers GitLab's 401
 * `{"errors":[{"message":"Invalid token"}]}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDomainError, STATUS_BY_CODE, type Actor, type Credentials, type Forge } from '@forgelet/core';
import { bodyStream, readLimited } from './body.js';
import { parseQuery } from './query.js';
import { sendJson } from './respond.js';

export async function serveGraphql(
  forge: Forge,
  req: IncomingMessage,
  res: ServerResponse,
  queryText: string,
  credentials: (query: Record<string, unknown>) => Credentials,
  seen: { actor: Actor | null },
  onInternalError: (err: unknown) => void,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') return void sendJson(res, 404, { errors: [{ message: 'Not found!' }] });
  const query = parseQuery(queryText);
  let actor: Actor;
  try {
    actor = await forge.authenticate(credentials(query), { jobToken: true });
  } catch (err) {
    if (isDomainError(err) && STATUS_BY_CODE[err.code] === 401) return void sendJson(res, 401, { errors: [{ message: 'Invalid token' }] });
    throw err;
  }
  seen.actor = actor;
  let body: unknown = query;
  if (method === 'POST') {
    const text = (await readLimited(bodyStream(req), forge.deps.config.limits.bodyBytes)).toString('utf8');
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('application/graphql')) body = { ...query, query: text };
    else if (type.startsWith('application/x-www-form-urlencoded')) body = { ...query, ...parseQuery(text) };
    else if (text.trim() !== '') {
      try {
        const parsed = JSON.parse(text) as unknown;
        body = Array.isArray(parsed) ? parsed : { ...query, ...(parsed as Record<string, unknown>) };
      } catch (err) {
        return void sendJson(res, 422, { errors: [{ message: `Unexpected JSON: ${(err as Error).message}` }] });
      }
    }
  }
  const answer = await forge.graphql(actor, method, body, onInternalError);
  sendJson(res, answer.status, answer.body);
}
