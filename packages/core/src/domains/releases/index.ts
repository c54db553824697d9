/** Releases, their asset links, and group release lists. */
export { releasesRoutes } from './releases.routes.js';
export { listReleases, getRelease, createRelease, updateRelease, deleteRelease, latestReleaseRedirect, downloadReleaseAsset } from './releases.js';
export { listReleaseLinks, getReleaseLink, createReleaseLink, updateReleaseLink, deleteReleaseLink } from './release-links.js';
export { listGroupReleases } from './group-releases.js';
export { releaseSources } from './release.entity.js';
export type { ReleaseEntity, BasicReleaseEntity, ReleaseLinkEntity, ReleaseSourceEntity, MilestoneWithStatsEntity } from './release.entity.js';
export type { ReleaseRow, ReleaseLinkRow } from './release.table.js';
export { registerReleaseHooks, releasesPushHooks, type ReleaseHooks, type ReleaseChange } from './release-hooks.js';
export {
  LINK_TYPES,
  type LinkType,
  type CreateReleaseInput,
  type CreateReleaseLinkInput,
  type DownloadReleaseAssetInput,
  type GetReleaseInput,
  type LatestReleaseInput,
  type ListGroupReleasesInput,
  type ListReleaseLinksInput,
  type ListReleasesInput,
  type ReleaseLinkRefInput,
  type ReleaseRefInput,
  type UpdateReleaseInput,
  type UpdateReleaseLinkInput,
} from './release.schema.js';
export { releasesGraphql } from './releases.graphql.js';
