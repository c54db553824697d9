/**
 * Push pipelines: a commit, branch or tag written through the API runs the ref's
 * `.gitlab-ci.yml` as GitLab's post-receive does (source `push`). Nothing is created when
 * the ref has no CI file, CI is off for the project, or the commit message asks to skip CI
 * (`[ci skip]` / `[skip ci]`). A refusal (no permission to run pipelines on the ref) leaves
 * the push alone, as in GitLab; a broken CI file gives a failed pipeline naming the error.
 */
import type { Ctx } from '../../access/context.js';
import { DomainError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import { readFileOnRef, selectBranch, selectTag, type PushHooks, type PushedRef } from '../repository/index.js';
import { CI_CONFIG_PATH, createPipeline } from './create-pipeline.js';

const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

/** Creates the push pipeline of a ref just written (after its transaction committed). */
export async function createPushPipeline(ctx: Ctx, project: ProjectRow, pushed: PushedRef): Promise<void> {
  if (project.jobs_enabled === 0 || !ctx.actor.user) return;
  if (pushed.message && SKIP_CI.test(pushed.message)) return;
  const ref = pushed.kind === 'tag' ? await selectTag(ctx.db, project.id, pushed.name) : await selectBranch(ctx.db, project.id, pushed.name);
  if (!ref || !(await readFileOnRef(ctx.db, ref, CI_CONFIG_PATH))) return;
  try {
    await createPipeline(ctx, project, { ref: `refs/${pushed.kind === 'tag' ? 'tags' : 'heads'}/${pushed.name}`, source: 'push', beforeSha: pushed.before ?? undefined });
  } catch (err) {
    // The push stands whatever the pipeline's fate (GitLab's post-receive runs apart from it).
    if (!(err instanceof DomainError)) throw err;
  }
}

/** ci's reaction to pushes, registered by the wiring (the repository's push hooks). */
export const ciPushHooks: PushHooks = { refPushed: createPushPipeline };
