import { sql } from 'kysely';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { traversalIds } from '../../access/policy.js';
import { visibleGroupsFilter } from '../../access/visibility.queries.js';
import { findIterationGroup } from './iteration-access.js';
import { toIterationEntity, type IterationEntity } from './iteration.entity.js';
import type { ListGroupIterationsInput } from './iteration.schema.js';

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * GET /groups/:id/iterations (Premium and Ultimate). The group's iterations, with its
 * ancestors' (`include_ancestors`, default true) and its readable descendants'
 * (`include_descendants`); `state` is computed from the dates and the clock (`opened` =
 * upcoming + current, `started` = current); `search` matches the iteration title and/or
 * the cadence title (`in`) case-insensitively. Ordered by due date, title, id.
 */
export async function listGroupIterations(ctx: Ctx, input: ListGroupIterationsInput): Promise<Page<IterationEntity>> {
  const group = await findIterationGroup(ctx, input.id, 'read_iteration');
  const today = isoDate(ctx.clock.now());
  let q = ctx.db
    .selectFrom('iterations as it')
    .innerJoin('namespaces as g', 'g.id', 'it.group_id')
    .innerJoin('iteration_cadences as c', 'c.id', 'it.iteration_cadence_id')
    .selectAll('it')
    .select('g.full_path as group_full_path');
  const ancestors = input.include_ancestors ? traversalIds(group.traversal) : [group.id];
  q = q.where((eb) => {
    const scopes = [eb('it.group_id', 'in', ancestors)];
    if (input.include_descendants) {
      scopes.push(eb.and([eb('g.traversal', 'like', `${group.traversal}%`), visibleGroupsFilter(eb as never, ctx.actor, today)]));
    }
    return eb.or(scopes);
  });
  switch (input.state) {
    case 'upcoming':
      q = q.where('it.start_date', '>', today);
      break;
    case 'current':
    case 'started':
      q = q.where('it.start_date', '<=', today).where('it.due_date', '>=', today);
      break;
    case 'opened':
      q = q.where('it.due_date', '>=', today);
      break;
    case 'closed':
      q = q.where('it.due_date', '<', today);
      break;
  }
  if (input.search !== undefined && input.search !== '') {
    const like = likePattern(input.search);
    const fields = [...new Set(input.in)].map((f) => (f === 'title' ? 'it.title' : 'c.title'));
    q = q.where((eb) => eb.or(fields.map((f) => eb(sql`lower(${sql.ref(f)})`, 'like', sql`${like} escape '\\'`))));
  }
  if (input.updated_before) q = q.where('it.updated_at', '<', input.updated_before.toISOString());
  if (input.updated_after) q = q.where('it.updated_at', '>', input.updated_after.toISOString());
  q = q
    .orderBy('it.due_date')
    .orderBy('it.title', (ob) => ob.asc().nullsLast())
    .orderBy('it.id');
  return paginate(ctx.db, q, input, (rows) => rows.map(({ group_full_path, ...row }) => toIterationEntity(row, group_full_path, today, ctx.urls)));
}
