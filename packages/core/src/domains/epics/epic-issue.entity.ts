import type { IssueBasicEntity, IssueEntity } from '../issues/index.js';
import type { EpicEntity } from './epic.entity.js';
import type { EpicIssueRow } from './epic.table.js';

/**
 * GitLab's `EpicIssue`: an issue of the epic with its association's id and position. The list
 * leaves `subscribed` out (`include_subscribed: false`); the answer to a move shows it.
 */
export type EpicIssueEntity = Omit<IssueEntity, 'subscribed'> & { subscribed?: boolean; epic_issue_id: number; relative_position: number | null };

/** GitLab's `EpicIssueLink`: the association, with the epic (and its full `reference`) and the basic issue. */
export interface EpicIssueLinkEntity {
  id: number;
  relative_position: number | null;
  epic: EpicEntity & { reference: string };
  issue: IssueBasicEntity;
}

export function toEpicIssueEntity(issue: IssueEntity, link: { id: number; relative_position: number | null }, withSubscribed: boolean): EpicIssueEntity {
  const { subscribed, ...rest } = issue;
  return { ...rest, ...(withSubscribed && { subscribed }), epic_issue_id: link.id, relative_position: link.relative_position };
}

export function toEpicIssueLinkEntity(link: EpicIssueRow, epic: EpicEntity, issue: IssueBasicEntity): EpicIssueLinkEntity {
  // `Entities::Epic` with `with_reference: true`: `reference` right after `references`.
  const withReference = Object.fromEntries(
    Object.entries(epic).flatMap(([k, v]) => (k === 'references' ? [[k, v], ['reference', epic.references.full]] : [[k, v]])),
  ) as EpicEntity & { reference: string };
  return { id: link.id, relative_position: link.relative_position, epic: withReference, issue };
}
