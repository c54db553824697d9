import type { UrlBuilder } from '../../access/context.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { UserBasicEntity } from '../../access/user.entity.js';
import type { EpicDates } from './epic-dates.js';
import type { EpicRow } from './epic.table.js';

/** GitLab's `EE::API::Entities::Epic` (`ee/lib/api/entities/epic.rb`). */
export interface EpicEntity {
  id: number;
  iid: number;
  color: string;
  group_id: number;
  parent_id: number | null;
  parent_iid: number | null;
  title: string;
  description: string | null;
  confidential: boolean;
  author: UserBasicEntity;
  /** The fixed date when `start_date_is_fixed`, else the date inherited from milestones and child epics. */
  start_date: string | null;
  start_date_is_fixed: boolean;
  start_date_fixed: string | null;
  start_date_from_inherited_source: string | null;
  /** @deprecated use start_date_from_inherited_source */
  start_date_from_milestones: string | null;
  /** @deprecated use due_date */
  end_date: string | null;
  due_date: string | null;
  due_date_is_fixed: boolean;
  due_date_fixed: string | null;
  due_date_from_inherited_source: string | null;
  /** @deprecated use due_date_from_inherited_source */
  due_date_from_milestones: string | null;
  state: 'opened' | 'closed';
  web_edit_url: string;
  web_url: string;
  references: { short: string; relative: string; full: string };
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Label titles, sorted. */
  labels: string[];
  upvotes: number;
  downvotes: number;
  _links: { self: string; epic_issues: string; group: string; parent: string | null };
}

/** GitLab's `LinkedEpic`: what creating a child epic answers. */
export interface LinkedEpicEntity {
  id: number;
  iid: number;
  title: string;
  group_id: number;
  parent_id: number | null;
  has_children: boolean;
  has_issues: boolean;
  reference: string;
  url: string;
  relation_url: string;
}

/** `&5`, or `group/path&5` when seen from another group (`Epic#to_reference`). */
export function epicReference(epic: EpicRow, group: NamespaceRow, from: NamespaceRow | null, full = false): string {
  const short = `&${epic.iid}`;
  return full || (from !== null && from.id !== epic.group_id) ? `${group.full_path}${short}` : short;
}

export function epicWebUrl(urls: UrlBuilder, group: NamespaceRow, iid: number): string {
  return urls.web(`/groups/${group.full_path}/-/epics/${iid}`);
}

export interface EpicPresentation {
  group: NamespaceRow;
  author: UserBasicEntity;
  parent: { iid: number; group_id: number } | null;
  labels: string[];
  /** The group of the request (`references.relative` is relative to it). */
  requestGroup: NamespaceRow;
  dates: EpicDates;
}

export function toEpicEntity(row: EpicRow, p: EpicPresentation, urls: UrlBuilder): EpicEntity {
  const { start, due } = p.dates;
  const web = epicWebUrl(urls, p.group, row.iid);
  return {
    id: row.id,
    iid: row.iid,
    color: row.color,
    group_id: row.group_id,
    parent_id: row.parent_id,
    parent_iid: p.parent?.iid ?? null,
    title: row.title,
    description: row.description,
    confidential: row.confidential === 1,
    author: p.author,
    start_date: start.date,
    start_date_is_fixed: row.start_date_is_fixed === 1,
    start_date_fixed: row.start_date_fixed,
    start_date_from_inherited_source: start.inherited,
    start_date_from_milestones: start.fromMilestones,
    end_date: due.date,
    due_date: due.date,
    due_date_is_fixed: row.due_date_is_fixed === 1,
    due_date_fixed: row.due_date_fixed,
    due_date_from_inherited_source: due.inherited,
    due_date_from_milestones: due.fromMilestones,
    state: row.state === 'closed' ? 'closed' : 'opened',
    web_edit_url: `${web}/edit`,
    web_url: web,
    references: {
      short: `&${row.iid}`,
      relative: epicReference(row, p.group, p.requestGroup),
      full: epicReference(row, p.group, null, true),
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
    closed_at: row.closed_at,
    labels: [...p.labels].sort(),
    upvotes: 0,
    downvotes: 0,
    _links: {
      self: urls.api(`/groups/${row.group_id}/epics/${row.iid}`),
      epic_issues: urls.api(`/groups/${row.group_id}/epics/${row.iid}/issues`),
      group: urls.api(`/groups/${row.group_id}`),
      parent: p.parent ? urls.api(`/groups/${p.parent.group_id}/epics/${p.parent.iid}`) : null,
    },
  };
}

export function toLinkedEpicEntity(
  row: EpicRow,
  group: NamespaceRow,
  parent: { row: EpicRow; group: NamespaceRow },
  has: { children: boolean; issues: boolean },
  urls: UrlBuilder,
): LinkedEpicEntity {
  return {
    id: row.id,
    iid: row.iid,
    title: row.title,
    group_id: row.group_id,
    parent_id: row.parent_id,
    has_children: has.children,
    has_issues: has.issues,
    reference: epicReference(row, group, parent.group),
    url: epicWebUrl(urls, group, row.iid),
    relation_url: urls.web(`/groups/${parent.group.full_path}/-/epics/${parent.row.iid}/links/${row.id}`),
  };
}
