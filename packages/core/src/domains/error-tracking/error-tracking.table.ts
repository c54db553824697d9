import type { Generated, Insertable, Selectable } from 'kysely';

/** A project's error tracking setting (GitLab's project_error_tracking_settings, integrated backend only). */
export interface ErrorTrackingSettingTable {
  id: Generated<number>;
  project_id: number;
  active: number;
  integrated: number;
  created_at: string;
  updated_at: string;
}
export type ErrorTrackingSettingRow = Selectable<ErrorTrackingSettingTable>;

/** Client keys (DSN public keys): `glet_` + 32 hex, stored in clear (they are public by design). */
export interface ErrorTrackingClientKeyTable {
  id: Generated<number>;
  project_id: number;
  public_key: string;
  active: Generated<number>;
  created_at: string;
}
export type ErrorTrackingClientKeyRow = Selectable<ErrorTrackingClientKeyTable>;

/** One error: the events of a project that share a fingerprint. Counters are kept by the ingest writer. */
export interface ErrorTrackingErrorTable {
  id: Generated<number>;
  project_id: number;
  fingerprint: string;
  title: string;
  type: string | null;
  message: string | null;
  culprit: string | null;
  platform: string | null;
  level: string | null;
  /** unresolved | resolved | ignored */
  status: Generated<string>;
  event_count: number;
  user_count: Generated<number>;
  first_seen_at: string;
  last_seen_at: string;
  first_release: string | null;
  last_release: string | null;
  last_event_id: string | null;
  issue_id: number | null;
  created_at: string;
  updated_at: string;
}
export type ErrorTrackingErrorRow = Selectable<ErrorTrackingErrorTable>;
export type NewErrorTrackingErrorRow = Insertable<ErrorTrackingErrorTable>;

/** One occurrence, with the SDK's payload (capped). */
export interface ErrorTrackingEventTable {
  id: Generated<number>;
  error_id: number;
  project_id: number;
  event_id: string;
  occurred_at: string;
  received_at: string;
  level: string | null;
  environment: string | null;
  release: string | null;
  platform: string | null;
  message: string | null;
  user_key: string | null;
  /** JSON object {id, username, email, ip_address} or null. */
  user: string | null;
  /** JSON array of frames. */
  stack_trace: string | null;
  /** JSON text of the event as sent (heavy parts dropped past the size cap). */
  payload: string;
}
export type ErrorTrackingEventRow = Selectable<ErrorTrackingEventTable>;
export type NewErrorTrackingEventRow = Insertable<ErrorTrackingEventTable>;

/** Distinct users of an error (`id:…`, `username:…`, `email:…`, `ip:…`). */
export interface ErrorTrackingErrorUserTable {
  error_id: number;
  user_key: string;
}

/** Events of an error per hour (`hour_start` ISO), for the 24-hour frequency. */
export interface ErrorTrackingErrorFrequencyTable {
  error_id: number;
  hour_start: string;
  count: number;
}

/** Release health: one row per SDK session (`sid`), its latest status and error count. */
export interface ErrorTrackingSessionTable {
  id: Generated<number>;
  project_id: number;
  sid: string;
  /** '' when the SDK sent none. */
  release: string;
  environment: string;
  /** ok | exited | crashed | abnormal | errored */
  status: string;
  errors: number;
  started_at: string;
  updated_at: string;
}
export type ErrorTrackingSessionRow = Selectable<ErrorTrackingSessionTable>;

/** Release health from `sessions` items (request-mode SDKs send counts, not sessions). */
export interface ErrorTrackingSessionAggregateTable {
  id: Generated<number>;
  project_id: number;
  release: string;
  environment: string;
  exited: number;
  errored: number;
  crashed: number;
  abnormal: number;
  first_seen_at: string;
  last_seen_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    error_tracking_settings: ErrorTrackingSettingTable;
    error_tracking_client_keys: ErrorTrackingClientKeyTable;
    error_tracking_errors: ErrorTrackingErrorTable;
    error_tracking_error_events: ErrorTrackingEventTable;
    error_tracking_error_users: ErrorTrackingErrorUserTable;
    error_tracking_error_frequency: ErrorTrackingErrorFrequencyTable;
    error_tracking_sessions: ErrorTrackingSessionTable;
    error_tracking_session_aggregates: ErrorTrackingSessionAggregateTable;
  }
}
