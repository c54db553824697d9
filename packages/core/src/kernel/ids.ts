import * as crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * Next per-parent internal id (iid) for `usage` within `scope` (e.g. issues of project 7).
 * One upsert statement, safe under concurrency on both dialects. Call inside the
 * transaction that inserts the record.
 */
export async function nextIid(db: Kysely<any>, usage: string, scope: string): Promise<number> {
  const row = await nextIidStatement(usage, scope).execute(db);
  return Number(row.rows[0]!.last_value);
}

/** The statement of `nextIid` (for a caller that compiles it once: storage/prepared.ts). */
export function nextIidStatement(usage: string, scope: string) {
  return sql<{ last_value: number | string }>`
    insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, 1)
    on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1
    returning last_value`;
}

/** A random token with a GitLab-style prefix (`glpat-`, `glet_` ...). */
export function randomToken(prefix: string, bytes = 20): string {
  return prefix + crypto.randomBytes(bytes).toString('base64url');
}

/** crypto.hash (Node >= 20.12): a third of the cost of a Hash object, which every request pays. */
const oneShotHash = (crypto as Partial<typeof crypto>).hash;

/** Tokens are stored as SHA-256 digests; the clear text is shown once. */
export function digestToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : crypto.createHash('sha256').update(token).digest('hex');
}
