/**
 * Project approval configuration: `GET/POST /projects/:id/approvals` (GitLab's
 * `ApprovalSettings` entity). `approvers` and `approver_groups` are deprecated and always
 * empty; `require_password_to_approve` is the deprecated name of
 * `require_reauthentication_to_approve` (one setting, either name sets it).
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { authorize } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { bool } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRefInput, UpdateApprovalSettingsInput } from './approvals.schema.js';
import type { ProjectApprovalSettingsRow } from './approvals.table.js';

export interface ApprovalSettings {
  approvals_before_merge: number;
  reset_approvals_on_push: boolean;
  selective_code_owner_removals: boolean;
  disable_overriding_approvers_per_merge_request: boolean;
  merge_requests_author_approval: boolean;
  merge_requests_disable_committers_approval: boolean;
  require_reauthentication_to_approve: boolean;
}

export interface ApprovalSettingsEntity extends ApprovalSettings {
  /** Deprecated (12.3): always empty. */
  approvers: never[];
  /** Deprecated (12.3): always empty. */
  approver_groups: never[];
  /** Deprecated (16.9): same value as `require_reauthentication_to_approve`. */
  require_password_to_approve: boolean;
}

/** GitLab's project defaults: approvals are removed on push, authors may not approve. */
export const DEFAULT_SETTINGS: ApprovalSettings = {
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  selective_code_owner_removals: false,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_reauthentication_to_approve: false,
};

/**
 * `approvals_before_merge` is the project's column (deprecated 12.3: stored and shown, not used
 * by the approval state), the one `PUT /projects/:id` sets; the rest live in this domain's table.
 */
function fromRow(row: ProjectApprovalSettingsRow | undefined, approvalsBeforeMerge: number): ApprovalSettings {
  if (!row) return { ...DEFAULT_SETTINGS, approvals_before_merge: approvalsBeforeMerge };
  return {
    approvals_before_merge: approvalsBeforeMerge,
    reset_approvals_on_push: row.reset_approvals_on_push === 1,
    selective_code_owner_removals: row.selective_code_owner_removals === 1,
    disable_overriding_approvers_per_merge_request: row.disable_overriding_approvers_per_merge_request === 1,
    merge_requests_author_approval: row.merge_requests_author_approval === 1,
    merge_requests_disable_committers_approval: row.merge_requests_disable_committers_approval === 1,
    require_reauthentication_to_approve: row.require_reauthentication_to_approve === 1,
  };
}

/** The settings of one project (defaults when it never changed them). */
export async function settingsOf(db: Kysely<Database>, projectId: number): Promise<ApprovalSettings> {
  const row = await db.selectFrom('project_approval_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  const project = await db.selectFrom('projects').select('approvals_before_merge').where('id', '=', projectId).executeTakeFirst();
  return fromRow(row, project?.approvals_before_merge ?? 0);
}

/** Settings of several projects at once. */
export async function settingsOfProjects(db: Kysely<Database>, projectIds: number[]): Promise<Map<number, ApprovalSettings>> {
  const ids = [...new Set(projectIds)];
  const out = new Map<number, ApprovalSettings>(ids.map((id) => [id, { ...DEFAULT_SETTINGS }]));
  if (!ids.length) return out;
  const rows = await db.selectFrom('project_approval_settings').selectAll().where('project_id', 'in', ids).execute();
  const projects = await db.selectFrom('projects').select(['id', 'approvals_before_merge']).where('id', 'in', ids).execute();
  for (const p of projects) out.get(p.id)!.approvals_before_merge = p.approvals_before_merge;
  for (const row of rows) out.set(row.project_id, fromRow(row, out.get(row.project_id)?.approvals_before_merge ?? 0));
  return out;
}

export function toApprovalSettingsEntity(s: ApprovalSettings): ApprovalSettingsEntity {
  return {
    approvers: [],
    approver_groups: [],
    approvals_before_merge: s.approvals_before_merge,
    reset_approvals_on_push: s.reset_approvals_on_push,
    selective_code_owner_removals: s.selective_code_owner_removals,
    disable_overriding_approvers_per_merge_request: s.disable_overriding_approvers_per_merge_request,
    merge_requests_author_approval: s.merge_requests_author_approval,
    merge_requests_disable_committers_approval: s.merge_requests_disable_committers_approval,
    require_password_to_approve: s.require_reauthentication_to_approve,
    require_reauthentication_to_approve: s.require_reauthentication_to_approve,
  };
}

/** GET /projects/:id/approvals: Developers (who may create merge requests) and up. */
export async function getApprovalSettings(ctx: Ctx, input: ProjectRefInput): Promise<ApprovalSettingsEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'create_merge_request', { kind: 'project', project });
  return toApprovalSettingsEntity(await settingsOf(ctx.db, project.id));
}

/**
 * POST /projects/:id/approvals (Maintainer): changes only what is given. Selective code owner
 * removals need `reset_approvals_on_push` off, judged on the resulting settings (400 with
 * the model error otherwise).
 */
export async function updateApprovalSettings(ctx: Ctx, input: UpdateApprovalSettingsInput): Promise<ApprovalSettingsEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  const now = nowIso(ctx);
  const next = await ctx.db.transaction().execute(async (trx) => {
    const current = await settingsOf(trx, project.id);
    const reauth = input.require_reauthentication_to_approve ?? input.require_password_to_approve;
    const merged: ApprovalSettings = {
      approvals_before_merge: input.approvals_before_merge ?? current.approvals_before_merge,
      reset_approvals_on_push: input.reset_approvals_on_push ?? current.reset_approvals_on_push,
      selective_code_owner_removals: input.selective_code_owner_removals ?? current.selective_code_owner_removals,
      disable_overriding_approvers_per_merge_request:
        input.disable_overriding_approvers_per_merge_request ?? current.disable_overriding_approvers_per_merge_request,
      merge_requests_author_approval: input.merge_requests_author_approval ?? current.merge_requests_author_approval,
      merge_requests_disable_committers_approval: input.merge_requests_disable_committers_approval ?? current.merge_requests_disable_committers_approval,
      require_reauthentication_to_approve: reauth ?? current.require_reauthentication_to_approve,
    };
    if (merged.selective_code_owner_removals && merged.reset_approvals_on_push) {
      throw new BadRequestError({ selective_code_owner_removals: ['can only be enabled when reset_approvals_on_push is disabled'] });
    }
    if (merged.approvals_before_merge !== current.approvals_before_merge) {
      await trx.updateTable('projects').set({ approvals_before_merge: merged.approvals_before_merge }).where('id', '=', project.id).execute();
    }
    const values = {
      reset_approvals_on_push: bool(merged.reset_approvals_on_push),
      selective_code_owner_removals: bool(merged.selective_code_owner_removals),
      disable_overriding_approvers_per_merge_request: bool(merged.disable_overriding_approvers_per_merge_request),
      merge_requests_author_approval: bool(merged.merge_requests_author_approval),
      merge_requests_disable_committers_approval: bool(merged.merge_requests_disable_committers_approval),
      require_reauthentication_to_approve: bool(merged.require_reauthentication_to_approve),
      updated_at: now,
    };
    await trx
      .insertInto('project_approval_settings')
      .values({ project_id: project.id, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
    return merged;
  });
  return toApprovalSettingsEntity(next);
}
