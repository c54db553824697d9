export { listStateEvents, getStateEvent, ListStateEventsInput } from './state-events.js';
export type { ResourceStateEventEntity, StateEventResourceType } from './state-event.entity.js';
export type { ResourceStateEventRow, NewResourceStateEventRow } from './state-event.table.js';
/** For issues, merge requests and epics: record a close, reopen or merge inside its transaction; the target their routes read. */
export { recordStateEvent, type StateEventTarget } from './state-event.queries.js';
