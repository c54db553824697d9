import type { CreateUserInput, ListUsersInput, UpdateUserInput, UserDetailEntity, UserEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListUsersParams = ListParams<ListUsersInput>;
export type CreateUserParams = CreateUserInput;
export type EditUserParams = Omit<UpdateUserInput, 'id'>;

/** Admins and the user themself see details (`email`, `is_admin` ...); others see the public profile. */
export type AnyUserEntity = UserEntity | UserDetailEntity;

/** `/users`, `/user`. */
export class Users {
  constructor(private readonly requester: Requester) {}

  all(params: ListUsersParams = {}): Paginated<AnyUserEntity> {
    return new Paginated(this.requester, 'users', params);
  }

  /** By id or username. */
  show(id: number | string): Promise<AnyUserEntity> {
    return this.requester.get(endpoint`users/${id}`);
  }

  /** Admin only. */
  create(params: CreateUserParams): Promise<UserDetailEntity> {
    return this.requester.post('users', params);
  }

  /** Admin only. */
  edit(id: number, params: EditUserParams): Promise<UserDetailEntity> {
    return this.requester.put(endpoint`users/${id}`, params);
  }

  /** Admin only: deletes the user with their memberships, tokens and personal projects. */
  remove(id: number): Promise<void> {
    return this.requester.delete(endpoint`users/${id}`);
  }

  /** The authenticated user (or the one given as `sudo`). */
  current(): Promise<UserDetailEntity> {
    return this.requester.get('user');
  }
}
