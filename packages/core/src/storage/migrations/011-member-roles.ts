import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Custom member roles (instance-wide when `namespace_id` is null, else a root group's). Names
 * are unique per scope (`coalesce` folds the instance scope into one key on both dialects).
 * `members.member_role_id` already exists (001); its index serves "is this role assigned?".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('member_roles'))
    .addColumn('namespace_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('base_access_level', 'integer', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index member_roles_scope_name on member_roles (coalesce(namespace_id, 0), name)`.execute(db);
  await db.schema.createIndex('members_member_role').on('members').column('member_role_id').execute();
}
