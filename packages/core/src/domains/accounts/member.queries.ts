import type { Kysely } from 'kysely';
import type { MemberRow } from '../../access/member.table.js';
import type { Database } from '../../storage/database.js';

export interface MemberValues {
  source_kind: 'project' | 'namespace';
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at?: string | null;
  member_role_id?: number | null;
  created_by_id: number | null;
}

/** Inserts a membership (pass the transaction of the surrounding write). */
export async function insertMember(db: Kysely<Database>, values: MemberValues, now: string): Promise<MemberRow> {
  return db
    .insertInto('members')
    .values({ expires_at: null, member_role_id: null, ...values, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}
