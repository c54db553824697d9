/**
 * System, member, subgroup and project event payloads as GitLab's Gitlab::HookData builders
 * write them (GroupMemberBuilder, ProjectMemberBuilder, GroupBuilder, SubgroupBuilder,
 * ProjectBuilder, UserBuilder): flat objects with `event_name` and the model's timestamps in
 * xmlschema form (seconds, `Z`). Emails of members and owners are the public email or
 * "[REDACTED]" (User#webhook_email); user events carry the account email, as GitLab's.
 */
import type { Kysely } from 'kysely';
import { ACCESS_LEVEL_NAMES, OWNER } from '../../access/levels.js';
import type { MemberRow } from '../../access/member.table.js';
import { traversalIds, type NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import type { Database } from '../../storage/database.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

/** Time#xmlschema of a stored timestamp: `2012-07-21T07:30:54Z`. */
export const xmlschema = (iso: string | null): string | null => (iso ? iso.replace(/\.\d+Z$/, 'Z') : null);

/** User#webhook_email. */
const webhookEmail = (user: Pick<UserRow, 'public_email'>): string => user.public_email || '[REDACTED]';

const timestamps = (row: { created_at: string; updated_at: string }): Json => ({ created_at: xmlschema(row.created_at), updated_at: xmlschema(row.updated_at) });

export type MemberEvent = 'create' | 'update' | 'destroy';

const GROUP_MEMBER_EVENT: Record<MemberEvent, string> = { create: 'user_add_to_group', update: 'user_update_for_group', destroy: 'user_remove_from_group' };
const PROJECT_MEMBER_EVENT: Record<MemberEvent, string> = { create: 'user_add_to_team', update: 'user_update_for_team', destroy: 'user_remove_from_team' };

/** GroupMemberBuilder (with EE's `group_plan`, null without a subscription): Member Hook and System Hook. */
export function groupMemberHookData(group: NamespaceRow, user: UserRow, member: MemberRow, event: MemberEvent): Json {
  return {
    ...timestamps(member),
    group_name: group.name,
    group_path: group.path,
    group_id: group.id,
    user_username: user.username,
    user_name: user.name,
    user_email: webhookEmail(user),
    user_id: user.id,
    group_access: ACCESS_LEVEL_NAMES[member.access_level] ?? null,
    group_plan: null,
    // A date: ActiveSupport's Date#xmlschema is its midnight in UTC.
    expires_at: member.expires_at ? `${member.expires_at}T00:00:00Z` : null,
    event_name: GROUP_MEMBER_EVENT[event],
  };
}

/** ProjectMemberBuilder: System Hook. */
export function projectMemberHookData(project: ProjectRow, user: UserRow, member: MemberRow, event: MemberEvent): Json {
  return {
    ...timestamps(member),
    project_name: project.name,
    project_path: project.path,
    project_path_with_namespace: project.path_with_namespace,
    project_id: project.id,
    user_username: user.username,
    user_name: user.name,
    user_email: webhookEmail(user),
    user_id: user.id,
    access_level: ACCESS_LEVEL_NAMES[member.access_level] ?? null,
    project_visibility: project.visibility,
    event_name: PROJECT_MEMBER_EVENT[event],
  };
}

/** GroupBuilder: System Hook (`group_create`, `group_rename` with the old paths, `group_destroy`). */
export function groupHookData(group: NamespaceRow, event: 'create' | 'rename' | 'destroy', before?: NamespaceRow): Json {
  return {
    ...timestamps(group),
    event_name: `group_${event}`,
    name: group.name,
    path: group.path,
    full_path: group.full_path,
    group_id: group.id,
    ...(event === 'rename' && before && { old_path: before.path, old_full_path: before.full_path }),
  };
}

/** SubgroupBuilder: Subgroup Hook of the parent group and its ancestors. */
export function subgroupHookData(group: NamespaceRow, parent: NamespaceRow, event: 'create' | 'destroy'): Json {
  return {
    ...timestamps(group),
    event_name: `subgroup_${event}`,
    name: group.name,
    path: group.path,
    full_path: group.full_path,
    group_id: group.id,
    parent_group_id: parent.id,
    parent_name: parent.name,
    parent_path: parent.path,
    parent_full_path: parent.full_path,
  };
}

/**
 * The owners ProjectBuilder lists: a group project's owners are the Owners of its group and
 * the groups above; a personal project's the users with Owner access to it and the namespace's owner.
 */
async function projectOwners(db: Db, project: ProjectRow, ns: NamespaceRow): Promise<UserRow[]> {
  const members = db.selectFrom('members as m').innerJoin('users as u', 'u.id', 'm.user_id').selectAll('u').where('m.access_level', '=', OWNER);
  const rows =
    ns.kind === 'group'
      ? await members.where('m.source_kind', '=', 'namespace').where('m.source_id', 'in', traversalIds(ns.traversal)).orderBy('m.id').execute()
      : await members.where('m.source_kind', '=', 'project').where('m.source_id', '=', project.id).orderBy('m.user_id').execute();
  if (ns.kind === 'user' && ns.owner_id !== null) {
    const owner = await db.selectFrom('users').selectAll().where('id', '=', ns.owner_id).executeTakeFirst();
    if (owner) rows.push(owner);
  }
  const seen = new Set<number>();
  return rows.filter((u) => !seen.has(u.id) && seen.add(u.id));
}

export type ProjectEvent = 'create' | 'update' | 'rename' | 'transfer' | 'destroy';

/**
 * ProjectBuilder#build: Project Hook of group hooks, and, with the deprecated `owner_name` and
 * `owner_email` (the group's name and "", or the namespace owner's), System Hook.
 */
export async function projectHookData(db: Db, project: ProjectRow, event: ProjectEvent, options: { deprecatedOwner: boolean; before?: ProjectRow }): Promise<Json> {
  const ns = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const owners = await projectOwners(db, project, ns);
  const data: Json = {
    event_name: `project_${event}`,
    ...timestamps(project),
    name: project.name,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    project_id: project.id,
    project_namespace_id: project.namespace_id,
    owners: owners.map((u) => ({ name: u.name, email: webhookEmail(u) })),
    project_visibility: project.visibility,
  };
  if (options.deprecatedOwner) {
    if (ns.kind === 'group') Object.assign(data, { owner_name: ns.name, owner_email: '' });
    else {
      const owner = ns.owner_id !== null ? await db.selectFrom('users').selectAll().where('id', '=', ns.owner_id).executeTakeFirst() : undefined;
      Object.assign(data, { owner_name: owner?.name ?? null, owner_email: owner ? webhookEmail(owner) : '' });
    }
  }
  if ((event === 'rename' || event === 'transfer') && options.before) data.old_path_with_namespace = options.before.path_with_namespace;
  return data;
}

/** UserBuilder: System Hook (`user_create`, `user_rename` with `old_username`, `user_destroy`). */
export function userHookData(user: UserRow, event: 'create' | 'rename' | 'destroy', before?: UserRow): Json {
  return {
    ...timestamps(user),
    event_name: `user_${event}`,
    name: user.name,
    email: user.email,
    user_id: user.id,
    username: user.username,
    ...(event === 'rename' && before && { old_username: before.username }),
  };
}
