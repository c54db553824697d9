/**
 * Writing one imported record per relation (the record shapes Forgelet's exports produce): users
 * mapped by email, iids kept, labels, emoji, notes and state events carried along.
 */
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../kernel/context.js';
import type { Database } from '../../storage/database.js';
import type { UserRow } from '../accounts/user.table.js';
import type { BulkImportEntityRow } from './bulk-import.table.js';
import { importPackage, importRepositoryRecord } from './import-code.js';

/** Source authors map to destination users by email; otherwise to the importing user. */
export class UserMapper {
  private cache = new Map<string, UserRow | null>();
  constructor(private readonly db: Kysely<Database>, readonly importer: UserRow, readonly secrets: Deps['secrets']) {}

  async map(trx: Kysely<Database>, author: { email?: string | null } | null | undefined): Promise<UserRow | null> {
    const email = author?.email?.toLowerCase();
    if (!email) return null;
    if (!this.cache.has(email)) {
      const u = await trx
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or([eb(sql`lower(email)`, '=', email), eb(sql`lower(public_email)`, '=', email)]))
        .executeTakeFirst();
      this.cache.set(email, u ?? null);
    }
    return this.cache.get(email) ?? null;
  }
}

/** GitLab's note for contributions whose author has no destination account. */
export function missingAuthorNote(name: string, at: string): string {
  return `\n\n *By ${name} on ${at.split('.')[0]} (imported from GitLab)*`;
}

async function bumpIid(trx: Kysely<Database>, usage: string, scope: string, value: number): Promise<void> {
  await sql`insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, ${value})
    on conflict (usage, scope) do update set last_value = case when internal_ids.last_value < excluded.last_value then excluded.last_value else internal_ids.last_value end`.execute(trx);
}

async function freeIid(trx: Kysely<Database>, table: 'issues' | 'milestones', col: 'project_id' | 'group_id', ownerId: number, wanted: unknown, usage: string, scope: string): Promise<number> {
  const iid = typeof wanted === 'number' && wanted > 0 ? wanted : null;
  if (iid !== null) {
    const taken = await trx.selectFrom(table).select('id').where(col, '=', ownerId).where('iid', '=', iid).executeTakeFirst();
    if (!taken) {
      await bumpIid(trx, usage, scope, iid);
      return iid;
    }
  }
  const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, 1)
    on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
  return Number(row.rows[0]!.last_value);
}

export const str = (v: unknown, fallback: string | null = null) => (typeof v === 'string' ? v : fallback);

export async function importRecord(trx: Kysely<Database>, entity: BulkImportEntityRow, relation: string, r: any, users: UserMapper, now: string, blobs: Deps['blobs']): Promise<number | null> {
  const owner = entity.entity_type === 'group' ? { col: 'group_id' as const, id: entity.namespace_id! } : { col: 'project_id' as const, id: entity.project_id! };
  const scope = entity.entity_type === 'group' ? `group:${owner.id}` : `project:${owner.id}`;
  if (relation === 'labels') {
    const title = str(r.title, '')!;
    const existing = await trx.selectFrom('labels').select('id').where(owner.col, '=', owner.id).where('title', '=', title).executeTakeFirst();
    if (existing) return existing.id;
    const row = await trx
      .insertInto('labels')
      .values({
        project_id: owner.col === 'project_id' ? owner.id : null,
        group_id: owner.col === 'group_id' ? owner.id : null,
        title,
        color: str(r.color, '#428BCA')!,
        description: str(r.description),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  if (relation === 'milestones') {
    const title = str(r.title, '')!;
    const existing = await trx.selectFrom('milestones').select('id').where(owner.col, '=', owner.id).where('title', '=', title).executeTakeFirst();
    if (existing) return existing.id;
    const iid = await freeIid(trx, 'milestones', owner.col, owner.id, r.iid, 'milestones', scope);
    const row = await trx
      .insertInto('milestones')
      .values({
        project_id: owner.col === 'project_id' ? owner.id : null,
        group_id: owner.col === 'group_id' ? owner.id : null,
        iid,
        title,
        description: str(r.description),
        state: r.state === 'closed' ? 'closed' : 'active',
        start_date: str(r.start_date),
        due_date: str(r.due_date),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  if (relation === 'issues') return importIssue(trx, entity, r, users, now);
  if (relation === 'epics') return importEpic(trx, entity, r, users, now);
  if (relation === 'members') return importMember(trx, entity, r, users, now);
  if (relation === 'releases') return importRelease(trx, entity, r, users, now);
  if (relation === 'packages') return importPackage(trx, entity, r, blobs, now);
  if (relation === 'merge_requests') return importMergeRequest(trx, entity, r, users, now);
  if (relation === 'repository') return importRepositoryRecord(trx, entity, r, users, now);
  if (relation === 'snippets') return importSnippet(trx, entity, r, users, now);
  if (relation === 'protected_branches') return importProtectedBranch(trx, entity, r, users, now);
  if (relation === 'iterations_cadences') return importCadence(trx, entity, r, now);
  if (relation === 'pipeline_schedules') return importSchedule(trx, entity, r, users, now);
  throw new Error(`unknown relation ${relation}`);
}

/** Group ids from the project's namespace up to the root (milestones and labels resolve there too). */
async function ancestorGroupIds(trx: Kysely<Database>, projectId: number): Promise<number[]> {
  const row = await trx.selectFrom('projects as p').innerJoin('namespaces as n', 'n.id', 'p.namespace_id').select(['n.traversal', 'n.kind']).where('p.id', '=', projectId).executeTakeFirstOrThrow();
  if (row.kind !== 'group') return [];
  return row.traversal.split('/').filter(Boolean).map(Number);
}

/**
 * What an imported issue and merge request share: the project's groups, the mapped author
 * (with GitLab's note when there is none), and the milestone by title in the project or its groups.
 */
async function issuableBasics(trx: Kysely<Database>, projectId: number, r: any, users: UserMapper, now: string) {
  const groups = await ancestorGroupIds(trx, projectId);
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  let milestoneId: number | null = null;
  if (r.milestone?.title) {
    const m = await trx
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', r.milestone.title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    milestoneId = m?.id ?? null;
  }
  return { groups, author, description, milestoneId };
}

async function importIssue(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const { groups, author, description, milestoneId } = await issuableBasics(trx, projectId, r, users, now);
  const authorId = author?.id ?? users.importer.id;
  const closedBy = r.closed_by ? await users.map(trx, r.closed_by) : null;
  const iid = await freeIid(trx, 'issues', 'project_id', projectId, r.iid, 'issues', `project:${projectId}`);
  const issue = await trx
    .insertInto('issues')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description,
      state: r.state === 'closed' ? 'closed' : 'opened',
      issue_type: typeof r.issue_type === 'string' ? r.issue_type : 'issue',
      confidential: r.confidential ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      author_id: authorId,
      milestone_id: milestoneId,
      due_date: str(r.due_date),
      weight: typeof r.weight === 'number' ? r.weight : null,
      closed_at: r.state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: r.state === 'closed' ? (closedBy?.id ?? (r.closed_by ? users.importer.id : null)) : null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Labels: by title in the project or its groups; a missing one is created in the project.
  const titles = [...new Set(((r.label_links ?? []) as any[]).map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))];
  for (const title of titles) {
    let label = await trx
      .selectFrom('labels')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (!label) {
      const src = (r.label_links as any[]).find((l) => l?.label?.title === title)!.label;
      label = await trx
        .insertInto('labels')
        .values({ project_id: projectId, group_id: null, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Issue', target_id: issue.id, created_at: now }).execute();
  }
  const assigneeIds: number[] = [];
  for (const a of (r.assignees ?? []) as any[]) {
    const u = await users.map(trx, a);
    if (u && !assigneeIds.includes(u.id)) assigneeIds.push(u.id);
  }
  if (assigneeIds.length) await trx.insertInto('issue_assignees').values(assigneeIds.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
  await importEmoji(trx, 'Issue', issue.id, r.award_emoji, users, now);
  for (const e of (r.resource_state_events ?? []) as any[]) {
    if (!['opened', 'closed', 'reopened', 'locked'].includes(e?.state)) continue;
    const u = e.user ? await users.map(trx, e.user) : null;
    await trx
      .insertInto('resource_state_events')
      .values({ user_id: u?.id ?? users.importer.id, issue_id: issue.id, merge_request_id: null, epic_id: null, state: e.state, source_commit: null, source_merge_request_id: null, created_at: str(e.created_at, now)! })
      .execute();
  }
  for (const n of (r.notes ?? []) as any[]) {
    const na = await users.map(trx, n.author);
    let body = str(n.note, '')!;
    if (!na && n.author?.name) body = `${body}${missingAuthorNote(n.author.name, str(n.created_at, now)!)}`;
    const note = await trx
      .insertInto('notes')
      .values({
        project_id: projectId,
        noteable_type: 'Issue',
        noteable_id: issue.id,
        body,
        author_id: na?.id ?? users.importer.id,
        system: n.system ? 1 : 0,
        internal: n.internal ? 1 : 0,
        created_at: str(n.created_at, now)!,
        updated_at: str(n.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await importEmoji(trx, 'Note', note.id, n.award_emoji, users, now);
  }
  return issue.id;
}

/** Members: only users found by email are added (as GitLab does); the importer keeps Owner. */
async function importMember(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number | null> {
  const user = await users.map(trx, r.user);
  if (!user) return null;
  const source = entity.entity_type === 'group' ? { kind: 'namespace' as const, id: entity.namespace_id! } : { kind: 'project' as const, id: entity.project_id! };
  const existing = await trx.selectFrom('members').select(['id', 'access_level']).where('source_kind', '=', source.kind).where('source_id', '=', source.id).where('user_id', '=', user.id).executeTakeFirst();
  if (existing) return existing.id;
  const level = typeof r.access_level === 'number' ? r.access_level : 10;
  const row = await trx
    .insertInto('members')
    .values({
      source_kind: source.kind,
      source_id: source.id,
      user_id: user.id,
      access_level: entity.entity_type === 'project' ? Math.min(level, 50) : level,
      expires_at: str(r.expires_at),
      member_role_id: null,
      created_by_id: users.importer.id,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The destination id of a source epic: this entity's, or the one of the entity that imported its group. */
async function mappedEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, parent: { id: number; group_full_path?: string }): Promise<number | null> {
  let entityId = entity.id;
  if (parent.group_full_path && parent.group_full_path !== entity.source_full_path) {
    const other = await trx
      .selectFrom('bulk_import_entities')
      .select('id')
      .where('bulk_import_id', '=', entity.bulk_import_id)
      .where('entity_type', '=', 'group')
      .where('source_full_path', '=', parent.group_full_path)
      .executeTakeFirst();
    if (!other) return null;
    entityId = other.id;
  }
  const row = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', entityId).where('relation', '=', 'epics').where('source_id', '=', String(parent.id)).executeTakeFirst();
  return row && row.destination_id > 0 ? row.destination_id : null;
}

async function importEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const groupId = entity.namespace_id!;
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  const taken = typeof r.iid === 'number' ? await trx.selectFrom('epics').select('id').where('group_id', '=', groupId).where('iid', '=', r.iid).executeTakeFirst() : undefined;
  let iid: number;
  if (typeof r.iid === 'number' && !taken) {
    iid = r.iid;
    await bumpIid(trx, 'epics', `group:${groupId}`, iid);
  } else {
    const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'epics'}, ${`group:${groupId}`}, 1)
      on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
    iid = Number(row.rows[0]!.last_value);
  }
  const parentId = r.parent ? await mappedEpic(trx, entity, r.parent) : null;
  const epic = await trx
    .insertInto('epics')
    .values({
      group_id: groupId,
      iid,
      title: str(r.title, '')!,
      description,
      state: r.state === 'closed' ? 'closed' : 'opened',
      author_id: author?.id ?? users.importer.id,
      parent_id: parentId,
      relative_position: typeof r.relative_position === 'number' ? r.relative_position : null,
      confidential: r.confidential ? 1 : 0,
      start_date_fixed: str(r.start_date_fixed),
      start_date_is_fixed: r.start_date_is_fixed ? 1 : 0,
      due_date_fixed: str(r.due_date_fixed),
      due_date_is_fixed: r.due_date_is_fixed ? 1 : 0,
      ...(typeof r.color === 'string' ? { color: r.color } : {}),
      closed_at: r.state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const ancestors = (await trx.selectFrom('namespaces').select('traversal').where('id', '=', groupId).executeTakeFirstOrThrow()).traversal.split('/').filter(Boolean).map(Number);
  for (const title of [...new Set(((r.label_links ?? []) as any[]).map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))]) {
    let label = await trx.selectFrom('labels').select('id').where('title', '=', title).where('group_id', 'in', ancestors).executeTakeFirst();
    if (!label) {
      const src = (r.label_links as any[]).find((l) => l?.label?.title === title)!.label;
      label = await trx.insertInto('labels').values({ project_id: null, group_id: groupId, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Epic', target_id: epic.id, created_at: now }).execute();
  }
  return epic.id;
}

/** Reactions of mapped users only (a reaction is one user's; GitLab drops the others too). */
async function importEmoji(trx: Kysely<Database>, type: 'Issue' | 'Note' | 'MergeRequest', id: number, list: unknown, users: UserMapper, now: string): Promise<void> {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  for (const e of list as any[]) {
    if (typeof e?.name !== 'string') continue;
    const u = await users.map(trx, e.user);
    if (!u || seen.has(`${u.id}:${e.name}`)) continue;
    seen.add(`${u.id}:${e.name}`);
    await trx.insertInto('award_emoji').values({ name: e.name, user_id: u.id, awardable_type: type, awardable_id: id, created_at: str(e.created_at, now)!, updated_at: str(e.updated_at, now)! }).execute();
  }
}

async function importRelease(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const tag = str(r.tag, '')!;
  const existing = await trx.selectFrom('releases').select('id').where('project_id', '=', projectId).where('tag_name', '=', tag).executeTakeFirst();
  if (existing) return existing.id;
  const author = r.author ? await users.map(trx, r.author) : null;
  const release = await trx
    .insertInto('releases')
    .values({
      project_id: projectId,
      tag_name: tag,
      name: str(r.name, tag)!,
      description: str(r.description),
      author_id: author?.id ?? users.importer.id,
      sha: str(r.sha, '')!,
      released_at: str(r.released_at, now)!,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const l of (r.links ?? []) as any[]) {
    if (typeof l?.name !== 'string' || typeof l?.url !== 'string') continue;
    await trx
      .insertInto('release_links')
      .values({ release_id: release.id, name: l.name, url: l.url, filepath: str(l.filepath), link_type: str(l.link_type, 'other')!, created_at: str(l.created_at, now)!, updated_at: str(l.updated_at, now)! })
      .execute();
  }
  const groups = await ancestorGroupIds(trx, projectId);
  for (const title of (r.milestone_titles ?? []) as unknown[]) {
    if (typeof title !== 'string') continue;
    const m = await trx
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (m) await trx.insertInto('release_milestones').values({ release_id: release.id, milestone_id: m.id }).execute();
  }
  return release.id;
}

/** Schedules arrive inactive (as GitLab imports them): owned by the mapped user or the importer. */
async function importSchedule(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const owner = r.owner ? await users.map(trx, r.owner) : null;
  const schedule = await trx
    .insertInto('ci_pipeline_schedules')
    .values({
      project_id: entity.project_id!,
      description: str(r.description, '')!,
      ref: str(r.ref, '')!,
      cron: str(r.cron, '0 0 * * *')!,
      cron_timezone: str(r.cron_timezone, 'UTC')!,
      next_run_at: null,
      active: 0,
      owner_id: owner?.id ?? users.importer.id,
      last_error: null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const v of (r.variables ?? []) as any[]) {
    if (typeof v?.key !== 'string') continue;
    await trx
      .insertInto('ci_pipeline_schedule_variables')
      .values({
        pipeline_schedule_id: schedule.id,
        key: v.key,
        value_encrypted: users.secrets.encrypt(String(v.value ?? '')),
        variable_type: v.variable_type === 'file' ? 'file' : 'env_var',
        raw: v.raw ? 1 : 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  return schedule.id;
}

async function importSnippet(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const author = await users.map(trx, r.author);
  let description: string | null = str(r.description);
  if (!author && r.author?.name) description = `${description ?? ''}${missingAuthorNote(r.author.name, str(r.created_at, now)!)}`;
  const row = await trx
    .insertInto('snippets')
    .values({
      project_id: entity.project_id!,
      title: str(r.title, '')!,
      description,
      file_name: str(r.file_name, '')!,
      content: str(r.content, '')!,
      visibility: ['private', 'internal', 'public'].includes(r.visibility) ? r.visibility : 'private',
      author_id: author?.id ?? users.importer.id,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A protection with its role levels (and mapped users); an existing one of that name takes the source's levels. */
async function importProtectedBranch(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const name = str(r.name, '')!;
  let pb = await trx.selectFrom('protected_branches').select('id').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
  if (pb) {
    await trx.updateTable('protected_branches').set({ allow_force_push: r.allow_force_push ? 1 : 0, code_owner_approval_required: r.code_owner_approval_required ? 1 : 0, updated_at: now }).where('id', '=', pb.id).execute();
    await trx.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', pb.id).execute();
  } else {
    pb = await trx
      .insertInto('protected_branches')
      .values({ project_id: projectId, name, allow_force_push: r.allow_force_push ? 1 : 0, code_owner_approval_required: r.code_owner_approval_required ? 1 : 0, created_at: str(r.created_at, now)!, updated_at: str(r.updated_at, now)! })
      .returning('id')
      .executeTakeFirstOrThrow();
  }
  for (const l of (r.access_levels ?? []) as any[]) {
    if (!['push', 'merge', 'unprotect'].includes(l?.action)) continue;
    if (l.user) {
      const u = await users.map(trx, l.user);
      if (!u) continue;
      await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action: l.action, access_level: null, user_id: u.id, group_id: null }).execute();
    } else if (typeof l.access_level === 'number') {
      await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action: l.action, access_level: l.access_level, user_id: null, group_id: null }).execute();
    }
  }
  return pb.id;
}

/** A cadence with its iterations (iids kept). Scheduling of automatic cadences resumes when the cadence is next saved. */
async function importCadence(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, now: string): Promise<number> {
  const groupId = entity.namespace_id!;
  const cadence = await trx
    .insertInto('iteration_cadences')
    .values({
      group_id: groupId,
      title: str(r.title, '')!,
      description: str(r.description),
      start_date: str(r.start_date, now.slice(0, 10))!,
      duration_in_weeks: typeof r.duration_in_weeks === 'number' ? r.duration_in_weeks : null,
      iterations_in_advance: typeof r.iterations_in_advance === 'number' ? r.iterations_in_advance : null,
      automatic: r.automatic ? 1 : 0,
      active: r.active === false ? 0 : 1,
      roll_over: r.roll_over ? 1 : 0,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const i of (r.iterations ?? []) as any[]) {
    const taken = typeof i.iid === 'number' ? await trx.selectFrom('iterations').select('id').where('group_id', '=', groupId).where('iid', '=', i.iid).executeTakeFirst() : undefined;
    let iid: number;
    if (typeof i.iid === 'number' && !taken) {
      iid = i.iid;
      await bumpIid(trx, 'iterations', `group:${groupId}`, iid);
    } else {
      const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'iterations'}, ${`group:${groupId}`}, 1)
        on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
      iid = Number(row.rows[0]!.last_value);
    }
    await trx
      .insertInto('iterations')
      .values({
        group_id: groupId,
        iteration_cadence_id: cadence.id,
        iid,
        sequence: typeof i.sequence === 'number' ? i.sequence : 1,
        title: str(i.title),
        description: str(i.description),
        start_date: str(i.start_date, now.slice(0, 10))!,
        due_date: str(i.due_date, now.slice(0, 10))!,
        created_at: str(i.created_at, now)!,
        updated_at: str(i.updated_at, now)!,
      })
      .execute();
  }
  return cadence.id;
}

/** Labels by title in the project or its groups (a missing one is created in the project), linked to a target. */
async function linkLabels(trx: Kysely<Database>, projectId: number, groups: number[], targetType: 'Issue' | 'MergeRequest', targetId: number, labelLinks: unknown, now: string): Promise<void> {
  const list = Array.isArray(labelLinks) ? (labelLinks as any[]) : [];
  const titles = [...new Set(list.map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))];
  for (const title of titles) {
    let label = await trx
      .selectFrom('labels')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (!label) {
      const src = list.find((l) => l?.label?.title === title)!.label;
      label = await trx
        .insertInto('labels')
        .values({ project_id: projectId, group_id: null, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: targetType, target_id: targetId, created_at: now }).execute();
  }
}

async function importMergeRequest(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: UserMapper, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const { groups, author, description, milestoneId } = await issuableBasics(trx, projectId, r, users, now);
  // Merge request iids are scoped by the bare project id (create-merge-request.ts).
  const scope = String(projectId);
  let iid: number;
  const taken = typeof r.iid === 'number' ? await trx.selectFrom('merge_requests').select('id').where('project_id', '=', projectId).where('iid', '=', r.iid).executeTakeFirst() : undefined;
  if (typeof r.iid === 'number' && !taken) {
    iid = r.iid;
    await bumpIid(trx, 'merge_requests', scope, iid);
  } else {
    const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${'merge_requests'}, ${scope}, 1)
      on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
    iid = Number(row.rows[0]!.last_value);
  }
  const state = ['opened', 'closed', 'merged', 'locked'].includes(r.state) ? r.state : 'opened';
  const mergedBy = r.merged_by ? await users.map(trx, r.merged_by) : null;
  const closedBy = r.closed_by ? await users.map(trx, r.closed_by) : null;
  const mr = await trx
    .insertInto('merge_requests')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description,
      state,
      source_branch: str(r.source_branch, '')!,
      target_branch: str(r.target_branch, '')!,
      source_project_id: projectId,
      author_id: author?.id ?? users.importer.id,
      milestone_id: milestoneId,
      sha: str(r.sha, '')!,
      merge_commit_sha: str(r.merge_commit_sha),
      squash_commit_sha: str(r.squash_commit_sha),
      draft: r.draft ? 1 : 0,
      squash: r.squash ? 1 : 0,
      should_remove_source_branch: r.should_remove_source_branch ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      merged_at: state === 'merged' ? str(r.merged_at, now) : null,
      merged_by_id: state === 'merged' ? (mergedBy?.id ?? (r.merged_by ? users.importer.id : null)) : null,
      closed_at: state === 'closed' ? str(r.closed_at, now) : null,
      closed_by_id: state === 'closed' ? (closedBy?.id ?? (r.closed_by ? users.importer.id : null)) : null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await linkLabels(trx, projectId, groups, 'MergeRequest', mr.id, r.label_links, now);
  for (const [table, list] of [['merge_request_assignees', r.assignees], ['merge_request_reviewers', r.reviewers]] as const) {
    const ids: number[] = [];
    for (const a of (Array.isArray(list) ? list : []) as any[]) {
      const u = await users.map(trx, a);
      if (u && !ids.includes(u.id)) ids.push(u.id);
    }
    if (ids.length) await trx.insertInto(table).values(ids.map((user_id) => ({ merge_request_id: mr.id, user_id }))).execute();
  }
  await importEmoji(trx, 'MergeRequest', mr.id, r.award_emoji, users, now);
  for (const e of (r.resource_state_events ?? []) as any[]) {
    if (!['opened', 'closed', 'reopened', 'merged', 'locked'].includes(e?.state)) continue;
    const u = e.user ? await users.map(trx, e.user) : null;
    await trx
      .insertInto('resource_state_events')
      .values({ user_id: u?.id ?? users.importer.id, issue_id: null, merge_request_id: mr.id, epic_id: null, state: e.state, source_commit: null, source_merge_request_id: null, created_at: str(e.created_at, now)! })
      .execute();
  }
  for (const n of (r.notes ?? []) as any[]) {
    const na = await users.map(trx, n.author);
    let body = str(n.note, '')!;
    if (!na && n.author?.name) body = `${body}${missingAuthorNote(n.author.name, str(n.created_at, now)!)}`;
    const note = await trx
      .insertInto('notes')
      .values({ project_id: projectId, noteable_type: 'MergeRequest', noteable_id: mr.id, body, author_id: na?.id ?? users.importer.id, system: n.system ? 1 : 0, internal: n.internal ? 1 : 0, created_at: str(n.created_at, now)!, updated_at: str(n.updated_at, now)! })
      .returning('id')
      .executeTakeFirstOrThrow();
    await importEmoji(trx, 'Note', note.id, n.award_emoji, users, now);
  }
  return mr.id;
}
