export { stateEventsRoutes } from './state-events.routes.js';
export { listStateEvents, getStateEvent, listEpicStateEvents, getEpicStateEvent, type StateEventSegment } from './state-events.js';
export type { ListStateEventsInput } from './state-events.js';
export type { ResourceStateEventEntity, StateEventResourceType } from './state-event.entity.js';
export type { ResourceStateEventRow, NewResourceStateEventRow } from './state-event.table.js';
/** For issues and merge requests: record a close, reopen or merge inside its transaction. */
export { recordStateEvent } from './state-event.queries.js';
