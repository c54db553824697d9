/**
 * GET /projects/:id/users (GitLab's `get ':id/users'` in lib/api/projects.rb): the users with
 * access to the project (`project.team.users`: its members and the members of its ancestor
 * groups, Guest and up, memberships not expired), as basic users, paginated in the database.
 */
import { sql, type SqlBool } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { GUEST } from '../../access/levels.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { traversalIds } from '../../access/policy.js';
import { fuzzyMatch } from '../../kernel/sql-pattern.js';
import { findProject, selectNamespaceById } from '../../access/lookup.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';

export const ListProjectUsersInput = params({
  id: p.string(),
  search: p.search().optional().describe('Name or username (fuzzy), or the exact public email.'),
  skip_users: p.array(p.integer()).commaSeparated().optional().describe('Ids of users to leave out.'),
  ...paginationParams,
});
export type ListProjectUsersInput = InferShape<typeof ListProjectUsersInput.shape>;

/**
 * With `search`, GitLab's `User.search` order comes first (exact public email, username, name,
 * then the rest by name), then the user id.
 */
export async function listProjectUsers(ctx: Ctx, input: ListProjectUsersInput): Promise<Page<UserBasicEntity>> {
  const project = await findProject(ctx, input.id);
  const ns = await selectNamespaceById(ctx, project.namespace_id);
  const groups = ns.kind === 'group' ? traversalIds(ns.traversal) : [];
  const today = ctx.clock.now().toISOString().slice(0, 10);
  let q = ctx.db
    .selectFrom('users as u')
    .selectAll('u')
    .where('u.id', 'in', (eb) =>
      eb
        .selectFrom('members as m')
        .select('m.user_id')
        .where((w) => {
          const sources = [w.and([w('m.source_kind', '=', 'project'), w('m.source_id', '=', project.id)])];
          if (groups.length) sources.push(w.and([w('m.source_kind', '=', 'namespace'), w('m.source_id', 'in', groups)]));
          return w.or(sources);
        })
        .where('m.access_level', '>=', GUEST)
        .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)])),
    );
  if (input.skip_users?.length) q = q.where('u.id', 'not in', input.skip_users);
  if (input.search?.trim()) {
    // `User.search`: a leading @ is dropped; nothing is left, nothing matches.
    const query = input.search.trim().replace(/^@/, '').toLowerCase();
    if (!query) q = q.where(sql<SqlBool>`1 = 0`);
    else {
      q = q
        .where((eb) => eb.or([eb(sql`lower(u.public_email)`, '=', query), fuzzyMatch('u.name', query)!, fuzzyMatch('u.username', query)!]))
        .orderBy(sql`case when lower(u.public_email) = ${query} then 0 when lower(u.username) = ${query} then 1 when lower(u.name) = ${query} then 2 else 3 end`)
        .orderBy('u.name');
    }
  }
  q = q.orderBy('u.id', 'asc');
  return paginate(ctx.db, q, input, (rows) => rows.map((u) => toUserBasicEntity(u, ctx.urls)));
}
