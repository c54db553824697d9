/** Parameters of the issue endpoints, as GitLab's `API::Issues` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { Field, p, params, type InferShape, type JsonSchema } from '../../kernel/params.js';

export const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];

export type UserFilter = number | 'None' | 'Any';

/** Grape's `types: [Integer, String]` with `None`/`Any` as the only strings (`assignee_id`). */
class UserFilterField extends Field<UserFilter> {
  protected coerce(raw: unknown): { ok: true; value: UserFilter } | { ok: false; message: string } {
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { ok: true, value: raw };
    if (typeof raw === 'string') {
      const text = raw.trim();
      if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) return { ok: true, value: Number(text) };
      const word = text.toLowerCase();
      if (word === 'none') return { ok: true, value: 'None' };
      if (word === 'any') return { ok: true, value: 'Any' };
    }
    return { ok: false, message: 'does not have a valid value' };
  }
  schema(): JsonSchema {
    return this.withMeta({ oneOf: [{ type: 'integer' }, { type: 'string', enum: ['None', 'Any'] }] });
  }
}

const userFilter = () => new UserFilterField();
const titles = () => p.array(p.string()).commaSeparated();

export const ISSUE_ORDER_BY = ['created_at', 'updated_at', 'title', 'due_date', 'popularity', 'weight'] as const;
const SCOPES = ['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'] as const;

const filterFields = {
  state: p.enum(['opened', 'closed', 'all']).default('all'),
  labels: titles().optional().describe('Issues having all these labels; `None` (no label) or `Any` (at least one).'),
  milestone: p.string().optional().describe('A milestone title, or `None`/`Any`/`Upcoming`/`Started`.'),
  iids: p.array(p.integer()).commaSeparated().optional(),
  search: p.search().optional(),
  in: p.string().optional().describe('Fields `search` looks in: `title`, `description` or `title,description` (default both).'),
  author_id: p.integer().optional(),
  author_username: p.username().optional(),
  assignee_id: userFilter().optional(),
  assignee_username: p.array(p.username()).optional(),
  my_reaction_emoji: p.string().optional(),
  confidential: p.boolean().optional(),
  issue_type: p.enum(ISSUE_TYPES).optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  order_by: p.enum(ISSUE_ORDER_BY).default('created_at'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  ...paginationParams,
};
const filterRules = {
  mutuallyExclusive: [
    ['author_id', 'author_username'],
    ['assignee_id', 'assignee_username'],
  ],
};

export const ListProjectIssuesInput = params({ id: p.string(), scope: p.enum(SCOPES).default('all'), ...filterFields }, filterRules);
export type ListProjectIssuesInput = InferShape<typeof ListProjectIssuesInput.shape>;

export const ListGroupIssuesInput = params(
  { id: p.string(), scope: p.enum(SCOPES).default('all'), non_archived: p.boolean().default(true), ...filterFields },
  filterRules,
);
export type ListGroupIssuesInput = InferShape<typeof ListGroupIssuesInput.shape>;

/** `GET /issues`: the caller's own issues unless `scope=all` (the only scope open to anonymous callers). */
export const ListIssuesInput = params({ scope: p.enum(SCOPES).default('created_by_me'), non_archived: p.boolean().default(true), ...filterFields }, filterRules);
export type ListIssuesInput = InferShape<typeof ListIssuesInput.shape>;

/** Every list's filters (the scope and project filters differ by endpoint). */
export type IssueFilters = ListProjectIssuesInput | ListGroupIssuesInput | ListIssuesInput;

export const IssuePathInput = params({ id: p.string(), issue_iid: p.integer() });

export const CreateIssueInput = params({
  id: p.string(),
  title: p.string(),
  description: p.string().optional(),
  confidential: p.boolean().optional(),
  issue_type: p.enum(ISSUE_TYPES).optional(),
  assignee_ids: p.array(p.integer().min(0)).commaSeparated().optional(),
  assignee_id: p.integer().min(0).optional().describe('Deprecated single assignee; wins over `assignee_ids` as in GitLab.'),
  milestone_id: p.integer().nullable().optional().describe('The project\'s or an ancestor group\'s milestone; `0`, null or any other id leaves it unset (as GitLab).'),
  labels: titles().optional(),
  due_date: p.date().optional(),
  created_at: p.datetime().optional().describe('Admins and project owners only; ignored for others.'),
  weight: p.integer().min(0).optional(),
  discussion_locked: p.boolean().optional(),
});
export type CreateIssueInput = InferShape<typeof CreateIssueInput.shape>;

const UPDATE_FIELDS = [
  'assignee_id', 'assignee_ids', 'confidential', 'description', 'discussion_locked', 'due_date', 'labels', 'add_labels',
  'remove_labels', 'milestone_id', 'state_event', 'title', 'issue_type', 'weight',
];

export const UpdateIssueInput = params(
  {
    id: p.string(),
    issue_iid: p.integer(),
    title: p.string().optional(),
    description: p.string().nullable().optional(),
    state_event: p.enum(['close', 'reopen']).optional(),
    labels: titles().optional().describe('Replaces the labels (`""` removes all).'),
    add_labels: titles().optional(),
    remove_labels: titles().optional(),
    assignee_ids: p.array(p.integer().min(0)).commaSeparated().optional().describe('`[]` or `[0]` unassigns everyone.'),
    assignee_id: p.integer().min(0).nullable().optional().describe('`0` unassigns; wins over `assignee_ids`.'),
    milestone_id: p.integer().nullable().optional().describe('`0` or null clears; an id that isn\'t the project\'s or an ancestor group\'s milestone clears too (as GitLab).'),
    confidential: p.boolean().optional(),
    issue_type: p.enum(ISSUE_TYPES).optional(),
    due_date: p.date().nullable().optional(),
    discussion_locked: p.boolean().optional(),
    weight: p.integer().min(0).nullable().optional(),
  },
  { atLeastOneOf: [UPDATE_FIELDS] },
);
export type UpdateIssueInput = InferShape<typeof UpdateIssueInput.shape>;
