/**
 * Instance application settings: the subset Forgelet acts on, each with GitLab's default, stored
 * one row per changed key. Read here (the policy needs them); changed through the
 * application-settings domain (`GET/PUT /application/settings`).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';

export interface ApplicationSettingTable {
  key: string;
  value: string; // JSON
  updated_at: string;
}

/** Every setting Forgelet knows, with GitLab's default. */
export const DEFAULTS = {
  enforce_ci_inbound_job_token_scope_enabled: false,
} as const;

export type ApplicationSettings = { -readonly [K in keyof typeof DEFAULTS]: (typeof DEFAULTS)[K] extends boolean ? boolean : (typeof DEFAULTS)[K] };
export type ApplicationSettingKey = keyof typeof DEFAULTS;

/** One setting's current value. */
export async function applicationSetting<K extends ApplicationSettingKey>(db: Kysely<Database>, key: K): Promise<ApplicationSettings[K]> {
  const row = await db.selectFrom('application_settings').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as ApplicationSettings[K]) : (DEFAULTS[key] as ApplicationSettings[K]);
}

export async function readApplicationSettings(db: Kysely<Database>): Promise<ApplicationSettings> {
  const rows = await db.selectFrom('application_settings').selectAll().execute();
  const settings = { ...DEFAULTS } as ApplicationSettings;
  for (const r of rows) if (r.key in DEFAULTS) (settings as Record<string, unknown>)[r.key] = JSON.parse(r.value);
  return settings;
}

// The instance settings table in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    application_settings: ApplicationSettingTable;
  }
}
