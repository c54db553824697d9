/**
 * Turns on error tracking for a project and prints its DSN (the project's first client key),
 * with the typed client. Maintainer of the project.
 *
 *   FORGELET_URL=http://127.0.0.1:8080 FORGELET_TOKEN=glpat-… FORGELET_PROJECT=group/app \
 *     node --conditions=source --import tsx examples/sentry-errors/dsn.ts
 *
 * The same over HTTP:
 *   curl -X PUT -H "PRIVATE-TOKEN: $TOKEN" "$URL/api/v4/projects/1/error_tracking/settings?active=true&integrated=true"
 *   curl -H "PRIVATE-TOKEN: $TOKEN" "$URL/api/v4/projects/1/error_tracking/client_keys"   # → [{ sentry_dsn }]
 */
import { Forgelet } from '@forgelet/client';

export async function enableErrorTracking(url: string, token: string, project: string | number): Promise<string> {
  const api = new Forgelet({ url, token });
  // PUT …/error_tracking/settings: integrated tracking gives the project a client key.
  await api.errorTrackingSettings.create(project, { active: true, integrated: true });
  const [key] = await api.errorTrackingClientKeys.all(project).toArray();
  if (!key) throw new Error('the project has no client key');
  return key.sentry_dsn; // http://glet_<32 hex>@host/api/v4/error_tracking/collector/<project id>
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { FORGELET_URL, FORGELET_TOKEN, FORGELET_PROJECT } = process.env;
  if (!FORGELET_URL || !FORGELET_TOKEN || !FORGELET_PROJECT) throw new Error('set FORGELET_URL, FORGELET_TOKEN and FORGELET_PROJECT');
  console.log(await enableErrorTracking(FORGELET_URL, FORGELET_TOKEN, FORGELET_PROJECT));
}
