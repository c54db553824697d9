// Types come straight from the epics domain until @forgelet/core's index exports them (one line there).
import type { CreateChildEpicInput, EpicEntity, LinkedEpicEntity, ReorderChildEpicInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateChildEpicParams = Omit<CreateChildEpicInput, 'id' | 'epic_iid' | 'title'>;
export type ReorderChildEpicParams = Omit<ReorderChildEpicInput, 'id' | 'epic_iid' | 'child_epic_id'>;

/**
 * Child epics (multi-level epics, Ultimate): `/groups/:id/epics/:epic_iid/epics[/:child_epic_id]`.
 * Children are addressed by their global id, since they may live in other groups.
 */
export class EpicLinks {
  constructor(private readonly requester: Requester) {}

  /** Children in tree order (one unpaginated list). */
  all(groupId: ResourceId, epicIid: number): Promise<EpicEntity[]> {
    return this.requester.get(endpoint`groups/${groupId}/epics/${epicIid}/epics`);
  }

  /** Makes an existing epic the first child, moving it from its old parent. */
  assign(groupId: ResourceId, epicIid: number, childEpicId: number): Promise<EpicEntity> {
    return this.requester.post(endpoint`groups/${groupId}/epics/${epicIid}/epics/${childEpicId}`);
  }

  /** Creates a child epic; `confidential` defaults to the parent's. */
  create(groupId: ResourceId, epicIid: number, title: string, params: CreateChildEpicParams = {}): Promise<LinkedEpicEntity> {
    return this.requester.post(endpoint`groups/${groupId}/epics/${epicIid}/epics`, { title, ...params });
  }

  /** Moves a child after `move_before_id` and/or before `move_after_id`; answers all children in order. */
  reorder(groupId: ResourceId, epicIid: number, childEpicId: number, params: ReorderChildEpicParams): Promise<EpicEntity[]> {
    return this.requester.put(endpoint`groups/${groupId}/epics/${epicIid}/epics/${childEpicId}`, params);
  }

  /** Removes the child from the parent; answers the former child. */
  async unassign(groupId: ResourceId, epicIid: number, childEpicId: number): Promise<EpicEntity> {
    const path = endpoint`groups/${groupId}/epics/${epicIid}/epics/${childEpicId}`;
    return (await this.requester.send<EpicEntity>('DELETE', this.requester.url(path))).data;
  }
}
