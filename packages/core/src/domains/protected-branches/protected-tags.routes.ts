import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { CreateProtectedTagInput, ListProtectedTagsInput, ProtectedTagRefInput } from './protected-tag.schema.js';
import { createProtectedTag, deleteProtectedTag, getProtectedTag, listProtectedTags } from './protected-tags.js';

const tag = 'protected_tags';

export const protectedTagsRoutes: Route[] = [
  route('GET', '/projects/:id/protected_tags', { auth: 'required', params: ListProtectedTagsInput, tag, summary: "List a project's protected tags (Maintainer)" },
    async (ctx, input) => paged(await listProtectedTags(ctx, input))),
  route('GET', '/projects/:id/protected_tags/:name', { auth: 'required', params: ProtectedTagRefInput, tag, summary: 'Get a protected tag or wildcard (Maintainer)' },
    async (ctx, input) => ok(await getProtectedTag(ctx, input))),
  route('POST', '/projects/:id/protected_tags', { auth: 'required', params: CreateProtectedTagInput, tag, summary: 'Protect a tag or wildcard (Maintainer)' },
    async (ctx, input) => created(await createProtectedTag(ctx, input))),
  route('DELETE', '/projects/:id/protected_tags/:name', { auth: 'required', params: ProtectedTagRefInput, tag, summary: 'Unprotect a tag (Maintainer)' },
    async (ctx, input) => {
      await deleteProtectedTag(ctx, input);
      return noContent();
    }),
];
