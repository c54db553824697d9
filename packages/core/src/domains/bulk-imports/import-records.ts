/**
 * Writing one imported record per relation, read in GitLab's export shapes
 * (lib/gitlab/import_export/{project,group}/import_export.yml): users by source id (resolved by
 * SourceUsers), iids kept when free, labels by title, emoji, notes and state events carried along.
 */
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { countOpenIssueChange } from '../issues/index.js';
import type { BulkImportEntityRow } from './bulk-import.table.js';
import { importPackage, importRepositoryRecord, str } from './import-code.js';
import type { SourceUsers } from './source-users.js';

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


const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** An iid kept when free in its scope, else the next one (as GitLab's importer keeps iids). */
async function keepIid(trx: Kysely<Database>, table: 'epics' | 'iterations' | 'merge_requests', col: 'group_id' | 'project_id', ownerId: number, wanted: unknown, usage: string, scope: string): Promise<number> {
  if (typeof wanted === 'number' && wanted > 0) {
    const taken = await (trx as Kysely<any>).selectFrom(table).select('id').where(col, '=', ownerId).where('iid', '=', wanted).executeTakeFirst();
    if (!taken) {
      await bumpIid(trx, usage, scope, wanted);
      return wanted;
    }
  }
  const row = await sql<{ last_value: number | string }>`insert into internal_ids (usage, scope, last_value) values (${usage}, ${scope}, 1)
    on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1 returning last_value`.execute(trx);
  return Number(row.rows[0]!.last_value);
}

/** The author of a record: the mapped user, else the importer with the original name noted in the text. */
function authorOf(users: SourceUsers, id: unknown, text: string | null, at: string, fallbackName?: unknown): { id: number; text: string | null } {
  const src = users.of(id);
  if (src.user) return { id: src.user.id, text };
  const name = src.name ?? (typeof fallbackName === 'string' ? fallbackName : null);
  return { id: users.importer.id, text: name ? `${text ?? ''}${missingAuthorNote(name, at)}` : text };
}

/** A user reference on a record: the mapped user, else the importer when the source named one. */
function userOrImporter(users: SourceUsers, id: unknown): number | null {
  if (typeof id !== 'number') return null;
  return users.of(id).user?.id ?? users.importer.id;
}

export async function importRecord(trx: Kysely<Database>, entity: BulkImportEntityRow, relation: string, r: any, users: SourceUsers, now: string, blobs: Deps['blobs']): Promise<number | null> {
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

/** A milestone by title in the project or its groups (GitLab nests the issuable's `milestone`). */
async function milestoneByTitle(trx: Kysely<Database>, projectId: number, groups: number[], title: unknown): Promise<number | null> {
  if (typeof title !== 'string') return null;
  const m = await trx
    .selectFrom('milestones')
    .select('id')
    .where('title', '=', title)
    .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
    .orderBy('project_id')
    .executeTakeFirst();
  return m?.id ?? null;
}

/** Reactions of mapped users only (a reaction is one user's; GitLab drops the others too). */
async function importEmoji(trx: Kysely<Database>, type: 'Issue' | 'Note' | 'MergeRequest' | 'Snippet', id: number, emoji: unknown, users: SourceUsers, now: string): Promise<void> {
  const seen = new Set<string>();
  for (const e of list(emoji)) {
    if (typeof e?.name !== 'string') continue;
    const u = users.of(e.user_id).user;
    if (!u || seen.has(`${u.id}:${e.name}`)) continue;
    seen.add(`${u.id}:${e.name}`);
    await trx.insertInto('award_emoji').values({ name: e.name, user_id: u.id, awardable_type: type, awardable_id: id, created_at: str(e.created_at, now)!, updated_at: str(e.updated_at, now)! }).execute();
  }
}

/** `notes` with their `award_emoji`; an unmapped author is named in the text (`author: {name}`). */
async function importNotes(trx: Kysely<Database>, projectId: number, type: 'Issue' | 'MergeRequest' | 'Snippet', targetId: number, notes: unknown, users: SourceUsers, now: string): Promise<void> {
  for (const n of list(notes)) {
    const at = str(n.created_at, now)!;
    const author = authorOf(users, n.author_id, str(n.note, ''), at, n.author?.name);
    const note = await trx
      .insertInto('notes')
      .values({
        project_id: projectId,
        noteable_type: type,
        noteable_id: targetId,
        body: author.text ?? '',
        author_id: author.id,
        system: n.system ? 1 : 0,
        internal: n.internal || n.confidential ? 1 : 0,
        created_at: at,
        updated_at: str(n.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await importEmoji(trx, 'Note', note.id, n.award_emoji, users, now);
  }
}

async function importStateEvents(trx: Kysely<Database>, target: { column: 'issue_id' | 'merge_request_id' | 'epic_id'; id: number }, events: unknown, users: SourceUsers, now: string): Promise<void> {
  const states = target.column === 'merge_request_id' ? ['opened', 'closed', 'reopened', 'merged', 'locked'] : ['opened', 'closed', 'reopened', 'locked'];
  for (const e of list(events)) {
    if (!states.includes(e?.state)) continue;
    await trx
      .insertInto('resource_state_events')
      .values({
        user_id: users.of(e.user_id).user?.id ?? users.importer.id,
        issue_id: target.column === 'issue_id' ? target.id : null,
        merge_request_id: target.column === 'merge_request_id' ? target.id : null,
        epic_id: target.column === 'epic_id' ? target.id : null,
        state: e.state,
        source_commit: str(e.source_commit),
        source_merge_request_id: null,
        created_at: str(e.created_at, now)!,
      })
      .execute();
  }
}

/** `label_links[].label`: labels by title in the project or its groups (a missing one is created in the project). */
async function linkLabels(trx: Kysely<Database>, projectId: number, groups: number[], targetType: 'Issue' | 'MergeRequest', targetId: number, labelLinks: unknown, now: string): Promise<void> {
  const links = list(labelLinks);
  const titles = [...new Set(links.map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))];
  for (const title of titles) {
    let label = await trx
      .selectFrom('labels')
      .select('id')
      .where('title', '=', title)
      .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groups.length ? [eb('group_id', 'in', groups)] : [])]))
      .orderBy('project_id')
      .executeTakeFirst();
    if (!label) {
      const src = links.find((l) => l?.label?.title === title)!.label;
      label = await trx
        .insertInto('labels')
        .values({ project_id: projectId, group_id: null, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: targetType, target_id: targetId, created_at: now }).execute();
  }
}

/** Distinct mapped users of `[{user_id}]` (assignees, reviewers); unmapped ones are dropped, as GitLab does. */
function mappedUserIds(users: SourceUsers, entries: unknown): number[] {
  const ids: number[] = [];
  for (const a of list(entries)) {
    const u = users.of(a?.user_id).user;
    if (u && !ids.includes(u.id)) ids.push(u.id);
  }
  return ids;
}

const ISSUE_TYPES = ['issue', 'incident'];

async function importIssue(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const groups = await ancestorGroupIds(trx, projectId);
  const createdAt = str(r.created_at, now)!;
  const author = authorOf(users, r.author_id, str(r.description), createdAt);
  const iid = await freeIid(trx, 'issues', 'project_id', projectId, r.iid, 'issues', `project:${projectId}`);
  const type = str(r.issue_type) ?? str(r.work_item_type?.base_type) ?? 'issue';
  const closed = r.state === 'closed';
  const issue = await trx
    .insertInto('issues')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description: author.text,
      state: closed ? 'closed' : 'opened',
      issue_type: ISSUE_TYPES.includes(type) ? type : 'issue',
      confidential: r.confidential ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      author_id: author.id,
      milestone_id: await milestoneByTitle(trx, projectId, groups, r.milestone?.title),
      due_date: str(r.due_date),
      weight: typeof r.weight === 'number' ? r.weight : null,
      closed_at: closed ? str(r.closed_at, now) : null,
      closed_by_id: closed ? userOrImporter(users, r.closed_by_id) : null,
      created_at: createdAt,
      updated_at: str(r.updated_at, now)!,
    })
    .returning(['id', 'project_id', 'state', 'confidential'])
    .executeTakeFirstOrThrow();
  await countOpenIssueChange(trx, null, issue);
  await linkLabels(trx, projectId, groups, 'Issue', issue.id, r.label_links, now);
  const assignees = mappedUserIds(users, r.issue_assignees);
  if (assignees.length) await trx.insertInto('issue_assignees').values(assignees.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
  await importEmoji(trx, 'Issue', issue.id, r.award_emoji, users, now);
  await importStateEvents(trx, { column: 'issue_id', id: issue.id }, r.resource_state_events, users, now);
  await importNotes(trx, projectId, 'Issue', issue.id, r.notes, users, now);
  return issue.id;
}

async function importMergeRequest(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const groups = await ancestorGroupIds(trx, projectId);
  const createdAt = str(r.created_at, now)!;
  const author = authorOf(users, r.author_id, str(r.description), createdAt);
  // Merge request iids are scoped by the bare project id (create-merge-request.ts).
  const iid = await keepIid(trx, 'merge_requests', 'project_id', projectId, r.iid, 'merge_requests', String(projectId));
  const state = ['opened', 'closed', 'merged', 'locked'].includes(r.state) ? r.state : 'opened';
  const metrics = r.metrics && typeof r.metrics === 'object' ? r.metrics : {};
  const removeSource = r.merge_params?.force_remove_source_branch;
  const mr = await trx
    .insertInto('merge_requests')
    .values({
      project_id: projectId,
      iid,
      title: str(r.title, '')!,
      description: author.text,
      state,
      source_branch: str(r.source_branch, '')!,
      target_branch: str(r.target_branch, '')!,
      source_project_id: projectId,
      author_id: author.id,
      milestone_id: await milestoneByTitle(trx, projectId, groups, r.milestone?.title),
      sha: str(r.diff_head_sha) ?? str(r.source_branch_sha) ?? '',
      merge_commit_sha: str(r.merge_commit_sha),
      squash_commit_sha: str(r.squash_commit_sha),
      draft: r.draft ? 1 : 0,
      squash: r.squash ? 1 : 0,
      should_remove_source_branch: removeSource === true || removeSource === '1' || removeSource === 'true' ? 1 : 0,
      discussion_locked: r.discussion_locked ? 1 : 0,
      merged_at: state === 'merged' ? str(metrics.merged_at, now) : null,
      merged_by_id: state === 'merged' ? userOrImporter(users, metrics.merged_by_id ?? r.merge_user_id) : null,
      closed_at: state === 'closed' ? str(metrics.latest_closed_at, now) : null,
      closed_by_id: state === 'closed' ? userOrImporter(users, metrics.latest_closed_by_id) : null,
      created_at: createdAt,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await linkLabels(trx, projectId, groups, 'MergeRequest', mr.id, r.label_links, now);
  for (const [table, entries] of [['merge_request_assignees', r.merge_request_assignees], ['merge_request_reviewers', r.merge_request_reviewers]] as const) {
    const ids = mappedUserIds(users, entries);
    if (ids.length) await trx.insertInto(table).values(ids.map((user_id) => ({ merge_request_id: mr.id, user_id }))).execute();
  }
  await importEmoji(trx, 'MergeRequest', mr.id, r.award_emoji, users, now);
  await importStateEvents(trx, { column: 'merge_request_id', id: mr.id }, r.resource_state_events, users, now);
  await importNotes(trx, projectId, 'MergeRequest', mr.id, r.notes, users, now);
  return mr.id;
}

/** A member from the source's REST member list; only users found by email are added (as GitLab does). */
export async function importMember(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number | null> {
  const user = users.of(r.id).user;
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
      updated_at: str(r.created_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The destination id of a source epic (GitLab nests `parent` with its `id`, `iid` and `group_id`):
 * the epic imported under that source id by the entity of the parent's group, else the epic
 * with that iid in the group that entity imported into.
 */
async function mappedEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, parent: { id?: unknown; iid?: unknown; group_id?: unknown }): Promise<number | null> {
  let owner: { id: number; namespace_id: number | null } | undefined = { id: entity.id, namespace_id: entity.namespace_id };
  if (typeof parent.group_id === 'number' && parent.group_id !== entity.source_xid) {
    owner = await trx
      .selectFrom('bulk_import_entities')
      .select(['id', 'namespace_id'])
      .where('bulk_import_id', '=', entity.bulk_import_id)
      .where('entity_type', '=', 'group')
      .where('source_xid', '=', parent.group_id)
      .executeTakeFirst();
  }
  if (!owner) return null;
  if (parent.id !== undefined && parent.id !== null) {
    const row = await trx.selectFrom('bulk_import_source_ids').select('destination_id').where('entity_id', '=', owner.id).where('relation', '=', 'epics').where('source_id', '=', String(parent.id)).executeTakeFirst();
    if (row && row.destination_id > 0) return row.destination_id;
  }
  if (typeof parent.iid === 'number' && owner.namespace_id) {
    const byIid = await trx.selectFrom('epics').select('id').where('group_id', '=', owner.namespace_id).where('iid', '=', parent.iid).executeTakeFirst();
    if (byIid) return byIid.id;
  }
  return null;
}

/** An epic (labels by title in the group or its ancestors, parent, state events). GitLab's epic notes and emoji have no Forgelet counterpart. */
async function importEpic(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const groupId = entity.namespace_id!;
  const createdAt = str(r.created_at, now)!;
  const author = authorOf(users, r.author_id, str(r.description), createdAt);
  const iid = await keepIid(trx, 'epics', 'group_id', groupId, r.iid, 'epics', `group:${groupId}`);
  const parentId = r.parent && typeof r.parent === 'object' ? await mappedEpic(trx, entity, r.parent) : null;
  const closed = r.state === 'closed';
  const epic = await trx
    .insertInto('epics')
    .values({
      group_id: groupId,
      iid,
      title: str(r.title, '')!,
      description: author.text,
      state: closed ? 'closed' : 'opened',
      author_id: author.id,
      parent_id: parentId,
      relative_position: typeof r.relative_position === 'number' ? r.relative_position : null,
      confidential: r.confidential ? 1 : 0,
      start_date_fixed: str(r.start_date_fixed),
      start_date_is_fixed: r.start_date_is_fixed ? 1 : 0,
      due_date_fixed: str(r.due_date_fixed),
      due_date_is_fixed: r.due_date_is_fixed ? 1 : 0,
      ...(typeof r.color === 'string' ? { color: r.color } : {}),
      closed_at: closed ? str(r.closed_at, now) : null,
      closed_by_id: closed ? userOrImporter(users, r.closed_by_id) : null,
      created_at: createdAt,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const ancestors = (await trx.selectFrom('namespaces').select('traversal').where('id', '=', groupId).executeTakeFirstOrThrow()).traversal.split('/').filter(Boolean).map(Number);
  const links = list(r.label_links);
  for (const title of [...new Set(links.map((l) => l?.label?.title).filter((t): t is string => typeof t === 'string'))]) {
    let label = await trx.selectFrom('labels').select('id').where('title', '=', title).where('group_id', 'in', ancestors).executeTakeFirst();
    if (!label) {
      const src = links.find((l) => l?.label?.title === title)!.label;
      label = await trx.insertInto('labels').values({ project_id: null, group_id: groupId, title, color: str(src.color, '#428BCA')!, description: str(src.description), created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    }
    await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Epic', target_id: epic.id, created_at: now }).execute();
  }
  await importStateEvents(trx, { column: 'epic_id', id: epic.id }, r.resource_state_events, users, now);
  return epic.id;
}

/** A release with its `links` and the milestones of `milestone_releases` (by title). */
async function importRelease(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const projectId = entity.project_id!;
  const tag = str(r.tag, '')!;
  const existing = await trx.selectFrom('releases').select('id').where('project_id', '=', projectId).where('tag_name', '=', tag).executeTakeFirst();
  if (existing) return existing.id;
  const release = await trx
    .insertInto('releases')
    .values({
      project_id: projectId,
      tag_name: tag,
      name: str(r.name, tag)!,
      description: str(r.description),
      author_id: users.of(r.author_id).user?.id ?? users.importer.id,
      sha: str(r.sha, '')!,
      released_at: str(r.released_at, now)!,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const l of list(r.links)) {
    if (typeof l?.name !== 'string' || typeof l?.url !== 'string') continue;
    await trx
      .insertInto('release_links')
      .values({ release_id: release.id, name: l.name, url: l.url, filepath: str(l.filepath), link_type: str(l.link_type, 'other')!, created_at: str(l.created_at, now)!, updated_at: str(l.updated_at, now)! })
      .execute();
  }
  const groups = await ancestorGroupIds(trx, projectId);
  const seen = new Set<number>();
  for (const mr of list(r.milestone_releases)) {
    const id = await milestoneByTitle(trx, projectId, groups, mr?.milestone?.title);
    if (id === null || seen.has(id)) continue;
    seen.add(id);
    await trx.insertInto('release_milestones').values({ release_id: release.id, milestone_id: id }).execute();
  }
  return release.id;
}

/** Schedules arrive inactive (as GitLab imports them), owned by the mapped owner or the importer; `variables` come from a Forgelet source only. */
async function importSchedule(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
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
      owner_id: users.of(r.owner_id).user?.id ?? users.importer.id,
      last_error: null,
      created_at: str(r.created_at, now)!,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const v of list(r.variables)) {
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

const VISIBILITY_OF_LEVEL: Record<number, string> = { 0: 'private', 10: 'internal', 20: 'public' };

async function importSnippet(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const createdAt = str(r.created_at, now)!;
  const author = authorOf(users, r.author_id, str(r.description), createdAt);
  const visibility = typeof r.visibility_level === 'number' ? (VISIBILITY_OF_LEVEL[r.visibility_level] ?? 'private') : 'private';
  const row = await trx
    .insertInto('snippets')
    .values({
      project_id: entity.project_id!,
      title: str(r.title, '')!,
      description: author.text,
      file_name: str(r.file_name, '')!,
      content: str(r.content, '')!,
      visibility,
      author_id: author.id,
      created_at: createdAt,
      updated_at: str(r.updated_at, now)!,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await importEmoji(trx, 'Snippet', row.id, r.award_emoji, users, now);
  await importNotes(trx, entity.project_id!, 'Snippet', row.id, r.notes, users, now);
  return row.id;
}

/**
 * A protection with GitLab's `push_access_levels`, `merge_access_levels` and `unprotect_access_levels`
 * (a role, or a mapped user; group entries are not carried over). An existing one of that name takes the source's levels.
 */
async function importProtectedBranch(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
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
  for (const [action, levels] of [['push', r.push_access_levels], ['merge', r.merge_access_levels], ['unprotect', r.unprotect_access_levels]] as const) {
    for (const l of list(levels)) {
      if (typeof l?.user_id === 'number') {
        const u = users.of(l.user_id).user;
        if (u) await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action, access_level: null, user_id: u.id, group_id: null }).execute();
      } else if (typeof l?.group_id !== 'number' && typeof l?.access_level === 'number') {
        await trx.insertInto('protected_branch_access_levels').values({ protected_branch_id: pb.id, action, access_level: l.access_level, user_id: null, group_id: null }).execute();
      }
    }
  }
  return pb.id;
}

/**
 * A cadence with its iterations (iids kept). GitLab exports neither the cadence's scheduling
 * fields nor iteration sequences: such a cadence arrives manual, its iterations numbered by start date.
 */
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
  const iterations = list(r.iterations).slice().sort((a, b) => String(a?.start_date ?? '').localeCompare(String(b?.start_date ?? '')));
  for (const [index, i] of iterations.entries()) {
    const iid = await keepIid(trx, 'iterations', 'group_id', groupId, i.iid, 'iterations', `group:${groupId}`);
    await trx
      .insertInto('iterations')
      .values({
        group_id: groupId,
        iteration_cadence_id: cadence.id,
        iid,
        sequence: typeof i.sequence === 'number' ? i.sequence : index + 1,
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
