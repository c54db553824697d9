/**
 * Every column that holds secrets sealed with the instance's secret key (kernel/secrets.ts),
 * and the table of the keys' ids. `forgelet secret-key rotate` re-encrypts exactly these
 * columns, so a new one belongs here: columns holding sealed text are named `*_encrypted`,
 * and test/core/secret-keys.test.ts fails when a column of that name is missing from the list.
 */
import type { Database } from './database.js';

export interface SecretKeyTable {
  /** kernel/secrets.ts `secretKeyId`: a public id derived from the key, never the key. */
  key_id: string;
  created_at: string;
  /** Null for the key secrets are sealed with; set when a rotation replaced it. */
  retired_at: string | null;
}

export interface SealedColumn {
  table: keyof Database & string;
  column: string;
  /** What it holds, for the rotation's report. */
  holds: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'ai_flow_callbacks', column: 'url_encrypted', holds: 'flow callback URLs' },
  { table: 'ai_flow_callbacks', column: 'signing_token_encrypted', holds: 'flow callback signing tokens' },
  { table: 'ai_flow_callbacks', column: 'token_encrypted', holds: 'flow callback service tokens' },
  { table: 'bulk_imports', column: 'source_token_encrypted', holds: 'migration source tokens' },
  { table: 'ci_pipeline_schedule_variables', column: 'value_encrypted', holds: 'pipeline schedule variables' },
  { table: 'ci_pipeline_variables', column: 'value_encrypted', holds: 'pipeline variables' },
  { table: 'ci_registration_tokens', column: 'token_encrypted', holds: 'runner registration tokens' },
  { table: 'ci_variables', column: 'value_encrypted', holds: 'CI/CD variables' },
  { table: 'web_hooks', column: 'url_encrypted', holds: 'webhook URLs' },
  { table: 'web_hooks', column: 'token_encrypted', holds: 'webhook secret tokens' },
  { table: 'web_hooks', column: 'custom_headers_encrypted', holds: 'webhook custom headers' },
  { table: 'web_hooks', column: 'url_variables_encrypted', holds: 'webhook URL variables' },
];
