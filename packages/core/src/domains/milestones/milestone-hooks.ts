/**
 * What other domains do when a milestone is created, closed, reopened or deleted, without
 * milestones naming them (webhooks' milestone events, GitLab's Milestones::{Create,Close,Reopen,
 * Destroy}Service). The wiring (forge.ts) registers each reaction; they run inside the
 * transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { MilestoneRow } from './milestone.table.js';

export interface MilestoneChange {
  action: 'create' | 'close' | 'reopen' | 'delete';
  by: Ctx;
  /** The milestone after the change; on `delete`, as it was. */
  milestone: MilestoneRow;
  /** The project of a project milestone; null for a group milestone. */
  project: ProjectRow | null;
}

export interface MilestoneHooks {
  milestoneChanged?: (trx: Kysely<Database>, change: MilestoneChange) => Promise<void>;
}

const registered = new HookList<MilestoneHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerMilestoneHooks(hooks: MilestoneHooks): void {
  registered.register(hooks);
}

export async function runMilestoneChanged(trx: Kysely<Database>, change: MilestoneChange): Promise<void> {
  for (const h of registered.all()) if (h.milestoneChanged) await h.milestoneChanged(trx, change);
}
