import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import { createIteration } from './create-iteration.js';
import {
  createIterationCadence,
  deleteIterationCadence,
  getIterationCadence,
  listIterationCadences,
  updateIterationCadence,
} from './iteration-cadences.js';
import {
  CreateIterationCadenceInput,
  CreateIterationInput,
  IterationCadencePathInput,
  ListGroupIterationsInput,
  ListIterationCadencesInput,
  UpdateIterationCadenceInput,
} from './iteration.schema.js';
import { listGroupIterations } from './list-group-iterations.js';

export const iterationsRoutes = [
  route('GET', '/groups/:id/iterations', { tier: 'premium', auth: 'optional', params: ListGroupIterationsInput, tag: 'iterations', summary: 'List group iterations (Premium and Ultimate)' },
    async (ctx, input) => paged(await listGroupIterations(ctx, input))),

  // Forgelet extension: GitLab manages cadences and manual iterations in GraphQL only.
  route('GET', '/forgelet/groups/:id/iteration_cadences', { tier: 'premium', auth: 'optional', params: ListIterationCadencesInput, tag: 'iterations', summary: "List a group's iteration cadences" },
    async (ctx, input) => paged(await listIterationCadences(ctx, input))),
  route('POST', '/forgelet/groups/:id/iteration_cadences', { tier: 'premium', auth: 'required', params: CreateIterationCadenceInput, tag: 'iterations', summary: 'Create an iteration cadence' },
    async (ctx, input) => created(await createIterationCadence(ctx, input))),
  route('GET', '/forgelet/groups/:id/iteration_cadences/:cadence_id', { tier: 'premium', auth: 'optional', params: IterationCadencePathInput, tag: 'iterations', summary: 'Get an iteration cadence' },
    async (ctx, input) => ok(await getIterationCadence(ctx, input))),
  route('PUT', '/forgelet/groups/:id/iteration_cadences/:cadence_id', { tier: 'premium', auth: 'required', params: UpdateIterationCadenceInput, tag: 'iterations', summary: 'Update an iteration cadence' },
    async (ctx, input) => ok(await updateIterationCadence(ctx, input))),
  route('DELETE', '/forgelet/groups/:id/iteration_cadences/:cadence_id', { tier: 'premium', auth: 'required', params: IterationCadencePathInput, tag: 'iterations', summary: 'Delete an iteration cadence and its iterations' },
    async (ctx, input) => {
      await deleteIterationCadence(ctx, input);
      return noContent();
    }),
  route('POST', '/forgelet/groups/:id/iterations', { tier: 'premium', auth: 'required', params: CreateIterationInput, tag: 'iterations', summary: 'Create an iteration in a manual cadence' },
    async (ctx, input) => created(await createIteration(ctx, input))),
];
