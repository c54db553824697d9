import { p, params } from '../../kernel/params.js';
import { ok, paged, route } from '../../kernel/route.js';
import * as namespaces from './namespaces.js';

export const namespaceRoutes = [
  route('GET', '/namespaces', { auth: 'required', params: namespaces.ListNamespacesInput, tag: 'namespaces', summary: "List the caller's namespaces (all for administrators)" },
    async (ctx, input) => paged(await namespaces.listNamespaces(ctx, input))),
  route('GET', '/namespaces/:id', { auth: 'required', params: params({ id: p.string().describe('ID or URL-encoded full path of the namespace.') }), tag: 'namespaces', summary: 'Get a namespace' },
    async (ctx, { id }) => ok(await namespaces.getNamespace(ctx, id))),
  route('GET', '/namespaces/:id/exists', { auth: 'required', params: namespaces.NamespaceExistsInput, tag: 'namespaces', summary: 'Whether a namespace path is taken, with a suggestion' },
    async (ctx, input) => ok(await namespaces.namespaceExists(ctx, input))),
];
