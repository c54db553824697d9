import type { Generated, Selectable } from 'kysely';

export interface QueueJobTable {
  id: Generated<number>;
  kind: string;
  payload: string; // JSON
  /** Deduplication key: at most one pending job per key. */
  unique_key: string | null;
  status: string; // pending | done | failed
  run_at: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}
export type QueueJobRow = Selectable<QueueJobTable>;

export interface InternalIdTable {
  usage: string;
  scope: string;
  last_value: number;
}
