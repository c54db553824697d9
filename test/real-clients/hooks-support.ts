/** Shared by the real-client hook suites (python-gitlab, gitbeaker, ruby-gitlab): what every delivery must carry. */
import assert from 'node:assert/strict';
import type { Delivery } from '../server/webhooks-support.js';

/** The frozen start of the hook suites' clock. */
export const T0 = '2026-03-02T10:00:00.000Z';
/** What the failing target answers (500); a test delivery to it reports this body. */
export const FAIL_BODY = 'boom: target down';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * GitLab's delivery headers (WebHookService): the event name, the hook's token (none when it has
 * none), the event and webhook UUIDs, the instance URL, `GitLab/<version>`, JSON with an Idempotency-Key.
 */
export function assertGitlabDelivery(d: Delivery, want: { event: string; token: string | null; instance: string; version: string }): void {
  const h = d.headers;
  assert.equal(h['x-gitlab-event'], want.event);
  assert.equal(h['x-gitlab-token'], want.token ?? undefined);
  assert.match(String(h['x-gitlab-event-uuid']), UUID);
  assert.match(String(h['x-gitlab-webhook-uuid']), UUID);
  assert.notEqual(h['x-gitlab-webhook-uuid'], h['x-gitlab-event-uuid']);
  assert.equal(h['x-gitlab-instance'], want.instance);
  assert.equal(h['user-agent'], `GitLab/${want.version}`);
  assert.equal(h['content-type'], 'application/json');
  assert.match(String(h['idempotency-key']), UUID);
  assert.equal(typeof d.body, 'object', 'a JSON payload');
}
