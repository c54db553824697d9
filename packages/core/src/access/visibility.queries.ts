/**
 * SQL filters for "what may this actor list": used by every list of projects and groups so
 * that visibility is decided in the database, page by page, never in memory.
 */
import { sql, type ExpressionBuilder, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Actor } from './context.js';
import type { Database } from '../storage/database.js';
import { preparedQuery } from '../storage/prepared.js';

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

/**
 * The namespaces a user's group memberships reach, read once per list instead of once per
 * row: `ns.traversal like '<t>%'` against a few constants is cheap for each project scanned,
 * where the correlated `exists` over members and namespaces cost ~1 µs a row (a 10,000-project
 * group listed by a member: 8 ms of SQL a page, 1.5 ms with these).
 */
export interface MembershipScope {
  userId: number;
  /** Traversals of the namespaces the user is a member of (at the level asked for, unexpired). */
  traversals: string[];
}

/** Above this many namespace memberships the filter keeps the correlated subquery. */
const MAX_SCOPE_TRAVERSALS = 100;
/** Traversals are `/<id>/<id>/`: nothing LIKE would read as a wildcard. */
const TRAVERSAL = /^\/(\d+\/)*$/;

const selectMemberTraversals = preparedQuery(
  (db: Kysely<Database>, userId: number, level: number, today: string) =>
    db
      .selectFrom('members as m')
      .innerJoin('namespaces as a', 'a.id', 'm.source_id')
      .select('a.traversal')
      .where('m.user_id', '=', userId)
      .where('m.source_kind', '=', 'namespace')
      .where('m.access_level', '>=', level)
      .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)])),
  { cache: true },
);

/** The user's membership scope for project lists (at `minLevel`, Guest at least); undefined when not worth it. */
export async function projectMembershipScope(db: Kysely<any>, userId: number, today: string, minLevel = 0): Promise<MembershipScope | undefined> {
  const rows = await selectMemberTraversals(db, userId, Math.max(minLevel, 10), today);
  if (rows.length > MAX_SCOPE_TRAVERSALS || !rows.every((r) => TRAVERSAL.test(r.traversal))) return undefined;
  return { userId, traversals: rows.map((r) => r.traversal) };
}

/**
 * Projects `pr` (namespace joined as `ns`) the user is a member of, directly or through a group.
 * With a `scope` (projectMembershipScope, same user, level and day) the group part compares
 * against its traversals instead of a subquery per row.
 */
export function projectMembershipFilter(eb: ProjEB, userId: number, today: string, minLevel = 0, scope?: MembershipScope): Expression<SqlBool> {
  const level = Math.max(minLevel, 10);
  const ors: Expression<SqlBool>[] = [
    // not correlated: the user's project memberships are read once for the whole query
    eb(
      'pr.id',
      'in',
      eb
        .selectFrom('members as m')
        .select('m.source_id')
        .where('m.user_id', '=', userId)
        .where('m.source_kind', '=', 'project')
        .where('m.access_level', '>=', level)
        .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)])),
    ),
  ];
  if (scope) {
    for (const traversal of scope.traversals) ors.push(eb('ns.traversal', 'like', `${traversal}%`));
  } else {
    ors.push(
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
    );
  }
  ors.push(eb.and([eb('ns.kind', '=', 'user'), eb('ns.owner_id', '=', userId)]));
  return eb.or(ors);
}

/** Projects `pr` (namespace joined as `ns`) the actor may see; `scope`: see projectMembershipScope (Guest level). */
export function visibleProjectsFilter(eb: ProjEB, actor: Actor, today: string, scope?: MembershipScope): Expression<SqlBool> {
  if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
  if (!actor.user) return eb('pr.visibility', '=', 'public');
  const open = actor.user.external ? ['public'] : ['public', 'internal'];
  return eb.or([eb('pr.visibility', 'in', open), projectMembershipFilter(eb, actor.user.id, today, 0, scope?.userId === actor.user.id ? scope : undefined)]);
}
