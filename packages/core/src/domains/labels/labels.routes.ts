/**
 * Group and project labels: GitLab's `API::GroupLabels`, `API::Labels` and the label part of
 * `API::Subscriptions`. Every route needs an authenticated user, as GitLab's do.
 */
import type { Ctx } from '../../access/context.js';
import type { Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route, type RouteRequest } from '../../kernel/route.js';
import type { LabelParentKind } from './find-label.js';
import { getGroupLabel, getProjectLabel, listGroupLabels, listProjectLabels } from './labels.js';
import {
  CreateLabelInput,
  CreateProjectLabelInput,
  DeleteGroupLabelByNameInput,
  DeleteProjectLabelByNameInput,
  GetGroupLabelInput,
  GetProjectLabelInput,
  LabelPathInput,
  ListGroupLabelsInput,
  ListProjectLabelsInput,
  UpdateLabelByNameInput,
  UpdateLabelInput,
  UpdateProjectLabelByNameInput,
  UpdateProjectLabelInput,
} from './label.schema.js';
import { createLabel, deleteLabel, setLabelSubscription, updateLabel } from './write-labels.js';

/** GitLab's `If-Unmodified-Since` check reads the header leniently and ignores what it can't parse. */
function unmodifiedSince(req: RouteRequest): Date | undefined {
  const header = req.headers['if-unmodified-since'];
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** `DELETE …/labels/:label_id`, the same under groups and projects. */
const deleteLabelById = (kind: LabelParentKind) => async (ctx: Ctx, input: Infer<typeof LabelPathInput>, req: RouteRequest) => {
  await deleteLabel(ctx, kind, input.id, input.label_id, { unmodifiedSince: unmodifiedSince(req) });
  return noContent();
};

/** `DELETE …/labels` with `name` (or `label_id`) in the query or body (deprecated). */
const deleteLabelByName = (kind: LabelParentKind) => async (ctx: Ctx, input: { id: string; label_id?: number; name?: string }, req: RouteRequest) => {
  await deleteLabel(ctx, kind, input.id, (input.label_id ?? input.name)!, { unmodifiedSince: unmodifiedSince(req) });
  return noContent();
};

export const labelsRoutes: Route[] = [
  route('GET', '/groups/:id/labels', { auth: 'required', params: ListGroupLabelsInput, tag: 'group_labels', summary: 'List group labels' },
    async (ctx, input) => paged(await listGroupLabels(ctx, input))),
  route('GET', '/groups/:id/labels/:label_id', { auth: 'required', params: GetGroupLabelInput, tag: 'group_labels', summary: 'Get a group label by id or title' },
    async (ctx, input) => ok(await getGroupLabel(ctx, input))),
  route('POST', '/groups/:id/labels', { auth: 'required', params: CreateLabelInput, tag: 'group_labels', summary: 'Create a group label' },
    async (ctx, input) => created(await createLabel(ctx, 'group', input))),
  route('PUT', '/groups/:id/labels/:label_id', { auth: 'required', params: UpdateLabelInput, tag: 'group_labels', summary: 'Update a group label (id or title)' },
    async (ctx, { id, label_id, ...changes }) => ok(await updateLabel(ctx, 'group', id, label_id, changes))),
  route('PUT', '/groups/:id/labels', { auth: 'required', params: UpdateLabelByNameInput, tag: 'group_labels', summary: 'Update a group label by `name` or `label_id` (deprecated)' },
    async (ctx, { id, label_id, name, ...changes }) => ok(await updateLabel(ctx, 'group', id, (label_id ?? name)!, changes))),
  route('DELETE', '/groups/:id/labels/:label_id', { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: 'Delete a group label (id or title)' },
    deleteLabelById('group')),
  route('DELETE', '/groups/:id/labels', { auth: 'required', params: DeleteGroupLabelByNameInput, tag: 'group_labels', summary: 'Delete a group label by `name` (deprecated)' },
    deleteLabelByName('group')),
  route('POST', '/groups/:id/labels/:label_id/subscribe', { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: 'Subscribe to a group label (304 when already subscribed)' },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'group', input.id, input.label_id, true))),
  route('POST', '/groups/:id/labels/:label_id/unsubscribe', { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: 'Unsubscribe from a group label (304 when not subscribed)' },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'group', input.id, input.label_id, false))),
  // gitbeaker 43's GroupLabels.subscribe/unsubscribe post to the issue route: served as aliases.
  route('POST', '/groups/:id/issues/:label_id/subscribe', { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: "Subscribe to a group label (gitbeaker's path)" },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'group', input.id, input.label_id, true))),
  route('POST', '/groups/:id/issues/:label_id/unsubscribe', { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: "Unsubscribe from a group label (gitbeaker's path)" },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'group', input.id, input.label_id, false))),

  route('GET', '/projects/:id/labels', { auth: 'required', params: ListProjectLabelsInput, tag: 'labels', summary: "List a project's labels and its groups'" },
    async (ctx, input) => paged(await listProjectLabels(ctx, input))),
  route('GET', '/projects/:id/labels/:label_id', { auth: 'required', params: GetProjectLabelInput, tag: 'labels', summary: 'Get a project label by id or title' },
    async (ctx, input) => ok(await getProjectLabel(ctx, input))),
  route('POST', '/projects/:id/labels', { auth: 'required', params: CreateProjectLabelInput, tag: 'labels', summary: 'Create a project label' },
    async (ctx, input) => created(await createLabel(ctx, 'project', input))),
  route('PUT', '/projects/:id/labels/:label_id', { auth: 'required', params: UpdateProjectLabelInput, tag: 'labels', summary: 'Update a project label (id or title)' },
    async (ctx, { id, label_id, ...changes }) => ok(await updateLabel(ctx, 'project', id, label_id, changes))),
  route('PUT', '/projects/:id/labels', { auth: 'required', params: UpdateProjectLabelByNameInput, tag: 'labels', summary: 'Update a project label by `name` or `label_id` (deprecated)' },
    async (ctx, { id, label_id, name, ...changes }) => ok(await updateLabel(ctx, 'project', id, (label_id ?? name)!, changes))),
  route('DELETE', '/projects/:id/labels/:label_id', { auth: 'required', params: LabelPathInput, tag: 'labels', summary: 'Delete a project label (id or title)' },
    deleteLabelById('project')),
  route('DELETE', '/projects/:id/labels', { auth: 'required', params: DeleteProjectLabelByNameInput, tag: 'labels', summary: 'Delete a project label by `name` (deprecated)' },
    deleteLabelByName('project')),
  route('POST', '/projects/:id/labels/:label_id/subscribe', { auth: 'required', params: LabelPathInput, tag: 'labels', summary: 'Subscribe to a project label (304 when already subscribed)' },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'project', input.id, input.label_id, true))),
  route('POST', '/projects/:id/labels/:label_id/unsubscribe', { auth: 'required', params: LabelPathInput, tag: 'labels', summary: 'Unsubscribe from a project label (304 when not subscribed)' },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'project', input.id, input.label_id, false))),
];
