/**
 * `POST /projects/:id/archive` and `/unarchive` (GitLab's `archive_project` ability: Owners,
 * or a custom role with `archive_project`). Answers 201 with the project, as GitLab does.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { authorize } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectEntity } from './project.entity.js';
import { getProject } from './projects.js';
import { runProjectChanged } from './account-hooks.js';

export async function setProjectArchived(ctx: Ctx, ref: string, archived: boolean): Promise<ProjectEntity> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'archive_project', { kind: 'project', project });
  if (project.archived !== (archived ? 1 : 0)) {
    await ctx.db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('projects').set({ archived: archived ? 1 : 0, updated_at: nowIso(ctx) }).where('id', '=', project.id).returningAll().executeTakeFirstOrThrow();
      // GitLab's Archive/UnarchiveService send project_update.
      await runProjectChanged(trx, { action: 'update', by: ctx, project: updated, before: project });
    });
  }
  return getProject(ctx, String(project.id));
}
