/** GitLab's `PUT /application/settings` (admin): changing the instance settings Forgelet acts on. */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { DEFAULTS, readApplicationSettings, type ApplicationSettings } from '../../access/application-settings.js';
import { requireAdmin } from '../../access/policy.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const UpdateSettingsInput = params({
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
