/** First start: the root administrator and its token. */
import { sql } from 'kysely';
import type { Deps } from '../../access/context.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { insertTokenWithValue } from './tokens.js';
import { insertUserWithNamespace } from './user.queries.js';

export const ROOT_TOKEN_SCOPES = ['api', 'read_api', 'read_user', 'sudo', 'admin_mode', 'read_repository', 'write_repository'];

export interface BootstrapResult {
  /** True when the root user was created by this call. */
  createdUser: boolean;
  /** The clear-text root token when this call created it (or it was given). */
  token: string | null;
}

/**
 * Ensures the `root` administrator exists. With `token`, makes sure that exact token is a
 * valid root token (so scripts can know it in advance); without it, a new random token is
 * created only together with a new root user.
 */
export async function bootstrapRoot(deps: Deps, options: { token?: string } = {}): Promise<BootstrapResult> {
  const now = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    let root = await trx.selectFrom('users').selectAll().where(sql`lower(username)`, '=', 'root').executeTakeFirst();
    let createdUser = false;
    if (!root) {
      root = await insertUserWithNamespace(
        trx,
        {
          username: 'root', name: 'Administrator', email: 'admin@example.com', state: 'active', is_admin: 1, bot_kind: null,
          bio: '', location: '', public_email: null, website_url: '', organization: '', job_title: '',
          can_create_group: 1, projects_limit: 100000, external: 0, created_at: now, updated_at: now,
        },
        now,
      );
      createdUser = true;
    }
    const wanted = options.token ?? (createdUser ? randomToken('glpat-') : null);
    if (!wanted) return { createdUser, token: null };
    const existing = await trx.selectFrom('access_tokens').select(['id', 'user_id']).where('token_digest', '=', digestToken(wanted)).executeTakeFirst();
    if (existing && existing.user_id !== root.id) throw new Error('the given root token belongs to another user');
    if (existing) {
      await trx.updateTable('access_tokens').set({ revoked: 0, expires_at: null }).where('id', '=', existing.id).execute();
    } else {
      await insertTokenWithValue(trx, { user_id: root.id, name: 'forgelet-root', scopes: ROOT_TOKEN_SCOPES, expires_at: null, created_at: now }, wanted);
    }
    return { createdUser, token: wanted };
  });
}
