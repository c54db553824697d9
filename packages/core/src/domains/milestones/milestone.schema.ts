/** Parameters of the milestone endpoints, as GitLab's `API::MilestoneResponses` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { Field, p, params, type InferShape, type JsonSchema } from '../../kernel/params.js';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A `YYYY-MM-DD` date where GitLab declares `type: String`: `""` and null clear the date
 * (Rails casts a blank string to nil); text that is not a date is `X is invalid`.
 */
class BlankableDateField extends Field<string | null> {
  protected coerce(raw: unknown): { ok: true; value: string | null } | { ok: false; message: string } {
    if (raw === null || (typeof raw === 'string' && raw.trim() === '')) return { ok: true, value: null };
    if (typeof raw !== 'string') return { ok: false, message: 'is invalid' };
    const text = raw.trim();
    const d = new Date(DATE_RE.test(text) ? `${text}T00:00:00.000Z` : text);
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) return { ok: false, message: 'is invalid' };
    return { ok: true, value: d.toISOString().slice(0, 10) };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', format: 'date', nullable: true });
  }
}
const date = () => new BlankableDateField().nullable();

export const MILESTONE_STATES = ['active', 'closed'] as const;

const listFields = {
  id: p.string(),
  iids: p.array(p.integer()).commaSeparated().optional().describe('Ignored when `include_ancestors` (or `include_parent_milestones`) is true.'),
  state: p.enum([...MILESTONE_STATES, 'all']).default('all'),
  title: p.string().optional().describe('Exact, case-sensitive.'),
  search: p.search().optional().describe('Title or description, case-insensitive; every word (3+ characters) must match.'),
  search_title: p.string().optional().describe('Title only, case-insensitive; every word (3+ characters) must match.'),
  include_parent_milestones: p.boolean().default(false).describe('Deprecated spelling of `include_ancestors`.'),
  include_ancestors: p.boolean().default(false),
  updated_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  containing_date: p.date().optional().describe('Milestones whose start_date <= value <= due_date (an open end counts as open).'),
  start_date: p.date().optional().describe('With end_date: milestones overlapping [start_date, end_date].'),
  end_date: p.date().optional(),
  ...paginationParams,
};
const listRules = { allOrNone: [['start_date', 'end_date']] };

export const ListGroupMilestonesInput = params({ ...listFields, include_descendants: p.boolean().default(false) }, listRules);
export type ListGroupMilestonesInput = InferShape<typeof ListGroupMilestonesInput.shape>;

export const ListProjectMilestonesInput = params(listFields, listRules);
export type ListProjectMilestonesInput = InferShape<typeof ListProjectMilestonesInput.shape>;

export type ListMilestonesInput = ListGroupMilestonesInput | ListProjectMilestonesInput;

export const MilestoneRefInput = params({ id: p.string(), milestone_id: p.integer() });
export type MilestoneRefInput = InferShape<typeof MilestoneRefInput.shape>;

export const MilestoneIssuablesInput = params({ id: p.string(), milestone_id: p.integer(), ...paginationParams });
export type MilestoneIssuablesInput = InferShape<typeof MilestoneIssuablesInput.shape>;

export const CreateMilestoneInput = params({
  id: p.string(),
  title: p.string(),
  description: p.string().nullable().optional(),
  due_date: date().optional(),
  start_date: date().optional(),
});
export type CreateMilestoneInput = InferShape<typeof CreateMilestoneInput.shape>;

export const UpdateMilestoneInput = params(
  {
    id: p.string(),
    milestone_id: p.integer(),
    title: p.string().optional(),
    description: p.string().nullable().optional(),
    due_date: date().optional(),
    start_date: date().optional(),
    state_event: p.enum(['close', 'activate']).optional(),
  },
  { atLeastOneOf: [['title', 'description', 'start_date', 'due_date', 'state_event']] },
);
export type UpdateMilestoneInput = InferShape<typeof UpdateMilestoneInput.shape>;
