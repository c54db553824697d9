import type { GetGroupLabelInput, LabelEntity, ListGroupLabelsInput } from '@forgelet/core';
import type { ListParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';
import { ResourceLabels } from '../templates/resource-labels.js';

export type ListGroupLabelsParams = ListParams<ListGroupLabelsInput>;
export type ShowGroupLabelParams = Partial<Omit<GetGroupLabelInput, 'id' | 'label_id'>>;

/** Labels of a group: `/groups/:id/labels` (ancestor groups' too by default). */
export class GroupLabels extends ResourceLabels<LabelEntity, ListGroupLabelsParams, ShowGroupLabelParams> {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
