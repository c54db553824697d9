/** A loopback receiver for webhook deliveries: every request, answered with the scripted status (the last one repeats). */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { fixedClock } from '@forgelet/core';
import type { Dialect } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, uniq } from './http.js';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface HookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Answers from now on: status, body and extra headers; status 0 never answers (a target that hangs). */
  answer(status: number, body?: string, headers?: Record<string, string>): void;
  /** Answers for paths starting with `prefix` (taking precedence over `answer`), e.g. a failing target beside working ones. */
  answerAt(prefix: string, status: number, body?: string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function hookReceiver(): Promise<HookReceiver> {
  const deliveries: Delivery[] = [];
  type Reply = { status: number; body: string; headers: Record<string, string> };
  let reply: Reply = { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };
  const byPrefix = new Map<string, Reply>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      deliveries.push({ path: req.url!, headers: req.headers, body });
      const r = [...byPrefix].find(([prefix]) => req.url!.startsWith(prefix))?.[1] ?? reply;
      if (r.status === 0) return;
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    answer(status, body = '', headers = {}) {
      reply = { status, body, headers };
    },
    answerAt(prefix, status, body = '', headers = {}) {
      byPrefix.set(prefix, { status, body, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What the webhook event tests share: a server, a receiver, a group with a project and a Developer in it. */
export interface WebhookProject {
  f: TestForgelet;
  rx: HookReceiver;
  group: any;
  project: any;
  dev: { id: number; username: string; token: string };
}

/**
 * Registers the suite's before/after: a test-mode server on a clock fixed at `now` (no
 * background workers: tests run the queue themselves), a receiver, and a group named after
 * `prefix` holding a project with a README and a Developer. The fields are set once `before` ran.
 */
export function useWebhookProject(dialect: Dialect, prefix: string, now: string): WebhookProject {
  const world = {} as WebhookProject;
  before(async () => {
    world.f = await startTestServer(dialect, { clock: fixedClock(now), workers: false, testMode: true });
    world.rx = await hookReceiver();
    world.group = await createGroup(world.f, world.f.rootToken, { name: uniq(`${prefix}-`), path: uniq(`${prefix}-`) });
    world.project = await createProject(world.f, world.f.rootToken, { name: uniq(`${prefix}-project-`), namespace_id: world.group.id, initialize_with_readme: true });
    world.dev = await world.f.createUser(uniq('dev'));
    await addMember(world.f, 'projects', world.project.id, world.dev.id, 30);
  });
  after(async () => {
    await world.f?.stop();
    await world.rx?.close();
  });
  return world;
}
