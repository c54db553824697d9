/** Parameters of the release, release link and group release endpoints (GitLab's API::Releases, API::Release::Links). */
import { paginationParams } from '../../kernel/pagination.js';
import { Field, p, params, type InferShape, type JsonSchema } from '../../kernel/params.js';

export const LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

const NAIVE_DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * Grape's `DateTime`: ISO 8601 with or without an offset; a time without an offset is UTC
 * (`2019-03-25 10:00:00` is 10:00Z, whatever the server's zone), a bare date is midnight UTC.
 */
class UtcDateTimeField extends Field<Date> {
  protected coerce(raw: unknown): { ok: true; value: Date } | { ok: false; message: string } {
    if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, message: 'is invalid' };
    let text = raw.trim();
    const naive = NAIVE_DATETIME.exec(text);
    if (naive) text = `${naive[1]}T${naive[2]}Z`;
    else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) text = `${text}T00:00:00Z`;
    const d = new Date(text);
    if (Number.isNaN(d.getTime())) return { ok: false, message: 'is invalid' };
    return { ok: true, value: d };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', format: 'date-time' });
  }
}
const datetime = () => new UtcDateTimeField();

/** One of `assets[links]` on release creation (`link_type` is free text there; the model refuses unknown types). */
const AssetLink = p.object({
  name: p.string(),
  url: p.string(),
  direct_asset_path: p.string().optional(),
  filepath: p.string().optional().describe('Deprecated spelling of `direct_asset_path`.'),
  link_type: p.string().optional(),
});

const milestoneParams = {
  milestones: p.array(p.string()).commaSeparated().optional().describe('Milestone titles (project milestones; on Premium also the project group\'s). `[]` removes all.'),
  milestone_ids: p.array(p.integer()).commaSeparated().optional(),
};

export const ListReleasesInput = params({
  id: p.string(),
  order_by: p.enum(['released_at', 'created_at']).default('released_at'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  include_html_description: p.boolean().optional(),
  updated_before: datetime().optional(),
  updated_after: datetime().optional(),
  ...paginationParams,
});
export type ListReleasesInput = InferShape<typeof ListReleasesInput.shape>;

export const GetReleaseInput = params({ id: p.string(), tag_name: p.string(), include_html_description: p.boolean().optional() });
export type GetReleaseInput = InferShape<typeof GetReleaseInput.shape>;

export const LatestReleaseInput = params({
  id: p.string(),
  suffix_path: p.string().optional().describe('What follows `permalink/latest/` (e.g. `downloads/bin/app`), kept on the redirect.'),
  include_html_description: p.boolean().optional().describe('Forwarded on the redirect.'),
});
export type LatestReleaseInput = InferShape<typeof LatestReleaseInput.shape>;

export const DownloadReleaseAssetInput = params({ id: p.string(), tag_name: p.string(), direct_asset_path: p.string() });
export type DownloadReleaseAssetInput = InferShape<typeof DownloadReleaseAssetInput.shape>;

export const CreateReleaseInput = params({
  id: p.string(),
  tag_name: p.string(),
  tag_message: p.string().optional().describe('Makes the tag created from `ref` an annotated one.'),
  name: p.string().optional().describe('Defaults to `tag_name`.'),
  description: p.string().optional(),
  ref: p.string().optional().describe('Where to create the tag when `tag_name` does not exist: a branch, tag or commit sha.'),
  assets: p.object({ links: p.array(AssetLink).optional() }).optional(),
  ...milestoneParams,
  released_at: datetime().optional().describe('Defaults to now; a future date makes an upcoming release.'),
  legacy_catalog_publish: p.boolean().optional().describe('Accepted and ignored (Forgelet has no CI catalog).'),
});
export type CreateReleaseInput = InferShape<typeof CreateReleaseInput.shape>;

export const UpdateReleaseInput = params({
  id: p.string(),
  tag_name: p.string(),
  name: p.string().nullable().optional(),
  description: p.string().nullable().optional(),
  released_at: datetime().optional(),
  ...milestoneParams,
});
export type UpdateReleaseInput = InferShape<typeof UpdateReleaseInput.shape>;

export const ReleaseRefInput = params({ id: p.string(), tag_name: p.string() });
export type ReleaseRefInput = InferShape<typeof ReleaseRefInput.shape>;

export const ListGroupReleasesInput = params({
  id: p.string(),
  sort: p.enum(['asc', 'desc']).default('desc').describe('By `released_at`, then id.'),
  simple: p.boolean().default(false).describe('Only name, tag_name, description, created_at, released_at and upcoming_release.'),
  ...paginationParams,
});
export type ListGroupReleasesInput = InferShape<typeof ListGroupReleasesInput.shape>;

// release links

export const ListReleaseLinksInput = params({ id: p.string(), tag_name: p.string(), ...paginationParams });
export type ListReleaseLinksInput = InferShape<typeof ListReleaseLinksInput.shape>;

export const ReleaseLinkRefInput = params({ id: p.string(), tag_name: p.string(), link_id: p.integer() });
export type ReleaseLinkRefInput = InferShape<typeof ReleaseLinkRefInput.shape>;

export const CreateReleaseLinkInput = params({
  id: p.string(),
  tag_name: p.string(),
  name: p.string().describe('Unique in the release.'),
  url: p.string().describe('http, https or ftp; unique in the release.'),
  direct_asset_path: p.string().optional().describe('`/path` under `/-/releases/<tag>/downloads` (≤ 128 characters), unique in the release.'),
  filepath: p.string().optional().describe('Deprecated spelling of `direct_asset_path`.'),
  link_type: p.enum(LINK_TYPES).default('other'),
});
export type CreateReleaseLinkInput = InferShape<typeof CreateReleaseLinkInput.shape>;

export const UpdateReleaseLinkInput = params(
  {
    id: p.string(),
    tag_name: p.string(),
    link_id: p.integer(),
    name: p.string().optional(),
    url: p.string().optional(),
    direct_asset_path: p.string().optional(),
    filepath: p.string().optional(),
    link_type: p.enum(LINK_TYPES).optional().describe('Unchanged when omitted.'),
  },
  { atLeastOneOf: [['name', 'url']] },
);
export type UpdateReleaseLinkInput = InferShape<typeof UpdateReleaseLinkInput.shape>;
