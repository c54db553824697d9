/** Instance application settings: the admin API (the settings themselves are read in access/). */
export { applicationSettingsRoutes, updateApplicationSettings, type UpdateApplicationSettingsInput } from './application-settings.js';
