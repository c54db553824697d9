import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Web console sessions (access/console-sessions.ts): a signed-in browser's cookie, kept as its
 * SHA-256 digest like tokens. `access_token_id` is the token it was signed in with (null for a
 * password), so revoking or expiring that token ends the session too; `scopes` are that token's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('console_sessions'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_digest', 'text', (c) => c.notNull().unique())
    .addColumn('access_token_id', 'integer', (c) => c.references('access_tokens.id').onDelete('cascade'))
    .addColumn('scopes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_user_id').on('console_sessions').column('user_id').execute();
}
