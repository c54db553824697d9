/** Parameters of the project snippet endpoints, as GitLab's `project_snippets.rb` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const SNIPPET_VISIBILITIES = ['private', 'internal', 'public'] as const;
export type SnippetVisibility = (typeof SNIPPET_VISIBILITIES)[number];

/** GitLab's `file_path: true` validator: relative, no `..` segment. */
const FILE_PATH = /^(?!\/)(?!(?:.*\/)?\.\.(?:\/|$))[^\0]+$/;

export const ListSnippetsInput = params({ id: p.string(), ...paginationParams });
export type ListSnippetsInput = InferShape<typeof ListSnippetsInput.shape>;

export const SnippetRefInput = params({ id: p.string(), snippet_id: p.integer() });
export type SnippetRefInput = InferShape<typeof SnippetRefInput.shape>;

export const CreateSnippetInput = params(
  {
    id: p.string(),
    title: p.string().max(255).nonBlank(),
    description: p.string().optional(),
    visibility: p.enum(SNIPPET_VISIBILITIES).default('private'),
    content: p.string().nonBlank().optional().describe('The single-file form: `content` with `file_name`.'),
    file_name: p.string().max(255).optional(),
    files: p.array(p.object({ file_path: p.string().max(255).nonBlank().regex(FILE_PATH), content: p.string().nonBlank() })).optional().describe('The files form; one file per snippet here.'),
  },
  { exactlyOneOf: [['files', 'content']] },
);
export type CreateSnippetInput = InferShape<typeof CreateSnippetInput.shape>;

export const SNIPPET_FILE_ACTIONS = ['create', 'update', 'delete', 'move'] as const;

export const UpdateSnippetInput = params(
  {
    id: p.string(),
    snippet_id: p.integer(),
    title: p.string().max(255).nonBlank().optional(),
    description: p.string().optional(),
    visibility: p.enum(SNIPPET_VISIBILITIES).optional(),
    content: p.string().nonBlank().optional(),
    file_name: p.string().max(255).optional(),
    files: p
      .array(
        p.object({
          action: p.enum(SNIPPET_FILE_ACTIONS),
          content: p.string().optional(),
          file_path: p.string().max(255).regex(FILE_PATH).optional(),
          previous_path: p.string().regex(FILE_PATH).optional(),
        }),
      )
      .optional(),
  },
  {
    mutuallyExclusive: [['files', 'content'], ['files', 'file_name']],
    atLeastOneOf: [['content', 'description', 'files', 'file_name', 'title', 'visibility']],
  },
);
export type UpdateSnippetInput = InferShape<typeof UpdateSnippetInput.shape>;
