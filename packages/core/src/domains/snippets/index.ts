import type { Route } from '../../kernel/route.js';
import { snippetRoutes } from './snippets.routes.js';

/** Routes of this domain. */
export const snippetsRoutes: Route[] = [...snippetRoutes];

export { listSnippets, getSnippet, getSnippetContent, createSnippet, updateSnippet, deleteSnippet } from './snippets.js';
export { canReadSnippet, findSnippet, readableSnippetVisibilities, snippetNoteable } from './find-snippet.js';
export type { SnippetEntity, SnippetFileEntity } from './snippet.entity.js';
export type { CreateSnippetInput, ListSnippetsInput, SnippetRefInput, UpdateSnippetInput, SnippetVisibility } from './snippet.schema.js';
export type { SnippetRow } from './snippet.table.js';
