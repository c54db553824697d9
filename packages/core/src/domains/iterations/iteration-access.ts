import type { Ctx } from '../../access/context.js';
import { ForbiddenError } from '../../kernel/errors.js';
import { authorize, type Ability } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { findGroup } from '../../access/lookup.js';

/**
 * The group for an iteration endpoint: 404 when the caller can't read it, then 403 when
 * iterations are not licensed (Premium and Ultimate; GitLab's `read_iteration` needs the
 * licensed feature, so `authorize!` answers 403 on a readable group), then 403 without the ability.
 */
export async function findIterationGroup(ctx: Ctx, ref: string, ability: Ability): Promise<NamespaceRow> {
  const group = await findGroup(ctx, ref);
  if (!tierAtLeast(ctx.config.tier, 'premium')) throw new ForbiddenError();
  await authorize(ctx, ability, { kind: 'group', group });
  return group;
}
