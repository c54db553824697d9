/**
 * Instance application settings (GitLab's `GET/PUT /application/settings`, admin): the subset
 * Forgelet acts on, each with GitLab's default. Stored one row per changed key.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../kernel/context.js';
import { nowIso } from '../../kernel/context.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { requireAdmin } from '../../kernel/policy.js';
import { ok, route, type Route } from '../../kernel/route.js';
import type { Database } from '../../storage/database.js';

export interface ApplicationSettingTable {
  key: string;
  value: string; // JSON
  updated_at: string;
}

/** Every setting Forgelet knows, with GitLab's default. */
const DEFAULTS = {
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

const UpdateSettingsInput = params({
  enforce_ci_inbound_job_token_scope_enabled: p.boolean().optional(),
});
export type UpdateApplicationSettingsInput = InferShape<typeof UpdateSettingsInput.shape>;

/** Sets the given settings (unknown parameters are ignored, as Grape does for undeclared ones). */
export async function updateApplicationSettings(ctx: Ctx, input: UpdateApplicationSettingsInput): Promise<ApplicationSettings> {
  requireAdmin(ctx);
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    for (const [key, value] of Object.entries(input)) {
      if (value === undefined || !(key in DEFAULTS)) continue;
      await trx
        .insertInto('application_settings')
        .values({ key, value: JSON.stringify(value), updated_at: now })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
        .execute();
    }
  });
  return readApplicationSettings(ctx.db);
}

export const applicationSettingsRoutes: Route[] = [
  route('GET', '/application/settings', { auth: 'admin', tag: 'application settings', summary: 'Instance settings Forgelet acts on (admin)' },
    async (ctx) => ok(await readApplicationSettings(ctx.db))),
  route('PUT', '/application/settings', { auth: 'admin', params: UpdateSettingsInput, tag: 'application settings', summary: 'Change instance settings (admin)' },
    async (ctx, input) => ok(await updateApplicationSettings(ctx, input))),
];

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    application_settings: ApplicationSettingTable;
  }
}
