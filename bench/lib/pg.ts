/** A throwaway PostgreSQL database for the bench and the soak. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Creates a database with a random name (`<prefix>_<hex>`) in the server of `adminUrl`; `drop` removes it. */
export async function createPgDatabase(adminUrl: string, prefix = 'forgelet_bench'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      c.on('error', () => {});
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}
