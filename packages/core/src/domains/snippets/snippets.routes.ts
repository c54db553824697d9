import { created, noContent, ok, paged, route, text } from '../../kernel/route.js';
import { CreateSnippetInput, ListSnippetsInput, SnippetRefInput, UpdateSnippetInput } from './snippet.schema.js';
import * as snippets from './snippets.js';

const tag = 'project_snippets';

export const snippetRoutes = [
  route('GET', '/projects/:id/snippets', { auth: 'required', params: ListSnippetsInput, tag, summary: 'List project snippets' },
    async (ctx, input) => paged(await snippets.listSnippets(ctx, input))),
  route('GET', '/projects/:id/snippets/:snippet_id', { auth: 'optional', params: SnippetRefInput, tag, summary: 'Get a project snippet' },
    async (ctx, input) => ok(await snippets.getSnippet(ctx, input))),
  route('GET', '/projects/:id/snippets/:snippet_id/raw', { auth: 'optional', params: SnippetRefInput, tag, summary: 'Get a project snippet\'s content' },
    async (ctx, input) => {
      const { content } = await snippets.getSnippetContent(ctx, input);
      // GitLab answers a snippet without a repository as a text/plain attachment.
      return text(content, 'text/plain', 200, { 'Content-Disposition': 'attachment' });
    }),
  route('POST', '/projects/:id/snippets', { auth: 'required', params: CreateSnippetInput, tag, summary: 'Create a project snippet' },
    async (ctx, input) => created(await snippets.createSnippet(ctx, input))),
  route('PUT', '/projects/:id/snippets/:snippet_id', { auth: 'required', params: UpdateSnippetInput, tag, summary: 'Update a project snippet' },
    async (ctx, input) => ok(await snippets.updateSnippet(ctx, input))),
  route('DELETE', '/projects/:id/snippets/:snippet_id', { auth: 'required', params: SnippetRefInput, tag, summary: 'Delete a project snippet' },
    async (ctx, input) => {
      await snippets.deleteSnippet(ctx, input);
      return noContent();
    }),
];
