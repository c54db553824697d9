// Types come straight from the epics domain until @forgelet/core's index exports them (one line there).
import type { CreateEpicInput, EpicEntity, ListEpicsInput, UpdateEpicInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Label titles as an array or GitLab's comma-separated string. */
type Titles = string[] | string;
/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };

export type ListEpicsParams = Datetimes<Omit<ListParams<ListEpicsInput>, 'labels'>> & { labels?: Titles };
export type CreateEpicParams = Datetimes<Omit<CreateEpicInput, 'id' | 'labels'>> & { labels?: Titles };
export type EditEpicParams = Datetimes<Omit<UpdateEpicInput, 'id' | 'epic_iid' | 'labels' | 'add_labels' | 'remove_labels'>> & {
  labels?: Titles;
  add_labels?: Titles;
  remove_labels?: Titles;
};

/** Group epics (Premium): `/groups/:id/epics[/:epic_iid]`. */
export class Epics {
  constructor(private readonly requester: Requester) {}

  /** Epics of the group and (by default) its subgroups, newest first. */
  all(groupId: ResourceId, params: ListEpicsParams = {}): Paginated<EpicEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/epics`, params);
  }

  show(groupId: ResourceId, epicIid: number): Promise<EpicEntity> {
    return this.requester.get(endpoint`groups/${groupId}/epics/${epicIid}`);
  }

  /** Reporters and up; unknown label titles become labels of the group. */
  create(groupId: ResourceId, params: CreateEpicParams): Promise<EpicEntity> {
    return this.requester.post(endpoint`groups/${groupId}/epics`, params);
  }

  /** Needs at least one field; `state_event` closes or reopens. */
  edit(groupId: ResourceId, epicIid: number, params: EditEpicParams): Promise<EpicEntity> {
    return this.requester.put(endpoint`groups/${groupId}/epics/${epicIid}`, params);
  }

  close(groupId: ResourceId, epicIid: number): Promise<EpicEntity> {
    return this.edit(groupId, epicIid, { state_event: 'close' });
  }

  reopen(groupId: ResourceId, epicIid: number): Promise<EpicEntity> {
    return this.edit(groupId, epicIid, { state_event: 'reopen' });
  }

  /** Group owners only (204). */
  remove(groupId: ResourceId, epicIid: number): Promise<void> {
    return this.requester.delete(endpoint`groups/${groupId}/epics/${epicIid}`);
  }
}
