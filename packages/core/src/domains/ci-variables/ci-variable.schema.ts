/**
 * Parameters of the CI/CD variable endpoints, as GitLab's API::Ci::Variables (projects),
 * API::GroupVariables and API::Admin::Ci::Variables declare them.
 */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const VARIABLE_TYPES = ['env_var', 'file'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

const filter = {
  filter: p
    .object({ environment_scope: p.string().optional().describe('The environment scope of the variable') })
    .optional()
    .describe('Available filters: [environment_scope]. Example: filter[environment_scope]=production'),
};

const attributes = {
  protected: p.boolean().optional().describe('Only exported to pipelines on protected branches.'),
  masked: p.boolean().optional().describe('Masked in job logs; the value must meet the masking rules.'),
  raw: p.boolean().optional().describe('Not expanded: `$OTHER` in the value stays as written.'),
  variable_type: p.enum(VARIABLE_TYPES).optional().describe('env_var (default) or file.'),
  description: p.string().optional().describe('At most 255 characters.'),
};

const scoped = {
  environment_scope: p.string().optional().describe('The environments the variable applies to: `*` (default), a name or a wildcard (`review/*`).'),
};

const createShape = {
  key: p.string().describe('Letters, digits and `_`, at most 255 characters.'),
  value: p.string(),
  ...attributes,
};

const updateShape = {
  key: p.string(),
  value: p.string().optional(),
  ...attributes,
};

const projectId = { id: p.string().describe('The ID or URL-encoded path of the project') };
const groupId = { id: p.string().describe('The ID or URL-encoded path of the group') };
const hiddenOnCreate = { masked_and_hidden: p.boolean().optional().describe('Masked, and the value is never shown again.') };

export const ListProjectVariablesInput = params({ ...projectId, ...paginationParams });
export type ListProjectVariablesInput = InferShape<typeof ListProjectVariablesInput.shape>;
export const ProjectVariableRefInput = params({ ...projectId, key: p.string(), ...filter });
export type ProjectVariableRefInput = InferShape<typeof ProjectVariableRefInput.shape>;
export const CreateProjectVariableInput = params({ ...projectId, ...createShape, ...hiddenOnCreate, ...scoped });
export type CreateProjectVariableInput = InferShape<typeof CreateProjectVariableInput.shape>;
export const UpdateProjectVariableInput = params({ ...projectId, ...updateShape, ...scoped, ...filter });
export type UpdateProjectVariableInput = InferShape<typeof UpdateProjectVariableInput.shape>;

export const ListGroupVariablesInput = params({ ...groupId, ...paginationParams });
export type ListGroupVariablesInput = InferShape<typeof ListGroupVariablesInput.shape>;
export const GroupVariableRefInput = params({ ...groupId, key: p.string(), ...filter });
export type GroupVariableRefInput = InferShape<typeof GroupVariableRefInput.shape>;
export const CreateGroupVariableInput = params({
  ...groupId,
  ...createShape,
  ...hiddenOnCreate,
  environment_scope: scoped.environment_scope.describe('Premium and up; ignored below (the variable applies to `*`).'),
});
export type CreateGroupVariableInput = InferShape<typeof CreateGroupVariableInput.shape>;
export const UpdateGroupVariableInput = params({
  ...groupId,
  ...updateShape,
  environment_scope: scoped.environment_scope.describe('Premium and up; ignored below.'),
  ...filter,
});
export type UpdateGroupVariableInput = InferShape<typeof UpdateGroupVariableInput.shape>;

export const ListInstanceVariablesInput = params({ ...paginationParams });
export type ListInstanceVariablesInput = InferShape<typeof ListInstanceVariablesInput.shape>;
export const InstanceVariableRefInput = params({ key: p.string() });
export type InstanceVariableRefInput = InferShape<typeof InstanceVariableRefInput.shape>;
export const CreateInstanceVariableInput = params(createShape);
export type CreateInstanceVariableInput = InferShape<typeof CreateInstanceVariableInput.shape>;
export const UpdateInstanceVariableInput = params(updateShape);
export type UpdateInstanceVariableInput = InferShape<typeof UpdateInstanceVariableInput.shape>;
