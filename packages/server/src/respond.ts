/** Writing answers the way GitLab does: exact `application/json`, pagination headers, error bodies. */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { STATUS_BY_CODE, type DomainError, type Page, type Reply } from '@forgelet/core';
import { buildQuery } from './query.js';

export const JSON_TYPE = 'application/json';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, head = false) {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(head ? undefined : text);
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

/** X-* headers and a GitLab `Link` header repeating every query param. */
export function paginationHeaders(page: Page<unknown>, linkBase: string, query: Record<string, unknown>): Record<string, string> {
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
  const links: string[] = [];
  if (prev !== null) links.push(link(prev, 'prev'));
  if (next !== null) links.push(link(next, 'next'));
  links.push(link(1, 'first'));
  if (totalPages !== null) links.push(link(totalPages, 'last'));
  headers.Link = links.join(', ');
  return headers;
}

export async function sendReply(res: ServerResponse, reply: Reply, ctx: { linkBase: string; query: Record<string, unknown>; head: boolean }) {
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
