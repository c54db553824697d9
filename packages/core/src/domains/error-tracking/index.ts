/** Error tracking: Sentry-compatible ingest, client keys, grouped errors, issues from errors, retention. */
export { errorTrackingRoutes } from './error-tracking.routes.js';
export { registerErrorTrackingJobs, purgeErrorTracking, RETENTION_DAYS, type PurgeResult } from './retention.js';
export { writeBatch, PURGE_JOB, type PendingEvent, type PendingSession } from './ingest-writer.js';
export { ingestBufferOf, closeIngestBuffer, IngestBuffer, DEFAULT_BUFFER_OPTIONS, type BufferOptions } from './ingest-buffer.js';
export { normalizeEvent, normalizeSession, normalizeSessionAggregates, type NormalizedEvent, type StackFrame, type EventUser, type SessionUpdate, type SessionAggregate } from './normalize.js';
export { parseEnvelope, type Envelope, type EnvelopeItem } from './envelope.js';
export {
  createClientKey,
  deleteClientKey,
  getErrorTrackingSettings,
  listClientKeys,
  patchErrorTrackingSettings,
  putErrorTrackingSettings,
  sentryDsn,
  type ClientKeyEntity,
  type ErrorTrackingSettingEntity,
} from './settings.js';
export { getErrorFrequency, type ErrorFrequencyEntity } from './error-frequency.js';
export {
  createIssueForError,
  formatStackTrace,
  getError,
  listErrorEvents,
  listErrors,
  listSessions,
  updateError,
  type ErrorTrackingErrorEntity,
  type ErrorTrackingEventEntity,
  type ErrorTrackingSessionEntity,
} from './errors.js';
export {
  ERROR_SORTS,
  ERROR_STATUSES,
  FREQUENCY_PERIODS,
  type ClientKeyRefInput,
  type ErrorFrequencyInput,
  type ErrorRefInput,
  type ErrorStatus,
  type ListClientKeysInput,
  type ListErrorEventsInput,
  type ListErrorsInput,
  type ListSessionsInput,
  type PatchSettingsInput,
  type PutSettingsInput,
  type UpdateErrorInput,
} from './error-tracking.schema.js';
export type { ErrorTrackingErrorRow, ErrorTrackingClientKeyRow, ErrorTrackingSettingRow } from './error-tracking.table.js';
export { errorTrackingGraphql } from './error-tracking.graphql.js';
