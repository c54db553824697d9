/** Commits in GitLab's JSON shapes (`API::Entities::Commit`, `CommitDetail`). */
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { RepositoryCommitRow } from './repository.table.js';

export interface CommitEntity {
  id: string;
  short_id: string;
  created_at: string;
  parent_ids: string[];
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
  trailers: Record<string, string>;
  extended_trailers: Record<string, string[]>;
  web_url: string;
}

export interface CommitStats {
  additions: number;
  deletions: number;
  total: number;
}

/** `with_stats=true` on the commit list (`Entities::CommitWithStats`). */
export interface CommitWithStatsEntity extends CommitEntity {
  stats: CommitStats;
}

export interface CommitDetailEntity extends CommitEntity {
  stats?: CommitStats;
  status: string | null;
  project_id: number;
  last_pipeline: unknown;
}

/** `Key: value` lines of the message's last paragraph (git trailers). */
function trailersOf(message: string): { trailers: Record<string, string>; extended: Record<string, string[]> } {
  const paragraphs = message.trim().split(/\n\s*\n/);
  const trailers: Record<string, string> = {};
  const extended: Record<string, string[]> = {};
  if (paragraphs.length < 2) return { trailers, extended };
  const last = paragraphs[paragraphs.length - 1]!.split('\n');
  if (!last.every((l) => /^[A-Za-z0-9-]+: .+/.test(l))) return { trailers, extended };
  for (const line of last) {
    const at = line.indexOf(': ');
    const key = line.slice(0, at);
    const value = line.slice(at + 2).trim();
    trailers[key] = value;
    (extended[key] ??= []).push(value);
  }
  return { trailers, extended };
}

export function commitWebUrl(urls: UrlBuilder, project: Pick<ProjectRow, 'path_with_namespace'>, sha: string): string {
  return urls.web(`/${project.path_with_namespace}/-/commit/${sha}`);
}

/** What the entities show of a commit: a row of the index or a commit read from git. */
export type CommitFields = Pick<
  RepositoryCommitRow,
  'sha' | 'parent_ids' | 'title' | 'message' | 'author_name' | 'author_email' | 'authored_date' | 'committer_name' | 'committer_email' | 'committed_date'
> &
  Partial<Pick<RepositoryCommitRow, 'authored_tz' | 'committed_tz'>>;

/**
 * A commit date as GitLab's API shows it (a Ruby Time in the commit's own offset, as JSON):
 * whole seconds, `.000` and the offset, `2012-09-20T09:06:12.000+03:00`. `tz` is `+HH:MM`.
 */
export function commitTime(iso: string, tz: string | null | undefined): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const offset = /^([+-])(\d\d):(\d\d)$/.exec(tz ?? '') ?? ['', '+', '00', '00'];
  const minutes = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
  const local = new Date(Math.floor(ms / 1000) * 1000 + minutes * 60_000).toISOString().slice(0, 19);
  return `${local}.000${offset[1]}${offset[2]}:${offset[3]}`;
}

/** `trailers: false` leaves them empty, as GitLab's commit list does unless asked (`trailers=true`). */
export function presentCommit(
  urls: UrlBuilder,
  project: Pick<ProjectRow, 'path_with_namespace'>,
  row: CommitFields,
  options: { trailers?: boolean } = {},
): CommitEntity {
  const { trailers, extended } = options.trailers === false ? { trailers: {}, extended: {} } : trailersOf(row.message);
  return {
    id: row.sha,
    short_id: row.sha.slice(0, 8),
    created_at: commitTime(row.committed_date, row.committed_tz),
    parent_ids: JSON.parse(row.parent_ids) as string[],
    title: row.title,
    message: row.message,
    author_name: row.author_name,
    author_email: row.author_email,
    authored_date: commitTime(row.authored_date, row.authored_tz),
    committer_name: row.committer_name,
    committer_email: row.committer_email,
    committed_date: commitTime(row.committed_date, row.committed_tz),
    trailers,
    extended_trailers: extended,
    web_url: commitWebUrl(urls, project, row.sha),
  };
}

export function presentCommitDetail(
  urls: UrlBuilder,
  project: Pick<ProjectRow, 'id' | 'path_with_namespace'>,
  row: CommitFields,
  extra: { stats?: CommitStats; status?: string | null; lastPipeline?: unknown } = {},
): CommitDetailEntity {
  return {
    ...presentCommit(urls, project, row),
    ...(extra.stats && { stats: extra.stats }),
    status: extra.status ?? null,
    project_id: project.id,
    last_pipeline: extra.lastPipeline ?? null,
  };
}
