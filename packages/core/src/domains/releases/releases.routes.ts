import { created, ok, paged, route, type Route } from '../../kernel/route.js';
import { listGroupReleases } from './group-releases.js';
import { createReleaseLink, deleteReleaseLink, getReleaseLink, listReleaseLinks, updateReleaseLink } from './release-links.js';
import {
  CreateReleaseInput,
  CreateReleaseLinkInput,
  DownloadReleaseAssetInput,
  GetReleaseInput,
  LatestReleaseInput,
  ListGroupReleasesInput,
  ListReleaseLinksInput,
  ListReleasesInput,
  ReleaseLinkRefInput,
  ReleaseRefInput,
  UpdateReleaseInput,
  UpdateReleaseLinkInput,
} from './release.schema.js';
import { createRelease, deleteRelease, downloadReleaseAsset, getRelease, latestReleaseRedirect, listReleases, updateRelease } from './releases.js';

const tag = 'releases';

export const releasesRoutes: Route[] = [
  route('GET', '/groups/:id/releases', { auth: 'optional', params: ListGroupReleasesInput, tag, summary: 'List releases of the projects of a group and its subgroups' },
    async (ctx, input) => paged(await listGroupReleases(ctx, input))),

  route('GET', '/projects/:id/releases', { auth: 'optional', jobToken: true, params: ListReleasesInput, tag, summary: 'List releases' },
    async (ctx, input) => paged(await listReleases(ctx, input))),
  route('GET', '/projects/:id/releases/permalink/latest', { auth: 'optional', jobToken: true, params: LatestReleaseInput, tag, summary: 'Redirect to the latest release' },
    async (ctx, input) => latestReleaseRedirect(ctx, input)),
  route('GET', '/projects/:id/releases/permalink/latest/*suffix_path', { auth: 'optional', jobToken: true, params: LatestReleaseInput, tag, summary: 'Redirect to a path under the latest release' },
    async (ctx, input) => latestReleaseRedirect(ctx, input)),
  route('GET', '/projects/:id/releases/:tag_name', { auth: 'optional', jobToken: true, params: GetReleaseInput, tag, summary: 'Get a release by its tag' },
    async (ctx, input) => ok(await getRelease(ctx, input))),
  route('GET', '/projects/:id/releases/:tag_name/downloads/*direct_asset_path', { auth: 'optional', jobToken: true, params: DownloadReleaseAssetInput, tag, summary: 'Redirect to a release asset by its direct asset path' },
    async (ctx, input) => downloadReleaseAsset(ctx, input)),
  route('POST', '/projects/:id/releases', { auth: 'required', jobToken: true, params: CreateReleaseInput, tag, summary: 'Create a release (Developer), creating its tag from `ref` if needed' },
    async (ctx, input) => created(await createRelease(ctx, input))),
  route('PUT', '/projects/:id/releases/:tag_name', { auth: 'required', jobToken: true, params: UpdateReleaseInput, tag, summary: 'Update a release (Developer)' },
    async (ctx, input) => ok(await updateRelease(ctx, input))),
  route('DELETE', '/projects/:id/releases/:tag_name', { auth: 'required', jobToken: true, params: ReleaseRefInput, tag, summary: 'Delete a release, keeping its tag (Developer)' },
    async (ctx, input) => ok(await deleteRelease(ctx, input))),

  route('GET', '/projects/:id/releases/:tag_name/assets/links', { auth: 'optional', jobToken: true, params: ListReleaseLinksInput, tag, summary: 'List the asset links of a release' },
    async (ctx, input) => paged(await listReleaseLinks(ctx, input))),
  route('GET', '/projects/:id/releases/:tag_name/assets/links/:link_id', { auth: 'optional', jobToken: true, params: ReleaseLinkRefInput, tag, summary: 'Get a release asset link' },
    async (ctx, input) => ok(await getReleaseLink(ctx, input))),
  route('POST', '/projects/:id/releases/:tag_name/assets/links', { auth: 'required', jobToken: true, params: CreateReleaseLinkInput, tag, summary: 'Create a release asset link (Developer)' },
    async (ctx, input) => created(await createReleaseLink(ctx, input))),
  route('PUT', '/projects/:id/releases/:tag_name/assets/links/:link_id', { auth: 'required', jobToken: true, params: UpdateReleaseLinkInput, tag, summary: 'Update a release asset link (Developer)' },
    async (ctx, input) => ok(await updateReleaseLink(ctx, input))),
  route('DELETE', '/projects/:id/releases/:tag_name/assets/links/:link_id', { auth: 'required', jobToken: true, params: ReleaseLinkRefInput, tag, summary: 'Delete a release asset link; answers it (Developer)' },
    async (ctx, input) => ok(await deleteReleaseLink(ctx, input))),
];
