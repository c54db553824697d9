/** GitLab's `GET/PUT /application/settings` (admin): the instance settings Forgelet acts on. */
import { readApplicationSettings } from '../../access/application-settings.js';
import { ok, route, type Route } from '../../kernel/route.js';
import { updateApplicationSettings, UpdateSettingsInput } from './application-settings.js';

export const applicationSettingsRoutes: Route[] = [
  route('GET', '/application/settings', { auth: 'admin', tag: 'application settings', summary: 'Instance settings Forgelet acts on (admin)' },
    async (ctx) => ok(await readApplicationSettings(ctx.db))),
  route('PUT', '/application/settings', { auth: 'admin', params: UpdateSettingsInput, tag: 'application settings', summary: 'Change instance settings (admin)' },
    async (ctx, input) => ok(await updateApplicationSettings(ctx, input))),
];

