/** Turns epic rows into entities with a fixed number of queries. */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import { selectLabelsOfTargets } from '../labels/index.js';
import { epicDatesOf } from './epic-dates.js';
import { toEpicEntity, type EpicEntity } from './epic.entity.js';
import type { EpicRow } from './epic.table.js';

export async function presentEpics(ctx: Ctx, rows: EpicRow[], requestGroup: NamespaceRow): Promise<EpicEntity[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const parentIds = [...new Set(rows.flatMap((r) => (r.parent_id === null ? [] : [r.parent_id])))];
  const [labels, parents, dates] = await Promise.all([
    selectLabelsOfTargets(ctx.db, 'Epic', ids),
    parentIds.length ? ctx.db.selectFrom('epics').select(['id', 'iid', 'group_id']).where('id', 'in', parentIds).execute() : [],
    epicDatesOf(ctx.db, rows),
  ]);
  const groupIds = [...new Set(rows.map((r) => r.group_id))];
  const authorIds = [...new Set(rows.map((r) => r.author_id))];
  const [groups, users] = await Promise.all([
    ctx.db.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).execute(),
    selectUsersByIds(ctx.db, authorIds),
  ]);
  const groupById = new Map(groups.map((g) => [g.id, g]));
  const userById = new Map(users.map((u) => [u.id, u]));
  const parentById = new Map(parents.map((p) => [p.id, p]));
  const author = (id: number): UserBasicEntity => {
    const u = userById.get(id);
    return u
      ? toUserBasicEntity(u, ctx.urls)
      : { id, username: 'ghost', name: 'Ghost User', state: 'active', locked: false, avatar_url: null, web_url: ctx.urls.web('/ghost') };
  };
  return rows.map((row) =>
    toEpicEntity(
      row,
      {
        group: groupById.get(row.group_id)!,
        author: author(row.author_id),
        parent: row.parent_id === null ? null : parentById.get(row.parent_id) ?? null,
        labels: (labels.get(row.id) ?? []).map((l) => l.title),
        requestGroup,
        dates: dates.get(row.id)!,
      },
      ctx.urls,
    ),
  );
}

export async function presentEpic(ctx: Ctx, row: EpicRow, requestGroup: NamespaceRow): Promise<EpicEntity> {
  return (await presentEpics(ctx, [row], requestGroup))[0]!;
}
