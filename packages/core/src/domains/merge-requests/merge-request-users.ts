/** Assignees and reviewers: who may be named, and how many. */
import { sql } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { namespaceOf, traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { ProjectRow } from '../../access/project.table.js';

/**
 * The users of `ids` that may be assigned to (or review) a merge request of the project:
 * existing users who can read its merge requests. As GitLab does, others are dropped
 * silently, `0` means nobody, and below Premium only the first one is kept.
 */
export async function eligibleUserIds(ctx: Ctx, project: ProjectRow, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return [];
  const ns = await namespaceOf(ctx, project.namespace_id);
  const groupIds = ns.kind === 'group' ? traversalIds(ns.traversal) : [];
  const today = isoDate(ctx.clock.now());
  const rows = await ctx.db
    .selectFrom('users as u')
    .select('u.id')
    .where('u.id', 'in', wanted)
    .where((eb) => {
      if (project.visibility === 'public') return sql<boolean>`1 = 1`;
      const member = eb.exists(
        eb
          .selectFrom('members as m')
          .select(sql`1`.as('one'))
          .whereRef('m.user_id', '=', 'u.id')
          .where('m.access_level', '>=', REPORTER)
          .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)]))
          .where((w) =>
            w.or([
              w.and([w('m.source_kind', '=', 'project'), w('m.source_id', '=', project.id)]),
              ...(groupIds.length ? [w.and([w('m.source_kind', '=', 'namespace'), w('m.source_id', 'in', groupIds)])] : []),
            ]),
          ),
      );
      const ors = [eb('u.is_admin', '=', 1), member];
      if (ns.kind === 'user' && ns.owner_id) ors.push(eb('u.id', '=', ns.owner_id));
      if (project.visibility === 'internal') ors.push(eb('u.external', '=', 0));
      return eb.or(ors);
    })
    .execute();
  const found = new Set(rows.map((r) => r.id));
  const eligible = wanted.filter((id) => found.has(id));
  return tierAtLeast(ctx.config.tier, 'premium') ? eligible : eligible.slice(0, 1);
}
