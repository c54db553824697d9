/**
 * The one place that answers "may this actor do this?". Inputs: the actor (admin, user,
 * bot, job), memberships inherited down the group tree, visibility, and the instance tier.
 * Endpoints never compare access levels themselves: they call `authorize`, which answers
 * 404 when the actor cannot even see the subject (existence hidden) and 403 when it can
 * see it but lacks the ability.
 */
import type { NamespaceRow } from './namespace.table.js';
import type { ProjectRow } from './project.table.js';
import { DEVELOPER, GUEST, MAINTAINER, NO_ACCESS, OWNER, REPORTER } from './levels.js';
import type { Ctx } from './context.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../kernel/errors.js';
import { tierAtLeast } from '../kernel/tiers.js';
import { sql } from 'kysely';
import { preparedQuery } from '../storage/prepared.js';
import { checkJobTokenScope, jobTokenAllowed } from './job-token-scope.js';

export type Subject = { kind: 'project'; project: ProjectRow } | { kind: 'group'; group: NamespaceRow };

/** A rule: `read` = may see the subject; a number = minimum access level; a function for settings-driven rules. */
type Rule = 'read' | number | ((ctx: Ctx, subject: Subject, level: number) => boolean);

const LEVEL_BY_SETTING: Record<string, number> = { noone: Infinity, owner: OWNER, maintainer: MAINTAINER, developer: DEVELOPER };

/** Merge requests of private projects need Reporter (they expose code); elsewhere reading the project is enough. */
const readMergeRequests: Rule = (_ctx, s, level) => s.kind === 'project' && (s.project.visibility !== 'private' || level >= REPORTER);

/** Code of public and internal projects is readable by whoever sees the project; private code needs Reporter. */
const readCode: Rule = (_ctx, s, level) => s.kind === 'project' && (s.project.visibility !== 'private' || level >= REPORTER);

/** Held by no access level: only a custom role's flag (or an administrator) grants it. */
const CUSTOM_ROLES_ONLY = Infinity;

const PROJECT_RULES = {
  read_project: 'read',
  read_project_member: 'read',
  read_code: readCode,
  // repository (protected branches narrow push_code further, in the repository domain)
  push_code: DEVELOPER,
  admin_protected_branch: MAINTAINER,
  // GitLab's ProjectPolicy: deleting a protected tag needs Maintainer (and its create access: tags.ts)
  delete_protected_tag: MAINTAINER,
  // releases
  read_release: 'read',
  create_release: DEVELOPER,
  update_release: DEVELOPER,
  destroy_release: DEVELOPER,
  // CI (pipelines of public projects are public, as GitLab's default `public_builds`)
  read_pipeline: readCode,
  create_pipeline: DEVELOPER,
  update_pipeline: DEVELOPER,
  cancel_pipeline: DEVELOPER,
  destroy_pipeline: OWNER,
  read_build: readCode,
  update_build: DEVELOPER,
  read_build_trace: readCode,
  read_job_artifacts: readCode,
  keep_job_artifacts: DEVELOPER,
  destroy_artifacts: MAINTAINER,
  admin_runner: MAINTAINER,
  read_pipeline_schedule: REPORTER,
  create_pipeline_schedule: DEVELOPER,
  admin_pipeline_schedule: MAINTAINER,
  // work items (author-specific rules, confidentiality and feature switches live in the domains)
  read_issue: 'read',
  create_issue: GUEST,
  admin_issue: REPORTER,
  read_confidential_issues: REPORTER,
  destroy_issue: OWNER,
  // put an issue in an epic or take it out (the issue must be readable too: the issues domain checks)
  admin_issue_relation: GUEST,
  set_issue_created_at: OWNER,
  read_merge_request: readMergeRequests,
  create_merge_request: DEVELOPER,
  update_merge_request: DEVELOPER,
  merge_merge_request: DEVELOPER,
  destroy_merge_request: OWNER,
  read_snippet: 'read',
  create_snippet: REPORTER,
  admin_snippet: MAINTAINER,
  create_note: GUEST,
  admin_note: MAINTAINER,
  // planning (project side)
  read_label: 'read',
  admin_label: REPORTER,
  read_milestone: 'read',
  admin_milestone: REPORTER,
  destroy_milestone: DEVELOPER,
  read_internal_note: REPORTER,
  create_note_on_locked_discussion: REPORTER,
  set_note_created_at: OWNER,
  admin_project_member: MAINTAINER,
  admin_project: MAINTAINER,
  // project hooks (GitLab: Maintainer; custom roles with admin_web_hook)
  read_web_hook: MAINTAINER,
  admin_web_hook: MAINTAINER,
  remove_project: OWNER,
  archive_project: OWNER,
  manage_resource_access_tokens: MAINTAINER,
  // merge request approval (eligibility per rule and state lives in the approvals domain)
  approve_merge_request: DEVELOPER,
  admin_merge_request_approval_settings: MAINTAINER,
  modify_approvers_rules: MAINTAINER,
  // CI/CD variables; managing every pipeline schedule's variables is granted only by custom roles
  admin_cicd_variables: MAINTAINER,
  admin_pipeline_schedule_variables: CUSTOM_ROLES_ONLY,
  read_runners: MAINTAINER,
  // error tracking: settings and client keys (GitLab's admin_operations); errors (read/update_sentry_issue)
  admin_operations: MAINTAINER,
  read_sentry_issue: REPORTER,
  update_sentry_issue: REPORTER,
  // package registry (public and internal projects' packages are readable by whoever sees the project)
  read_package: readCode,
  create_package: DEVELOPER,
  destroy_package: MAINTAINER,
  // environments and deployments (readable wherever pipelines are); DORA analytics (Ultimate, checked in the domain)
  read_environment: readCode,
  create_environment: DEVELOPER,
  update_environment: DEVELOPER,
  destroy_environment: DEVELOPER,
  stop_environment: DEVELOPER,
  read_deployment: readCode,
  create_deployment: DEVELOPER,
  update_deployment: DEVELOPER,
  destroy_deployment: MAINTAINER,
  read_dora4_analytics: REPORTER,
  // agent flows (GitLab's duo_workflow ability)
  create_agent_flow: DEVELOPER,
  // AI catalog (ee ProjectPolicy and Ai::Catalog::ItemPolicy): a project's private items are read by
  // its Developers; Maintainers create and edit items and enable (consume) items for the project
  read_ai_catalog_item: DEVELOPER,
  admin_ai_catalog_item: MAINTAINER,
  read_ai_catalog_item_consumer: DEVELOPER,
  admin_ai_catalog_item_consumer: MAINTAINER,
  // deploy tokens
  read_deploy_token: MAINTAINER,
  create_deploy_token: MAINTAINER,
  destroy_deploy_token: MAINTAINER,
} satisfies Record<string, Rule>;

const GROUP_RULES = {
  read_group: 'read',
  read_group_member: 'read',
  admin_group_member: OWNER,
  admin_group: OWNER,
  // group hooks (GitLab: Owner; custom roles with admin_web_hook)
  read_web_hook: OWNER,
  admin_web_hook: OWNER,
  admin_member_role: OWNER,
  remove_group: OWNER,
  manage_resource_access_tokens: OWNER,
  create_subgroup: (_ctx, s, level) => s.kind === 'group' && level >= (LEVEL_BY_SETTING[s.group.subgroup_creation_level] ?? MAINTAINER),
  create_projects: (_ctx, s, level) => s.kind === 'group' && level >= (LEVEL_BY_SETTING[s.group.project_creation_level] ?? DEVELOPER),
  // planning (group side); tier gates (epics, iterations) are checked in the domains
  read_label: 'read',
  admin_label: REPORTER,
  read_milestone: 'read',
  admin_milestone: REPORTER,
  destroy_milestone: DEVELOPER,
  read_iteration: 'read',
  admin_iteration: REPORTER,
  read_epic: 'read',
  read_confidential_epic: REPORTER,
  create_epic: REPORTER,
  admin_epic: REPORTER,
  admin_epic_relation: GUEST,
  destroy_epic: OWNER,
  // CI
  admin_cicd_variables: OWNER,
  admin_runner: OWNER,
  create_runner: OWNER,
  read_runners: OWNER,
  // package registry settings of the group
  admin_package: MAINTAINER,
  // delivery: group-level protected environments (Premium, checked in the domain); DORA analytics (Ultimate)
  admin_protected_environments: MAINTAINER,
  read_dora4_analytics: REPORTER,
  // agent flows on a namespace
  create_agent_flow: DEVELOPER,
  // AI catalog items enabled for a group (GitLab: read with a maintained project in the group,
  // approximated by Maintainer of the group; configuring a group consumer: Owner, unconfirmed)
  read_ai_catalog_item_consumer: MAINTAINER,
  admin_ai_catalog_item_consumer: OWNER,
  // deploy tokens
  read_deploy_token: MAINTAINER,
  create_deploy_token: MAINTAINER,
  destroy_deploy_token: MAINTAINER,
} satisfies Record<string, Rule>;

export type ProjectAbility = keyof typeof PROJECT_RULES;
export type GroupAbility = keyof typeof GROUP_RULES;
export type Ability = ProjectAbility | GroupAbility;

// ---- custom roles -------------------------------------------------------------------

/**
 * GitLab abilities of areas Forgelet does not have: a flag's grants name them so the table
 * stays GitLab's, but no route asks for them.
 */
type ElsewhereAbility =
  | 'admin_compliance_framework' | 'admin_compliance_pipeline_configuration' | 'read_compliance_dashboard'
  | 'read_compliance_adherence_report' | 'read_compliance_violations_report' | 'read_compliance_framework'
  | 'activate_group_member' | 'admin_member_access_request' | 'read_member_access_request' | 'read_billable_member'
  | 'admin_push_rules' | 'change_push_rules' | 'admin_terraform_state' | 'read_terraform_state'
  | 'admin_vulnerability' | 'admin_vulnerability_merge_request_link' | 'read_vulnerability' | 'read_vulnerability_statistics'
  | 'read_security_resource' | 'read_group_security_dashboard' | 'create_vulnerability_export' | 'access_security_and_compliance'
  | 'manage_deploy_tokens'
  | 'manage_merge_request_settings' | 'edit_approval_rule'
  | 'read_security_orchestration_policies' | 'update_security_orchestration_policy_project'
  | 'read_dependency' | 'read_licenses'
  | 'admin_cicd_variables';

interface CustomGrant {
  /** Abilities on projects in the scope of the membership that holds the role. */
  project?: readonly (ProjectAbility | ElsewhereAbility)[];
  /** Abilities on the member's group and its descendants. */
  group?: readonly (GroupAbility | ElsewhereAbility)[];
  /** Group grants apply to subgroups only (GitLab: the flag deletes subgroups, never a top-level group). */
  subgroupsOnly?: true;
}

/**
 * THE table from a custom role's permission flag to the abilities it adds to the role's base
 * access level (GitLab's `project_permissions` / `group_permissions` of
 * ee/config/custom_abilities/<flag>.yml, mapped to Forgelet's ability names). A role applies
 * where its membership applies: on the project or group, and down the group tree.
 */
export const CUSTOM_ROLE_ABILITIES = {
  // Forgelet: pipeline schedule variables are the CI/CD variables it has; managing them needs the schedules visible
  admin_cicd_variables: { project: ['admin_cicd_variables', 'admin_pipeline_schedule_variables', 'read_pipeline_schedule'], group: ['admin_cicd_variables'] },
  admin_compliance_framework: {
    project: ['admin_compliance_framework', 'read_compliance_adherence_report', 'read_compliance_dashboard', 'read_compliance_violations_report'],
    group: ['admin_compliance_framework', 'admin_compliance_pipeline_configuration', 'read_compliance_adherence_report', 'read_compliance_dashboard', 'read_compliance_violations_report'],
  },
  admin_group_member: { group: ['admin_group_member', 'activate_group_member', 'admin_member_access_request', 'read_member_access_request', 'read_billable_member'] },
  // GitLab adds download_code and read_merge_request so that Guests can see what they approve
  admin_merge_request: { project: ['approve_merge_request', 'read_merge_request', 'read_code'] },
  admin_push_rules: { project: ['admin_push_rules', 'change_push_rules'], group: ['admin_push_rules', 'change_push_rules'] },
  admin_terraform_state: { project: ['admin_terraform_state', 'read_terraform_state'] },
  admin_vulnerability: {
    project: ['admin_vulnerability', 'admin_vulnerability_merge_request_link', 'read_vulnerability'],
    group: ['admin_vulnerability', 'create_vulnerability_export', 'read_group_security_dashboard', 'read_security_resource', 'read_vulnerability', 'read_vulnerability_statistics'],
  },
  admin_web_hook: { project: ['admin_web_hook', 'read_web_hook'], group: ['admin_web_hook', 'read_web_hook'] },
  archive_project: { project: ['archive_project'] },
  manage_deploy_tokens: {
    project: ['manage_deploy_tokens', 'read_deploy_token', 'create_deploy_token', 'destroy_deploy_token'],
    group: ['manage_deploy_tokens', 'read_deploy_token', 'create_deploy_token', 'destroy_deploy_token'],
  },
  manage_group_access_tokens: { group: ['manage_resource_access_tokens'] },
  manage_merge_request_settings: {
    project: ['admin_merge_request_approval_settings', 'manage_merge_request_settings', 'edit_approval_rule', 'modify_approvers_rules'],
    group: ['manage_merge_request_settings'],
  },
  manage_project_access_tokens: { project: ['manage_resource_access_tokens'] },
  manage_security_policy_link: {
    project: ['access_security_and_compliance', 'read_security_orchestration_policies', 'update_security_orchestration_policy_project'],
    group: ['read_security_orchestration_policies', 'update_security_orchestration_policy_project'],
  },
  // Forgelet: CI pipelines, jobs, logs and artifacts are readable wherever code is (the `readCode` rule)
  read_code: { project: ['read_code', 'read_pipeline', 'read_build', 'read_build_trace', 'read_job_artifacts'] },
  read_dependency: { project: ['access_security_and_compliance', 'read_dependency', 'read_licenses'], group: ['read_dependency', 'read_licenses'] },
  read_runners: { project: ['read_runners'], group: ['read_runners'] },
  read_vulnerability: {
    project: ['access_security_and_compliance', 'read_compliance_framework', 'read_vulnerability', 'read_security_resource', 'create_vulnerability_export'],
    group: ['create_vulnerability_export', 'read_group_security_dashboard', 'read_security_resource', 'read_vulnerability', 'read_vulnerability_statistics'],
  },
  remove_group: { group: ['remove_group'], subgroupsOnly: true },
  remove_project: { project: ['remove_project'] },
} as const satisfies Record<string, CustomGrant>;

export type CustomPermission = keyof typeof CUSTOM_ROLE_ABILITIES;
/** Every permission flag of a custom role, in API order. */
export const CUSTOM_PERMISSIONS = Object.keys(CUSTOM_ROLE_ABILITIES).sort() as CustomPermission[];

/** The abilities the flags grant on the subject (custom roles are an Ultimate feature). */
function customAbilitiesOf(ctx: Ctx, subject: Subject, namespace: NamespaceRow, flags: ReadonlySet<string>): ReadonlySet<string> {
  const out = new Set<string>();
  if (flags.size === 0 || !tierAtLeast(ctx.config.tier, 'ultimate')) return out;
  for (const flag of flags) {
    const grant: CustomGrant | undefined = (CUSTOM_ROLE_ABILITIES as Record<string, CustomGrant>)[flag];
    if (!grant) continue;
    if (subject.kind === 'project') for (const a of grant.project ?? []) out.add(a);
    else if (!grant.subgroupsOnly || namespace.parent_id !== null) for (const a of grant.group ?? []) out.add(a);
  }
  return out;
}

export { traversalIds } from './namespace.table.js';

const selectNamespace = preparedQuery((db, id: number) => db.selectFrom('namespaces').selectAll().where('id', '=', id), { cache: true });

/** A namespace by id, loaded once per request. */
export async function namespaceOf(ctx: Ctx, id: number): Promise<NamespaceRow> {
  const key = `ns:${id}`;
  let ns = ctx.cache.get(key) as NamespaceRow | undefined;
  if (!ns) {
    ns = (await selectNamespace(ctx.db, id))[0] as NamespaceRow | undefined;
    if (!ns) throw new Error(`namespace ${id} is missing`);
    ctx.cache.set(key, ns);
  }
  return ns;
}

/**
 * Highest unexpired membership levels of a user: directly on a project, and on the groups
 * of a traversal path (`/1/5/`), in one query. `%/<id>/%` matches a group on the path.
 */
const selectMemberLevels = preparedQuery((db, userId: number, today: string, projectId: number, traversal: string) => ({
  compile: () =>
    sql<{ source_kind: string; level: number; permissions: string | null }>`
      select m.source_kind, m.access_level as level, r.permissions from members m
      left join member_roles r on r.id = m.member_role_id
      where m.user_id = ${userId} and (m.expires_at is null or m.expires_at > ${today})
        and ((m.source_kind = 'project' and m.source_id = ${projectId})
          or (m.source_kind = 'namespace' and ${traversal} like '%/' || m.source_id || '/%'))`.compile(db),
}), { cache: true });

export interface MemberLevels {
  /** Direct membership of the project (0 for groups or none). */
  direct: number;
  /** Highest membership inherited from the subject's group and its ancestors. */
  group: number;
  /** The effective level: the larger of both, Owner for a personal namespace's owner. */
  effective: number;
  /** Permission flags of the custom roles on these memberships. */
  permissions: ReadonlySet<string>;
  /** Abilities those flags add on the subject (none below Ultimate). */
  customAbilities: ReadonlySet<string>;
}

const NO_LEVELS: MemberLevels = { direct: NO_ACCESS, group: NO_ACCESS, effective: NO_ACCESS, permissions: new Set(), customAbilities: new Set() };

/**
 * The actor's membership levels on the subject and the custom role flags of those
 * memberships, in one query (cached per request).
 */
export async function memberLevels(ctx: Ctx, subject: Subject): Promise<MemberLevels> {
  const user = ctx.actor.user;
  if (!user) return NO_LEVELS;
  const key = subject.kind === 'project' ? `lvl:p:${subject.project.id}` : `lvl:g:${subject.group.id}`;
  const cached = ctx.cache.get(key) as MemberLevels | undefined;
  if (cached) return cached;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const namespace = subject.kind === 'project' ? await namespaceOf(ctx, subject.project.namespace_id) : subject.group;
  const traversal = namespace.kind === 'group' ? namespace.traversal : '';
  const rows = await selectMemberLevels(ctx.db, user.id, today, subject.kind === 'project' ? subject.project.id : 0, traversal);
  let direct = NO_ACCESS;
  let group = NO_ACCESS;
  const permissions = new Set<string>();
  for (const r of rows) {
    if (r.source_kind === 'project') direct = Math.max(direct, Number(r.level));
    else group = Math.max(group, Number(r.level));
    if (r.permissions) for (const flag of JSON.parse(r.permissions) as string[]) permissions.add(flag);
  }
  let effective = Math.max(direct, group);
  if (subject.kind === 'project' && namespace.kind === 'user' && namespace.owner_id === user.id) effective = OWNER;
  const levels: MemberLevels = { direct, group, effective, permissions, customAbilities: customAbilitiesOf(ctx, subject, namespace, permissions) };
  ctx.cache.set(key, levels);
  return levels;
}

/** The actor's effective access level on the subject: max of direct and inherited memberships. */
export async function accessLevel(ctx: Ctx, subject: Subject): Promise<number> {
  return (await memberLevels(ctx, subject)).effective;
}

/** True when the actor is a member of something inside the group (GitLab shows such ancestors). */
async function hasDescendantMembership(ctx: Ctx, group: NamespaceRow): Promise<boolean> {
  const user = ctx.actor.user;
  if (!user) return false;
  const prefix = `${group.traversal}%`;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const viaGroup = await ctx.db
    .selectFrom('members')
    .innerJoin('namespaces', 'namespaces.id', 'members.source_id')
    .select('members.id')
    .where('members.user_id', '=', user.id)
    .where('members.source_kind', '=', 'namespace')
    .where((eb) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)]))
    .where('namespaces.traversal', 'like', prefix)
    .limit(1)
    .executeTakeFirst();
  if (viaGroup) return true;
  const viaProject = await ctx.db
    .selectFrom('members')
    .innerJoin('projects', 'projects.id', 'members.source_id')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select('members.id')
    .where('members.user_id', '=', user.id)
    .where('members.source_kind', '=', 'project')
    .where((eb) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)]))
    .where('namespaces.traversal', 'like', prefix)
    .limit(1)
    .executeTakeFirst();
  return Boolean(viaProject);
}

function visibleByVisibility(ctx: Ctx, visibility: string): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return ctx.actor.user !== null && ctx.actor.user.external === 0;
  return false;
}

/** Is the subject the deploy token's project, or inside its group? */
async function inDeployTokenScope(ctx: Ctx, subject: Subject): Promise<boolean> {
  const token = ctx.actor.deployToken!;
  if (subject.kind === 'project') {
    if (token.projectId !== null) return subject.project.id === token.projectId;
    return (await namespaceOf(ctx, subject.project.namespace_id)).traversal.startsWith(token.groupTraversal ?? '\0');
  }
  return token.groupTraversal !== null && subject.group.traversal.startsWith(token.groupTraversal);
}

/** What a deploy token's scopes allow (GitLab: the package registry, read or write). */
const DEPLOY_TOKEN_ABILITIES: Partial<Record<Ability, string>> = {
  read_package: 'read_package_registry',
  create_package: 'write_package_registry',
};

/** May the actor see the subject at all? */
export async function canRead(ctx: Ctx, subject: Subject): Promise<boolean> {
  if (ctx.actor.isAdmin) return true;
  if (ctx.actor.deployToken) return inDeployTokenScope(ctx, subject);
  const visibility = subject.kind === 'project' ? subject.project.visibility : subject.group.visibility;
  if (visibleByVisibility(ctx, visibility)) return true;
  const level = await accessLevel(ctx, subject);
  if (level >= GUEST) return true;
  if (subject.kind === 'group') return hasDescendantMembership(ctx, subject.group);
  return false;
}

/**
 * A CI job token acts on another project only when that project's inbound job token scope
 * lets the job's project in (cached per request).
 */
async function jobScopeAllows(ctx: Ctx, project: ProjectRow): Promise<boolean> {
  const job = ctx.actor.job;
  if (!job || job.projectId === project.id) return true;
  const key = `jts:${project.id}`;
  let allowed = ctx.cache.get(key) as boolean | undefined;
  if (allowed === undefined) {
    allowed = await jobTokenAllowed(ctx.db, job.projectId, project);
    ctx.cache.set(key, allowed);
  }
  return allowed;
}

/** Throws GitLab's 403 when the actor's job token may not reach the project. */
export async function enforceJobTokenScope(ctx: Ctx, project: ProjectRow): Promise<void> {
  if (await jobScopeAllows(ctx, project)) return;
  const source = await ctx.db.selectFrom('projects').select(['id', 'path_with_namespace']).where('id', '=', ctx.actor.job!.projectId).executeTakeFirst();
  await checkJobTokenScope(ctx.db, source ?? { id: ctx.actor.job!.projectId, path_with_namespace: String(ctx.actor.job!.projectId) }, project);
}

/** GitLab's `(~anonymous & public_project) | internal_access`, for a signed-in user. */
function publicUserAccess(visibility: string, external: number | boolean): boolean {
  return visibility === 'public' || (visibility === 'internal' && !external);
}

export async function can(ctx: Ctx, ability: Ability, subject: Subject): Promise<boolean> {
  const rules: Record<string, Rule> = subject.kind === 'project' ? PROJECT_RULES : GROUP_RULES;
  const rule = rules[ability];
  if (rule === undefined) throw new Error(`unknown ability ${ability} on ${subject.kind}`);
  if (subject.kind === 'project' && !(await jobScopeAllows(ctx, subject.project))) return false;
  if (ctx.actor.deployToken) {
    const scope = DEPLOY_TOKEN_ABILITIES[ability];
    return scope !== undefined && ctx.actor.deployToken.scopes.includes(scope) && (await inDeployTokenScope(ctx, subject));
  }
  if (!(await canRead(ctx, subject))) return false;
  if (rule === 'read') return true;
  if (ctx.actor.isAdmin) return true;
  // GitLab's public_user_access: a signed-in user on a public project (an internal one unless
  // external) has guest_access without being a member (create issues and notes, react).
  if (rule === GUEST && subject.kind === 'project' && ctx.actor.kind === 'user' && ctx.actor.user && publicUserAccess(subject.project.visibility, ctx.actor.user.external)) return true;
  const levels = await memberLevels(ctx, subject);
  if (typeof rule === 'number' ? levels.effective >= rule : rule(ctx, subject, levels.effective)) return true;
  // a custom role adds abilities to its base level
  return levels.customAbilities.has(ability);
}

function notFoundName(subject: Subject): string {
  return subject.kind === 'project' ? 'Project' : 'Group';
}

/**
 * Throws unless the actor has the ability: 404 when the subject is not visible to it
 * (401 for anonymous callers on routes that need a user), 403 when it is visible.
 */
export async function authorize(ctx: Ctx, ability: Ability, subject: Subject): Promise<void> {
  if (subject.kind === 'project') await enforceJobTokenScope(ctx, subject.project);
  if (await can(ctx, ability, subject)) return;
  if (!(await canRead(ctx, subject))) {
    throw new NotFoundError(notFoundName(subject));
  }
  if (!ctx.actor.user) throw new UnauthorizedError();
  throw new ForbiddenError();
}

/** Throws 403 unless the actor is an administrator. */
export function requireAdmin(ctx: Ctx): void {
  if (!ctx.actor.user) throw new UnauthorizedError();
  if (!ctx.actor.isAdmin) throw new ForbiddenError();
}

/** Throws 401 unless there is an authenticated user. */
export function requireUser(ctx: Ctx): NonNullable<Ctx['actor']['user']> {
  if (!ctx.actor.user) throw new UnauthorizedError();
  return ctx.actor.user;
}
