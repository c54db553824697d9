/** Parameters of the group and project label endpoints, as GitLab's `API::GroupLabels` / `API::Labels` declare them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

const listFilters = {
  with_counts: p.boolean().default(false),
  include_ancestor_groups: p.boolean().default(true),
  search: p.search().optional().describe('Keyword matched against title and description (terms of 3+ characters, ANDed).'),
  archived: p.boolean().optional().describe('true: archived labels only; false: unarchived only; unset: all.'),
  ...paginationParams,
};

export const ListGroupLabelsInput = params({
  id: p.string(),
  ...listFilters,
  include_descendant_groups: p.boolean().default(false),
  only_group_labels: p.boolean().default(true).describe('false also lists the labels of the group\'s projects.'),
});
export type ListGroupLabelsInput = InferShape<typeof ListGroupLabelsInput.shape>;

export const ListProjectLabelsInput = params({ id: p.string(), ...listFilters });
export type ListProjectLabelsInput = InferShape<typeof ListProjectLabelsInput.shape>;

/** `:label_id` is a label id or a (URL-encoded) title. */
export const GetGroupLabelInput = params({
  id: p.string(),
  label_id: p.string(),
  include_ancestor_groups: p.boolean().default(true),
  include_descendant_groups: p.boolean().default(false),
  only_group_labels: p.boolean().default(true),
});
export type GetGroupLabelInput = InferShape<typeof GetGroupLabelInput.shape>;

export const GetProjectLabelInput = params({ id: p.string(), label_id: p.string(), include_ancestor_groups: p.boolean().default(true) });
export type GetProjectLabelInput = InferShape<typeof GetProjectLabelInput.shape>;

const createFields = {
  id: p.string(),
  name: p.string(),
  color: p.string().describe('`#RRGGBB`, `#RGB` or a CSS color name.'),
  description: p.string().nullable().optional(),
  archived: p.boolean().optional(),
};
export const CreateLabelInput = params(createFields);
export type CreateLabelInput = InferShape<typeof CreateLabelInput.shape> & { priority?: number | null };

/** A label's priority in a project (lower sorts first); null removes it. Project labels only. */
const priority = p.integer().min(0).nullable().optional().describe('Priority of the label in this project (0 and up, lower first); null removes it.');

export const CreateProjectLabelInput = params({ ...createFields, priority });
export type CreateProjectLabelInput = InferShape<typeof CreateProjectLabelInput.shape>;

const updateFields = {
  new_name: p.string().optional(),
  color: p.string().optional(),
  description: p.string().nullable().optional(),
  archived: p.boolean().optional(),
};
const UPDATE_KEYS = ['new_name', 'color', 'description', 'archived'];

export const UpdateLabelInput = params({ id: p.string(), label_id: p.string(), ...updateFields }, { atLeastOneOf: [UPDATE_KEYS] });
export type UpdateLabelInput = InferShape<typeof UpdateLabelInput.shape>;

/** Deprecated `PUT …/labels`: the label by `label_id` or `name` in the parameters. */
export const UpdateLabelByNameInput = params(
  { id: p.string(), label_id: p.integer().optional(), name: p.string().optional(), ...updateFields },
  { exactlyOneOf: [['label_id', 'name']], atLeastOneOf: [UPDATE_KEYS] },
);
export type UpdateLabelByNameInput = InferShape<typeof UpdateLabelByNameInput.shape>;

const PROJECT_UPDATE_KEYS = [...UPDATE_KEYS, 'priority'];
export const UpdateProjectLabelInput = params({ id: p.string(), label_id: p.string(), ...updateFields, priority }, { atLeastOneOf: [PROJECT_UPDATE_KEYS] });
export const UpdateProjectLabelByNameInput = params(
  { id: p.string(), label_id: p.integer().optional(), name: p.string().optional(), ...updateFields, priority },
  { exactlyOneOf: [['label_id', 'name']], atLeastOneOf: [PROJECT_UPDATE_KEYS] },
);

/** The changes of an update, whichever form addressed the label. */
export type LabelChangesInput = Pick<UpdateLabelInput, 'new_name' | 'color' | 'description' | 'archived'> & { priority?: number | null };

export const LabelPathInput = params({ id: p.string(), label_id: p.string() });
export type LabelPathInput = InferShape<typeof LabelPathInput.shape>;

/** Deprecated `DELETE /groups/:id/labels`: `name` required. */
export const DeleteGroupLabelByNameInput = params({ id: p.string(), name: p.string() });
/** Deprecated `DELETE /projects/:id/labels`: `label_id` or `name`. */
export const DeleteProjectLabelByNameInput = params(
  { id: p.string(), label_id: p.integer().optional(), name: p.string().optional() },
  { exactlyOneOf: [['label_id', 'name']] },
);
