/** Instance application settings: the admin API (the settings themselves are read in access/). */
export { applicationSettingsRoutes } from './application-settings.routes.js';
export { updateApplicationSettings, type UpdateApplicationSettingsInput } from './application-settings.js';
