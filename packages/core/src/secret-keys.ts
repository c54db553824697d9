/**
 * The instance's secret key as the database knows it (its id, never the key): the check every
 * start makes that this process holds the key the stored secrets are sealed with, and the
 * rotation that re-encrypts every sealed column under a new key in one transaction.
 */
import { sql, type Kysely } from 'kysely';
import type { SecretBox } from './kernel/secrets.js';
import type { Database } from './storage/database.js';
import type { DialectName } from './storage/dialect.js';
import { SEALED_COLUMNS, type SealedColumn } from './storage/sealed-columns.js';

/** This process does not hold the key the database's secrets are sealed with. */
export class SecretKeyMismatchError extends Error {
  override readonly name = 'SecretKeyMismatchError';
}

/**
 * On a database that records no key yet: records the one this process seals with. Otherwise:
 * throws unless this process holds the recorded key (a process given another key, or one
 * that missed a rotation, would seal secrets no other process opens).
 */
export async function checkSecretKey(db: Kysely<Database>, box: SecretBox, now: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('secret_keys').select('key_id').where('retired_at', 'is', null).executeTakeFirst();
    if (!current) {
      await recordCurrentKey(trx, box.currentKeyId(), now);
      return;
    }
    if (box.keyIds().includes(current.key_id)) return;
    throw new SecretKeyMismatchError(
      `the secrets in this database are sealed with the key ${current.key_id}, which is not in ${box.describeKeys()} ` +
        `(keys ${box.keyIds().join(', ')}): every process on one database needs the same secret key ` +
        '(after `forgelet secret-key rotate`, the new one)',
    );
  });
}

/** Makes `keyId` the recorded current key, retiring the one before. */
async function recordCurrentKey(trx: Kysely<Database>, keyId: string, now: string): Promise<string[]> {
  const retired = await trx
    .updateTable('secret_keys')
    .set({ retired_at: now })
    .where('retired_at', 'is', null)
    .where('key_id', '!=', keyId)
    .returning('key_id')
    .execute();
  await trx
    .insertInto('secret_keys')
    .values({ key_id: keyId, created_at: now, retired_at: null })
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ retired_at: null }))
    .execute();
  return retired.map((r) => r.key_id);
}

export interface RotationColumnReport {
  table: string;
  column: string;
  holds: string;
  reencrypted: number;
}

export interface RotationReport {
  /** The key every secret is sealed with now. */
  key_id: string;
  /** The keys it replaced. */
  retired_key_ids: string[];
  reencrypted: number;
  columns: RotationColumnReport[];
}

export interface RotationOptions {
  now: string;
  /** After each batch: secrets re-encrypted so far, of `total`. */
  onProgress?(done: number, total: number): void;
  batchSize?: number;
}

/** Sealed text under `keyId`: `v2.<key id>.…` (kernel/secrets.ts). */
const sealedUnder = (keyId: string) => `v2.${keyId}.%`;

function staleRows(trx: Kysely<any>, col: SealedColumn, keyId: string) {
  return trx
    .selectFrom(col.table)
    .where(sql.ref(col.column), 'is not', null)
    .where(sql.ref(col.column), 'not like', sealedUnder(keyId));
}

/**
 * Re-encrypts every stored secret not yet sealed with the box's current key, in one
 * transaction: a failure (a secret no key of the box opens, a crash) changes nothing, and the
 * keys that opened everything before still do. On PostgreSQL the rows are locked as they are
 * read, so a concurrent write of the same secret waits and then stores its own value; on
 * SQLite the transaction holds the write lock throughout. Records the new current key.
 */
export async function rotateSecrets(database: { db: Kysely<Database>; dialect: DialectName }, box: SecretBox, options: RotationOptions): Promise<RotationReport> {
  const keyId = box.currentKeyId();
  const batchSize = options.batchSize ?? 500;
  return database.db.transaction().execute(async (trx) => {
    const any = trx as unknown as Kysely<any>;
    const counts: number[] = [];
    for (const col of SEALED_COLUMNS) {
      const row = await staleRows(any, col, keyId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      counts.push(Number(row.n));
    }
    const total = counts.reduce((a, b) => a + b, 0);
    options.onProgress?.(0, total);
    let done = 0;
    const columns: RotationColumnReport[] = [];
    for (const col of SEALED_COLUMNS) {
      let reencrypted = 0;
      let after = 0;
      for (;;) {
        let batch = staleRows(any, col, keyId).select(['id', sql.ref(col.column).as('sealed')]).where('id', '>', after).orderBy('id').limit(batchSize);
        if (database.dialect === 'postgres') batch = batch.forUpdate();
        const rows = (await batch.execute()) as { id: number; sealed: string }[];
        if (!rows.length) break;
        const resealed = rows.map((row) => {
          try {
            return sql`(cast(${row.id} as integer), ${box.encrypt(box.decrypt(row.sealed))})`;
          } catch (err) {
            throw new Error(`${col.table}.${col.column} of id ${row.id}: ${(err as Error).message}`);
          }
        });
        // One statement per batch (VALUES columns are column1, column2 on both dialects).
        await sql`update ${sql.table(col.table)} set ${sql.ref(col.column)} = v.column2
          from (values ${sql.join(resealed)}) as v where ${sql.ref(`${col.table}.id`)} = v.column1`.execute(trx);
        after = rows[rows.length - 1]!.id;
        reencrypted += rows.length;
        done += rows.length;
        options.onProgress?.(done, total);
      }
      columns.push({ table: col.table, column: col.column, holds: col.holds, reencrypted });
    }
    const retired = await recordCurrentKey(trx, keyId, options.now);
    return { key_id: keyId, retired_key_ids: retired, reencrypted: done, columns };
  });
}

/**
 * How many stored secrets each key seals (`v1` for secrets sealed before keys had ids): a key
 * no secret names may leave the key ring.
 */
export async function sealedKeyIds(db: Kysely<Database>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const any = db as unknown as Kysely<any>;
  for (const col of SEALED_COLUMNS) {
    const kid = sql<string>`case when ${sql.ref(col.column)} like 'v2.%' then substr(${sql.ref(col.column)}, 4, 12) else 'v1' end`;
    const rows = await any
      .selectFrom(col.table)
      .select([kid.as('kid'), (eb) => eb.fn.countAll<number>().as('n')])
      .where(sql.ref(col.column), 'is not', null)
      .groupBy(kid)
      .execute();
    for (const r of rows as { kid: string; n: number }[]) out.set(r.kid, (out.get(r.kid) ?? 0) + Number(r.n));
  }
  return out;
}
