/**
 * URLs the feed hands to clients. They repeat the request's own route prefix (project or
 * group, id or path, `nuget` or `pkgfeed`), so a client configured with either spelling keeps
 * using it; package content always lives under the owning project's prefix.
 */
import type { Ctx } from '../../access/context.js';
import type { RouteRequest } from '../../kernel/route.js';

/** The path segment real clients use (`nuget`) and the spec's name for it. */
export const FEED_SEGMENTS = ['nuget', 'pkgfeed'] as const;
export type FeedSegment = (typeof FEED_SEGMENTS)[number];

const PREFIX_RE = /^(\/(?:projects|groups)\/[^/]+(?:\/-)?\/packages\/(nuget|pkgfeed))(?:\/|$)/;

export interface FeedUrls {
  /** Absolute URL of the request's route prefix (`…/api/v4/projects/42/packages/nuget`). */
  base: string;
  segment: FeedSegment;
  /** Absolute prefix of a project's feed, with the same segment spelling. */
  projectBase(projectId: number): string;
}

/** Path segments are encoded as NuGet clients and GitLab do (`+` stays, spaces never occur). */
export const enc = (s: string) => encodeURIComponent(s).replace(/%2B/gi, '+');

export function feedUrls(ctx: Ctx, req: RouteRequest): FeedUrls {
  const m = PREFIX_RE.exec(req.path);
  const prefix = m ? m[1]! : req.path.replace(/\/+$/, '');
  const segment = (m?.[2] ?? 'nuget') as FeedSegment;
  return {
    base: ctx.urls.api(prefix),
    segment,
    projectBase: (projectId) => ctx.urls.api(`/projects/${projectId}/packages/${segment}`),
  };
}

/** `<base>/metadata/<name>/<version>.json`: a version's registration leaf (and catalog entry id). */
export function versionJsonUrl(base: string, name: string, version: string): string {
  return `${base}/metadata/${enc(name)}/${enc(version)}.json`;
}

/**
 * The download route of a package archive, under its project's prefix, as NuGet clients build
 * it from the normalized version: `…/download/<name>/<version>/<id lower>.<version>.nupkg`.
 */
export function packageContentUrl(projectBase: string, name: string, normalizedVersion: string): string {
  return `${projectBase}/download/${enc(name)}/${enc(normalizedVersion)}/${enc(`${name.toLowerCase()}.${normalizedVersion}.nupkg`)}`;
}
