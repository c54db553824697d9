/**
 * Shared fixtures for the real-client tests: a group holding many projects, created
 * quickly through the raw HTTP API (the clients under test only read them).
 */
import type { TestForgelet } from '../support/server.js';

export interface BulkProject {
  id: number;
  name: string;
}

/** Name marker: every sixth project is `beta-NNN`, the others `alpha-NNN`. */
export function bulkName(i: number): string {
  return `${i % 6 === 0 ? 'beta' : 'alpha'}-${String(i).padStart(3, '0')}`;
}

/**
 * Creates `count` private projects in the group `namespaceId` (as root), `batch` at a time.
 * With 250 projects that is 208 `alpha-*` and 42 `beta-*`.
 */
export async function createBulkProjects(f: TestForgelet, namespaceId: number, count = 250, batch = 25): Promise<BulkProject[]> {
  const out: BulkProject[] = [];
  for (let start = 0; start < count; start += batch) {
    const indexes = Array.from({ length: Math.min(batch, count - start) }, (_, k) => start + k);
    const created = await Promise.all(
      indexes.map(async (i) => {
        const name = bulkName(i);
        const r = await f.api('POST', '/projects', { body: { name, path: name, namespace_id: namespaceId, visibility: 'private' } });
        if (r.status !== 201) throw new Error(`POST /projects ${name}: ${r.status} ${r.text}`);
        return { id: r.body.id as number, name };
      }),
    );
    out.push(...created);
  }
  return out;
}

/** Parses a GitLab `Link` header into rel → URL. */
export function parseLink(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>; rel="([^"]+)"/g)) out[m[2]] = m[1];
  return out;
}
