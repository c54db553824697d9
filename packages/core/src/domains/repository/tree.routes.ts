import { paged, route, type Route } from '../../kernel/route.js';
import { listTree, ListTreeInput } from './tree.js';

export const treeRoutes: Route[] = [
  route('GET', '/projects/:id/repository/tree', { auth: 'optional', jobToken: true, scopes: ['api', 'read_api', 'read_repository'], params: ListTreeInput, tag: 'repositories', summary: 'List a directory (or, recursive, everything under it) at a ref' },
    async (ctx, input) => paged(await listTree(ctx, input))),
];
