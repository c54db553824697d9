/**
 * Export records in GitLab's NDJSON shapes (lib/gitlab/import_export/{project,group}/import_export.yml):
 * users are referenced by id (`author_id`, `user_id`, `owner_id` …), associations nest as GitLab
 * nests them (`notes` with `author: {name}` and `award_emoji`, `label_links` with `label`,
 * `milestone`, `resource_state_events`, `issue_assignees`, `merge_request_assignees` …), and
 * computed attributes carry GitLab's method names (`type` of labels, `state`, `diff_head_sha`).
 * A few fields GitLab does not export are added where Forgelet migrates more (schedule
 * `variables`, cadence `duration_in_weeks`, iteration `sequence`): a GitLab destination ignores them.
 */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';

const VISIBILITY_LEVEL: Record<string, number> = { private: 0, internal: 10, public: 20 };
/** GitLab's integer project/subgroup creation levels. */
const PROJECT_CREATION_LEVEL: Record<string, number> = { noone: 0, maintainer: 1, developer: 2, administrator: 3, owner: 3 };
const SUBGROUP_CREATION_LEVEL: Record<string, number> = { owner: 0, maintainer: 1 };

const bool = (v: unknown) => v === 1 || v === true;

function labelRecord(l: any) {
  return {
    id: l.id,
    title: l.title,
    color: l.color,
    project_id: l.project_id ?? null,
    group_id: l.group_id ?? null,
    created_at: l.created_at,
    updated_at: l.updated_at,
    template: false,
    description: l.description ?? null,
    type: l.group_id ? 'GroupLabel' : 'ProjectLabel',
    priorities: [],
  };
}

function milestoneRecord(m: any) {
  return {
    id: m.id,
    iid: m.iid,
    title: m.title,
    project_id: m.project_id ?? null,
    group_id: m.group_id ?? null,
    description: m.description ?? null,
    due_date: m.due_date ?? null,
    start_date: m.start_date ?? null,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    events: [],
  };
}

function emojiRecord(e: any) {
  return { name: e.name, user_id: e.user_id, awardable_type: e.awardable_type, created_at: e.created_at, updated_at: e.updated_at };
}

function stateEventRecord(e: any) {
  return {
    user_id: e.user_id,
    state: e.state,
    created_at: e.created_at,
    source_commit: e.source_commit ?? null,
    close_after_error_tracking_resolve: false,
    close_auto_resolve_prometheus_alert: false,
  };
}

/** Names of users (notes carry their author's name: `author: {name}`). */
async function namesOf(ctx: Ctx, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await selectUsersByIds(ctx.db, unique);
  return new Map(rows.map((u) => [u.id, u.name]));
}

type Awardable = 'Issue' | 'MergeRequest' | 'Note' | 'Snippet';

/** Notes, reactions, label links and state events of a set of issuables (one query each). */
async function issuableParts(ctx: Ctx, type: 'Issue' | 'MergeRequest' | 'Snippet', ids: number[]) {
  const notes = ids.length ? await ctx.db.selectFrom('notes').selectAll().where('noteable_type', '=', type).where('noteable_id', 'in', ids).orderBy('id').execute() : [];
  const noteIds = notes.map((n) => n.id);
  const emoji = ids.length
    ? await ctx.db
        .selectFrom('award_emoji')
        .selectAll()
        .where((eb) => eb.or([eb.and([eb('awardable_type', '=', type), eb('awardable_id', 'in', ids)]), ...(noteIds.length ? [eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', 'in', noteIds)])] : [])]))
        .orderBy('id')
        .execute()
    : [];
  const links =
    ids.length && type !== 'Snippet'
      ? await ctx.db
          .selectFrom('label_links as ll')
          .innerJoin('labels as l', 'l.id', 'll.label_id')
          .select(['ll.target_id', 'll.created_at as link_created_at', 'l.id', 'l.title', 'l.color', 'l.description', 'l.project_id', 'l.group_id', 'l.created_at', 'l.updated_at'])
          .where('ll.target_type', '=', type)
          .where('ll.target_id', 'in', ids)
          .orderBy('ll.id')
          .execute()
      : [];
  const column = type === 'Issue' ? 'issue_id' : 'merge_request_id';
  const events = ids.length && type !== 'Snippet' ? await ctx.db.selectFrom('resource_state_events').selectAll().where(column, 'in', ids).orderBy('id').execute() : [];
  const names = await namesOf(ctx, notes.map((n) => n.author_id));
  const emojiOf = (t: Awardable, id: number) => emoji.filter((e) => e.awardable_type === t && e.awardable_id === id).map(emojiRecord);
  return {
    notesOf: (id: number) =>
      notes
        .filter((n) => n.noteable_id === id)
        .map((n) => ({
          id: n.id,
          note: n.body,
          noteable_type: type,
          author_id: n.author_id,
          created_at: n.created_at,
          updated_at: n.updated_at,
          project_id: n.project_id,
          line_code: null,
          commit_id: null,
          system: bool(n.system),
          st_diff: null,
          updated_by_id: null,
          type: null,
          internal: bool(n.internal),
          author: { name: names.get(n.author_id) ?? null },
          events: [],
          award_emoji: emojiOf('Note', n.id),
        })),
    emojiOf: (id: number) => emojiOf(type, id),
    labelLinksOf: (id: number) =>
      links
        .filter((l) => l.target_id === id)
        .map((l) => ({ target_type: type, created_at: l.link_created_at, updated_at: l.link_created_at, label: labelRecord(l) })),
    stateEventsOf: (id: number) => events.filter((e) => (type === 'Issue' ? e.issue_id : e.merge_request_id) === id).map(stateEventRecord),
  };
}

async function milestonesById(ctx: Ctx, ids: (number | null)[]) {
  const wanted = [...new Set(ids.filter((x): x is number => x !== null))];
  const rows = wanted.length ? await ctx.db.selectFrom('milestones').selectAll().where('id', 'in', wanted).execute() : [];
  return new Map(rows.map((m) => [m.id, milestoneRecord(m)]));
}

/** `issues`: GitLab's issue with notes, label_links, milestone, issue_assignees, award_emoji, resource_state_events. */
async function issueRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  const parts = await issuableParts(ctx, 'Issue', ids);
  const milestones = await milestonesById(ctx, rows.map((r) => r.milestone_id));
  const assignees = ids.length ? await ctx.db.selectFrom('issue_assignees').selectAll().where('issue_id', 'in', ids).execute() : [];
  return rows.map((r) => ({
    id: r.id,
    iid: r.iid,
    title: r.title,
    author_id: r.author_id,
    project_id: r.project_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    description: r.description,
    state: r.state,
    issue_type: r.issue_type,
    confidential: bool(r.confidential),
    discussion_locked: bool(r.discussion_locked),
    due_date: r.due_date,
    weight: r.weight,
    closed_at: r.closed_at,
    closed_by_id: r.closed_by_id,
    relative_position: null,
    milestone: r.milestone_id ? (milestones.get(r.milestone_id) ?? null) : null,
    issue_assignees: assignees.filter((a) => a.issue_id === r.id).map((a) => ({ user_id: a.user_id })),
    label_links: parts.labelLinksOf(r.id),
    notes: parts.notesOf(r.id),
    award_emoji: parts.emojiOf(r.id),
    resource_state_events: parts.stateEventsOf(r.id),
  }));
}

/** `merge_requests`: attributes, metrics (merged/closed by), assignees, reviewers and the issue-like parts. */
async function mergeRequestRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  const parts = await issuableParts(ctx, 'MergeRequest', ids);
  const milestones = await milestonesById(ctx, rows.map((r) => r.milestone_id));
  const assignees = ids.length ? await ctx.db.selectFrom('merge_request_assignees').selectAll().where('merge_request_id', 'in', ids).execute() : [];
  const reviewers = ids.length ? await ctx.db.selectFrom('merge_request_reviewers').selectAll().where('merge_request_id', 'in', ids).execute() : [];
  return rows.map((r) => ({
    id: r.id,
    iid: r.iid,
    title: r.title,
    description: r.description,
    author_id: r.author_id,
    state: r.state,
    source_branch: r.source_branch,
    target_branch: r.target_branch,
    source_project_id: r.source_project_id,
    target_project_id: r.project_id,
    merge_status: 'unchecked',
    merge_commit_sha: r.merge_commit_sha,
    squash_commit_sha: r.squash_commit_sha,
    merge_params: { force_remove_source_branch: bool(r.should_remove_source_branch) ? '1' : '0' },
    merge_user_id: r.merged_by_id,
    draft: bool(r.draft),
    squash: bool(r.squash),
    discussion_locked: bool(r.discussion_locked),
    created_at: r.created_at,
    updated_at: r.updated_at,
    diff_head_sha: r.sha,
    source_branch_sha: r.sha,
    target_branch_sha: null,
    metrics: {
      merged_by_id: r.merged_by_id,
      merged_at: r.merged_at,
      latest_closed_by_id: r.closed_by_id,
      latest_closed_at: r.closed_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
    },
    milestone: r.milestone_id ? (milestones.get(r.milestone_id) ?? null) : null,
    merge_request_assignees: assignees.filter((a) => a.merge_request_id === r.id).map((a) => ({ user_id: a.user_id, created_at: r.created_at })),
    merge_request_reviewers: reviewers.filter((a) => a.merge_request_id === r.id).map((a) => ({ user_id: a.user_id, created_at: r.created_at, state: 'unreviewed' })),
    label_links: parts.labelLinksOf(r.id),
    notes: parts.notesOf(r.id),
    award_emoji: parts.emojiOf(r.id),
    resource_state_events: parts.stateEventsOf(r.id),
  }));
}

/** `releases`: with `links` and `milestone_releases` (each with its milestone). */
async function releaseRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  if (ids.length === 0) return [];
  const links = await ctx.db.selectFrom('release_links').selectAll().where('release_id', 'in', ids).orderBy('id').execute();
  const rms = await ctx.db.selectFrom('release_milestones').selectAll().where('release_id', 'in', ids).orderBy('id').execute();
  const milestones = await milestonesById(ctx, rms.map((m) => m.milestone_id));
  return rows.map((r) => ({
    id: r.id,
    tag: r.tag_name,
    description: r.description,
    project_id: r.project_id,
    author_id: r.author_id,
    name: r.name,
    sha: r.sha,
    released_at: r.released_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    links: links
      .filter((l) => l.release_id === r.id)
      .map((l) => ({ id: l.id, url: l.url, name: l.name, filepath: l.filepath, link_type: l.link_type, created_at: l.created_at, updated_at: l.updated_at })),
    milestone_releases: rms.filter((m) => m.release_id === r.id && milestones.has(m.milestone_id)).map((m) => ({ milestone: milestones.get(m.milestone_id) })),
  }));
}

async function snippetRecords(ctx: Ctx, rows: any[]) {
  const parts = await issuableParts(ctx, 'Snippet', rows.map((r) => r.id as number));
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    content: r.content,
    author_id: r.author_id,
    project_id: r.project_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    file_name: r.file_name,
    visibility_level: VISIBILITY_LEVEL[r.visibility] ?? 0,
    description: r.description,
    award_emoji: parts.emojiOf(r.id),
    notes: parts.notesOf(r.id),
  }));
}

/** `protected_branches`: merge, push and unprotect access levels (a role, a user id or a group id each). */
async function protectedBranchRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  const levels = ids.length ? await ctx.db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', ids).orderBy('id').execute() : [];
  const of = (id: number, action: string) =>
    levels
      .filter((l) => l.protected_branch_id === id && l.action === action)
      .map((l) => ({ access_level: l.access_level ?? (l.user_id || l.group_id ? 40 : 0), user_id: l.user_id, group_id: l.group_id }));
  return rows.map((r) => ({
    id: r.id,
    project_id: r.project_id,
    name: r.name,
    created_at: r.created_at,
    updated_at: r.updated_at,
    code_owner_approval_required: bool(r.code_owner_approval_required),
    allow_force_push: bool(r.allow_force_push),
    merge_access_levels: of(r.id, 'merge'),
    push_access_levels: of(r.id, 'push'),
    unprotect_access_levels: of(r.id, 'unprotect'),
  }));
}

/** `pipeline_schedules` as GitLab exports them, plus Forgelet's `variables` (GitLab exports none). */
async function scheduleRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  const vars = ids.length ? await ctx.db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', 'in', ids).orderBy('id').execute() : [];
  return rows.map((r) => ({
    id: r.id,
    description: r.description,
    ref: r.ref,
    cron: r.cron,
    cron_timezone: r.cron_timezone,
    next_run_at: r.next_run_at,
    project_id: r.project_id,
    owner_id: r.owner_id,
    active: bool(r.active),
    created_at: r.created_at,
    updated_at: r.updated_at,
    variables: vars
      .filter((v) => v.pipeline_schedule_id === r.id)
      .map((v) => ({ key: v.key, value: ctx.secrets.decrypt(v.value_encrypted), variable_type: v.variable_type, raw: bool(v.raw) })),
  }));
}

/** `iterations_cadences` with `iterations` (GitLab's attributes, plus Forgelet's scheduling fields). */
async function cadenceRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  const its = ids.length ? await ctx.db.selectFrom('iterations').selectAll().where('iteration_cadence_id', 'in', ids).orderBy('id').execute() : [];
  return rows.map((r) => ({
    id: r.id,
    group_id: r.group_id,
    title: r.title,
    description: r.description,
    start_date: r.start_date,
    active: bool(r.active),
    roll_over: bool(r.roll_over),
    created_at: r.created_at,
    updated_at: r.updated_at,
    automatic: bool(r.automatic),
    duration_in_weeks: r.duration_in_weeks,
    iterations_in_advance: r.iterations_in_advance,
    iterations: its
      .filter((i) => i.iteration_cadence_id === r.id)
      .map((i) => ({ iid: i.iid, group_id: i.group_id, description: i.description, start_date: i.start_date, due_date: i.due_date, created_at: i.created_at, updated_at: i.updated_at, sequence: i.sequence, title: i.title })),
  }));
}

/** `epics` (EE): attributes with `parent` (when exportable), `label_links`, `resource_state_events`. */
async function epicRecords(ctx: Ctx, rows: any[]) {
  const ids = rows.map((r) => r.id as number);
  if (ids.length === 0) return [];
  const parentIds = [...new Set(rows.map((r) => r.parent_id).filter((x): x is number => x !== null))];
  const parents = parentIds.length ? await ctx.db.selectFrom('epics').selectAll().where('id', 'in', parentIds).execute() : [];
  const links = await ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(['ll.target_id', 'll.created_at as link_created_at', 'l.id', 'l.title', 'l.color', 'l.description', 'l.project_id', 'l.group_id', 'l.created_at', 'l.updated_at'])
    .where('ll.target_type', '=', 'Epic')
    .where('ll.target_id', 'in', ids)
    .orderBy('ll.id')
    .execute();
  const events = await ctx.db.selectFrom('resource_state_events').selectAll().where('epic_id', 'in', ids).orderBy('id').execute();
  const attrs = (e: any) => ({
    id: e.id,
    iid: e.iid,
    group_id: e.group_id,
    author_id: e.author_id,
    title: e.title,
    description: e.description,
    state: e.state,
    confidential: bool(e.confidential),
    color: e.color,
    relative_position: e.relative_position,
    start_date_fixed: e.start_date_fixed,
    start_date_is_fixed: bool(e.start_date_is_fixed),
    due_date_fixed: e.due_date_fixed,
    due_date_is_fixed: bool(e.due_date_is_fixed),
    closed_at: e.closed_at,
    closed_by_id: e.closed_by_id,
    created_at: e.created_at,
    updated_at: e.updated_at,
  });
  return rows.map((r) => {
    const parent = parents.find((x) => x.id === r.parent_id);
    return {
      ...attrs(r),
      parent_id: r.parent_id,
      parent: parent ? attrs(parent) : null,
      award_emoji: [],
      events: [],
      notes: [],
      label_links: links.filter((l) => l.target_id === r.id).map((l) => ({ target_type: 'Epic', created_at: l.link_created_at, updated_at: l.link_created_at, label: labelRecord(l) })),
      resource_state_events: events.filter((e) => e.epic_id === r.id).map(stateEventRecord),
    };
  });
}

/** Group `members` as GitLab exports them: the membership with `user: {id, public_email, username}`. */
async function memberRecords(ctx: Ctx, rows: any[]) {
  const userIds = [...new Set(rows.map((r) => r.user_id as number))];
  const users = userIds.length ? await selectUsersByIds(ctx.db, userIds) : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((r) => {
    const u = byId.get(r.user_id);
    return {
      id: r.id,
      access_level: r.access_level,
      source_type: r.source_kind === 'namespace' ? 'Namespace' : 'Project',
      user_id: r.user_id,
      notification_level: 3,
      created_at: r.created_at,
      updated_at: r.updated_at,
      created_by_id: r.created_by_id,
      expires_at: r.expires_at,
      user: u ? { id: u.id, public_email: u.public_email || (ctx.actor.isAdmin ? u.email : null), username: u.username } : null,
    };
  });
}

/** `self`: the group's or project's own attributes. */
export async function selfRecord(ctx: Ctx, kind: 'group' | 'project', ownerId: number): Promise<unknown> {
  if (kind === 'group') {
    const g = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', ownerId).executeTakeFirstOrThrow();
    return {
      name: g.name,
      path: g.path,
      description: g.description,
      visibility_level: VISIBILITY_LEVEL[g.visibility] ?? 0,
      project_creation_level: PROJECT_CREATION_LEVEL[g.project_creation_level] ?? 2,
      subgroup_creation_level: SUBGROUP_CREATION_LEVEL[g.subgroup_creation_level] ?? 0,
      request_access_enabled: bool(g.request_access_enabled),
      require_two_factor_authentication: bool(g.require_two_factor_authentication),
      share_with_group_lock: bool(g.share_with_group_lock),
      lfs_enabled: bool(g.lfs_enabled),
    };
  }
  const p = await ctx.db.selectFrom('projects').selectAll().where('id', '=', ownerId).executeTakeFirstOrThrow();
  const level = (on: number) => (on === 1 ? 20 : 0);
  return {
    name: p.name,
    description: p.description,
    visibility_level: VISIBILITY_LEVEL[p.visibility] ?? 0,
    archived: bool(p.archived),
    default_branch: p.default_branch,
    topics: JSON.parse(p.topics || '[]'),
    issues_enabled: bool(p.issues_enabled),
    merge_requests_enabled: bool(p.merge_requests_enabled),
    jobs_enabled: bool(p.jobs_enabled),
    wiki_enabled: bool(p.wiki_enabled),
    snippets_enabled: bool(p.snippets_enabled),
    issues_access_level: level(p.issues_enabled),
    merge_requests_access_level: level(p.merge_requests_enabled),
    builds_access_level: level(p.jobs_enabled),
    wiki_access_level: level(p.wiki_enabled),
    snippets_access_level: level(p.snippets_enabled),
  };
}

/** Rows of one relation turned into GitLab's export records. */
export async function gitlabRecords(ctx: Ctx, relation: string, rows: any[]): Promise<unknown[]> {
  switch (relation) {
    case 'labels':
      return rows.map(labelRecord);
    case 'milestones':
      return rows.map(milestoneRecord);
    case 'issues':
      return issueRecords(ctx, rows);
    case 'merge_requests':
      return mergeRequestRecords(ctx, rows);
    case 'releases':
      return releaseRecords(ctx, rows);
    case 'snippets':
      return snippetRecords(ctx, rows);
    case 'protected_branches':
      return protectedBranchRecords(ctx, rows);
    case 'pipeline_schedules':
      return scheduleRecords(ctx, rows);
    case 'iterations_cadences':
      return cadenceRecords(ctx, rows);
    case 'epics':
      return epicRecords(ctx, rows);
    case 'members':
      return memberRecords(ctx, rows);
    default:
      throw new Error(`no GitLab record shape for ${relation}`);
  }
}
