/** Parameters of `/projects/:id/protected_tags`, as GitLab's API::ProtectedTags (with the EE params) declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { PUSH_MERGE_LEVELS } from './protected-branch.schema.js';

export const ListProtectedTagsInput = params({ id: p.string(), ...paginationParams });
export type ListProtectedTagsInput = InferShape<typeof ListProtectedTagsInput.shape>;

export const ProtectedTagRefInput = params({ id: p.string(), name: p.string().describe('The tag name or wildcard (`release*`).') });
export type ProtectedTagRefInput = InferShape<typeof ProtectedTagRefInput.shape>;

export const CreateProtectedTagInput = params({
  id: p.string(),
  name: p.string().describe('A tag name or a wildcard (`v*`).'),
  create_access_level: p.enum(PUSH_MERGE_LEVELS).optional().describe('Who may create matching tags: 30 Developers + Maintainers, 40 Maintainers (default), 60 instance admins, 0 no one.'),
  allowed_to_create: p
    .array(
      p.object({
        access_level: p.enum(PUSH_MERGE_LEVELS).optional(),
        user_id: p.integer().optional(),
        group_id: p.integer().optional(),
        _destroy: p.boolean().optional(),
      }),
    )
    .optional()
    .describe('Premium: users and groups (and roles) allowed to create.'),
});
export type CreateProtectedTagInput = InferShape<typeof CreateProtectedTagInput.shape>;
