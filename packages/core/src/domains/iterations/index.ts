/** Group iterations and iteration cadences, with automatic scheduling through the queue. */
export { iterationsRoutes } from './iterations.routes.js';
export { registerIterationJobs, scheduleCadenceIterations } from './schedule-iterations.js';
export { listGroupIterations } from './list-group-iterations.js';
export { listIterationCadences, getIterationCadence, createIterationCadence, updateIterationCadence, deleteIterationCadence } from './iteration-cadences.js';
export { createIteration } from './create-iteration.js';
export { ITERATION_STATE, type IterationCadenceEntity, type IterationEntity, type IterationState } from './iteration.entity.js';
export type {
  CreateIterationCadenceInput,
  CreateIterationInput,
  IterationCadencePathInput,
  IterationStateFilter,
  ListGroupIterationsInput,
  ListIterationCadencesInput,
  UpdateIterationCadenceInput,
} from './iteration.schema.js';
export type { IterationCadenceRow, IterationRow } from './iteration.table.js';
/** GraphQL: Iteration, IterationCadence, Group.iterations/iterationCadences, iterationCadenceCreate/Update/Destroy. */
export { iterationsGraphql } from './iterations.graphql.js';
