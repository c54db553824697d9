/** GitLab's GraphQL `Label` (app/graphql/types/label_type.rb), `Project.labels/label` and `Group.labels/label`, over the label use cases. */
import { gql, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { getGroupLabel, getProjectLabel, listGroupLabels, listProjectLabels } from './labels.js';
import { GetGroupLabelInput, GetProjectLabelInput, ListGroupLabelsInput, ListProjectLabelsInput } from './label.schema.js';
import type { LabelEntity, ProjectLabelEntity } from './label.entity.js';

const { nn, string, boolean, from } = gql;

type Parent = { id: number };
type LabelArgs = ConnectionArgs & { searchTerm?: string | null; includeAncestorGroups?: boolean; includeDescendantGroups?: boolean };

/** A label of the project (its own or an ancestor group's) by title, null when there is none; issues and merge requests resolve their labels with it. */
export function projectLabelByTitle(ctx: Ctx, projectId: number, title: string): Promise<ProjectLabelEntity | null> {
  const key = `graphql:label:${projectId}:${title}`;
  let found = ctx.cache.get(key) as Promise<ProjectLabelEntity | null> | undefined;
  if (!found) ctx.cache.set(key, (found = orNull(getProjectLabel(ctx, parseParams(GetProjectLabelInput, { id: String(projectId), label_id: title })))));
  return found;
}

export const labelsGraphql: GraphqlModule = (g) => {
  g.defineObject('Label', {
    description: 'A label: a project or group label.',
    fields: () => ({
      id: {
        type: nn(gql.id),
        description: 'Label ID (`gid://gitlab/ProjectLabel/<id>` or `gid://gitlab/GroupLabel/<id>`).',
        resolve: (l: LabelEntity & { is_project_label?: boolean; group?: boolean }) => `gid://gitlab/${l.is_project_label ? 'ProjectLabel' : 'GroupLabel'}/${l.id}`,
      },
      title: from(nn(string), 'name', 'Content of the label.'),
      description: from(string, 'description', 'Description of the label (Markdown rendered as HTML for caching).'),
      descriptionHtml: from(string, 'description_html', 'GitLab Flavored Markdown rendering of `description`.'),
      color: from(nn(string), 'color', 'Background color of the label.'),
      textColor: from(nn(string), 'text_color', 'Text color of the label.'),
      archived: from(nn(boolean), 'archived', 'Indicates the label is archived.'),
    }),
  });
  const listArgs = {
    ...connectionArgs,
    searchTerm: { type: string, description: 'Search term to find labels with.' },
    includeAncestorGroups: { type: boolean, defaultValue: false, description: 'Include labels from ancestor groups.' },
  };
  g.extend('Project', () => ({
    labels: {
      type: g.connection('Label'),
      description: 'Labels available on this project.',
      args: listArgs,
      resolve: (project: Parent, args: LabelArgs, ctx: Ctx) => {
        const input = parseParams(ListProjectLabelsInput, gql.given({ id: String(project.id), search: args.searchTerm, include_ancestor_groups: args.includeAncestorGroups }));
        return resolveConnection(args, (page) => listProjectLabels(ctx, { ...input, ...page }));
      },
    },
    label: {
      type: g.object('Label'),
      description: 'Label available on this project.',
      args: { title: { type: nn(string), description: 'Title of the label.' } },
      resolve: (project: Parent, args: { title: string }, ctx: Ctx) => projectLabelByTitle(ctx, project.id, args.title),
    },
  }));
  g.extend('Group', () => ({
    labels: {
      type: g.connection('Label'),
      description: 'Labels available on this group.',
      args: { ...listArgs, includeDescendantGroups: { type: boolean, defaultValue: false, description: 'Include labels from descendant groups.' } },
      resolve: (group: Parent, args: LabelArgs, ctx: Ctx) => {
        const input = parseParams(
          ListGroupLabelsInput,
          gql.given({ id: String(group.id), search: args.searchTerm, include_ancestor_groups: args.includeAncestorGroups, include_descendant_groups: args.includeDescendantGroups }),
        );
        return resolveConnection(args, (page) => listGroupLabels(ctx, { ...input, ...page }));
      },
    },
    label: {
      type: g.object('Label'),
      description: 'Label available on this group.',
      args: { title: { type: nn(string), description: 'Title of the label.' } },
      resolve: (group: Parent, args: { title: string }, ctx: Ctx) => orNull(getGroupLabel(ctx, parseParams(GetGroupLabelInput, { id: String(group.id), label_id: args.title }))),
    },
  }));
};
