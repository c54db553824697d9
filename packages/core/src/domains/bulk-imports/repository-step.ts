/**
 * The `repository` relation of a project entity: which way the repository comes over.
 *
 * GitLab chooses by the source's version (lib/bulk_imports/projects/stage.rb):
 * RepositoryBundlePipeline for sources from 15.1.0 (the `repository` file relation, a git
 * bundle), RepositoryPipeline (`git fetch` of `http_url_to_repo`) for sources up to 15.0. Forgelet
 * does the same, and also falls back from the bundle to git when the bundle cannot be had:
 *
 * 1. source ≥ 15.1: the `repository` export. Its status is polled as any relation's; a source
 *    that does not know the relation (download answers 400 `relation is not portable`: an older
 *    Forgelet), or that shows no status for it within MISSING_EXPORT_LIMIT_MS, goes to step 2.
 *    An export of an empty repository (`total_objects_count` 0, or a tar without a bundle while
 *    the source's project says `empty_repo`) is an empty repository, as in GitLab. A tar without
 *    a bundle for a project that is not empty goes to step 2. A failed export, a download that
 *    fails, or a bundle that is refused (repository-bundle-import.ts) fails the relation, and,
 *    as GitLab's `abort_on_failure!`, the entity.
 * 2. git fetch of the source project's `http_url_to_repo` (repository-git.ts); a source without
 *    git over HTTP (clone URL 404) goes to step 3.
 * 3. Forgelet's `forgelet_repository` records (the NDJSON relation), for Forgelet sources older
 *    than git over HTTP.
 */
import { nowIso, type Ctx, type Deps } from '../../access/context.js';
import type { BulkImportEntityRow, BulkImportRow, BulkImportTrackerRow } from './bulk-import.table.js';
import { importRepositoryBundle } from './repository-bundle-import.js';
import { fetchRepositoryByGit } from './repository-git.js';
import { enc, type SourceClient } from './source-client.js';

/** GitLab's RepositoryBundlePipeline `minimum_source_version`. */
const BUNDLE_MIN_VERSION: [number, number] = [15, 1];
const STATUS_POLL_MS = 2000;
const MISSING_EXPORT_LIMIT_MS = 5 * 60_000;
const EXPORT_WAIT_LIMIT_MS = 60 * 60_000;

/** Where a repository step stands: a bundle export being awaited, or git next. */
export type RepositoryCursor = { mode: 'bundle'; since?: string } | { mode: 'git' };

export interface RepositoryStepEnv {
  deps: Deps;
  ctx: Ctx;
  imp: BulkImportRow;
  entity: BulkImportEntityRow;
  tracker: BulkImportTrackerRow;
  source: SourceClient;
  now: Date;
}

/** The export's own failure (GitLab: BulkImports::Error). */
export class RepositoryExportError extends Error {
  override name = 'BulkImports::Error';
}

/** `done`; `records`: the step continues with the `forgelet_repository` records. */
export type RepositoryStepResult = { done: true } | { done: false; waitMs: number } | { records: true };

export function isRepositoryCursor(cursor: unknown): cursor is RepositoryCursor {
  return typeof cursor === 'object' && cursor !== null && 'mode' in cursor;
}

function bundleSupported(version: string | null): boolean {
  const [major = 0, minor = 0] = (version ?? '').split('.').map((x) => Number.parseInt(x, 10));
  return major > BUNDLE_MIN_VERSION[0] || (major === BUNDLE_MIN_VERSION[0] && minor >= BUNDLE_MIN_VERSION[1]);
}

async function saveProgress(env: RepositoryStepEnv, cursor: object | null, refs?: number): Promise<void> {
  await env.deps.db
    .updateTable('bulk_import_trackers')
    .set({
      cursor: cursor === null ? null : JSON.stringify(cursor),
      ...(refs === undefined ? {} : { source_count: refs, fetched_count: refs, imported_count: refs }),
      updated_at: nowIso(env.deps),
    })
    .where('id', '=', env.tracker.id)
    .execute();
}

async function destinationProject(env: RepositoryStepEnv) {
  return env.deps.db.selectFrom('projects').selectAll().where('id', '=', env.entity.project_id!).executeTakeFirstOrThrow();
}

async function sourceProject(env: RepositoryStepEnv): Promise<Record<string, any>> {
  return (await env.source.json('GET', `/projects/${enc(env.entity.source_full_path)}`)).body ?? {};
}

/** One run of the repository step (the relation's exports were requested before). */
export async function importRepositoryStep(env: RepositoryStepEnv, cursor: RepositoryCursor | null): Promise<RepositoryStepResult> {
  const mode = cursor?.mode ?? (bundleSupported(env.imp.source_version) ? 'bundle' : 'git');
  if (mode === 'git') return importByGit(env);
  return importByBundle(env, cursor?.mode === 'bundle' ? cursor : { mode: 'bundle' });
}

async function importByGit(env: RepositoryStepEnv): Promise<RepositoryStepResult> {
  const src = await sourceProject(env);
  if (typeof src.http_url_to_repo === 'string') {
    const outcome = await fetchRepositoryByGit(env.ctx, await destinationProject(env), {
      httpUrlToRepo: src.http_url_to_repo,
      token: env.deps.secrets.decrypt(env.imp.source_token_encrypted),
      defaultBranch: typeof src.default_branch === 'string' ? src.default_branch : null,
    });
    if (outcome.fetched) {
      await saveProgress(env, { git: true }, outcome.refs);
      return { done: true };
    }
  }
  await saveProgress(env, {});
  return { records: true };
}

async function toGit(env: RepositoryStepEnv): Promise<RepositoryStepResult> {
  await saveProgress(env, { mode: 'git' });
  return { done: false, waitMs: 0 };
}

const BUNDLE_PIPELINE = 'BulkImports::Projects::Pipelines::RepositoryBundlePipeline';
const pipelineClasses = new WeakMap<object, string>();

/** The pipeline a failure of the repository step belongs to (GitLab's bundle pipeline while it reads the bundle). */
export function pipelineClassOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? pipelineClasses.get(err) : undefined;
}

async function importByBundle(env: RepositoryStepEnv, cursor: { mode: 'bundle'; since?: string }): Promise<RepositoryStepResult> {
  try {
    return await readBundleExport(env, cursor);
  } catch (err) {
    if (typeof err === 'object' && err !== null) pipelineClasses.set(err, BUNDLE_PIPELINE);
    throw err;
  }
}

async function readBundleExport(env: RepositoryStepEnv, cursor: { mode: 'bundle'; since?: string }): Promise<RepositoryStepResult> {
  const { source, entity } = env;
  const base = `/projects/${enc(entity.source_full_path)}/export_relations`;
  const res = await source.json('GET', `${base}/status`, { relation: 'repository' }, [404]);
  const body = res.body as any;
  const status = res.status === 404 ? undefined : Array.isArray(body) ? body.find((s: any) => s?.relation === 'repository') : body;
  const since = cursor.since ?? env.now.toISOString();
  const waited = env.now.getTime() - Date.parse(since);
  if (!status) {
    const probe = await source.status(`${base}/download`, { relation: 'repository' });
    // The source does not export the relation (GitLab: `relation is not portable`).
    if (probe === 400 || waited > MISSING_EXPORT_LIMIT_MS) return toGit(env);
  }
  if (!status || (status.status !== 1 && status.status !== -1)) {
    if (waited > EXPORT_WAIT_LIMIT_MS) throw new RepositoryExportError('Empty export status on source instance');
    await saveProgress(env, { mode: 'bundle', since });
    return { done: false, waitMs: STATUS_POLL_MS };
  }
  if (status.status === -1) throw new RepositoryExportError(String(status.error ?? 'Export failed on source instance'));
  if (status.total_objects_count === 0) {
    await saveProgress(env, { bundle: true }, 0);
    return { done: true };
  }
  const src = await sourceProject(env);
  const archive = await source.download(`${base}/download`, { relation: 'repository' });
  const outcome = await importRepositoryBundle(env.ctx, await destinationProject(env), archive, typeof src.default_branch === 'string' ? src.default_branch : null);
  if (outcome.empty) {
    // No bundle in the export of a project that has a repository: its clone URL may still serve it.
    if (src.empty_repo === false) return toGit(env);
    await saveProgress(env, { bundle: true }, 0);
    return { done: true };
  }
  await saveProgress(env, { bundle: true }, outcome.refs);
  return { done: true };
}
