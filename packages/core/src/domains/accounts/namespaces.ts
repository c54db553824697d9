/**
 * Namespaces (`/namespaces`): user and group namespaces as one resource, as GitLab's
 * lib/api/namespaces.rb serves them. A caller sees its own user namespace and the groups it
 * is a member of (administrators see all); details depend on ownership.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { isoDate } from '../../kernel/clock.js';
import { NotFoundError } from '../../kernel/errors.js';
import { GUEST, OWNER } from '../../access/levels.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { MAX_DB_INTEGER, p, params, type InferShape } from '../../kernel/params.js';
import { fuzzyMatch } from '../../kernel/sql-pattern.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { accessLevel, requireUser } from '../../access/policy.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { toNamespaceDetailEntity, type NamespaceDetailEntity, type NamespaceView } from './namespace.entity.js';

export const ListNamespacesInput = params({
  search: p.search().optional().describe('Namespaces whose name or path contains this.'),
  owned_only: p.boolean().optional().describe('Only namespaces the caller owns.'),
  top_level_only: p.boolean().default(false).describe('Only top-level namespaces.'),
  full_path_search: p.boolean().default(false).describe('Match `search` against full paths.'),
  requested_hosted_plan: p.string().optional().describe('Accepted for GitLab.com clients; no effect on self-managed.'),
  ...paginationParams,
});
export type ListNamespacesInput = InferShape<typeof ListNamespacesInput.shape>;

export const NamespaceExistsInput = params({
  id: p.string().describe('Path of the namespace.'),
  parent_id: p.id().optional().describe('ID of the parent namespace; omitted: top-level namespaces.'),
});
export type NamespaceExistsInput = InferShape<typeof NamespaceExistsInput.shape>;

export interface NamespaceExistenceEntity {
  exists: boolean;
  suggests: string[];
}

const NUMERIC = /^\d+$/;

function today(ctx: Ctx): string {
  return isoDate(ctx.clock.now());
}

/**
 * The counts an owner sees, for several namespaces in one query: GitLab's
 * `users_with_descendants.count` (members of a group and its subgroups) and the billable users
 * (humans with an unexpired membership in the namespace's groups or projects, and the owner of
 * a user namespace; Ultimate does not bill Guests, as GitLab's license rules).
 */
async function ownerCounts(ctx: Ctx, namespaces: readonly NamespaceRow[]): Promise<Map<number, { members: number; billable: number }>> {
  const out = new Map<number, { members: number; billable: number }>();
  if (namespaces.length === 0) return out;
  const day = today(ctx);
  const billableLevel = tierAtLeast(ctx.config.tier, 'ultimate') ? GUEST + 1 : GUEST;
  const unexpired = sql`(m.expires_at is null or m.expires_at > ${day})`;
  // Memberships on the groups under n, or on the projects in them, at `level` or above.
  const viaGroups = (level: number) =>
    sql`select m.user_id from members m join namespaces a on a.id = m.source_id
        where m.source_kind = 'namespace' and a.traversal like n.traversal || '%' and m.access_level >= ${level} and ${unexpired}`;
  const viaProjects = (level: number) =>
    sql`select m.user_id from members m join projects pr on pr.id = m.source_id join namespaces a on a.id = pr.namespace_id
        where m.source_kind = 'project' and a.traversal like n.traversal || '%' and m.access_level >= ${level} and ${unexpired}`;
  const { rows } = await sql<{ id: number; members: number | string; billable: number | string }>`
    select n.id,
      (select count(*) from (select distinct g.user_id from (${viaGroups(0)}) g) d) as members,
      (select count(*) from users u where u.bot_kind is null and (
        (n.kind = 'group' and u.id in (${viaGroups(billableLevel)}))
        or u.id in (${viaProjects(billableLevel)})
        or (n.kind = 'user' and u.id = n.owner_id))) as billable
    from namespaces n where n.id in (${sql.join(namespaces.map((ns) => ns.id))})`.execute(ctx.db);
  for (const r of rows) out.set(Number(r.id), { members: Number(r.members), billable: Number(r.billable) });
  return out;
}

/**
 * The caller's level on several groups, inherited from each one's ancestors, in one query
 * (GitLab's max_member_access_for_group).
 */
async function groupLevels(ctx: Ctx, userId: number, groups: readonly NamespaceRow[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (groups.length === 0) return out;
  const { rows } = await sql<{ id: number; level: number | string }>`
    select n.id, max(m.access_level) as level from namespaces n
    join members m on m.source_kind = 'namespace' and n.traversal like '%/' || m.source_id || '/%'
    where n.id in (${sql.join(groups.map((g) => g.id))}) and m.user_id = ${userId}
      and (m.expires_at is null or m.expires_at > ${today(ctx)})
    group by n.id`.execute(ctx.db);
  for (const r of rows) out.set(Number(r.id), Number(r.level));
  return out;
}

/** GitLab's read_namespace_via_membership: members (Guest and up, inherited) or the user namespace's owner. */
async function visibleViaMembership(ctx: Ctx, ns: NamespaceRow): Promise<boolean> {
  if (ctx.actor.isAdmin) return true;
  const user = ctx.actor.user;
  if (!user) return false;
  if (ns.kind === 'user') return ns.owner_id === user.id;
  return (await accessLevel(ctx, { kind: 'group', group: ns })) >= GUEST;
}

/** What each namespace's caller sees: ownership and, for owners, the counts (a few queries for a whole page). */
async function present(ctx: Ctx, namespaces: readonly NamespaceRow[]): Promise<NamespaceDetailEntity[]> {
  const user = ctx.actor.user;
  const levels = ctx.actor.isAdmin || !user ? new Map<number, number>() : await groupLevels(ctx, user.id, namespaces.filter((ns) => ns.kind === 'group'));
  const owns = (ns: NamespaceRow) =>
    ctx.actor.isAdmin || (user !== null && (ns.kind === 'user' ? ns.owner_id === user.id : (levels.get(ns.id) ?? 0) >= OWNER));
  const counts = await ownerCounts(ctx, namespaces.filter(owns));
  return namespaces.map((ns) => {
    const owned = counts.get(ns.id);
    const view: NamespaceView = {
      owner: owned !== undefined,
      admin: ctx.actor.isAdmin,
      membersCountWithDescendants: owned && ns.kind === 'group' ? owned.members : null,
      billableMembersCount: owned ? owned.billable : null,
    };
    return toNamespaceDetailEntity(ns, ctx.urls, view);
  });
}

/** GET /namespaces: the caller's namespace and groups it is a direct member of; administrators see all. */
export async function listNamespaces(ctx: Ctx, input: ListNamespacesInput): Promise<Page<NamespaceDetailEntity>> {
  const user = requireUser(ctx);
  let q = ctx.db.selectFrom('namespaces as n').selectAll('n');
  if (!ctx.actor.isAdmin) {
    const day = today(ctx);
    const memberOf = ctx.db
      .selectFrom('members as m')
      .select('m.source_id')
      .where('m.user_id', '=', user.id)
      .where('m.source_kind', '=', 'namespace')
      .where('m.access_level', '>=', input.owned_only ? OWNER : GUEST)
      .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', day)]));
    q = q.where((eb) =>
      eb.or([
        eb.and([eb('n.kind', '=', 'user'), eb('n.owner_id', '=', user.id)]),
        eb.and([eb('n.kind', '=', 'group'), eb('n.id', 'in', memberOf)]),
      ]),
    );
  }
  if (input.top_level_only) q = q.where('n.parent_id', 'is', null);
  if (input.search) {
    const columns = input.full_path_search ? ['n.full_path', 'n.full_name'] : ['n.path', 'n.name'];
    const matches = columns.map((c) => fuzzyMatch(c, input.search!)).filter((m): m is Expression<SqlBool> => m !== null);
    if (matches.length) q = q.where((eb) => eb.or(matches));
  }
  return paginate(ctx.db, q.orderBy('n.id', 'asc'), input, (rows) => present(ctx, rows as NamespaceRow[]));
}

async function selectNamespaceByRef(ctx: Ctx, ref: string): Promise<NamespaceRow | undefined> {
  const q = ctx.db.selectFrom('namespaces').selectAll();
  if (NUMERIC.test(ref)) return Number(ref) > MAX_DB_INTEGER ? undefined : q.where('id', '=', Number(ref)).executeTakeFirst();
  return q.where(sql`lower(full_path)`, '=', ref.toLowerCase()).executeTakeFirst();
}

/** GET /namespaces/:id (id or full path); 404 `Namespace Not Found` unless the caller belongs to it. */
export async function getNamespace(ctx: Ctx, ref: string): Promise<NamespaceDetailEntity> {
  requireUser(ctx);
  const ns = await selectNamespaceByRef(ctx, ref);
  if (!ns || !(await visibleViaMembership(ctx, ns))) throw new NotFoundError('Namespace');
  return (await present(ctx, [ns]))[0]!;
}

/** GitLab's Gitlab::Slug::Path: what a path would be once cleaned of characters paths cannot hold. */
function cleanPath(path: string): string {
  const slug = path
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-.]+/, '')
    .replace(/(\.git|\.atom)+$/i, '')
    .replace(/[.-]+$/, '');
  return slug === '' ? 'blank' : slug;
}

/**
 * GET /namespaces/:id/exists: whether a path is taken among the parent's children (or the
 * top-level namespaces); when taken, the path with the first free number appended.
 */
export async function namespaceExists(ctx: Ctx, input: NamespaceExistsInput): Promise<NamespaceExistenceEntity> {
  requireUser(ctx);
  const siblings = () => {
    const q = ctx.db.selectFrom('namespaces').select('id');
    return input.parent_id === undefined ? q.where('parent_id', 'is', null) : q.where('parent_id', '=', input.parent_id);
  };
  const taken = await siblings().where(sql`lower(path)`, '=', input.id.toLowerCase()).executeTakeFirst();
  if (!taken) return { exists: false, suggests: [] };
  const base = cleanPath(input.id);
  // Numbered candidates read in one query: the first one neither a path nor a name there.
  const candidates = Array.from({ length: 50 }, (_, i) => (i === 0 ? base : `${base}${i}`).toLowerCase());
  const used = await ctx.db
    .selectFrom('namespaces')
    .select(['path', 'name'])
    .where((eb) => (input.parent_id === undefined ? eb('parent_id', 'is', null) : eb('parent_id', '=', input.parent_id!)))
    .where((eb) => eb.or([eb(sql`lower(path)`, 'in', candidates), eb(sql`lower(name)`, 'in', candidates)]))
    .execute();
  const usedSet = new Set(used.flatMap((r) => [r.path.toLowerCase(), r.name.toLowerCase()]));
  let n = 0;
  while (n < candidates.length && usedSet.has(candidates[n]!)) n++;
  const suggestion = n < candidates.length ? (n === 0 ? base : `${base}${n}`) : `${base}${ctx.clock.now().getTime() % 100000}`;
  return { exists: true, suggests: [suggestion] };
}
