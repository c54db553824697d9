import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { unmodifiedSince } from './repository-access.js';
import { createTag, deleteTag, getTag, listTags } from './tags.js';
import { CreateTagInput, ListTagsInput, TagRefInput } from './tags.schema.js';

const tag = 'tags';

export const tagsRoutes: Route[] = [
  route('GET', '/projects/:id/repository/tags', { auth: 'optional', jobToken: true, params: ListTagsInput, tag, summary: 'List repository tags (newest first)' },
    async (ctx, input) => paged(await listTags(ctx, input))),
  route('GET', '/projects/:id/repository/tags/:tag_name', { auth: 'optional', jobToken: true, params: TagRefInput, tag, summary: 'Get a tag' },
    async (ctx, input) => ok(await getTag(ctx, input))),
  route('POST', '/projects/:id/repository/tags', { auth: 'required', params: CreateTagInput, tag, summary: 'Create a tag; a message makes it annotated (Developer)' },
    async (ctx, input) => created(await createTag(ctx, input))),
  route('DELETE', '/projects/:id/repository/tags/:tag_name', { auth: 'required', params: TagRefInput, tag, summary: 'Delete a tag and its release (Developer)' },
    async (ctx, input, req) => {
      await deleteTag(ctx, input, { unmodifiedSince: unmodifiedSince(req.headers['if-unmodified-since']) });
      return noContent();
    }),
];
