import type { GroupHookEntity } from '@forgelet/core';
import type { Requester } from '../infrastructure/requester.js';
import { ResourceHooks, type CreateGroupHookParams } from '../templates/resource-hooks.js';

/** Group hooks: `/groups/:id/hooks` (Owner, Premium); they take the events of every project below the group. */
export class GroupHooks extends ResourceHooks<GroupHookEntity, CreateGroupHookParams> {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
