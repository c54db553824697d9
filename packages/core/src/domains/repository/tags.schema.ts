/** Parameters of the tag endpoints, as GitLab's `API::Tags` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const ListTagsInput = params({
  id: p.string(),
  order_by: p.enum(['name', 'updated', 'version']).default('updated'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  search: p.search().optional().describe('`^term` starts with, `term$` ends with, else contains; case-insensitive.'),
  ...paginationParams,
});
export type ListTagsInput = InferShape<typeof ListTagsInput.shape>;

export const TagRefInput = params({ id: p.string(), tag_name: p.string() });
export type TagRefInput = InferShape<typeof TagRefInput.shape>;

export const CreateTagInput = params({
  id: p.string(),
  tag_name: p.string(),
  ref: p.string(),
  message: p.string().optional().describe('Makes an annotated tag.'),
});
export type CreateTagInput = InferShape<typeof CreateTagInput.shape>;
