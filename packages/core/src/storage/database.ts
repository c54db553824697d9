/**
 * The database schema as Kysely sees it: one interface, declared here with storage's own
 * tables and extended by each domain in its `*.table.ts` (TypeScript declaration merging:
 * `declare module '…/storage/database.js' { interface Database { … } }`). Storage so depends on no
 * domain, while `Kysely<Database>` still knows every table of the program.
 */
import type { BlobChunkTable, BlobObjectTable } from './pg-blobs.js';
import type { InternalIdTable, QueueJobTable } from './queue.table.js';
import type { SecretKeyTable } from './sealed-columns.js';

export interface Database {
  queue_jobs: QueueJobTable;
  internal_ids: InternalIdTable;
  secret_keys: SecretKeyTable;
  blob_objects: BlobObjectTable;
  blob_chunks: BlobChunkTable;
}
