import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as users from './users.js';

const idParam = params({ id: p.string() });

export const userRoutes = [
  route('GET', '/users', { auth: 'optional', params: users.ListUsersInput, tag: 'users', summary: 'List users', scopes: ['api', 'read_api', 'read_user'] },
    async (ctx, input) => paged(await users.listUsers(ctx, input))),
  route('GET', '/users/:id', { auth: 'optional', params: idParam, tag: 'users', summary: 'Get a user', scopes: ['api', 'read_api', 'read_user'] },
    async (ctx, { id }) => ok(await users.getUser(ctx, id))),
  route('POST', '/users', { auth: 'admin', params: users.CreateUserInput, tag: 'users', summary: 'Create a user (admin)' },
    async (ctx, input) => created(await users.createUser(ctx, input))),
  route('PUT', '/users/:id', { auth: 'admin', params: users.UpdateUserInput, tag: 'users', summary: 'Modify a user (admin)' },
    async (ctx, input) => ok(await users.updateUser(ctx, input))),
  route('DELETE', '/users/:id', { auth: 'admin', params: params({ id: p.id() }), tag: 'users', summary: 'Delete a user (admin)' },
    async (ctx, { id }) => {
      await users.deleteUser(ctx, id);
      return noContent();
    }),
  route('GET', '/user', { auth: 'required', tag: 'users', summary: 'The authenticated user', scopes: ['api', 'read_api', 'read_user'] },
    async (ctx) => ok(users.currentUser(ctx))),
];
