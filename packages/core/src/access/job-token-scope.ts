/**
 * The job-token check the policy makes on every job-token request (GitLab's
 * Ci::JobToken::Scope): may a job of one project act on another? The allowlists it reads are
 * managed by the job-token-scope domain.
 */
import type { Kysely } from 'kysely';
import { ForbiddenError } from '../kernel/errors.js';
import type { Database } from '../storage/database.js';
import { applicationSetting } from './application-settings.js';
import { traversalIds } from './namespace.table.js';
import type { ProjectRow } from './project.table.js';
import './job-token-scope.table.js';

export async function settingsOf(db: Kysely<Database>, projectId: number): Promise<{ inbound: boolean; outbound: boolean }> {
  const row = await db.selectFrom('ci_job_token_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  return { inbound: row ? row.inbound_enabled === 1 : true, outbound: row ? row.outbound_enabled === 1 : false };
}

/** The inbound setting as it applies: the instance setting forces it on. */
export async function inboundEnforced(db: Kysely<Database>, projectId: number): Promise<boolean> {
  if (await applicationSetting(db, 'enforce_ci_inbound_job_token_scope_enabled')) return true;
  return (await settingsOf(db, projectId)).inbound;
}

/**
 * May a job of `sourceProjectId` act on `target` with its job token? Yes when it is the same
 * project, when the target's inbound scope is off (and the instance does not enforce it), when
 * the target's allowlist names the source project, or a group containing it.
 */
export async function jobTokenAllowed(db: Kysely<Database>, sourceProjectId: number, target: ProjectRow): Promise<boolean> {
  if (sourceProjectId === target.id) return true;
  if (!(await inboundEnforced(db, target.id))) return true;
  const link = await db
    .selectFrom('ci_job_token_project_links')
    .select('id')
    .where('source_project_id', '=', target.id)
    .where('target_project_id', '=', sourceProjectId)
    .executeTakeFirst();
  if (link) return true;
  const source = await db
    .selectFrom('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['namespaces.traversal', 'namespaces.kind'])
    .where('projects.id', '=', sourceProjectId)
    .executeTakeFirst();
  if (!source || source.kind !== 'group') return false;
  const groupIds = traversalIds(source.traversal);
  if (!groupIds.length) return false;
  const viaGroup = await db
    .selectFrom('ci_job_token_group_links')
    .select('id')
    .where('source_project_id', '=', target.id)
    .where('target_group_id', 'in', groupIds)
    .executeTakeFirst();
  return Boolean(viaGroup);
}

/** Throws GitLab's 403 when the job token of `source` may not act on `target`. */
export async function checkJobTokenScope(db: Kysely<Database>, source: { id: number; path_with_namespace: string }, target: ProjectRow): Promise<void> {
  if (await jobTokenAllowed(db, source.id, target)) return;
  throw new ForbiddenError(`Authentication by CI/CD job token not allowed from ${source.path_with_namespace} to ${target.path_with_namespace}.`);
}
