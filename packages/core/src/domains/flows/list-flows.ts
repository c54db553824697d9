/**
 * The caller's flows, filtered and sorted as GitLab's `duoWorkflowWorkflows` (WorkflowsFinder)
 * does; listed in the database. GitLab has no REST list of flows: GraphQL serves this.
 */
import type { Ctx } from '../../access/context.js';
import { requireUser } from '../../access/policy.js';
import { selectProjectByRef } from '../../access/lookup.js';
import { fuzzyMatch } from '../../kernel/sql-pattern.js';
import { sql } from 'kysely';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { FLOW_TOKEN_SCOPE, presentFlow, type FlowEntity } from './flows.js';

/** GitLab's `Workflow::GROUPED_STATUSES` (DuoWorkflowStatusGroup). */
export const FLOW_STATUS_GROUPS: Record<string, string[]> = {
  active: ['created', 'running'],
  paused: ['paused'],
  awaiting_input: ['input_required', 'plan_approval_required', 'tool_call_approval_required'],
  completed: ['finished'],
  failed: ['failed'],
  canceled: ['stopped'],
};
export const FLOW_SORTS = ['created_desc', 'created_asc', 'updated_desc', 'updated_asc', 'status_asc', 'status_desc'] as const;
export type FlowSort = (typeof FLOW_SORTS)[number];

export interface FlowFilters {
  /** Full path of the project holding the flows; an unknown path lists nothing. */
  projectPath?: string;
  /** workflow_definition equal to this. */
  type?: string;
  excludeTypes?: string[];
  environment?: string;
  ids?: number[];
  /** In the title or the goal (GitLab's fuzzy search). */
  search?: string;
  statusGroup?: string;
  /** ISO timestamp: flows updated after it. */
  updatedAfter?: string;
  sort?: FlowSort;
}

/** A flow as GraphQL's DuoWorkflow shows it: the REST entity plus what only GraphQL exposes. */
export interface FlowRecord extends FlowEntity {
  user_id: number;
  goal: string | null;
  issue_iid: number | null;
  merge_request_iid: number | null;
  ai_catalog_item_consumer_id: number | null;
  created_at: string;
  updated_at: string;
}

/** One window of the caller's flows, with the count on demand (GitLab lists only your own flows). */
export async function listFlows(
  ctx: Ctx,
  filters: FlowFilters,
  page: PageRequest,
): Promise<Page<FlowRecord>> {
  const user = requireUser(ctx);
  const none: Page<FlowRecord> = { items: [], page: page.page, perPage: page.per_page, total: 0, hasNext: false, ...(page.offset !== undefined && { offset: page.offset }) };
  if (filters.type !== undefined && filters.excludeTypes?.includes(filters.type)) return none;
  let q = ctx.db.selectFrom('ai_flows').selectAll().where('user_id', '=', user.id);
  // A flow's own token (scope ai_workflows without api) sees that flow only, as on REST.
  const token = ctx.actor.token;
  if (token && token.kind !== 'job' && token.scopes.includes(FLOW_TOKEN_SCOPE) && !token.scopes.includes('api')) q = q.where('access_token_id', '=', token.id);
  if (filters.projectPath !== undefined) {
    const project = await selectProjectByRef(ctx, filters.projectPath);
    if (!project) return none;
    q = q.where('project_id', '=', project.id);
  }
  if (filters.type !== undefined) q = q.where('workflow_definition', '=', filters.type);
  if (filters.excludeTypes?.length) {
    const excluded = filters.excludeTypes;
    q = q.where((eb) => eb.or([eb('workflow_definition', 'is', null), eb('workflow_definition', 'not in', excluded)]));
  }
  if (filters.environment !== undefined) q = q.where('environment', '=', filters.environment);
  if (filters.ids !== undefined) q = filters.ids.length ? q.where('id', 'in', filters.ids) : q.where(sql<boolean>`1 = 0`);
  if (filters.search) {
    const byTitle = fuzzyMatch('title', filters.search);
    const byGoal = fuzzyMatch('goal', filters.search);
    if (byTitle && byGoal) q = q.where((eb) => eb.or([byTitle, byGoal]));
  }
  if (filters.statusGroup !== undefined) q = q.where('status', 'in', FLOW_STATUS_GROUPS[filters.statusGroup] ?? []);
  if (filters.updatedAfter !== undefined) q = q.where('updated_at', '>', filters.updatedAfter);
  const sort = filters.sort ?? 'created_desc';
  const [column, direction] = sort.startsWith('created') ? ['created_at', sort.endsWith('asc') ? 'asc' : 'desc'] as const
    : sort.startsWith('updated') ? ['updated_at', sort.endsWith('asc') ? 'asc' : 'desc'] as const
    : ['status', sort.endsWith('asc') ? 'asc' : 'desc'] as const;
  return paginate(ctx.db, q.orderBy(column, direction).orderBy('id', direction), page, (rows) =>
    rows.map((r) => ({
      ...presentFlow(ctx, r),
      user_id: r.user_id,
      goal: r.goal,
      issue_iid: r.issue_iid,
      merge_request_iid: r.merge_request_iid,
      ai_catalog_item_consumer_id: r.ai_catalog_item_consumer_id,
      created_at: r.created_at,
      updated_at: r.updated_at,
    })),
  );
}
