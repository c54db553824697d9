// Type-only, from the core contract (@forgelet/core does not list the snippets domain's types yet).
import type { CreateSnippetInput, ListSnippetsInput, SnippetEntity, UpdateSnippetInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, ListParams, ResourceId, WithOptional } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

type SnippetFields = Omit<CreateSnippetInput, 'id' | 'content' | 'file_name' | 'files'>;
export type ListSnippetsParams = ListParams<ListSnippetsInput>;
/** One file: `content` with `file_name`, or `files` with one `{ file_path, content }`. */
export type CreateSnippetParams = WithOptional<SnippetFields, 'visibility'> &
  ({ content: string; file_name: string; files?: never } | { files: NonNullable<CreateSnippetInput['files']>; content?: never; file_name?: never });
type EditableFields = Omit<UpdateSnippetInput, 'id' | 'snippet_id'>;
/** At least one of content, description, files, file_name, title, visibility. */
export type EditSnippetParams = Partial<EditableFields> & AtLeastOne<EditableFields>;

/** `projects/:id/snippets`. */
export class ProjectSnippets {
  constructor(private readonly requester: Requester) {}

  /** The snippets the caller may read, newest first. */
  all(projectId: ResourceId, params: ListSnippetsParams = {}): Paginated<SnippetEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/snippets`, params);
  }

  show(projectId: ResourceId, snippetId: number): Promise<SnippetEntity> {
    return this.requester.get(endpoint`projects/${projectId}/snippets/${snippetId}`);
  }

  /** The file's content (`/raw`, text/plain). */
  showContent(projectId: ResourceId, snippetId: number): Promise<string> {
    return this.requester.get<string | undefined>(endpoint`projects/${projectId}/snippets/${snippetId}/raw`).then((text) => text ?? '');
  }

  /** Needs Reporter; `visibility` defaults to private and may not exceed the project's. */
  create(projectId: ResourceId, params: CreateSnippetParams): Promise<SnippetEntity> {
    return this.requester.post(endpoint`projects/${projectId}/snippets`, params);
  }

  /** The author or a Maintainer. */
  edit(projectId: ResourceId, snippetId: number, params: EditSnippetParams): Promise<SnippetEntity> {
    return this.requester.put(endpoint`projects/${projectId}/snippets/${snippetId}`, params);
  }

  /** The author or a Maintainer; the snippet's notes go with it. */
  remove(projectId: ResourceId, snippetId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/snippets/${snippetId}`);
  }
}
