/**
 * Parameters of `GET /groups/:id/iterations` (GitLab's `API::Iterations`) and of Forgelet's
 * REST extension for cadences and manual iterations (GitLab has those in GraphQL only).
 */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

/** `started` is GitLab's deprecated spelling of `current` (still accepted there). */
export const ITERATION_STATE_FILTERS = ['opened', 'upcoming', 'current', 'started', 'closed', 'all'] as const;
export type IterationStateFilter = (typeof ITERATION_STATE_FILTERS)[number];

export const ListGroupIterationsInput = params({
  id: p.string(),
  state: p.enum(ITERATION_STATE_FILTERS).default('all'),
  search: p.search().optional(),
  in: p.array(p.enum(['title', 'cadence_title'] as const)).default(['title']).describe('Where `search` looks; `in[]=a&in[]=b` and python-gitlab\'s repeated `in=a&in=b` both arrive as arrays.'),
  include_ancestors: p.boolean().default(true),
  include_descendants: p.boolean().default(false),
  updated_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  ...paginationParams,
});
export type ListGroupIterationsInput = InferShape<typeof ListGroupIterationsInput.shape>;

export const GroupPathInput = params({ id: p.string() });

export const ListIterationCadencesInput = params({ id: p.string(), ...paginationParams });
export type ListIterationCadencesInput = InferShape<typeof ListIterationCadencesInput.shape>;

export const IterationCadencePathInput = params({ id: p.string(), cadence_id: p.id() });
export type IterationCadencePathInput = InferShape<typeof IterationCadencePathInput.shape>;

const cadenceFields = {
  description: p.string().max(5000).nullable().optional(),
  start_date: p.date().optional().describe('First day of the first iteration; required for automatic cadences (manual ones default to today).'),
  duration_in_weeks: p.integer().optional().describe('1 to 4 weeks; required for automatic cadences.'),
  iterations_in_advance: p.integer().optional().describe('Upcoming iterations kept ahead of the current one, 1 to 10; required for automatic cadences.'),
  automatic: p.boolean().optional(),
  active: p.boolean().optional(),
  roll_over: p.boolean().optional().describe('Stored and shown; open issues are not moved to the next iteration (yet).'),
};

export const CreateIterationCadenceInput = params({
  id: p.string(),
  title: p.string().max(255).nonBlank(),
  ...cadenceFields,
});
export type CreateIterationCadenceInput = InferShape<typeof CreateIterationCadenceInput.shape>;

export const UpdateIterationCadenceInput = params({
  id: p.string(),
  cadence_id: p.id(),
  title: p.string().max(255).nonBlank().optional(),
  ...cadenceFields,
});
export type UpdateIterationCadenceInput = InferShape<typeof UpdateIterationCadenceInput.shape>;

export const CreateIterationInput = params({
  id: p.string(),
  cadence_id: p.id(),
  title: p.string().max(255).optional(),
  description: p.string().max(5000).optional(),
  start_date: p.date(),
  due_date: p.date(),
});
export type CreateIterationInput = InferShape<typeof CreateIterationInput.shape>;
