/** Parameters of the epic and epic-link endpoints, as GitLab's `API::Epics` and `API::EpicLinks` declare them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

const titles = () => p.array(p.string()).commaSeparated();

export const EpicPathInput = params({ id: p.string(), epic_iid: p.integer() });
export type EpicPathInput = InferShape<typeof EpicPathInput.shape>;

export const ListEpicsInput = params(
  {
    id: p.string(),
    order_by: p.enum(['created_at', 'updated_at', 'title']).default('created_at'),
    sort: p.enum(['asc', 'desc']).default('desc'),
    search: p.search().optional(),
    state: p.enum(['opened', 'closed', 'all']).default('all'),
    author_id: p.integer().optional(),
    author_username: p.username().optional(),
    labels: titles().optional().describe('Epics having all these labels.'),
    created_after: p.datetime().optional(),
    created_before: p.datetime().optional(),
    updated_after: p.datetime().optional(),
    updated_before: p.datetime().optional(),
    include_ancestor_groups: p.boolean().default(false),
    include_descendant_groups: p.boolean().default(true),
    confidential: p.boolean().optional(),
    ...paginationParams,
  },
  { mutuallyExclusive: [['author_id', 'author_username']] },
);
export type ListEpicsInput = InferShape<typeof ListEpicsInput.shape>;

const editable = {
  description: p.string().optional(),
  color: p.string().optional().describe('`#RGB` or `#RRGGBB`.'),
  confidential: p.boolean().optional(),
  start_date: p.date().optional().describe('Stored as `start_date_fixed`; giving it without `start_date_is_fixed` fixes the date.'),
  start_date_is_fixed: p.boolean().optional(),
  end_date: p.date().optional().describe('Stored as `due_date_fixed`.'),
  due_date_is_fixed: p.boolean().optional(),
  labels: titles().optional(),
  parent_id: p.integer().optional().describe('Global id of the parent epic (multi-level epics: Ultimate).'),
};

export const CreateEpicInput = params({ id: p.string(), title: p.string(), ...editable, created_at: p.datetime().optional() });
export type CreateEpicInput = InferShape<typeof CreateEpicInput.shape>;

export const UpdateEpicInput = params(
  {
    id: p.string(),
    epic_iid: p.integer(),
    title: p.string().optional(),
    ...editable,
    add_labels: titles().optional(),
    remove_labels: titles().optional(),
    state_event: p.enum(['reopen', 'close']).optional(),
    updated_at: p.datetime().optional(),
  },
  {
    atLeastOneOf: [
      [
        'add_labels', 'color', 'confidential', 'description', 'end_date', 'due_date_is_fixed', 'labels',
        'parent_id', 'remove_labels', 'start_date', 'start_date_is_fixed', 'state_event', 'title',
      ],
    ],
  },
);
export type UpdateEpicInput = InferShape<typeof UpdateEpicInput.shape>;

/** `/groups/:id/epics/:epic_iid/epics/:child_epic_id` (global id: children may live in other groups). */
export const EpicLinkPathInput = params({ id: p.string(), epic_iid: p.integer(), child_epic_id: p.integer() });
export type EpicLinkPathInput = InferShape<typeof EpicLinkPathInput.shape>;

export const CreateChildEpicInput = params({ id: p.string(), epic_iid: p.integer(), title: p.string(), confidential: p.boolean().optional() });
export type CreateChildEpicInput = InferShape<typeof CreateChildEpicInput.shape>;

export const ReorderChildEpicInput = params({
  id: p.string(),
  epic_iid: p.integer(),
  child_epic_id: p.integer(),
  move_before_id: p.integer().optional().describe('The sibling that ends up right before the child.'),
  move_after_id: p.integer().optional().describe('The sibling that ends up right after the child.'),
});
export type ReorderChildEpicInput = InferShape<typeof ReorderChildEpicInput.shape>;

/** `/groups/:id/epics/:epic_iid/issues` (GitLab's `API::EpicIssues`). */
export const ListEpicIssuesInput = params({ id: p.string(), epic_iid: p.integer(), ...paginationParams });
export type ListEpicIssuesInput = InferShape<typeof ListEpicIssuesInput.shape>;

export const AssignEpicIssueInput = params({
  id: p.string(),
  epic_iid: p.integer(),
  issue_id: p.integer().describe('The global ID of the issue'),
});
export type AssignEpicIssueInput = InferShape<typeof AssignEpicIssueInput.shape>;

export const EpicIssuePathInput = params({
  id: p.string(),
  epic_iid: p.integer(),
  epic_issue_id: p.integer().describe('The ID of the epic-issue association'),
});
export type EpicIssuePathInput = InferShape<typeof EpicIssuePathInput.shape>;

export const ReorderEpicIssueInput = params({
  id: p.string(),
  epic_iid: p.integer(),
  epic_issue_id: p.integer().describe('The ID of the epic-issue association to move'),
  move_before_id: p.integer().optional().describe('The ID of the epic-issue association that ends up right before it'),
  move_after_id: p.integer().optional().describe('The ID of the epic-issue association that ends up right after it'),
  ...paginationParams,
});
export type ReorderEpicIssueInput = InferShape<typeof ReorderEpicIssueInput.shape>;
