/** Parameters of the error tracking endpoints (GitLab's ErrorTracking::ProjectSettings/ClientKeys, and Forgelet's reads). */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const ERROR_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];
export const ERROR_SORTS = ['last_seen', 'first_seen', 'frequency'] as const;

export const ProjectRefInput = params({ id: p.string() });
export type ProjectRefInput = InferShape<typeof ProjectRefInput.shape>;

/** PATCH: `active` required (not blank), `integrated` optional. */
export const PatchSettingsInput = params({ id: p.string(), active: p.boolean().nonBlank(), integrated: p.boolean().optional() });
export type PatchSettingsInput = InferShape<typeof PatchSettingsInput.shape>;

/** PUT: both required (creates the setting when the project has none). */
export const PutSettingsInput = params({ id: p.string(), active: p.boolean().nonBlank(), integrated: p.boolean() });
export type PutSettingsInput = InferShape<typeof PutSettingsInput.shape>;

export const ListClientKeysInput = params({ id: p.string(), ...paginationParams });
export type ListClientKeysInput = InferShape<typeof ListClientKeysInput.shape>;

export const ClientKeyRefInput = params({ id: p.string(), key_id: p.integer() });
export type ClientKeyRefInput = InferShape<typeof ClientKeyRefInput.shape>;

export const ListErrorsInput = params({
  id: p.string(),
  sort: p.enum(ERROR_SORTS).default('last_seen').describe('last_seen (default), first_seen (newest first) or frequency (most events first).'),
  search: p.search().optional().describe('Case-insensitive match in title, message and culprit.'),
  status: p.enum(ERROR_STATUSES).optional(),
  ...paginationParams,
});
export type ListErrorsInput = InferShape<typeof ListErrorsInput.shape>;

export const ErrorRefInput = params({ id: p.string(), error_id: p.integer() });
export type ErrorRefInput = InferShape<typeof ErrorRefInput.shape>;

export const FREQUENCY_PERIODS = ['24h', '30d'] as const;
export const ErrorFrequencyInput = params({
  id: p.string(),
  error_id: p.integer(),
  period: p.enum(FREQUENCY_PERIODS).default('24h').describe("24h (default): events per hour, the 24 hours ending with the current one; 30d: events per day (UTC), the 30 days ending with today (Sentry's stats periods)."),
});
export type ErrorFrequencyInput = InferShape<typeof ErrorFrequencyInput.shape>;

export const ListErrorEventsInput = params({ id: p.string(), error_id: p.integer(), ...paginationParams });
export type ListErrorEventsInput = InferShape<typeof ListErrorEventsInput.shape>;

export const UpdateErrorInput = params({ id: p.string(), error_id: p.integer(), status: p.enum(ERROR_STATUSES) });
export type UpdateErrorInput = InferShape<typeof UpdateErrorInput.shape>;

export const ListSessionsInput = params({ id: p.string(), release: p.string().optional(), ...paginationParams });
export type ListSessionsInput = InferShape<typeof ListSessionsInput.shape>;

/** The collector: `:id` is the project id (or path) of the DSN; the key may come in the query. */
export const CollectorInput = params({ id: p.string(), sentry_key: p.string().optional() });
export type CollectorInput = InferShape<typeof CollectorInput.shape>;
