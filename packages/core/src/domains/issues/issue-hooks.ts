/**
 * What other domains do when an issue changes, without the issues domain naming them: an
 * incident opened, closed, reopened, retyped or deleted refreshes the project's DORA incident
 * metrics (delivery). Each domain hands its reaction to the wiring (forge.ts), which registers
 * it here; the hooks run inside the transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { IssueRow } from './issue.table.js';

export interface IssueHooks {
  /** After an issue was created (`before` null), updated, or deleted (`after` null). */
  issueChanged?: (trx: Kysely<Database>, before: IssueRow | null, after: IssueRow | null) => Promise<void>;
}

const registered = new HookList<IssueHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerIssueHooks(hooks: IssueHooks): void {
  registered.register(hooks);
}

/** Runs the reactions to a change and answers `after`, so a call can close a transaction. */
export async function issueChanged<T extends IssueRow | null>(trx: Kysely<Database>, before: IssueRow | null, after: T): Promise<T> {
  for (const h of registered.all()) if (h.issueChanged) await h.issueChanged(trx, before, after);
  return after;
}
