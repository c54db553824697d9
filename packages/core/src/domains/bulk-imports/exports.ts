/**
 * The source side of direct transfer: `POST /{groups|projects}/:id/export_relations`, its
 * status, and NDJSON downloads (gzipped, whole or in batches). Exports are built from the live
 * rows when downloaded, so a request finishes at once; the status still follows GitLab's shape
 * (0 started, 1 finished, -1 failed) so a GitLab destination reads it too.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { Ctx } from '../../kernel/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { p, params } from '../../kernel/params.js';
import { authorize } from '../../kernel/policy.js';
import { accepted, ok, route, type Reply, type Route } from '../../kernel/route.js';
import { nowIso } from '../../kernel/context.js';
import { findGroup, findProject } from '../accounts/lookup.js';
import type { UserRow } from '../accounts/user.table.js';

export const GROUP_EXPORT_RELATIONS = ['labels', 'milestones', 'epics', 'members', 'iterations_cadences'] as const;
export const PROJECT_EXPORT_RELATIONS = ['labels', 'milestones', 'issues', 'members', 'releases', 'pipeline_schedules', 'snippets', 'protected_branches', 'repository', 'merge_requests', 'packages'] as const;

/** Records per batch of a batched download (tests may lower it). */
export const exportSettings = { batchSize: 100 };

type OwnerKind = 'group' | 'project';

async function ownerOf(ctx: Ctx, kind: OwnerKind, ref: string): Promise<{ id: number }> {
  if (kind === 'group') {
    const group = await findGroup(ctx, ref);
    await authorize(ctx, 'admin_group', { kind: 'group', group });
    return group;
  }
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  return project;
}

const relationsOf = (kind: OwnerKind): readonly string[] => (kind === 'group' ? GROUP_EXPORT_RELATIONS : PROJECT_EXPORT_RELATIONS);

function checkRelation(kind: OwnerKind, relation: string | undefined): void {
  if (relation !== undefined && !relationsOf(kind).includes(relation)) throw new BadRequestError('relation does not have a valid value');
}

/** Base query of a relation's rows, ordered by id. */
function relationQuery(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string) {
  const col = kind === 'group' ? 'group_id' : 'project_id';
  switch (relation) {
    case 'labels':
      return ctx.db.selectFrom('labels').selectAll().where(col, '=', ownerId).orderBy('id');
    case 'milestones':
      return ctx.db.selectFrom('milestones').selectAll().where(col, '=', ownerId).orderBy('id');
    case 'issues':
      return ctx.db.selectFrom('issues').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'merge_requests':
      return ctx.db.selectFrom('merge_requests').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'packages':
      return ctx.db.selectFrom('packages').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'releases':
      return ctx.db.selectFrom('releases').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'pipeline_schedules':
      return ctx.db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'snippets':
      return ctx.db.selectFrom('snippets').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'protected_branches':
      return ctx.db.selectFrom('protected_branches').selectAll().where('project_id', '=', ownerId).orderBy('id');
    case 'iterations_cadences':
      return ctx.db.selectFrom('iteration_cadences').selectAll().where('group_id', '=', ownerId).orderBy('id');
    case 'epics':
      return ctx.db.selectFrom('epics').selectAll().where('group_id', '=', ownerId).orderBy('id');
    case 'members':
      return ctx.db
        .selectFrom('members')
        .selectAll()
        .where('source_kind', '=', kind === 'group' ? 'namespace' : 'project')
        .where('source_id', '=', ownerId)
        .orderBy('id');
    default:
      throw new NotFoundError();
  }
}

const REPOSITORY_PARTS = ['repository_blobs', 'repository_commits', 'repository_refs'] as const;

async function repositoryCounts(ctx: Ctx, projectId: number): Promise<number[]> {
  const out: number[] = [];
  for (const table of REPOSITORY_PARTS) {
    const row = await ctx.db.selectFrom(table).select(sql<number>`count(*)`.as('n')).where('project_id', '=', projectId).executeTakeFirst();
    out.push(Number(row?.n ?? 0));
  }
  return out;
}

/**
 * The repository as records: blobs, then commits (parents, changes), then refs (their files),
 * so each record only points at what came before. `offset`/`limit` slice the whole stream.
 */
async function repositoryRecords(ctx: Ctx, projectId: number, offset: number, limit: number | null): Promise<unknown[]> {
  const counts = await repositoryCounts(ctx, projectId);
  const out: unknown[] = [];
  let start = offset;
  let left = limit ?? Number.MAX_SAFE_INTEGER;
  for (const [i, table] of REPOSITORY_PARTS.entries()) {
    const n = counts[i]!;
    if (start >= n) {
      start -= n;
      continue;
    }
    const take = Math.min(left, n - start);
    const rows: any[] = await ctx.db.selectFrom(table).selectAll().where('project_id', '=', projectId).orderBy('id').limit(take).offset(start).execute();
    start = 0;
    left -= rows.length;
    if (table === 'repository_blobs') out.push(...rows.map((b) => ({ id: `blob:${b.sha}`, type: 'blob', sha: b.sha, size: b.size, content: b.content })));
    if (table === 'repository_commits' && rows.length) {
      const ids = rows.map((r) => r.id);
      const changes = await ctx.db.selectFrom('repository_commit_changes').selectAll().where('commit_id', 'in', ids).orderBy('id').execute();
      const userIds = rows.map((r) => r.user_id).filter((x): x is number => x !== null);
      const users = userIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute() : [];
      const byId = new Map(users.map((u) => [u.id, u]));
      out.push(...rows.map((c) => ({
        id: `commit:${c.sha}`,
        type: 'commit',
        sha: c.sha,
        parent_ids: JSON.parse(c.parent_ids),
        title: c.title,
        message: c.message,
        author_name: c.author_name,
        author_email: c.author_email,
        authored_date: c.authored_date,
        committer_name: c.committer_name,
        committer_email: c.committer_email,
        committed_date: c.committed_date,
        created_at: c.created_at,
        user: c.user_id ? userRef(byId.get(c.user_id), ctx.actor.isAdmin) : null,
        changes: changes.filter((x) => x.commit_id === c.id).map((x) => ({ path: x.path, previous_path: x.previous_path, change: x.change, additions: x.additions, deletions: x.deletions })),
      })));
    }
    if (table === 'repository_refs' && rows.length) {
      const files = await ctx.db.selectFrom('repository_files').selectAll().where('ref_id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
      out.push(...rows.map((r) => ({
        id: `ref:${r.kind}:${r.name}`,
        type: 'ref',
        kind: r.kind,
        name: r.name,
        commit_sha: r.commit_sha,
        message: r.message,
        tagger_name: r.tagger_name,
        tagger_email: r.tagger_email,
        created_at: r.created_at,
        updated_at: r.updated_at,
        files: files.filter((f) => f.ref_id === r.id).map((f) => ({ path: f.path, blob_sha: f.blob_sha, last_commit_sha: f.last_commit_sha, executable: f.executable === 1 })),
      })));
    }
    if (left <= 0) break;
  }
  return out;
}

async function countRelation(ctx: Ctx, kind: OwnerKind, ownerId: number, relation: string): Promise<number> {
  if (relation === 'repository') return (await repositoryCounts(ctx, ownerId)).reduce((a, b) => a + b, 0);
  const q = (relationQuery(ctx, kind, ownerId, relation) as any).clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('n'));
  const row = await (q as any).executeTakeFirst();
  return Number(row?.n ?? 0);
}

function userRef(u: UserRow | undefined, exposeEmail: boolean) {
  if (!u) return null;
  return { id: u.id, username: u.username, name: u.name, email: u.public_email || (exposeEmail ? u.email : null) };
}

/** Turns rows of a relation into export records (nested notes, label titles, milestone). */
async function serialize(ctx: Ctx, relation: string, rows: any[]): Promise<unknown[]> {
  if (relation === 'labels') {
    return rows.map((r) => ({ id: r.id, title: r.title, color: r.color, description: r.description, type: r.group_id ? 'GroupLabel' : 'ProjectLabel', created_at: r.created_at, updated_at: r.updated_at }));
  }
  if (relation === 'milestones') {
    return rows.map((r) => ({ id: r.id, iid: r.iid, title: r.title, description: r.description, state: r.state, start_date: r.start_date, due_date: r.due_date, created_at: r.created_at, updated_at: r.updated_at }));
  }
  if (relation === 'members') {
    const users = rows.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', rows.map((r) => r.user_id)).execute() : [];
    const byId = new Map(users.map((u) => [u.id, u]));
    return rows.map((r) => ({ id: r.id, access_level: r.access_level, expires_at: r.expires_at, created_at: r.created_at, updated_at: r.updated_at, user: userRef(byId.get(r.user_id), ctx.actor.isAdmin) }));
  }
  if (relation === 'epics') return serializeEpics(ctx, rows);
  if (relation === 'snippets') {
    const users = rows.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', rows.map((r) => r.author_id)).execute() : [];
    const byId = new Map(users.map((u) => [u.id, u]));
    return rows.map((r) => ({ id: r.id, title: r.title, description: r.description, file_name: r.file_name, content: r.content, visibility: r.visibility, created_at: r.created_at, updated_at: r.updated_at, author: userRef(byId.get(r.author_id), ctx.actor.isAdmin) }));
  }
  if (relation === 'protected_branches') {
    const levels = rows.length ? await ctx.db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', rows.map((r) => r.id)).orderBy('id').execute() : [];
    const userIds = levels.map((l) => l.user_id).filter((x): x is number => x !== null);
    const users = userIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute() : [];
    const byId = new Map(users.map((u) => [u.id, u]));
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      allow_force_push: r.allow_force_push === 1,
      code_owner_approval_required: r.code_owner_approval_required === 1,
      created_at: r.created_at,
      updated_at: r.updated_at,
      access_levels: levels
        .filter((l) => l.protected_branch_id === r.id)
        .map((l) => ({ action: l.action, access_level: l.access_level, user: l.user_id ? userRef(byId.get(l.user_id), ctx.actor.isAdmin) : null, group_id: l.group_id })),
    }));
  }
  if (relation === 'iterations_cadences') {
    const its = rows.length ? await ctx.db.selectFrom('iterations').selectAll().where('iteration_cadence_id', 'in', rows.map((r) => r.id)).orderBy('id').execute() : [];
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      description: r.description,
      start_date: r.start_date,
      duration_in_weeks: r.duration_in_weeks,
      iterations_in_advance: r.iterations_in_advance,
      automatic: r.automatic === 1,
      active: r.active === 1,
      roll_over: r.roll_over === 1,
      created_at: r.created_at,
      updated_at: r.updated_at,
      iterations: its
        .filter((i) => i.iteration_cadence_id === r.id)
        .map((i) => ({ id: i.id, iid: i.iid, sequence: i.sequence, title: i.title, description: i.description, start_date: i.start_date, due_date: i.due_date, created_at: i.created_at, updated_at: i.updated_at })),
    }));
  }
  if (relation === 'releases') return serializeReleases(ctx, rows);
  if (relation === 'packages') return serializePackages(ctx, rows);
  if (relation === 'merge_requests') return serializeMergeRequests(ctx, rows);
  if (relation === 'pipeline_schedules') return serializeSchedules(ctx, rows);
  // issues
  const ids = rows.map((r) => r.id as number);
  if (ids.length === 0) return [];
  const notes = await ctx.db.selectFrom('notes').selectAll().where('noteable_type', '=', 'Issue').where('noteable_id', 'in', ids).orderBy('id').execute();
  const links = await ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(['ll.target_id', 'l.title', 'l.color', 'l.description', 'l.group_id'])
    .where('ll.target_type', '=', 'Issue')
    .where('ll.target_id', 'in', ids)
    .orderBy('ll.id')
    .execute();
  const milestoneIds = rows.map((r) => r.milestone_id).filter((x): x is number => x !== null);
  const milestones = milestoneIds.length ? await ctx.db.selectFrom('milestones').selectAll().where('id', 'in', milestoneIds).execute() : [];
  const assignees = await ctx.db.selectFrom('issue_assignees').selectAll().where('issue_id', 'in', ids).execute();
  const userIds = [...new Set([...rows.map((r) => r.author_id), ...notes.map((n) => n.author_id), ...assignees.map((a) => a.user_id), ...rows.map((r) => r.closed_by_id).filter(Boolean)])];
  const users = userIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute() : [];
  const noteIds = notes.map((n) => n.id);
  const emoji = await ctx.db
    .selectFrom('award_emoji')
    .selectAll()
    .where((eb) => eb.or([eb.and([eb('awardable_type', '=', 'Issue'), eb('awardable_id', 'in', ids)]), ...(noteIds.length ? [eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', 'in', noteIds)])] : [])]))
    .orderBy('id')
    .execute();
  const events = await ctx.db.selectFrom('resource_state_events').selectAll().where('issue_id', 'in', ids).orderBy('id').execute();
  const extraUsers = [...new Set([...emoji.map((e) => e.user_id), ...events.map((e) => e.user_id).filter((x): x is number => x !== null)])].filter((id) => !userIds.includes(id));
  if (extraUsers.length) users.push(...(await ctx.db.selectFrom('users').selectAll().where('id', 'in', extraUsers).execute()));
  const byId = new Map(users.map((u) => [u.id, u]));
  const exposeEmail = ctx.actor.isAdmin;
  const emojiOf = (type: string, id: number) =>
    emoji.filter((e) => e.awardable_type === type && e.awardable_id === id).map((e) => ({ id: e.id, name: e.name, created_at: e.created_at, updated_at: e.updated_at, user: userRef(byId.get(e.user_id), exposeEmail) }));
  return rows.map((r) => {
    const m = milestones.find((x) => x.id === r.milestone_id);
    return {
      id: r.id,
      iid: r.iid,
      title: r.title,
      description: r.description,
      state: r.state,
      issue_type: r.issue_type,
      confidential: r.confidential === 1,
      discussion_locked: r.discussion_locked === 1,
      due_date: r.due_date,
      weight: r.weight,
      closed_at: r.closed_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      author: userRef(byId.get(r.author_id), exposeEmail),
      closed_by: r.closed_by_id ? userRef(byId.get(r.closed_by_id), exposeEmail) : null,
      assignees: assignees.filter((a) => a.issue_id === r.id).map((a) => userRef(byId.get(a.user_id), exposeEmail)),
      milestone: m ? { iid: m.iid, title: m.title, group_milestone: m.group_id !== null } : null,
      label_links: links.filter((l) => l.target_id === r.id).map((l) => ({ label: { title: l.title, color: l.color, description: l.description, type: l.group_id ? 'GroupLabel' : 'ProjectLabel' } })),
      notes: notes.filter((n) => n.noteable_id === r.id).map((n) => ({
        id: n.id,
        note: n.body,
        system: n.system === 1,
        internal: n.internal === 1,
        created_at: n.created_at,
        updated_at: n.updated_at,
        author: userRef(byId.get(n.author_id), exposeEmail),
        award_emoji: emojiOf('Note', n.id),
      })),
      award_emoji: emojiOf('Issue', r.id),
      resource_state_events: events.filter((e) => e.issue_id === r.id).map((e) => ({ id: e.id, state: e.state, created_at: e.created_at, user: e.user_id ? userRef(byId.get(e.user_id), exposeEmail) : null })),
    };
  });
}

/** Merge requests with notes, labels, milestone, assignees, reviewers, reactions and state events. */
async function serializeMergeRequests(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const notes = await ctx.db.selectFrom('notes').selectAll().where('noteable_type', '=', 'MergeRequest').where('noteable_id', 'in', ids).orderBy('id').execute();
  const noteIds = notes.map((n) => n.id);
  const links = await ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(['ll.target_id', 'l.title', 'l.color', 'l.description'])
    .where('ll.target_type', '=', 'MergeRequest')
    .where('ll.target_id', 'in', ids)
    .orderBy('ll.id')
    .execute();
  const milestoneIds = rows.map((r) => r.milestone_id).filter((x): x is number => x !== null);
  const milestones = milestoneIds.length ? await ctx.db.selectFrom('milestones').selectAll().where('id', 'in', milestoneIds).execute() : [];
  const assignees = await ctx.db.selectFrom('merge_request_assignees').selectAll().where('merge_request_id', 'in', ids).execute();
  const reviewers = await ctx.db.selectFrom('merge_request_reviewers').selectAll().where('merge_request_id', 'in', ids).execute();
  const emoji = await ctx.db
    .selectFrom('award_emoji')
    .selectAll()
    .where((eb) => eb.or([eb.and([eb('awardable_type', '=', 'MergeRequest'), eb('awardable_id', 'in', ids)]), ...(noteIds.length ? [eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', 'in', noteIds)])] : [])]))
    .orderBy('id')
    .execute();
  const events = await ctx.db.selectFrom('resource_state_events').selectAll().where('merge_request_id', 'in', ids).orderBy('id').execute();
  const userIds = [
    ...new Set([
      ...rows.flatMap((r) => [r.author_id, r.merged_by_id, r.closed_by_id]),
      ...notes.map((n) => n.author_id),
      ...assignees.map((a) => a.user_id),
      ...reviewers.map((a) => a.user_id),
      ...emoji.map((e) => e.user_id),
      ...events.map((e) => e.user_id),
    ].filter((x): x is number => typeof x === 'number')),
  ];
  const users = userIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute() : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  const ex = ctx.actor.isAdmin;
  const ref = (id: number | null) => (id ? userRef(byId.get(id), ex) : null);
  const emojiOf = (type: string, id: number) =>
    emoji.filter((e) => e.awardable_type === type && e.awardable_id === id).map((e) => ({ id: e.id, name: e.name, created_at: e.created_at, updated_at: e.updated_at, user: ref(e.user_id) }));
  return rows.map((r) => {
    const m = milestones.find((x) => x.id === r.milestone_id);
    return {
      id: r.id,
      iid: r.iid,
      title: r.title,
      description: r.description,
      state: r.state,
      source_branch: r.source_branch,
      target_branch: r.target_branch,
      sha: r.sha,
      merge_commit_sha: r.merge_commit_sha,
      squash_commit_sha: r.squash_commit_sha,
      draft: r.draft === 1,
      squash: r.squash === 1,
      should_remove_source_branch: r.should_remove_source_branch === 1,
      discussion_locked: r.discussion_locked === 1,
      merged_at: r.merged_at,
      closed_at: r.closed_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      author: ref(r.author_id),
      merged_by: ref(r.merged_by_id),
      closed_by: ref(r.closed_by_id),
      assignees: assignees.filter((a) => a.merge_request_id === r.id).map((a) => ref(a.user_id)),
      reviewers: reviewers.filter((a) => a.merge_request_id === r.id).map((a) => ref(a.user_id)),
      milestone: m ? { iid: m.iid, title: m.title, group_milestone: m.group_id !== null } : null,
      label_links: links.filter((l) => l.target_id === r.id).map((l) => ({ label: { title: l.title, color: l.color, description: l.description } })),
      notes: notes.filter((n) => n.noteable_id === r.id).map((n) => ({ id: n.id, note: n.body, system: n.system === 1, internal: n.internal === 1, created_at: n.created_at, updated_at: n.updated_at, author: ref(n.author_id), award_emoji: emojiOf('Note', n.id) })),
      award_emoji: emojiOf('MergeRequest', r.id),
      resource_state_events: events.filter((e) => e.merge_request_id === r.id).map((e) => ({ id: e.id, state: e.state, created_at: e.created_at, user: ref(e.user_id) })),
    };
  });
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** Packages with their files (content in base64) and symbol entries. */
async function serializePackages(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const files = await ctx.db.selectFrom('package_files').selectAll().where('package_id', 'in', ids).orderBy('id').execute();
  const symbols = await ctx.db.selectFrom('package_symbols').selectAll().where('package_id', 'in', ids).orderBy('id').execute();
  const out = [];
  for (const r of rows) {
    const own = [];
    for (const f of files.filter((x) => x.package_id === r.id)) {
      own.push({
        id: f.id,
        file_kind: f.file_kind,
        file_name: f.file_name,
        size: f.size,
        file_sha256: f.file_sha256,
        created_at: f.created_at,
        content: (await readAll(ctx.blobs.read(f.blob_key))).toString('base64'),
        symbols: symbols
          .filter((x) => x.package_file_id === f.id)
          .map(({ id: _i, package_id: _p, package_file_id: _f, ...rest }) => rest),
      });
    }
    const { id, project_id: _project, ...columns } = r;
    out.push({ id, ...columns, files: own });
  }
  return out;
}

async function serializeReleases(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const links = await ctx.db.selectFrom('release_links').selectAll().where('release_id', 'in', ids).orderBy('id').execute();
  const ms = await ctx.db
    .selectFrom('release_milestones as rm')
    .innerJoin('milestones as m', 'm.id', 'rm.milestone_id')
    .select(['rm.release_id', 'm.title'])
    .where('rm.release_id', 'in', ids)
    .orderBy('rm.id')
    .execute();
  const authorIds = rows.map((r) => r.author_id).filter((x): x is number => x !== null);
  const users = authorIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', authorIds).execute() : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((r) => ({
    id: r.id,
    tag: r.tag_name,
    name: r.name,
    description: r.description,
    sha: r.sha,
    released_at: r.released_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    author: r.author_id ? userRef(byId.get(r.author_id), ctx.actor.isAdmin) : null,
    links: links.filter((l) => l.release_id === r.id).map((l) => ({ id: l.id, name: l.name, url: l.url, filepath: l.filepath, link_type: l.link_type, created_at: l.created_at, updated_at: l.updated_at })),
    milestone_titles: ms.filter((m) => m.release_id === r.id).map((m) => m.title),
  }));
}

/** Schedules with their variables (values in clear: the export needs Maintainer, as reading them does). */
async function serializeSchedules(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const vars = await ctx.db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', 'in', ids).orderBy('id').execute();
  const ownerIds = rows.map((r) => r.owner_id).filter((x): x is number => x !== null);
  const users = ownerIds.length ? await ctx.db.selectFrom('users').selectAll().where('id', 'in', ownerIds).execute() : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((r) => ({
    id: r.id,
    description: r.description,
    ref: r.ref,
    cron: r.cron,
    cron_timezone: r.cron_timezone,
    active: r.active === 1,
    created_at: r.created_at,
    updated_at: r.updated_at,
    owner: r.owner_id ? userRef(byId.get(r.owner_id), ctx.actor.isAdmin) : null,
    variables: vars
      .filter((v) => v.pipeline_schedule_id === r.id)
      .map((v) => ({ key: v.key, value: ctx.secrets.decrypt(v.value_encrypted), variable_type: v.variable_type, raw: v.raw === 1 })),
  }));
}

async function serializeEpics(ctx: Ctx, rows: any[]): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as number);
  const parentIds = rows.map((r) => r.parent_id).filter((x): x is number => x !== null);
  const parents = parentIds.length
    ? await ctx.db.selectFrom('epics as e').innerJoin('namespaces as n', 'n.id', 'e.group_id').select(['e.id', 'e.iid', 'n.full_path']).where('e.id', 'in', parentIds).execute()
    : [];
  const links = await ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(['ll.target_id', 'l.title', 'l.color', 'l.description'])
    .where('ll.target_type', '=', 'Epic')
    .where('ll.target_id', 'in', ids)
    .orderBy('ll.id')
    .execute();
  const users = await ctx.db.selectFrom('users').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.author_id))]).execute();
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((r) => {
    const parent = parents.find((x) => x.id === r.parent_id);
    return {
      id: r.id,
      iid: r.iid,
      title: r.title,
      description: r.description,
      state: r.state,
      confidential: r.confidential === 1,
      color: r.color,
      relative_position: r.relative_position,
      start_date_fixed: r.start_date_fixed,
      start_date_is_fixed: r.start_date_is_fixed === 1,
      due_date_fixed: r.due_date_fixed,
      due_date_is_fixed: r.due_date_is_fixed === 1,
      closed_at: r.closed_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      author: userRef(byId.get(r.author_id), ctx.actor.isAdmin),
      parent: parent ? { id: parent.id, iid: parent.iid, group_full_path: parent.full_path } : null,
      label_links: links.filter((l) => l.target_id === r.id).map((l) => ({ label: { title: l.title, color: l.color, description: l.description, type: 'GroupLabel' } })),
    };
  });
}

/** Ids ordered so that every epic comes after its parent (when the parent is in the same list). */
export function parentsFirst(rows: { id: number; parent_id: number | null }[]): number[] {
  const inList = new Set(rows.map((r) => r.id));
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  for (const r of rows) {
    if (r.parent_id !== null && inList.has(r.parent_id)) children.set(r.parent_id, [...(children.get(r.parent_id) ?? []), r.id]);
    else roots.push(r.id);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift()!;
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

function ndjsonReply(records: unknown[], relation: string): Reply {
  const text = records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '');
  const gz = gzipSync(Buffer.from(text, 'utf8'));
  return {
    kind: 'stream',
    status: 200,
    body: Readable.from([gz]),
    contentType: 'application/gzip',
    size: gz.length,
    headers: { 'Content-Disposition': `attachment; filename="${relation}.ndjson.gz"` },
  };
}

const RequestInput = params({ id: p.string(), batched: p.boolean().default(false), relation: p.string().optional() });
const StatusInput = params({ id: p.string(), relation: p.string().optional() });
const DownloadInput = params({ id: p.string(), relation: p.string(), batched: p.boolean().default(false), batch_number: p.integer().min(1).optional() });

function exportRoutes(kind: OwnerKind): Route[] {
  const base = `/${kind}s/:id/export_relations`;
  const tag = 'bulk_imports';
  return [
    route('POST', base, { auth: 'required', params: RequestInput, tag, summary: `Start a relations export of a ${kind} (direct transfer source)` }, async (ctx, input) => {
      checkRelation(kind, input.relation);
      const owner = await ownerOf(ctx, kind, input.id);
      const now = nowIso(ctx);
      const relations = input.relation ? [input.relation] : relationsOf(kind);
      for (const relation of relations) {
        await ctx.db
          .insertInto('bulk_import_exports')
          .values({ owner_kind: kind, owner_id: owner.id, relation, status: 1, user_id: ctx.actor.user?.id ?? null, created_at: now, updated_at: now })
          .onConflict((oc) => oc.columns(['owner_kind', 'owner_id', 'relation']).doUpdateSet({ status: 1, updated_at: now, user_id: ctx.actor.user?.id ?? null }))
          .execute();
      }
      return accepted();
    }),
    route('GET', `${base}/status`, { auth: 'required', params: StatusInput, tag, summary: `Status of a ${kind}'s relation exports` }, async (ctx, input) => {
      checkRelation(kind, input.relation);
      const owner = await ownerOf(ctx, kind, input.id);
      let q = ctx.db.selectFrom('bulk_import_exports').selectAll().where('owner_kind', '=', kind).where('owner_id', '=', owner.id).orderBy('id');
      if (input.relation) q = q.where('relation', '=', input.relation);
      const rows = await q.execute();
      const out = [];
      for (const row of rows) {
        const total = await countRelation(ctx, kind, owner.id, row.relation);
        const batches = Math.max(1, Math.ceil(total / exportSettings.batchSize));
        out.push({
          relation: row.relation,
          status: row.status,
          error: null,
          updated_at: row.updated_at,
          batched: true,
          batches_count: batches,
          total_objects_count: total,
          batches: Array.from({ length: batches }, (_, i) => ({
            status: row.status,
            batch_number: i + 1,
            objects_count: Math.min(exportSettings.batchSize, total - i * exportSettings.batchSize),
            error: null,
            updated_at: row.updated_at,
          })),
        });
      }
      if (input.relation) {
        if (out.length === 0) throw new NotFoundError();
        return ok(out[0]);
      }
      return ok(out);
    }),
    route('GET', `${base}/download`, { auth: 'required', params: DownloadInput, tag, summary: `Download one relation export (gzipped NDJSON)` }, async (ctx, input) => {
      checkRelation(kind, input.relation);
      const owner = await ownerOf(ctx, kind, input.id);
      const exp = await ctx.db.selectFrom('bulk_import_exports').selectAll().where('owner_kind', '=', kind).where('owner_id', '=', owner.id).where('relation', '=', input.relation).executeTakeFirst();
      if (!exp || exp.status !== 1) throw new NotFoundError('Export');
      if (input.relation === 'repository') {
        const n = input.batch_number ?? 1;
        const records = input.batched ? await repositoryRecords(ctx, owner.id, (n - 1) * exportSettings.batchSize, exportSettings.batchSize) : await repositoryRecords(ctx, owner.id, 0, null);
        return ndjsonReply(records, 'repository');
      }
      if (input.relation === 'epics') {
        // Parents before children, so a destination can link each epic to an imported parent.
        const all = await ctx.db.selectFrom('epics').select(['id', 'parent_id']).where('group_id', '=', owner.id).orderBy('id').execute();
        const ids = parentsFirst(all);
        const slice = input.batched ? ids.slice(((input.batch_number ?? 1) - 1) * exportSettings.batchSize, (input.batch_number ?? 1) * exportSettings.batchSize) : ids;
        const rows = slice.length ? await ctx.db.selectFrom('epics').selectAll().where('id', 'in', slice).execute() : [];
        rows.sort((a, b) => slice.indexOf(a.id) - slice.indexOf(b.id));
        return ndjsonReply(await serialize(ctx, 'epics', rows), 'epics');
      }
      let q = relationQuery(ctx, kind, owner.id, input.relation);
      if (input.batched) {
        const n = input.batch_number ?? 1;
        q = (q as any).limit(exportSettings.batchSize).offset((n - 1) * exportSettings.batchSize);
      }
      const rows = await (q as any).execute();
      return ndjsonReply(await serialize(ctx, input.relation, rows), input.relation);
    }),
  ];
}

export const exportRelationsRoutes: Route[] = [...exportRoutes('group'), ...exportRoutes('project')];
