// A small Node.js program instrumented with @sentry/node 10, as a user would write it. Run by
// sentry-node.test.ts with SENTRY_DSN set; it reports ten identical exceptions from three users,
// a message, an exception with a large payload (> 32 KiB: gzipped by the SDK), then flushes.
import * as Sentry from '@sentry/node';

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: 'shop@2.0.0',
  environment: 'production',
  // No tracing: errors and sessions only.
  tracesSampleRate: 0,
});

const users = [
  { id: 'u-1', email: 'one@example.com' },
  { id: 'u-2' },
  { id: 'u-3', username: 'three' },
];

function checkout(cart) {
  if (cart.length === 0) throw new TypeError('boom from node');
  return cart.length;
}

for (let i = 0; i < 10; i++) {
  Sentry.setUser(users[i % 3]);
  try {
    checkout([]);
  } catch (err) {
    Sentry.captureException(err);
  }
}
Sentry.setUser(null);
Sentry.captureMessage('hello from node', 'warning');

function bigReport() {
  throw new RangeError('big payload');
}
try {
  bigReport();
} catch (err) {
  Sentry.captureException(err, { extra: { blob: 'x'.repeat(40 * 1024) } });
}

const flushed = await Sentry.flush(10_000);
await Sentry.close(10_000);
process.stdout.write(JSON.stringify({ flushed, version: Sentry.SDK_VERSION }) + '\n');
