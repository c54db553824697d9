/**
 * Group and project labels: GitLab's `API::GroupLabels`, `API::Labels` and the label part of
 * `API::Subscriptions`. Every route needs an authenticated user, as GitLab's do.
 */
import { created, noContent, ok, paged, route, type Route, type RouteRequest } from '../../kernel/route.js';
import type { LabelParentKind } from './find-label.js';
import { getGroupLabel, getProjectLabel, listGroupLabels, listProjectLabels } from './labels.js';
import {
  CreateLabelInput,
  DeleteGroupLabelByNameInput,
  DeleteProjectLabelByNameInput,
  GetGroupLabelInput,
  GetProjectLabelInput,
  LabelPathInput,
  ListGroupLabelsInput,
  ListProjectLabelsInput,
  UpdateLabelByNameInput,
  UpdateLabelInput,
} from './label.schema.js';
import { createLabel, deleteLabel, setLabelSubscription, updateLabel } from './write-labels.js';

/** GitLab's `If-Unmodified-Since` check reads the header leniently and ignores what it can't parse. */
function unmodifiedSince(req: RouteRequest): Date | undefined {
  const header = req.headers['if-unmodified-since'];
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Create, update, delete and (un)subscribe: the same under `/groups/:id` and `/projects/:id`. */
function writeRoutes(kind: LabelParentKind): Route[] {
  const base = `/${kind}s/:id/labels`;
  const tag = kind === 'group' ? 'group_labels' : 'labels';
  const what = kind === 'group' ? 'group label' : 'project label';
  const byName = kind === 'group' ? DeleteGroupLabelByNameInput : DeleteProjectLabelByNameInput;
  return [
    route('POST', base, { auth: 'required', params: CreateLabelInput, tag, summary: `Create a ${what}` },
      async (ctx, input) => created(await createLabel(ctx, kind, input))),
    route('PUT', `${base}/:label_id`, { auth: 'required', params: UpdateLabelInput, tag, summary: `Update a ${what} (id or title)` },
      async (ctx, { id, label_id, ...changes }) => ok(await updateLabel(ctx, kind, id, label_id, changes))),
    route('PUT', base, { auth: 'required', params: UpdateLabelByNameInput, tag, summary: `Update a ${what} by \`name\` or \`label_id\` (deprecated)` },
      async (ctx, { id, label_id, name, ...changes }) => ok(await updateLabel(ctx, kind, id, (label_id ?? name)!, changes))),
    route('DELETE', `${base}/:label_id`, { auth: 'required', params: LabelPathInput, tag, summary: `Delete a ${what} (id or title)` },
      async (ctx, input, req) => {
        await deleteLabel(ctx, kind, input.id, input.label_id, { unmodifiedSince: unmodifiedSince(req) });
        return noContent();
      }),
    route('DELETE', base, { auth: 'required', params: byName as typeof DeleteProjectLabelByNameInput, tag, summary: `Delete a ${what} by \`name\` (deprecated)` },
      async (ctx, input, req) => {
        await deleteLabel(ctx, kind, input.id, (input.label_id ?? input.name)!, { unmodifiedSince: unmodifiedSince(req) });
        return noContent();
      }),
    route('POST', `${base}/:label_id/subscribe`, { auth: 'required', params: LabelPathInput, tag, summary: `Subscribe to a ${what} (304 when already subscribed)` },
      async (ctx, input) => created(await setLabelSubscription(ctx, kind, input.id, input.label_id, true))),
    route('POST', `${base}/:label_id/unsubscribe`, { auth: 'required', params: LabelPathInput, tag, summary: `Unsubscribe from a ${what} (304 when not subscribed)` },
      async (ctx, input) => created(await setLabelSubscription(ctx, kind, input.id, input.label_id, false))),
  ];
}

/** gitbeaker 43's GroupLabels.subscribe/unsubscribe post to the issue route: served as aliases. */
const gitbeakerAliases: Route[] = (['subscribe', 'unsubscribe'] as const).map((action) =>
  route('POST', `/groups/:id/issues/:label_id/${action}`, { auth: 'required', params: LabelPathInput, tag: 'group_labels', summary: `${action === 'subscribe' ? 'Subscribe to' : 'Unsubscribe from'} a group label (gitbeaker's path)` },
    async (ctx, input) => created(await setLabelSubscription(ctx, 'group', input.id, input.label_id, action === 'subscribe'))),
);

export const labelsRoutes: Route[] = [
  route('GET', '/groups/:id/labels', { auth: 'required', params: ListGroupLabelsInput, tag: 'group_labels', summary: 'List group labels' },
    async (ctx, input) => paged(await listGroupLabels(ctx, input))),
  route('GET', '/groups/:id/labels/:label_id', { auth: 'required', params: GetGroupLabelInput, tag: 'group_labels', summary: 'Get a group label by id or title' },
    async (ctx, input) => ok(await getGroupLabel(ctx, input))),
  ...writeRoutes('group'),
  ...gitbeakerAliases,
  route('GET', '/projects/:id/labels', { auth: 'required', params: ListProjectLabelsInput, tag: 'labels', summary: "List a project's labels and its groups'" },
    async (ctx, input) => paged(await listProjectLabels(ctx, input))),
  route('GET', '/projects/:id/labels/:label_id', { auth: 'required', params: GetProjectLabelInput, tag: 'labels', summary: 'Get a project label by id or title' },
    async (ctx, input) => ok(await getProjectLabel(ctx, input))),
  ...writeRoutes('project'),
];
