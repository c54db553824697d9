/**
 * Project error tracking settings and client keys, as GitLab's ErrorTracking::ProjectSettings
 * and ErrorTracking::ClientKeys APIs (Maintainer, `admin_operations`). Enabling integrated
 * tracking gives the project a first active client key, as GitLab's setting does after save.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Ctx, UrlBuilder } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findProject } from '../../access/lookup.js';
import type { ClientKeyRefInput, ListClientKeysInput, PatchSettingsInput, ProjectRefInput, PutSettingsInput } from './error-tracking.schema.js';
import type { ErrorTrackingClientKeyRow, ErrorTrackingSettingRow } from './error-tracking.table.js';
import { schedulePurgeJob } from './ingest-writer.js';

/** GitLab's `Entities::ErrorTracking::ClientKey`. */
export interface ClientKeyEntity {
  id: number;
  active: boolean;
  public_key: string;
  sentry_dsn: string;
}

/**
 * GitLab's `Entities::ErrorTracking::ProjectSetting` (the Sentry-backend fields are always
 * null here), plus `gitlab_dsn`: the DSN of the project's first active client key.
 */
export interface ErrorTrackingSettingEntity {
  active: boolean;
  project_name: string | null;
  sentry_external_url: string | null;
  api_url: string | null;
  integrated: boolean;
  gitlab_dsn: string | null;
}

/** `glet_` + 32 hex digits, as GitLab's ClientKey#generate_key. */
export function generatePublicKey(): string {
  return `glet_${randomBytes(16).toString('hex')}`;
}

/** `<scheme>://<key>@<host>[:port][/relative root]/api/v4/error_tracking/collector/<project id>`. */
export function sentryDsn(urls: UrlBuilder, publicKey: string, projectId: number): string {
  const url = new URL(urls.api(`/error_tracking/collector/${projectId}`));
  url.username = publicKey;
  return url.toString();
}

export function presentClientKey(urls: UrlBuilder, row: ErrorTrackingClientKeyRow): ClientKeyEntity {
  return { id: row.id, active: row.active === 1, public_key: row.public_key, sentry_dsn: sentryDsn(urls, row.public_key, row.project_id) };
}

async function firstActiveKey(db: Kysely<Database>, projectId: number): Promise<ErrorTrackingClientKeyRow | undefined> {
  return db.selectFrom('error_tracking_client_keys').selectAll().where('project_id', '=', projectId).where('active', '=', 1).orderBy('id').limit(1).executeTakeFirst();
}

async function presentSetting(ctx: Ctx, row: ErrorTrackingSettingRow): Promise<ErrorTrackingSettingEntity> {
  const key = await firstActiveKey(ctx.db, row.project_id);
  return {
    active: row.active === 1,
    project_name: null,
    sentry_external_url: null,
    api_url: null,
    integrated: row.integrated === 1,
    gitlab_dsn: key ? sentryDsn(ctx.urls, key.public_key, key.project_id) : null,
  };
}

/** The project, for a Maintainer (404 when unreadable, 403 below Maintainer). */
async function adminProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  requireUser(ctx);
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'admin_operations', { kind: 'project', project });
  return project;
}

const selectSetting = (db: Kysely<Database>, projectId: number) =>
  db.selectFrom('error_tracking_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();

const SETTING_NOT_FOUND = () => new NotFoundError('Error Tracking Setting');

/** GET /projects/:id/error_tracking/settings */
export async function getErrorTrackingSettings(ctx: Ctx, input: ProjectRefInput): Promise<ErrorTrackingSettingEntity> {
  const project = await adminProject(ctx, input.id);
  const row = await selectSetting(ctx.db, project.id);
  if (!row) throw SETTING_NOT_FOUND();
  return presentSetting(ctx, row);
}

/**
 * Saves `active`/`integrated`; with both true and no active key, creates one. A Sentry
 * backend (active without integrated) needs a Sentry API URL and token, which Forgelet does
 * not take: refused with 400.
 */
async function saveSetting(ctx: Ctx, project: ProjectRow, existing: ErrorTrackingSettingRow | undefined, active: boolean, integrated: boolean): Promise<ErrorTrackingSettingEntity> {
  if (active && !integrated) {
    throw new BadRequestError('integrated must be true: Forgelet has no Sentry backend (api_url and token are not supported)');
  }
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const saved = existing
      ? await trx
          .updateTable('error_tracking_settings')
          .set({ active: active ? 1 : 0, integrated: integrated ? 1 : 0, updated_at: now })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('error_tracking_settings')
          .values({ project_id: project.id, active: active ? 1 : 0, integrated: integrated ? 1 : 0, created_at: now, updated_at: now })
          .onConflict((oc) => oc.column('project_id').doUpdateSet({ active: active ? 1 : 0, integrated: integrated ? 1 : 0, updated_at: now }))
          .returningAll()
          .executeTakeFirstOrThrow();
    if (active && integrated) {
      if (!(await firstActiveKey(trx, project.id))) {
        await trx.insertInto('error_tracking_client_keys').values({ project_id: project.id, public_key: generatePublicKey(), active: 1, created_at: now }).execute();
      }
      await schedulePurgeJob(ctx.queue, trx, ctx.clock.now());
    }
    return saved;
  });
  return presentSetting(ctx, row);
}

/** PATCH /projects/:id/error_tracking/settings: the setting must exist. */
export async function patchErrorTrackingSettings(ctx: Ctx, input: PatchSettingsInput): Promise<ErrorTrackingSettingEntity> {
  const project = await adminProject(ctx, input.id);
  const existing = await selectSetting(ctx.db, project.id);
  if (!existing) throw SETTING_NOT_FOUND();
  return saveSetting(ctx, project, existing, input.active, input.integrated ?? existing.integrated === 1);
}

/** PUT /projects/:id/error_tracking/settings: creates or replaces. */
export async function putErrorTrackingSettings(ctx: Ctx, input: PutSettingsInput): Promise<ErrorTrackingSettingEntity> {
  const project = await adminProject(ctx, input.id);
  const existing = await selectSetting(ctx.db, project.id);
  return saveSetting(ctx, project, existing, input.active, input.integrated);
}

/** GET /projects/:id/error_tracking/client_keys (id order, paginated). */
export async function listClientKeys(ctx: Ctx, input: ListClientKeysInput): Promise<Page<ClientKeyEntity>> {
  const project = await adminProject(ctx, input.id);
  const query = ctx.db.selectFrom('error_tracking_client_keys').selectAll().where('project_id', '=', project.id).orderBy('id');
  return paginate(ctx.db, query, input, (rows) => rows.map((r) => presentClientKey(ctx.urls, r)));
}

/** POST /projects/:id/error_tracking/client_keys: a new active key. */
export async function createClientKey(ctx: Ctx, input: ProjectRefInput): Promise<ClientKeyEntity> {
  const project = await adminProject(ctx, input.id);
  const row = await ctx.db
    .insertInto('error_tracking_client_keys')
    .values({ project_id: project.id, public_key: generatePublicKey(), active: 1, created_at: nowIso(ctx) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentClientKey(ctx.urls, row);
}

/** DELETE /projects/:id/error_tracking/client_keys/:key_id: refused by the collector from now on. */
export async function deleteClientKey(ctx: Ctx, input: ClientKeyRefInput): Promise<ClientKeyEntity> {
  const project = await adminProject(ctx, input.id);
  const row = await ctx.db
    .deleteFrom('error_tracking_client_keys')
    .where('id', '=', input.key_id)
    .where('project_id', '=', project.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return presentClientKey(ctx.urls, row);
}
