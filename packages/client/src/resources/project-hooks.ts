import type { ProjectHookEntity } from '@forgelet/core';
import type { Requester } from '../infrastructure/requester.js';
import { ResourceHooks, type CreateProjectHookParams } from '../templates/resource-hooks.js';

/** Project hooks: `/projects/:id/hooks` (Maintainer). */
export class ProjectHooks extends ResourceHooks<ProjectHookEntity, CreateProjectHookParams> {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
