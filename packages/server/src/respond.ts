/** Writing answers the way GitLab does: exact `application/json`, pagination headers, error bodies. */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { STATUS_BY_CODE, type DomainError, type Page, type Reply } from '@forgelet/core';
import { buildQuery } from './query.js';

export const JSON_TYPE = 'application/json';

/** A JSON answer as written: its status, its headers (Content-Type and Content-Length among them) and its body. */
export interface WrittenJson {
  status: number;
  headers: Record<string, string | number>;
  text: string;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, head = false): WrittenJson {
  const text = JSON.stringify(body);
  const written = { status, headers: { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) }, text };
  res.writeHead(status, written.headers);
  res.end(head ? undefined : text);
  return written;
}

export function sendError(res: ServerResponse, err: DomainError) {
  const status = STATUS_BY_CODE[err.code];
  if (status === 304) {
    res.writeHead(304, err.headers);
    res.end();
    return;
  }
  sendJson(res, status, err.body, err.headers);
}

/**
 * The longest `Link` header written. GitLab's links repeat every query parameter, four times;
 * a long filter made that tens of kilobytes, which HTTP clients refuse (Node's parser stops at
 * 16 KB for all headers together; nginx in front of GitLab at 4 or 8 KB).
 */
export const LINK_HEADER_MAX = 4096;
/** Which links stay when they do not all fit: the one clients follow first. */
const LINK_PRIORITY = ['next', 'prev', 'first', 'last'];

/**
 * X-* headers and a GitLab `Link` header repeating every query param. A `Link` over
 * LINK_HEADER_MAX keeps the links that fit, `next` first (python-gitlab and gitbeaker follow
 * only that), then `prev`, `first`, `last`; when not even `next` fits, there is no `Link` and
 * `X-Next-Page` still tells the next page.
 */
export function paginationHeaders(page: Page<unknown>, linkBase: string, query: Record<string, unknown>): Record<string, string> {
  if (page.keyset) {
    const { page: _page, ...rest } = query;
    const token = page.keyset.nextToken;
    return token === null ? {} : { Link: `<${linkBase}?${buildQuery({ ...rest, page_token: token, per_page: page.perPage })}>; rel="next"` };
  }
  const totalPages = page.total === null ? null : Math.max(1, Math.ceil(page.total / page.perPage));
  const next = page.hasNext ? page.page + 1 : null;
  // As Kaminari: a page past the end has no previous page.
  const outOfRange = totalPages === null ? page.items.length === 0 : page.page > totalPages;
  const prev = page.page > 1 && !outOfRange ? page.page - 1 : null;
  const headers: Record<string, string> = {
    'X-Page': String(page.page),
    'X-Per-Page': String(page.perPage),
    'X-Next-Page': next === null ? '' : String(next),
    'X-Prev-Page': prev === null ? '' : String(prev),
  };
  if (page.total !== null) {
    headers['X-Total'] = String(page.total);
    headers['X-Total-Pages'] = String(totalPages);
  }
  const link = (n: number, rel: string) => `<${linkBase}?${buildQuery({ ...query, page: n, per_page: page.perPage })}>; rel="${rel}"`;
  const links: { rel: string; text: string }[] = [];
  if (prev !== null) links.push({ rel: 'prev', text: link(prev, 'prev') });
  if (next !== null) links.push({ rel: 'next', text: link(next, 'next') });
  links.push({ rel: 'first', text: link(1, 'first') });
  if (totalPages !== null) links.push({ rel: 'last', text: link(totalPages, 'last') });
  const joined = links.map((l) => l.text).join(', ');
  if (joined.length <= LINK_HEADER_MAX) {
    headers.Link = joined;
    return headers;
  }
  const kept = new Set<string>();
  let length = 0;
  for (const rel of LINK_PRIORITY) {
    const l = links.find((x) => x.rel === rel);
    if (!l) continue;
    const added = l.text.length + (kept.size ? 2 : 0);
    if (length + added > LINK_HEADER_MAX) break;
    kept.add(rel);
    length += added;
  }
  if (kept.size) headers.Link = links.filter((l) => kept.has(l.rel)).map((l) => l.text).join(', ');
  return headers;
}

/** Writes a reply; answers what was written when it was JSON (a page included). */
export async function sendReply(res: ServerResponse, reply: Reply, ctx: { linkBase: string; query: Record<string, unknown>; head: boolean }): Promise<WrittenJson | undefined> {
  switch (reply.kind) {
    case 'json':
      return sendJson(res, reply.status, reply.body, reply.headers, ctx.head);
    case 'page':
      return sendJson(res, reply.status, reply.page.items, { ...reply.headers, ...paginationHeaders(reply.page, ctx.linkBase, ctx.query) }, ctx.head);
    case 'empty':
      res.writeHead(reply.status, reply.headers ?? {});
      return void res.end();
    case 'text':
      res.writeHead(reply.status, { ...reply.headers, 'Content-Type': reply.contentType, 'Content-Length': Buffer.byteLength(reply.body) });
      return void res.end(ctx.head ? undefined : reply.body);
    case 'redirect':
      res.writeHead(reply.status, { Location: reply.location });
      return void res.end();
    case 'stream': {
      const headers: Record<string, string | number> = { ...reply.headers, 'Content-Type': reply.contentType };
      if (reply.size !== undefined) headers['Content-Length'] = reply.size;
      res.writeHead(reply.status, headers);
      if (ctx.head) {
        reply.body.destroy();
        return void res.end();
      }
      await pipeline(reply.body, res);
      return;
    }
  }
}
