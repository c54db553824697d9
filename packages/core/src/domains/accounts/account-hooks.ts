/**
 * What other domains do when members, groups, projects or users are written, without accounts
 * naming them (webhooks: system, member, subgroup and project events). The wiring (forge.ts)
 * registers each reaction; they run inside the transaction of the change, in registration
 * order, and on a deletion before the rows go (so a reaction can still read them).
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { MemberRow } from '../../access/member.table.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { Subject } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';

/** A membership's project or group. */
export type MemberSource = Subject;

export interface MemberChange {
  /** `update` only when the access level or the expiry changed (GitLab's post_update_hook). */
  action: 'create' | 'update' | 'destroy';
  by: Ctx;
  /** The membership after the change; on `destroy`, as it was. */
  member: MemberRow;
  source: MemberSource;
}

export interface GroupChange {
  /** `rename` when the path changed (GitLab sends nothing for other group edits). */
  action: 'create' | 'rename' | 'destroy';
  by: Ctx;
  group: NamespaceRow;
  /** Before a rename. */
  before?: NamespaceRow;
}

export interface ProjectChange {
  /** `rename` when the path changed, else `update` on every successful edit, as GitLab's UpdateService. */
  action: 'create' | 'update' | 'rename' | 'destroy';
  by: Ctx;
  project: ProjectRow;
  /** Before a rename or update. */
  before?: ProjectRow;
}

export interface UserChange {
  /** `rename` when the username changed. */
  action: 'create' | 'rename' | 'destroy';
  by: Ctx;
  user: UserRow;
  /** Before a rename. */
  before?: UserRow;
}

export interface AccountHooks {
  memberChanged?: (trx: Kysely<Database>, change: MemberChange) => Promise<void>;
  groupChanged?: (trx: Kysely<Database>, change: GroupChange) => Promise<void>;
  projectChanged?: (trx: Kysely<Database>, change: ProjectChange) => Promise<void>;
  userChanged?: (trx: Kysely<Database>, change: UserChange) => Promise<void>;
}

const registered = new HookList<AccountHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerAccountHooks(hooks: AccountHooks): void {
  registered.register(hooks);
}

export async function runMemberChanged(trx: Kysely<Database>, change: MemberChange): Promise<void> {
  for (const h of registered.all()) if (h.memberChanged) await h.memberChanged(trx, change);
}

export async function runGroupChanged(trx: Kysely<Database>, change: GroupChange): Promise<void> {
  for (const h of registered.all()) if (h.groupChanged) await h.groupChanged(trx, change);
}

export async function runProjectChanged(trx: Kysely<Database>, change: ProjectChange): Promise<void> {
  for (const h of registered.all()) if (h.projectChanged) await h.projectChanged(trx, change);
}

export async function runUserChanged(trx: Kysely<Database>, change: UserChange): Promise<void> {
  for (const h of registered.all()) if (h.userChanged) await h.userChanged(trx, change);
}
