/**
 * A receiver for Forgelet's agent flow callbacks (`flow.started`, `flow.completed`,
 * `flow.failed`). Deliveries are signed per Standard Webhooks: the headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64>`, possibly several
 * separated by spaces) carry an HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed with the
 * base64-decoded part of the `whsec_…` signing token you registered the callback with.
 *
 *   FLOW_CALLBACK_SECRET=whsec_… PORT=9000 npx tsx examples/flow-callback-receiver/receiver.ts
 *
 * Anything unsigned, wrongly signed or older than five minutes gets 401; a verified delivery
 * gets 204 (any 2xx ends Forgelet's retries; anything else is retried with backoff).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** The event as Forgelet sends it: `data` is the flow as `GET …/workflows/:id` answers it. */
export interface FlowEvent {
  type: 'flow.started' | 'flow.completed' | 'flow.failed';
  /** The same as `type`. */
  event: string;
  /** The same as the `webhook-id` header: stable across retries, so use it to drop duplicates. */
  event_id: string;
  timestamp: string;
  data: { id: number; status: string; project_id: number | null; title: string; instance_url: string; [key: string]: unknown };
}

const TOLERANCE_SECONDS = 5 * 60;

/** Standard Webhooks verification with node:crypto: throws unless the delivery is authentic and fresh. */
export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, body: string, nowSeconds = Date.now() / 1000): FlowEvent {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') throw new Error('missing webhook headers');
  // Old (or future) timestamps are refused, so a captured delivery cannot be replayed later.
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - sentAt) > TOLERANCE_SECONDS) throw new Error('timestamp too old or too new');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  // The header may list several signatures (key rotation): one valid `v1` is enough.
  const valid = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) throw new Error('no matching signature');
  return JSON.parse(body) as FlowEvent;
}

export interface ReceiverOptions {
  secret: string;
  /** Also required when given: the plain token registered as the callback's `token` (sent as `X-Service-Token`). */
  serviceToken?: string;
  onEvent(event: FlowEvent, webhookId: string): void;
  onRejected?(reason: string): void;
}

/** A node:http server answering POST deliveries on any path. */
export function createReceiver(options: ReceiverOptions): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      // Verify the raw bytes as received: parsing and re-serialising the JSON would change them.
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (options.serviceToken !== undefined && req.headers['x-service-token'] !== options.serviceToken) throw new Error('wrong service token');
        const event = verifyWebhook(options.secret, req.headers, body);
        options.onEvent(event, String(req.headers['webhook-id']));
        res.writeHead(204).end();
      } catch (err) {
        options.onRejected?.((err as Error).message);
        res.writeHead(401, { 'Content-Type': 'text/plain' }).end((err as Error).message);
      }
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.FLOW_CALLBACK_SECRET;
  if (!secret) throw new Error('set FLOW_CALLBACK_SECRET to the whsec_… token the callback was registered with');
  const server = createReceiver({
    secret,
    serviceToken: process.env.FLOW_CALLBACK_TOKEN,
    onEvent: (event, id) => console.log(`${id} ${event.type}: flow ${event.data.id} is ${event.data.status}`),
    onRejected: (reason) => console.log(`rejected: ${reason}`),
  });
  server.listen(Number(process.env.PORT ?? 9000), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${process.env.PORT ?? 9000}/`));
}
