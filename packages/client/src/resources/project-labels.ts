import type { GetProjectLabelInput, ListProjectLabelsInput, ProjectLabelEntity } from '@forgelet/core';
import type { ListParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';
import { ResourceLabels } from '../templates/resource-labels.js';

export type ListProjectLabelsParams = ListParams<ListProjectLabelsInput>;
export type ShowProjectLabelParams = Partial<Omit<GetProjectLabelInput, 'id' | 'label_id'>>;

/** Labels of a project: `/projects/:id/labels`, its own and its groups'. */
export class ProjectLabels extends ResourceLabels<ProjectLabelEntity, ListProjectLabelsParams, ShowProjectLabelParams> {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
