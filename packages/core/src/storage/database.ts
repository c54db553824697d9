/** The union of every domain's tables. */
import type { UserTable } from '../domains/accounts/user.table.js';
import type { NamespaceTable } from '../domains/accounts/namespace.table.js';
import type { ProjectTable, RedirectRouteTable } from '../domains/accounts/project.table.js';
import type { MemberTable } from '../domains/accounts/member.table.js';
import type { AccessTokenTable } from '../domains/accounts/access-token.table.js';
import type { InternalIdTable, QueueJobTable } from './queue.table.js';

export interface Database {
  users: UserTable;
  namespaces: NamespaceTable;
  projects: ProjectTable;
  redirect_routes: RedirectRouteTable;
  members: MemberTable;
  access_tokens: AccessTokenTable;
  queue_jobs: QueueJobTable;
  internal_ids: InternalIdTable;
}
