/** GitLab's `API::Entities::Tag` (and its `TagRelease`). */
import { createHash } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { commitsBySha } from './branch.entity.js';
import { presentCommit, type CommitEntity } from './commit.entity.js';
import type { RepositoryRefRow } from './repository.table.js';

export interface TagEntity {
  name: string;
  /** The annotation; null for a lightweight tag. */
  message: string | null;
  /** The tag object's id for an annotated tag, else the commit's. */
  target: string;
  commit: CommitEntity | null;
  release: { tag_name: string; description: string | null } | null;
  protected: boolean;
  /** When an annotated tag was made; null for a lightweight tag. */
  created_at: string | null;
}

/**
 * Forgelet stores no tag objects: an annotated tag's id is a stable hash of what identifies
 * it (project, name, creation time), shaped like a git object id.
 */
export function tagObjectId(projectId: number, row: Pick<RepositoryRefRow, 'name' | 'created_at'>): string {
  return createHash('sha1').update(`tag ${projectId} ${row.name} ${row.created_at}`).digest('hex');
}

export async function presentTags(ctx: Ctx, project: ProjectRow, rows: RepositoryRefRow[]): Promise<TagEntity[]> {
  if (!rows.length) return [];
  const commits = await commitsBySha(ctx, project.id, rows.map((r) => r.commit_sha));
  const releases = new Map(
    (
      await ctx.db
        .selectFrom('releases')
        .select(['tag_name', 'description'])
        .where('project_id', '=', project.id)
        .where('tag_name', 'in', rows.map((r) => r.name))
        .execute()
    ).map((r) => [r.tag_name, r]),
  );
  return rows.map((row) => {
    const commit = commits.get(row.commit_sha);
    const release = releases.get(row.name);
    const annotated = row.message !== null;
    return {
      name: row.name,
      message: row.message,
      target: annotated ? tagObjectId(project.id, row) : row.commit_sha,
      commit: commit ? presentCommit(ctx.urls, project, commit) : null,
      release: release ? { tag_name: release.tag_name, description: release.description } : null,
      protected: false,
      created_at: annotated ? row.created_at : null,
    };
  });
}
