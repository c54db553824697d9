/** The project lookups every repository route starts with: reading code, pushing code. */
import type { Ctx } from '../../access/context.js';
import { authorize } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';

/** GitLab's `authorize_read_code!`: 404 for who can't see the project, 403 for a Guest of a private one. */
export async function findCodeProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  return project;
}

/** Reading code, then GitLab's `authorize_push_project` (Developer): 403 below. */
export async function findPushProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findCodeProject(ctx, ref);
  await authorize(ctx, 'push_code', { kind: 'project', project });
  return project;
}

/** `If-Unmodified-Since`, read leniently as GitLab does (what does not parse is ignored). */
export function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
