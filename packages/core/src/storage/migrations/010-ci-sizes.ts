import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * Byte counts and CRC-32 values of CI artifacts and logs exceed PostgreSQL's 4-byte `integer`
 * (a CRC-32 is unsigned, archives pass 2 GiB): widen them to `bigint` (int8 is read back as a
 * number). SQLite integers are already 64-bit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table ci_artifact_entries
    alter column size type bigint,
    alter column compressed_size type bigint,
    alter column local_header_offset type bigint,
    alter column crc32 type bigint`.execute(db);
  await sql`alter table ci_job_artifacts alter column size type bigint`.execute(db);
  await sql`alter table ci_job_trace_chunks alter column byte_offset type bigint`.execute(db);
}
