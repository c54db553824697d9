/**
 * Group and project labels: one template mounted under `groups/:id` and `projects/:id`.
 * `labelId` is a label id or title (encoded as a path segment).
 */
import type { CreateLabelInput, LabelChangesInput, LabelEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, ResourceId, WithOptional } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** `color`: `#RRGGBB`, `#RGB` or a CSS color name (stored as `#RRGGBB`); `priority` (0 and up): project labels only. */
export type CreateLabelParams = WithOptional<Omit<CreateLabelInput, 'id'>, 'description' | 'archived'>;
/** At least one of `new_name`, `color`, `description` (null clears), `archived`, `priority` (project labels; null removes it). */
export type EditLabelParams = AtLeastOne<Required<LabelChangesInput>>;

export class ResourceLabels<E extends LabelEntity, ListP extends object, ShowP extends object> {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  /** Ordered by title; counts only with `with_counts: true`. */
  all(id: ResourceId, params: ListP = {} as ListP): Paginated<E> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/labels`, params);
  }

  /** By id or title; single labels carry their issue and merge request counts. */
  show(id: ResourceId, labelId: number | string, params: ShowP = {} as ShowP): Promise<E> {
    return this.requester.get(endpoint`${this.prefix}/${id}/labels/${labelId}`, params);
  }

  /** A title the container already sees (any case, ancestor groups too) fails with 409. */
  create(id: ResourceId, params: CreateLabelParams): Promise<E> {
    return this.requester.post(endpoint`${this.prefix}/${id}/labels`, params);
  }

  edit(id: ResourceId, labelId: number | string, params: EditLabelParams): Promise<E> {
    return this.requester.put(endpoint`${this.prefix}/${id}/labels/${labelId}`, params);
  }

  /** The deprecated `PUT …/labels` with `name` in the body (what python-gitlab sends). */
  editByName(id: ResourceId, name: string, params: EditLabelParams): Promise<E> {
    return this.requester.put(endpoint`${this.prefix}/${id}/labels`, { name, ...params });
  }

  remove(id: ResourceId, labelId: number | string): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/labels/${labelId}`);
  }

  /** The deprecated `DELETE …/labels` with `name` in the body. */
  async removeByName(id: ResourceId, name: string): Promise<void> {
    await this.requester.send('DELETE', this.requester.url(endpoint`${this.prefix}/${id}/labels`), { name });
  }

  /** The label, now subscribed; null (a 304) when the caller already was. */
  subscribe(id: ResourceId, labelId: number | string): Promise<E | null> {
    return this.#subscription(id, labelId, 'subscribe');
  }

  /** The label, now unsubscribed; null (a 304) when the caller was not subscribed. */
  unsubscribe(id: ResourceId, labelId: number | string): Promise<E | null> {
    return this.#subscription(id, labelId, 'unsubscribe');
  }

  async #subscription(id: ResourceId, labelId: number | string, action: 'subscribe' | 'unsubscribe'): Promise<E | null> {
    const r = await this.requester.send<E>('POST', this.requester.url(endpoint`${this.prefix}/${id}/labels/${labelId}/${action}`), {});
    return r.status === 304 ? null : r.data;
  }
}
