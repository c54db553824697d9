/**
 * Push pipelines: a commit, branch or tag written through the API runs the ref's
 * `.gitlab-ci.yml` as GitLab's post-receive does (source `push`). Nothing is created when
 * the ref has no CI file, CI is off for the project, or the commit message asks to skip CI
 * (`[ci skip]` / `[skip ci]`) or the push does (`git push -o ci.skip`). `-o ci.variable="K=v"`
 * become the pipeline's variables and `-o ci.input="name=value"` its inputs, as in GitLab. A refusal (no permission to run pipelines on the ref) leaves
 * the push alone, as in GitLab; a broken CI file gives a failed pipeline naming the error.
 */
import type { Ctx } from '../../access/context.js';
import { DomainError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import { pushOptionPairs, pushOptionSet, readFileOnRef, selectBranch, selectTag, type PushHooks, type PushedRef } from '../repository/index.js';
import { CI_CONFIG_PATH, createPipeline } from './create-pipeline.js';

const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

/** Creates the push pipeline of a ref just written (after its transaction committed). */
export async function createPushPipeline(ctx: Ctx, project: ProjectRow, pushed: PushedRef): Promise<void> {
  if (project.jobs_enabled === 0 || !ctx.actor.user) return;
  if (pushed.message && SKIP_CI.test(pushed.message)) return;
  if (pushOptionSet(pushed.pushOptions, 'ci', 'skip')) return;
  const ref = pushed.kind === 'tag' ? await selectTag(ctx.db, project.id, pushed.name) : await selectBranch(ctx.db, project.id, pushed.name);
  if (!ref || !(await readFileOnRef(ctx.db, ref, CI_CONFIG_PATH))) return;
  try {
    await createPipeline(ctx, project, {
      ref: `refs/${pushed.kind === 'tag' ? 'tags' : 'heads'}/${pushed.name}`,
      source: 'push',
      beforeSha: pushed.before ?? undefined,
      variables: pushOptionPairs(pushed.pushOptions, 'ci', 'variable'),
      inputs: inputsOf(pushed),
    });
  } catch (err) {
    // The push stands whatever the pipeline's fate (GitLab's post-receive runs apart from it).
    if (!(err instanceof DomainError)) throw err;
  }
}

/** `-o ci.input="name=value"`: a value that reads as JSON (a number, a boolean, an array) is that value, as GitLab types inputs. */
function inputsOf(pushed: PushedRef): Record<string, unknown> | undefined {
  const pairs = pushOptionPairs(pushed.pushOptions, 'ci', 'input');
  if (!pairs.length) return undefined;
  const out: Record<string, unknown> = {};
  for (const { key, value } of pairs) {
    let parsed: unknown = value;
    try {
      const json: unknown = JSON.parse(value);
      if (json === null || typeof json !== 'object' || Array.isArray(json)) parsed = json;
    } catch {
      // a plain string
    }
    out[key] = parsed;
  }
  return out;
}

/** ci's reaction to pushes, registered by the wiring (the repository's push hooks). */
export const ciPushHooks: PushHooks = { refPushed: createPushPipeline };
