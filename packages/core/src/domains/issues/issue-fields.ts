/** Rules shared by creating and updating issues: model validation and assignees. */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { contextFor } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { canRead } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';

const MAX_TITLE = 255;
const MAX_DESCRIPTION = 1_048_576;

/** GitLab's Issue model validations, answered as `400 {"message":{"title":["can't be blank"]}}`. */
export function checkIssueText(fields: { title?: string; description?: string | null }): void {
  const errors: Record<string, string[]> = {};
  if (fields.title !== undefined) {
    if (fields.title.trim() === '') errors.title = ["can't be blank"];
    else if (fields.title.length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
  }
  if (fields.description && fields.description.length > MAX_DESCRIPTION) {
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
  }
  if (Object.keys(errors).length) throw new BadRequestError(errors, { raw: true });
}

/**
 * The assignee ids a request asks for, or undefined when it doesn't touch assignees. As
 * GitLab's legacy conversion: a positive `assignee_id` wins over `assignee_ids`, `0` clears;
 * zeros in `assignee_ids` mean nobody.
 */
export function requestedAssignees(input: { assignee_id?: number | null; assignee_ids?: number[] }): number[] | undefined {
  if (input.assignee_id !== undefined && input.assignee_id !== null) return input.assignee_id > 0 ? [input.assignee_id] : [];
  if (input.assignee_ids !== undefined) return [...new Set(input.assignee_ids.filter((id) => id > 0))];
  return undefined;
}

/**
 * Of the requested users, those who may be assigned: active users who can read the project
 * (GitLab drops the others silently). Below Premium an issue has one assignee, the first.
 */
export async function assignableUsers(ctx: Ctx, project: ProjectRow, requested: number[]): Promise<UserRow[]> {
  if (requested.length === 0) return [];
  const users = (await selectUsersByIds(ctx.db, requested)).filter((u) => u.state === 'active');
  const byId = new Map(users.map((u) => [u.id, u]));
  const out: UserRow[] = [];
  for (const id of requested) {
    const user = byId.get(id);
    if (!user) continue;
    const as = contextFor(ctx, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
    if (await canRead(as, { kind: 'project', project })) out.push(user);
  }
  return tierAtLeast(ctx.config.tier, 'premium') ? out : out.slice(0, 1);
}
