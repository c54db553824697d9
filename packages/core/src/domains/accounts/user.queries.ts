import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { NewUserRow, UserRow } from '../../access/user.table.js';

/** Inserts a user and its personal namespace (same transaction: pass `trx`). */
export async function insertUserWithNamespace(
  trx: Kysely<Database>,
  values: Omit<NewUserRow, 'namespace_id'>,
  now: string,
): Promise<UserRow> {
  const user = await trx.insertInto('users').values({ ...values, namespace_id: null }).returningAll().executeTakeFirstOrThrow();
  const ns = await trx
    .insertInto('namespaces')
    .values({
      kind: 'user',
      name: user.name,
      path: user.username,
      full_path: user.username,
      full_name: user.name,
      parent_id: null,
      traversal: '/',
      visibility: 'public',
      owner_id: user.id,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx.updateTable('namespaces').set({ traversal: `/${ns.id}/` }).where('id', '=', ns.id).execute();
  return trx.updateTable('users').set({ namespace_id: ns.id }).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
}
