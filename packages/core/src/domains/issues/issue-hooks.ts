/**
 * What other domains do when an issue changes, without the issues domain naming them: an
 * incident opened, closed, reopened, retyped or deleted refreshes the project's DORA incident
 * metrics (delivery). Each domain hands its reaction to the wiring (forge.ts), which registers
 * it here; the hooks run inside the transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { IssueRow } from './issue.table.js';

/** Who made the change, and what an update replaced (for reactions that report it: webhooks). */
export interface IssueChange {
  by: Ctx;
  /** Label and assignee ids before an update. */
  previous?: { labelIds: number[]; assigneeIds: number[] };
}

export interface IssueHooks {
  /** After an issue was created (`before` null), updated, or deleted (`after` null). */
  issueChanged?: (trx: Kysely<Database>, before: IssueRow | null, after: IssueRow | null, change: IssueChange) => Promise<void>;
  /**
   * Before an issue with these values is created: true when `issueChanged` would do nothing
   * for it (then the creation may commit alone: issues/create-issue.ts). Hooks without it
   * are always run.
   */
  quietOnCreate?: (db: Kysely<Database>, issue: Pick<IssueRow, 'project_id' | 'issue_type' | 'confidential'>) => Promise<boolean>;
}

const registered = new HookList<IssueHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerIssueHooks(hooks: IssueHooks): void {
  registered.register(hooks);
}

/** Runs the reactions to a change and answers `after`, so a call can close a transaction. */
export async function issueChanged<T extends IssueRow | null>(trx: Kysely<Database>, before: IssueRow | null, after: T, change: IssueChange): Promise<T> {
  for (const h of registered.all()) if (h.issueChanged) await h.issueChanged(trx, before, after, change);
  return after;
}

/** True when no registered reaction would act on the creation of an issue with these values. */
export async function issueCreationQuiet(db: Kysely<Database>, issue: Pick<IssueRow, 'project_id' | 'issue_type' | 'confidential'>): Promise<boolean> {
  for (const h of registered.all()) {
    if (!h.issueChanged) continue;
    if (!h.quietOnCreate || !(await h.quietOnCreate(db, issue))) return false;
  }
  return true;
}
