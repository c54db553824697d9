/**
 * Project, group and system hooks: `/projects/:id/hooks` (Maintainer), `/groups/:id/hooks`
 * (Owner, Premium) and `/hooks` (administrators), with their custom headers and URL variables.
 * GitLab's rules: the URL must be http(s) (and public for project and group hooks unless local
 * egress is allowed) with every `{placeholder}` a URL variable, else 422 "Invalid url given"; a
 * new URL without a new token drops the token and the URL variables and custom headers that were
 * not given again; an edit re-enables a disabled hook; values of secrets are never answered.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { authorize, requireAdmin } from '../../access/policy.js';
import { BadRequestError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { requireTier } from '../../kernel/tiers.js';
import { bool } from '../../storage/dialect.js';
import { interpolateUrl } from './execute-hook.js';
import type { CreateHookInput, HookParentKind } from './webhook.schema.js';
import { openSealedMap, toGroupHookEntity, toProjectHookEntity, toSystemHookEntity, type HookEntity } from './webhook.entity.js';
import { HOOK_EVENT_COLUMNS, type HookType, type WebHookRow, type WebHookUpdate } from './webhook.table.js';

export type HookParent = { kind: 'project'; project: ProjectRow } | { kind: 'group'; group: NamespaceRow } | { kind: 'system' };

const URL_VARIABLE_KEY = /^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The hooks' owner the caller may manage (404 unreadable, 403 below Maintainer/Owner, Premium for groups). */
export async function hookParent(ctx: Ctx, kind: HookParentKind | 'system', ref: string | undefined, write: boolean): Promise<HookParent> {
  const ability = write ? 'admin_web_hook' : 'read_web_hook';
  if (kind === 'system') {
    requireAdmin(ctx);
    return { kind: 'system' };
  }
  if (kind === 'project') {
    const project = await findProject(ctx, ref!);
    await authorize(ctx, ability, { kind: 'project', project });
    return { kind: 'project', project };
  }
  const group = await findGroup(ctx, ref!);
  requireTier(ctx, 'premium');
  await authorize(ctx, ability, { kind: 'group', group });
  return { kind: 'group', group };
}

function typeOf(parent: HookParent): HookType {
  return parent.kind === 'project' ? 'ProjectHook' : parent.kind === 'group' ? 'GroupHook' : 'SystemHook';
}

function scoped(ctx: Ctx, parent: HookParent) {
  let q = ctx.db.selectFrom('web_hooks').selectAll().where('type', '=', typeOf(parent));
  if (parent.kind === 'project') q = q.where('project_id', '=', parent.project.id);
  if (parent.kind === 'group') q = q.where('group_id', '=', parent.group.id);
  return q;
}

export function presentHook(ctx: Ctx, row: WebHookRow): HookEntity {
  const now = ctx.clock.now();
  if (row.type === 'ProjectHook') return toProjectHookEntity(ctx.secrets, row, now);
  if (row.type === 'GroupHook') return toGroupHookEntity(ctx.secrets, row, now);
  return toSystemHookEntity(ctx.secrets, row, now);
}

/** The parent's hook by id; 404 `Not found` as ActiveRecord's find answers. */
export async function findHook(ctx: Ctx, parent: HookParent, hookId: number): Promise<WebHookRow> {
  const row = await scoped(ctx, parent).where('id', '=', hookId).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

export async function listHooks(ctx: Ctx, parent: HookParent, page: PageRequest): Promise<Page<HookEntity>> {
  return paginate(ctx.db, scoped(ctx, parent).orderBy('id'), page, (rows) => rows.map((r) => presentHook(ctx, r)));
}

function keyValues(list: { key: string; value: string }[] | undefined): Record<string, string> | undefined {
  return list === undefined ? undefined : Object.fromEntries(list.map((kv) => [kv.key, kv.value]));
}

function checkUrlVariables(vars: Record<string, string>): string | null {
  for (const [k, v] of Object.entries(vars)) {
    if (k.length > 255 || !URL_VARIABLE_KEY.test(k)) return 'contains invalid keys';
    if (v.length === 0 || v.length > 2048) return 'contains invalid values';
  }
  return null;
}

function checkCustomHeaders(headers: Record<string, string>): string | null {
  for (const [k, v] of Object.entries(headers)) {
    if (k.length > 255 || !HEADER_NAME.test(k)) return 'contains invalid keys';
    if (/[\r\n\0]/.test(v) || v.length > 2048) return 'contains invalid values';
  }
  return null;
}

/** GitLab's WebHook validations, as the API answers them. */
async function validate(ctx: Ctx, parent: HookParent, url: string, vars: Record<string, string>, headers: Record<string, string>, filter: { strategy: string; value: string | null }): Promise<void> {
  const varProblem = checkUrlVariables(vars);
  if (varProblem) throw new UnprocessableError({ url_variables: [varProblem] });
  const headerProblem = checkCustomHeaders(headers);
  if (headerProblem) throw new UnprocessableError({ custom_headers: [headerProblem] });
  const target = interpolateUrl(url, vars);
  let parsed: URL | null = null;
  try {
    parsed = target === null ? null : new URL(target);
  } catch {
    parsed = null;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !parsed.hostname) throw new UnprocessableError('Invalid url given');
  // Project and group hooks must target public addresses (system hooks may be local, as GitLab allows).
  if (parent.kind !== 'system' && (await ctx.egress.refusal(parsed.toString()))) throw new UnprocessableError('Invalid url given');
  if (filter.strategy === 'regex' && filter.value) {
    try {
      new RegExp(filter.value);
    } catch {
      throw new UnprocessableError('Invalid branch filter given');
    }
  }
}

function sealMap(ctx: Ctx, map: Record<string, string>): string | null {
  return Object.keys(map).length ? ctx.secrets.encrypt(JSON.stringify(map)) : null;
}

/** The event switches and plain fields given, as columns. */
function fieldsOf(input: CreateHookInput, parent: HookParent): WebHookUpdate {
  const set: WebHookUpdate = {};
  for (const column of HOOK_EVENT_COLUMNS) {
    const v = (input as Record<string, unknown>)[column];
    if (typeof v === 'boolean') set[column] = bool(v);
  }
  if (parent.kind === 'system' || input.enable_ssl_verification !== undefined) {
    if (input.enable_ssl_verification !== undefined) set.enable_ssl_verification = bool(input.enable_ssl_verification);
  }
  if (input.name !== undefined) set.name = input.name;
  if (input.description !== undefined) set.description = input.description;
  if (input.push_events_branch_filter !== undefined) set.push_events_branch_filter = input.push_events_branch_filter;
  if (input.branch_filter_strategy !== undefined) set.branch_filter_strategy = input.branch_filter_strategy;
  if (input.custom_webhook_template !== undefined) set.custom_webhook_template = input.custom_webhook_template;
  return set;
}

/** POST …/hooks: 201 with the hook. */
export async function createHook(ctx: Ctx, parent: HookParent, input: CreateHookInput): Promise<HookEntity> {
  const url = input.url!;
  const vars = keyValues(input.url_variables) ?? {};
  const headers = keyValues(input.custom_headers) ?? {};
  const set = fieldsOf(input, parent);
  await validate(ctx, parent, url, vars, headers, { strategy: set.branch_filter_strategy ?? 'wildcard', value: set.push_events_branch_filter ?? null });
  const now = nowIso(ctx);
  const row = await ctx.db
    .insertInto('web_hooks')
    .values({
      ...set,
      type: typeOf(parent),
      project_id: parent.kind === 'project' ? parent.project.id : null,
      group_id: parent.kind === 'group' ? parent.group.id : null,
      url_encrypted: ctx.secrets.encrypt(url),
      token_encrypted: input.token ? ctx.secrets.encrypt(input.token) : null,
      url_variables_encrypted: sealMap(ctx, vars),
      custom_headers_encrypted: sealMap(ctx, headers),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentHook(ctx, row);
}

/** PUT …/hooks/:hook_id: what is given changes; 400 "No parameters provided" for nothing; the hook is enabled again. */
export async function updateHook(ctx: Ctx, parent: HookParent, hookId: number, input: CreateHookInput): Promise<HookEntity> {
  const hook = await findHook(ctx, parent, hookId);
  const { id: _id, hook_id: _hookId, ...given } = input as CreateHookInput & { id?: unknown; hook_id?: unknown };
  if (Object.values(given).every((v) => v === undefined)) throw new BadRequestError('No parameters provided', { raw: true });
  const oldUrl = ctx.secrets.decrypt(hook.url_encrypted);
  const urlChanged = input.url !== undefined && input.url !== oldUrl;
  const url = input.url ?? oldUrl;
  // A new URL drops the secrets that belonged to the old one unless they are given again (GitLab's reset_token, reset_url_variables, reset_custom_headers).
  const givenVars = keyValues(input.url_variables);
  const givenHeaders = keyValues(input.custom_headers);
  const vars = { ...(urlChanged ? {} : openSealedMap(ctx.secrets, hook.url_variables_encrypted)), ...givenVars };
  const headers = { ...(urlChanged ? {} : openSealedMap(ctx.secrets, hook.custom_headers_encrypted)), ...givenHeaders };
  const set = fieldsOf(input, parent);
  await validate(ctx, parent, url, vars, headers, {
    strategy: set.branch_filter_strategy ?? hook.branch_filter_strategy,
    value: set.push_events_branch_filter !== undefined ? set.push_events_branch_filter : hook.push_events_branch_filter,
  });
  if (input.url !== undefined) set.url_encrypted = ctx.secrets.encrypt(url);
  if (input.token !== undefined) set.token_encrypted = input.token ? ctx.secrets.encrypt(input.token) : null;
  else if (urlChanged) set.token_encrypted = null;
  set.url_variables_encrypted = sealMap(ctx, vars);
  set.custom_headers_encrypted = sealMap(ctx, headers);
  const row = await ctx.db
    .updateTable('web_hooks')
    .set({ ...set, recent_failures: 0, disabled_until: null, updated_at: nowIso(ctx) })
    .where('id', '=', hook.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentHook(ctx, row);
}

/** DELETE …/hooks/:hook_id: 204, with its deliveries. */
export async function deleteHook(ctx: Ctx, parent: HookParent, hookId: number): Promise<void> {
  const hook = await findHook(ctx, parent, hookId);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('web_hook_logs').where('web_hook_id', '=', hook.id).execute();
    await trx.deleteFrom('web_hooks').where('id', '=', hook.id).execute();
  });
}

type SealedMapColumn = 'custom_headers_encrypted' | 'url_variables_encrypted';

/** Whether the hook stays valid with these URL variables (GitLab's `hook.update` validating the whole hook). */
async function validWithUrlVariables(ctx: Ctx, parent: HookParent, hook: WebHookRow, vars: Record<string, string>): Promise<boolean> {
  try {
    await validate(ctx, parent, ctx.secrets.decrypt(hook.url_encrypted), vars, {}, { strategy: 'wildcard', value: null });
    return true;
  } catch (err) {
    if (err instanceof UnprocessableError) return false;
    throw err;
  }
}

/**
 * PUT …/custom_headers/:key and …/url_variables/:key: 204; 422 "Illegal key or value", also when
 * the new value would make the URL invalid or non-public (GitLab validates the interpolated URL).
 */
export async function setHookKey(ctx: Ctx, parent: HookParent, hookId: number, column: SealedMapColumn, key: string, value: string): Promise<void> {
  const hook = await findHook(ctx, parent, hookId);
  const map = { ...openSealedMap(ctx.secrets, hook[column]), [key]: value };
  const problem = column === 'url_variables_encrypted' ? checkUrlVariables(map) : checkCustomHeaders(map);
  if (problem || value === '') throw new UnprocessableError('Illegal key or value');
  if (column === 'url_variables_encrypted' && !(await validWithUrlVariables(ctx, parent, hook, map))) throw new UnprocessableError('Illegal key or value');
  await ctx.db.updateTable('web_hooks').set({ [column]: sealMap(ctx, map), updated_at: nowIso(ctx) }).where('id', '=', hook.id).execute();
}

/**
 * DELETE …/custom_headers/:key and …/url_variables/:key: 204; 404 when the key is not set; 422
 * "Could not unset variable" for a URL variable the URL still uses (GitLab's no_missing_url_variables).
 */
export async function unsetHookKey(ctx: Ctx, parent: HookParent, hookId: number, column: SealedMapColumn, key: string): Promise<void> {
  const hook = await findHook(ctx, parent, hookId);
  const map = openSealedMap(ctx.secrets, hook[column]);
  if (!(key in map)) throw new NotFoundError(column === 'url_variables_encrypted' ? 'URL variable' : 'Custom header');
  delete map[key];
  if (column === 'url_variables_encrypted' && interpolateUrl(ctx.secrets.decrypt(hook.url_encrypted), map) === null) {
    throw new UnprocessableError('Could not unset variable');
  }
  await ctx.db.updateTable('web_hooks').set({ [column]: sealMap(ctx, map), updated_at: nowIso(ctx) }).where('id', '=', hook.id).execute();
}
