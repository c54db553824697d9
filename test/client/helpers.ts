/** Clients against the file's test server, and a fetch that records what the client sent. */
import { fetch as undiciFetch } from 'undici';
import { ApiError, Forgelet, type FetchInit, type FetchLike, type ForgeletOptions } from '@forgelet/client';
import assert from 'node:assert/strict';
import type { TestForgelet } from '../support/server.js';

/** A recorded request; `body` is the JSON text (streamed multipart bodies are not recorded). */
export interface SentRequest extends Omit<FetchInit, 'body'> {
  url: string;
  body?: string;
}

/** A fetch that records every request before sending it with undici. */
export function recordingFetch(): { fetch: FetchLike; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const fetch: FetchLike = (url, init) => {
    const { body, ...rest } = init;
    sent.push({ url, ...rest, headers: { ...init.headers }, ...(typeof body === 'string' ? { body } : {}) });
    return undiciFetch(url, init as Parameters<typeof undiciFetch>[1]);
  };
  return { fetch, sent };
}

/** A client for the test server, as root unless another token is given. */
export function clientFor(f: TestForgelet, options: Partial<ForgeletOptions> = {}): Forgelet {
  return new Forgelet({ url: f.url, token: f.rootToken, ...options });
}

/** Awaits `work`, which must fail with an ApiError; returns it. */
export async function apiError(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an ApiError, but the call succeeded');
}
