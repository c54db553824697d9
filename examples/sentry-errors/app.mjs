#!/usr/bin/env node
// A Node.js program reporting to Forgelet's error tracking with the Sentry SDK (@sentry/node
// 10), exactly as it would report to Sentry or GitLab: only the DSN differs.
//
//   SENTRY_DSN=http://glet_…@127.0.0.1:8080/api/v4/error_tracking/collector/1 node examples/sentry-errors/app.mjs
//
// Get the DSN with `node --conditions=source --import tsx examples/sentry-errors/dsn.ts`
// (or `forgelet error-tracking enable <project>`).
import * as Sentry from '@sentry/node';

if (!process.env.SENTRY_DSN) {
  console.error('set SENTRY_DSN to the DSN of a Forgelet project (see README.md)');
  process.exit(2);
}

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: 'shop@1.2.0',
  environment: 'production',
  // Errors only: Forgelet accepts transactions but drops them.
  tracesSampleRate: 0,
});

function checkout(cart) {
  if (cart.length === 0) throw new TypeError('cart is empty');
  return cart.length;
}

// 1. An exception, with the user it happened to.
Sentry.setUser({ id: 'u-42', email: 'ada@example.com' });
try {
  checkout([]);
} catch (err) {
  Sentry.captureException(err);
}

// 2. A message (an error of its own, grouped by its text).
Sentry.captureMessage('payment provider slow', 'warning');

// The SDK sends in the background: wait until everything is out before exiting.
const flushed = await Sentry.flush(10_000);
await Sentry.close(2_000);
console.log(flushed ? 'sent 1 exception and 1 message' : 'could not send everything within 10 s');
process.exitCode = flushed ? 0 : 1;
