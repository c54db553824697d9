/**
 * GitLab's GraphQL releases (app/graphql/types/release_type.rb, release_assets_type.rb,
 * release_links_type.rb, releases/link_type.rb, releases/evidence_type.rb):
 * `Project.releases(sort:)`, `Project.release(tagName:)` and `Group.releases(sort:)`, over
 * GET /projects/:id/releases[/:tag_name] and GET /groups/:id/releases, so Guests of private
 * projects see what REST shows them (no tag, commit or sources; the name `Release-<id>`).
 */
import { GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull } from 'graphql';
import { gql, orNull, recordIdOf, toGlobalId, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { createRelease, deleteRelease, getRelease, listReleases, updateRelease } from './releases.js';
import { listGroupReleases } from './group-releases.js';
import { CreateReleaseInput, GetReleaseInput, ListGroupReleasesInput, ListReleasesInput, ReleaseRefInput, UpdateReleaseInput } from './release.schema.js';
import type { ReleaseEntity, ReleaseLinkEntity } from './release.entity.js';

const { nn, string, int, boolean, from } = gql;
const pathOf = (url: string) => new URL(url).pathname;

/** `ReleaseSort` (project) and `GroupReleaseSort` (group) to the REST order. */
const SORTS: Record<string, { order_by: string; sort: string }> = {
  CREATED_DESC: { order_by: 'created_at', sort: 'desc' },
  CREATED_ASC: { order_by: 'created_at', sort: 'asc' },
  RELEASED_AT_DESC: { order_by: 'released_at', sort: 'desc' },
  RELEASED_AT_ASC: { order_by: 'released_at', sort: 'asc' },
};

/** The link's file path under the release's downloads (GitLab's `directAssetPath`), when it has one. */
function directAssetPath(link: ReleaseLinkEntity): string | null {
  if (link.direct_asset_url === link.url) return null;
  const m = /\/downloads(\/.*)$/.exec(pathOf(link.direct_asset_url));
  return m ? decodeURIComponent(m[1]!) : null;
}

export const releasesGraphql: GraphqlModule = (g) => {
  const sortValues = (names: string[]) => Object.fromEntries(names.map((n) => [n, { value: n }]));
  g.add(new GraphQLEnumType({ name: 'ReleaseSort', description: 'Values for sorting releases', values: sortValues(Object.keys(SORTS)) }));
  g.add(new GraphQLEnumType({ name: 'GroupReleaseSort', description: 'Values for sorting releases belonging to a group', values: sortValues(['RELEASED_AT_DESC', 'RELEASED_AT_ASC']) }));
  g.add(
    new GraphQLEnumType({
      name: 'ReleaseAssetLinkType',
      description: 'Type of the link: `other`, `runbook`, `image`, `package`',
      values: Object.fromEntries(['OTHER', 'RUNBOOK', 'PACKAGE', 'IMAGE'].map((v) => [v, { value: v.toLowerCase() }])),
    }),
  );
  g.defineObject('ReleaseAssetLink', {
    description: 'Represents an asset link associated with a release',
    fields: () => ({
      id: gql.gid('Releases::Link', 'ID of the link.'),
      name: from(string, 'name', 'Name of the link.'),
      url: from(string, 'url', 'URL of the link.'),
      linkType: from(g.type('ReleaseAssetLinkType'), 'link_type', 'Type of the link: `other`, `runbook`, `image`, `package`; defaults to `other`.'),
      external: from(boolean, 'external', 'Indicates the link points to an external resource.'),
      directAssetUrl: from(string, 'direct_asset_url', 'Direct asset URL of the link.'),
      directAssetPath: { type: string, description: 'Relative path for the direct asset link.', resolve: directAssetPath },
    }),
  });
  g.defineObject('ReleaseSource', {
    description: 'Represents the source code attached to a release in a particular format',
    fields: () => ({
      format: from(string, 'format', 'Format of the source.'),
      url: from(string, 'url', 'Download URL of the source.'),
    }),
  });
  g.defineObject('ReleaseEvidence', {
    description: 'Evidence for a release',
    fields: () => ({
      id: gql.gid('Releases::Evidence', 'ID of the evidence.'),
      sha: from(string, 'sha', 'SHA1 ID of the evidence hash.'),
      filepath: from(string, 'filepath', 'URL from where the evidence can be downloaded.'),
      collectedAt: from(g.type('Time'), 'collected_at', 'Timestamp when the evidence was collected.'),
    }),
  });
  g.defineObject('ReleaseAssets', {
    description: 'A container for all assets associated with a release',
    fields: () => ({
      count: from(int, 'count', 'Number of assets of the release.'),
      links: { type: g.connection('ReleaseAssetLink'), description: 'Asset links of the release.', resolve: (a: ReleaseEntity['assets']) => gql.wholeList(a.links) },
      sources: { type: g.connection('ReleaseSource'), description: 'Sources of the release.', resolve: (a: ReleaseEntity['assets']) => gql.wholeList(a.sources ?? []) },
    }),
  });
  g.defineObject('ReleaseLinks', {
    description: 'Links of a release.',
    fields: () => ({
      selfUrl: from(string, 'self', 'HTTP URL of the release.'),
      openedMergeRequestsUrl: from(string, 'opened_merge_requests_url', 'HTTP URL of the merge request page, filtered by this release and `state=open`.'),
      mergedMergeRequestsUrl: from(string, 'merged_merge_requests_url', 'HTTP URL of the merge request page , filtered by this release and `state=merged`.'),
      closedMergeRequestsUrl: from(string, 'closed_merge_requests_url', 'HTTP URL of the merge request page , filtered by this release and `state=closed`.'),
      openedIssuesUrl: from(string, 'opened_issues_url', 'HTTP URL of the issues page, filtered by this release and `state=open`.'),
      closedIssuesUrl: from(string, 'closed_issues_url', 'HTTP URL of the issues page, filtered by this release and `state=closed`.'),
      editUrl: from(string, 'edit_url', 'HTTP URL of the release\'s edit page.'),
    }),
  });
  g.defineObject('Release', {
    description: 'Represents a release',
    fields: () => ({
      id: { type: nn(gql.id), description: 'Global ID of the release.', resolve: (r: ReleaseEntity) => toGlobalId('Release', recordIdOf(r)!) },
      name: from(string, 'name', 'Name of the release.'),
      tagName: from(string, 'tag_name', 'Name of the tag associated with the release.'),
      tagPath: from(string, 'tag_path', 'Relative web path to the tag associated with the release.'),
      description: from(string, 'description', 'Description (also known as "release notes") of the release.'),
      createdAt: from(g.type('Time'), 'created_at', 'Timestamp of when the release was created.'),
      releasedAt: from(g.type('Time'), 'released_at', 'Timestamp of when the release was released.'),
      upcomingRelease: from(boolean, 'upcoming_release', 'Indicates the release is an upcoming release.'),
      historicalRelease: { type: boolean, description: 'Indicates the release is an historical release.', resolve: (r: ReleaseEntity) => r.released_at < r.created_at },
      author: from(g.object('UserCore'), 'author', 'User that created the release.'),
      commit: from(g.object('Commit'), 'commit', 'Commit associated with the release.'),
      assets: from(g.object('ReleaseAssets'), 'assets', 'Assets of the release.'),
      links: from(g.object('ReleaseLinks'), '_links', 'Links of the release.'),
      evidences: { type: g.connection('ReleaseEvidence'), description: 'Evidence for the release.', resolve: (r: ReleaseEntity) => gql.wholeList((r.evidences ?? []) as object[]) },
      milestones: { type: g.connection('Milestone'), description: 'Milestones associated to the release.', resolve: (r: ReleaseEntity) => gql.wholeList(r.milestones ?? []) },
    }),
  });
  g.extend('Project', () => ({
    releases: {
      type: g.connection('Release'),
      description: 'Releases of the project.',
      args: { ...connectionArgs, sort: { type: g.input('ReleaseSort'), defaultValue: 'RELEASED_AT_DESC', description: 'Sort order of results.' } },
      resolve: (project: { id: number }, args: ConnectionArgs & { sort: string }, ctx: Ctx) => {
        const input = parseParams(ListReleasesInput, { id: String(project.id), ...SORTS[args.sort] });
        return visibleConnection(resolveConnection(args, (page) => listReleases(ctx, { ...input, ...page })));
      },
    },
    release: {
      type: g.object('Release'),
      description: 'A single release of the project.',
      args: { tagName: { type: nn(string), description: 'Name of the tag associated to the release.' } },
      resolve: (project: { id: number }, args: { tagName: string }, ctx: Ctx) => orNull(getRelease(ctx, parseParams(GetReleaseInput, { id: String(project.id), tag_name: args.tagName }))),
    },
  }));
  g.extend('Group', () => ({
    releases: {
      type: g.connection('Release'),
      description: 'Releases belonging to projects in the group.',
      args: { ...connectionArgs, sort: { type: g.input('GroupReleaseSort'), defaultValue: 'RELEASED_AT_DESC', description: 'Sort group releases by given criteria.' } },
      resolve: (group: { id: number }, args: ConnectionArgs & { sort: string }, ctx: Ctx) => {
        const input = parseParams(ListGroupReleasesInput, { id: String(group.id), sort: SORTS[args.sort]!.sort });
        return visibleConnection(resolveConnection(args, (page) => listGroupReleases(ctx, { ...input, ...page })));
      },
    },
  }));

  // GitLab's release mutations (app/graphql/mutations/releases/{create,update,delete}.rb), over the REST use cases.
  g.add(
    new GraphQLInputObjectType({
      name: 'ReleaseAssetLinkInput',
      description: 'Fields that are available when modifying a release asset link.',
      fields: () => ({
        name: { type: nn(string), description: 'Name of the asset link.' },
        url: { type: nn(string), description: 'URL of the asset link.' },
        directAssetPath: { type: string, description: 'Relative path for a direct asset link.' },
        linkType: { type: g.input('ReleaseAssetLinkType'), defaultValue: 'other', description: 'Type of the asset link.' },
      }),
    }),
  );
  g.add(
    new GraphQLInputObjectType({
      name: 'ReleaseAssetsInput',
      description: 'Fields that are available when modifying release assets.',
      fields: () => ({ links: { type: new GraphQLList(new GraphQLNonNull(g.input('ReleaseAssetLinkInput'))), description: 'List of asset links to associate to the release.' } }),
    }),
  );
  interface ReleaseMutationInput {
    projectPath: string;
    tagName: string;
    tagMessage?: string | null;
    ref?: string | null;
    name?: string | null;
    description?: string | null;
    releasedAt?: string | null;
    milestones?: string[] | null;
    assets?: { links?: { name: string; url: string; directAssetPath?: string | null; linkType?: string | null }[] | null } | null;
  }
  const releasePayload = () => ({ release: { type: g.object('Release'), description: 'Release after mutation.' } });
  const common = () => ({
    projectPath: { type: nn(gql.id), description: 'Full path of the project the release is associated with.' },
    tagName: { type: nn(string), description: 'Name of the tag associated with the release.' },
    name: { type: string, description: 'Name of the release.' },
    description: { type: string, description: 'Description (also known as "release notes") of the release.' },
    releasedAt: { type: g.input('Time'), description: 'Date and time for the release.' },
    milestones: { type: gql.list(string), description: 'Title of each milestone the release is associated with.' },
  });
  g.mutation<ReleaseMutationInput>('releaseCreate', {
    description: 'Creates a release.',
    input: () => ({
      ...common(),
      tagMessage: { type: string, description: 'Message to use if creating a new annotated tag.' },
      ref: { type: string, description: 'Commit SHA or branch name to use if creating a new tag.' },
      assets: { type: g.input('ReleaseAssetsInput'), description: 'Assets associated to the release.' },
    }),
    payload: releasePayload,
    resolve: async (ctx, i) => {
      const links = i.assets?.links?.map((l) => gql.given({ name: l.name, url: l.url, direct_asset_path: l.directAssetPath, link_type: l.linkType }));
      const input = parseParams(CreateReleaseInput, {
        id: i.projectPath,
        ...gql.given({ tag_name: i.tagName, tag_message: i.tagMessage, ref: i.ref, name: i.name, description: i.description, released_at: i.releasedAt, milestones: i.milestones, assets: links ? { links } : undefined }),
      });
      return { release: await createRelease(ctx, input) };
    },
  });
  g.mutation<ReleaseMutationInput>('releaseUpdate', {
    description: 'Updates a release.',
    input: common,
    payload: releasePayload,
    resolve: async (ctx, i) => {
      const input = parseParams(UpdateReleaseInput, { id: i.projectPath, tag_name: i.tagName, ...gql.given({ name: i.name, description: i.description, released_at: i.releasedAt, milestones: i.milestones }) });
      return { release: await updateRelease(ctx, input) };
    },
  });
  g.mutation<{ projectPath: string; tagName: string }>('releaseDelete', {
    description: 'Deletes a release.',
    input: () => ({
      projectPath: { type: nn(gql.id), description: 'Full path of the project the release is associated with.' },
      tagName: { type: nn(string), description: 'Name of the tag associated with the release to delete.' },
    }),
    payload: releasePayload,
    resolve: async (ctx, i) => ({ release: await deleteRelease(ctx, parseParams(ReleaseRefInput, { id: i.projectPath, tag_name: i.tagName })) }),
  });
};
