// Per-test databases for each SQL dialect under test.
//
// Tests run through `npm test` / scripts/test.mjs, which sets TEST_DIALECTS and,
// when postgres is requested, TEST_DATABASE_URL (a throwaway cluster or a
// server you point it at; the role must be allowed to CREATE DATABASE).

import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type Dialect = 'sqlite' | 'postgres';

const KNOWN_DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

function parseDialects(raw: string | undefined): Dialect[] {
  const list = (raw ?? 'sqlite,postgres')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter((d) => d.length > 0);
  const out: Dialect[] = [];
  for (const d of list) {
    if (!(KNOWN_DIALECTS as readonly string[]).includes(d)) {
      throw new Error(`TEST_DIALECTS: unknown dialect "${d}" (known: ${KNOWN_DIALECTS.join(', ')})`);
    }
    if (!out.includes(d as Dialect)) out.push(d as Dialect);
  }
  if (out.length === 0) throw new Error('TEST_DIALECTS is empty');
  if (out.includes('postgres') && !process.env.TEST_DATABASE_URL) {
    throw new Error(
      'PostgreSQL tests were requested (TEST_DIALECTS=' +
        (raw ?? 'sqlite,postgres (default)') +
        ') but TEST_DATABASE_URL is not set.\n' +
        'Run tests through `npm test` or `node scripts/test.mjs [files...]`, which start a throwaway ' +
        'PostgreSQL cluster and set TEST_DATABASE_URL for you; or set TEST_DATABASE_URL to a server ' +
        'whose user may CREATE DATABASE; or run SQLite only with TEST_DIALECTS=sqlite.',
    );
  }
  return out;
}

/** Dialects to run each database test against (from TEST_DIALECTS; default both). */
export const DIALECTS: Dialect[] = parseDialects(process.env.TEST_DIALECTS);

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withAdminClient<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  // An 'error' event on an idle client (e.g. server shutdown) must not crash the test process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A fresh, empty database for one test (or suite).
 * sqlite: an in-memory database (`:memory:`); drop() is a no-op.
 * postgres: a new database on TEST_DATABASE_URL's server; drop() removes it,
 * terminating any connections still open to it. With `template`, a copy of that database
 * (test/support/pg-template.ts: one already migrated, so a server starting on it skips the
 * migrations every new database would run).
 */
export async function createTestDatabaseUrl(
  dialect: Dialect,
  options: { template?: string } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    return { url: ':memory:', drop: async () => {} };
  }
  if (dialect !== 'postgres') {
    throw new Error(`createTestDatabaseUrl: unknown dialect "${String(dialect)}"`);
  }

  const adminUrl = testAdminUrl();
  const name = `forgelet_t_${process.pid}_${randomBytes(6).toString('hex')}`;
  await withAdminClient(adminUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}${options.template ? ` TEMPLATE ${quoteIdent(options.template)}` : ''}`));
  const url = databaseUrlOf(adminUrl, name);

  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> =>
    (dropped ??= withAdminClient(adminUrl, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }));

  return { url, drop };
}

/**
 * For a test that counts read-cache or response-cache hits: on PostgreSQL a database on a
 * cluster of its own (transaction ids are the cluster's, and another test file's commit in its
 * own database rightly empties the caches, so hits there are not certain); `url` is then its
 * URL, and `stop` stops the cluster. On SQLite no URL (the test's own choice stands).
 */
export async function ownClusterUrl(dialect: Dialect): Promise<{ url: string | undefined; stop(): Promise<void> }> {
  if (dialect !== 'postgres') return { url: undefined, stop: async () => {} };
  const { startCluster } = await import('../../scripts/pg-cluster.mjs');
  const cluster = await startCluster();
  return { url: cluster.url, stop: () => cluster.stop() };
}

/** TEST_DATABASE_URL: the PostgreSQL server whose user may create databases. */
export function testAdminUrl(): string {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    throw new Error(
      'createTestDatabaseUrl("postgres"): TEST_DATABASE_URL is not set. ' +
        'Run tests through `npm test` or `node scripts/test.mjs`, which start a throwaway PostgreSQL cluster.',
    );
  }
  return adminUrl;
}

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrlOf(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

export { quoteIdent, withAdminClient };
