/**
 * SQL filters for "what may this actor list": used by every list of projects and groups so
 * that visibility is decided in the database, page by page, never in memory.
 */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Actor } from '../../kernel/context.js';
import type { Database } from '../../storage/database.js';

type NsEB = ExpressionBuilder<Database & { g: Database['namespaces'] }, 'g'>;

/**
 * Groups `g` the user belongs to directly or through an ancestor, at `minLevel` or above.
 * `today` (YYYY-MM-DD, from the injected clock): memberships expiring on or before it don't count.
 */
export function groupMembershipFilter(eb: NsEB, userId: number, today: string, minLevel = 0): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('members as m')
      .innerJoin('namespaces as a', 'a.id', 'm.source_id')
      .select(sql`1`.as('one'))
      .where('m.user_id', '=', userId)
      .where('m.source_kind', '=', 'namespace')
      .where('m.access_level', '>=', Math.max(minLevel, 5))
      .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)]))
      .where(sql<boolean>`g.traversal like a.traversal || '%'`),
  );
}

/** Groups `g` the actor may see (`g` must be the alias of namespaces in the query). */
export function visibleGroupsFilter(eb: NsEB, actor: Actor, today: string): Expression<SqlBool> {
  if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
  if (!actor.user) return eb('g.visibility', '=', 'public');
  const open = actor.user.external ? ['public'] : ['public', 'internal'];
  return eb.or([eb('g.visibility', 'in', open), groupMembershipFilter(eb, actor.user.id, today)]);
}

type ProjEB = ExpressionBuilder<Database & { pr: Database['projects']; ns: Database['namespaces'] }, 'pr' | 'ns'>;

/** Projects `pr` (namespace joined as `ns`) the user is a member of, directly or through a group. */
export function projectMembershipFilter(eb: ProjEB, userId: number, today: string, minLevel = 0): Expression<SqlBool> {
  const level = Math.max(minLevel, 10);
  const ors: Expression<SqlBool>[] = [
    eb.exists(
      eb
        .selectFrom('members as m')
        .select(sql`1`.as('one'))
        .where('m.user_id', '=', userId)
        .where('m.source_kind', '=', 'project')
        .where('m.access_level', '>=', level)
        .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)]))
        .where(sql<boolean>`m.source_id = pr.id`),
    ),
    eb.exists(
      eb
        .selectFrom('members as m')
        .innerJoin('namespaces as a', 'a.id', 'm.source_id')
        .select(sql`1`.as('one'))
        .where('m.user_id', '=', userId)
        .where('m.source_kind', '=', 'namespace')
        .where('m.access_level', '>=', level)
        .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)]))
        .where(sql<boolean>`ns.traversal like a.traversal || '%'`),
    ),
  ];
  ors.push(eb.and([eb('ns.kind', '=', 'user'), eb('ns.owner_id', '=', userId)]));
  return eb.or(ors);
}

export function visibleProjectsFilter(eb: ProjEB, actor: Actor, today: string): Expression<SqlBool> {
  if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
  if (!actor.user) return eb('pr.visibility', '=', 'public');
  const open = actor.user.external ? ['public'] : ['public', 'internal'];
  return eb.or([eb('pr.visibility', 'in', open), projectMembershipFilter(eb, actor.user.id, today)]);
}
