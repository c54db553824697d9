import type { ApplicationSettings } from '@forgelet/core';
import type { Requester } from '../infrastructure/requester.js';

/** Instance settings Forgelet acts on (`/application/settings`, admin). */
export class ApplicationSettingsResource {
  constructor(private readonly requester: Requester) {}

  show(): Promise<ApplicationSettings> {
    return this.requester.get('application/settings');
  }

  edit(settings: Partial<ApplicationSettings>): Promise<ApplicationSettings> {
    return this.requester.put('application/settings', settings);
  }
}
