/**
 * Seeding a world from one document (YAML or JSON): users with known tokens, groups,
 * projects, members, and per project labels, milestones, issues, merge requests and
 * pipeline schedules. Every entity is created through the same route handler the REST API
 * uses (parameters parsed by the route's own schema, the use case's own checks), as root
 * unless the entry names its author or owner, all in one transaction: a failing entry
 * answers 400 naming it, and nothing is created.
 *
 * Format (README, "Testing against Forgelet"):
 *
 *   users:    [{ username, name?, email?, admin?, token?, token_scopes?, …POST /users fields }]
 *   groups:   [{ path, name?, parent?, owner?, members?: [{ user, access_level }], …POST /groups fields }]
 *   projects: [{ path, name?, namespace?, owner?, visibility?, members?, files?, branches?, labels?,
 *                milestones?, issues?, merge_requests?, pipeline_schedules?, packages?, …POST /projects fields }]
 *
 * Packages (seed-packages.ts) are published through the feed's upload handler; their files
 * land in the blob store, which no transaction covers: a seed that fails removes them.
 */
import { sql } from 'kysely';
import { isScalar, parseDocument, visit } from 'yaml';
import type { Ctx, Deps } from '../access/context.js';
import { contextFor } from '../access/context.js';
import { BadRequestError, isDomainError, STATUS_BY_CODE, type DomainError } from '../kernel/errors.js';
import { digestToken } from '../kernel/ids.js';
import { parseParams } from '../kernel/params.js';
import type { Method, Route } from '../kernel/route.js';
import type { Database } from '../storage/database.js';
import type { Kysely } from 'kysely';
import { insertTokenWithValue, TOKEN_SCOPES } from '../domains/accounts/index.js';
import type { UserRow } from '../access/user.table.js';
import { DEFAULT_LABEL_COLOR } from '../domains/labels/index.js';
import { normalizeVersion } from '../domains/packages/index.js';
import { packageSpec, SeedPackageError, writeSeedPackage } from './seed-packages.js';
import { exclusive, joinTransaction } from './harness.js';

export interface SeededItem {
  id: number;
  iid?: number;
  title?: string;
  description?: string;
}

/** What a seed created: ids by name (users by username, groups and projects by full path). */
export interface SeedResult {
  users: Record<string, number>;
  groups: Record<string, number>;
  projects: Record<string, number>;
  /** Per project path: label name → id. */
  labels: Record<string, Record<string, number>>;
  /** Per project path: milestone title → id. */
  milestones: Record<string, Record<string, number>>;
  /** Per project path, in the order given. */
  issues: Record<string, SeededItem[]>;
  merge_requests: Record<string, SeededItem[]>;
  pipeline_schedules: Record<string, SeededItem[]>;
  /** Per project path, in the order given: the package version as stored. */
  packages: Record<string, { id: number; name: string; version: string }[]>;
}

const TOP_KEYS = ['users', 'groups', 'projects'];
const ACCESS_LEVELS: Record<string, number> = {
  no_access: 0, minimal_access: 5, guest: 10, planner: 15, reporter: 20, security_manager: 25, developer: 30, maintainer: 40, owner: 50,
};

type Entry = Record<string, unknown>;

/** YAML reads `version: 1.10` as the number 1.1: a `version` keeps the text as written. */
function parseYaml(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length) throw doc.errors[0];
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === 'version' && isScalar(pair.value) && typeof pair.value.value === 'number' && pair.value.source) {
        pair.value.value = pair.value.source;
      }
    },
  });
  return doc.toJS();
}

/** A seed document's text: JSON, or YAML (a superset of JSON). */
export function parseSeedText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new BadRequestError('seed: the document is empty');
  try {
    return trimmed.startsWith('{') ? JSON.parse(trimmed) : parseYaml(text);
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    throw new BadRequestError(`seed: not valid ${trimmed.startsWith('{') ? 'JSON' : 'YAML'}: ${message}`);
  }
}

/** A 400 naming the entry, with the status the API would have answered. */
function entryError(entry: string, message: string, status = 400): DomainError {
  const err = new BadRequestError(`${entry}: ${message}`, { raw: true });
  Object.assign(err.body, { entry, status });
  return err;
}

function messageOf(err: DomainError): string {
  const body = err.body as { message?: unknown; error?: unknown };
  const value = body.error ?? body.message ?? err.message;
  if (typeof value === 'string') return value.replace(/^400 Bad request - /, '');
  if (Array.isArray(value)) return value.join(', ');
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => (Array.isArray(v) ? v.map((m) => `${k} ${m}`).join(', ') : `${k} ${String(v)}`))
      .join(', ');
  }
  return err.message;
}

function isEntry(value: unknown): value is Entry {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function listOf(value: unknown, where: string): Entry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new BadRequestError(`seed: ${where} must be a list`);
  value.forEach((v, i) => {
    if (!isEntry(v)) throw new BadRequestError(`seed: ${where}[${i}] must be a mapping`);
  });
  return value as Entry[];
}

function str(entry: Entry, key: string, label: string, required = false): string | undefined {
  const v = entry[key];
  if (v === undefined || v === null) {
    if (required) throw entryError(label, `${key} is missing`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw entryError(label, `${key} must be a string`);
  return String(v);
}

function names(entry: Entry, key: string, label: string): string[] | undefined {
  const v = entry[key];
  if (v === undefined || v === null) return undefined;
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : null;
  if (!list || list.some((x) => typeof x !== 'string' && typeof x !== 'number')) throw entryError(label, `${key} must be a list of names`);
  return list.map(String);
}

/** Without the keys the seed itself interprets; the rest goes to the API as given. */
function rest(entry: Entry, keys: string[]): Entry {
  const out: Entry = {};
  for (const [k, v] of Object.entries(entry)) if (!keys.includes(k)) out[k] = v;
  return out;
}

class Seeder {
  readonly result: SeedResult = { users: {}, groups: {}, projects: {}, labels: {}, milestones: {}, issues: {}, merge_requests: {}, pipeline_schedules: {}, packages: {} };
  /** Blob keys of the package files stored so far (removed when the seed fails). */
  readonly blobKeys: string[] = [];
  private readonly contexts = new Map<string, Ctx>();

  constructor(
    private readonly deps: Deps,
    private readonly routes: Route[],
    private readonly db: Kysely<Database>,
  ) {}

  has(method: Method, path: string): boolean {
    return this.routes.some((r) => r.method === method && r.path === path);
  }

  /** A context acting as `username` (root by default) inside the seed's transaction. */
  async as(username: string | undefined, label: string): Promise<Ctx> {
    const key = (username ?? 'root').toLowerCase();
    const known = this.contexts.get(key);
    if (known) return known;
    const user = (await this.db.selectFrom('users').selectAll().where(sql`lower(username)`, '=', key).executeTakeFirst()) as UserRow | undefined;
    if (!user) throw entryError(label, `no user ${username ?? 'root'}`);
    // Deps may be a request context (its fields on the prototype): derive, never spread.
    const base = Object.create(this.deps) as Deps;
    base.db = this.db;
    const ctx = contextFor(base, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
    this.contexts.set(key, ctx);
    return ctx;
  }

  /** Calls the REST route's handler with its own parameter parsing; answers the JSON body. */
  async call(ctx: Ctx, method: Method, path: string, raw: Entry, label: string): Promise<any> {
    const route = this.routes.find((r) => r.method === method && r.path === path);
    if (!route) throw entryError(label, `${method} ${path} is not available on this server`);
    try {
      const input = parseParams(route.params, raw);
      const reply = await route.handler(ctx, input, { method, path, headers: {}, ip: '127.0.0.1', uploads: [] });
      return reply.kind === 'json' ? reply.body : null;
    } catch (err) {
      if (isDomainError(err)) throw entryError(label, messageOf(err), STATUS_BY_CODE[err.code]);
      throw err;
    }
  }

  async userId(username: string, label: string): Promise<number> {
    const known = this.result.users[username];
    if (known) return known;
    const row = await this.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', username.toLowerCase()).executeTakeFirst();
    if (!row) throw entryError(label, `no user ${username}`);
    return row.id;
  }

  async namespaceId(path: string, label: string, kind?: 'group'): Promise<number> {
    let q = this.db.selectFrom('namespaces').select('id').where(sql`lower(full_path)`, '=', path.toLowerCase());
    if (kind) q = q.where('kind', '=', kind);
    const row = await q.executeTakeFirst();
    if (!row) throw entryError(label, kind ? `no group ${path}` : `no group or user namespace ${path}`);
    return row.id;
  }

  // ---------------------------------------------------------------- users

  async user(entry: Entry, label: string): Promise<void> {
    const username = str(entry, 'username', label, true)!;
    const token = str(entry, 'token', label);
    const scopes = names(entry, 'token_scopes', label) ?? ['api'];
    const bad = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
    if (bad.length) throw entryError(label, `token_scopes has unknown scopes: ${bad.join(', ')}`);
    const body = {
      name: username,
      email: `${username}@example.com`,
      skip_confirmation: true,
      ...rest(entry, ['token', 'token_scopes']),
    };
    const user = await this.call(await this.as(undefined, label), 'POST', '/users', body, label);
    this.result.users[user.username] = user.id;
    if (token !== undefined) {
      if (!/^\S{8,}$/.test(token)) throw entryError(label, 'token must be at least 8 characters without spaces');
      const taken = await this.db.selectFrom('access_tokens').select('id').where('token_digest', '=', digestToken(token)).executeTakeFirst();
      if (taken) throw entryError(label, 'token has already been taken');
      await insertTokenWithValue(this.db, { user_id: user.id, name: 'seed', scopes, expires_at: null, created_at: this.deps.clock.now().toISOString() }, token);
    }
  }

  // ---------------------------------------------------------------- members

  private async members(kind: 'groups' | 'projects', id: number, list: unknown, label: string): Promise<void> {
    for (const [i, m] of listOf(list, `${label} members`).entries()) {
      const where = `${label} members[${i}]`;
      const username = str(m, 'user', where) ?? str(m, 'username', where, true)!;
      const raw = m.access_level ?? 'developer';
      const level = typeof raw === 'string' && raw in ACCESS_LEVELS ? ACCESS_LEVELS[raw] : raw;
      await this.call(await this.as(undefined, where), 'POST', `/${kind}/:id/members`, { ...rest(m, ['user', 'username', 'access_level']), id: String(id), username, access_level: level }, where);
    }
  }

  // ---------------------------------------------------------------- groups

  async group(entry: Entry, label: string): Promise<void> {
    const path = str(entry, 'path', label, true)!;
    const parent = str(entry, 'parent', label);
    const body: Entry = { name: path, ...rest(entry, ['parent', 'owner', 'members']) };
    if (parent !== undefined) body.parent_id = this.result.groups[parent] ?? (await this.namespaceId(parent, label, 'group'));
    const group = await this.call(await this.as(str(entry, 'owner', label), label), 'POST', '/groups', body, label);
    this.result.groups[group.full_path] = group.id;
    await this.members('groups', group.id, entry.members, label);
  }

  // ---------------------------------------------------------------- projects

  async project(entry: Entry, label: string): Promise<void> {
    const namespace = str(entry, 'namespace', label);
    const owner = str(entry, 'owner', label);
    const body: Entry = rest(entry, ['namespace', 'owner', 'members', 'files', 'branches', 'labels', 'milestones', 'issues', 'merge_requests', 'pipeline_schedules', 'packages']);
    if (namespace !== undefined) body.namespace_id = String(this.result.groups[namespace] ?? (await this.namespaceId(namespace, label)));
    const project = await this.call(await this.as(owner, label), 'POST', '/projects', body, label);
    const key: string = project.path_with_namespace;
    this.result.projects[key] = project.id;
    const at = `${label}`;
    await this.members('projects', project.id, entry.members, at);
    await this.files(project, entry.files, at, owner);
    await this.branches(project, entry.branches, at, owner);
    await this.labels(project.id, key, entry.labels, at);
    await this.milestones(project.id, key, entry.milestones, at);
    await this.issues(project.id, key, entry.issues, at);
    await this.mergeRequests(project.id, key, entry.merge_requests, at);
    await this.schedules(project.id, key, entry.pipeline_schedules, at);
    await this.packages(project.id, key, entry.packages, at, owner);
  }

  /** `files: { path: content }`: one commit on the default branch. */
  private async files(project: { id: number; default_branch: string }, files: unknown, label: string, owner: string | undefined): Promise<void> {
    if (files === undefined || files === null) return;
    const where = `${label} files`;
    if (!isEntry(files)) throw entryError(where, 'must be a mapping of file path to content');
    const actions = Object.entries(files).map(([file_path, content]) => {
      if (typeof content !== 'string') throw entryError(where, `${file_path}: the content must be a string`);
      return { action: 'create', file_path, content };
    });
    if (actions.length === 0) return;
    const body = { id: String(project.id), branch: project.default_branch, commit_message: 'Seed files', actions };
    await this.call(await this.as(owner, where), 'POST', '/projects/:id/repository/commits', body, where);
  }

  /** `branches: [name]` (from the default branch) or `[{ name, ref }]`. */
  private async branches(project: { id: number; default_branch: string }, list: unknown, label: string, owner: string | undefined): Promise<void> {
    const items = Array.isArray(list) ? list.map((b) => (typeof b === 'string' ? { name: b } : b)) : list;
    for (const [i, b] of listOf(items, `${label} branches`).entries()) {
      const where = `${label} branches[${i}]${typeof b.name === 'string' ? ` (${b.name})` : ''}`;
      const body = { id: String(project.id), branch: b.name, ref: b.ref ?? project.default_branch };
      await this.call(await this.as(owner, where), 'POST', '/projects/:id/repository/branches', body, where);
    }
  }

  private async labels(projectId: number, key: string, list: unknown, label: string): Promise<void> {
    const items = Array.isArray(list) ? list.map((l) => (typeof l === 'string' ? { name: l } : l)) : list;
    const out = (this.result.labels[key] ??= {});
    for (const [i, l] of listOf(items, `${label} labels`).entries()) {
      const where = `${label} labels[${i}]${typeof l.name === 'string' ? ` (${l.name})` : ''}`;
      const created = await this.call(await this.as(undefined, where), 'POST', '/projects/:id/labels', { color: DEFAULT_LABEL_COLOR, ...l, id: String(projectId) }, where);
      out[created.name] = created.id;
    }
  }

  private async milestones(projectId: number, key: string, list: unknown, label: string): Promise<void> {
    const out = (this.result.milestones[key] ??= {});
    for (const [i, m] of listOf(list, `${label} milestones`).entries()) {
      const where = `${label} milestones[${i}]${typeof m.title === 'string' ? ` (${m.title})` : ''}`;
      const state = str(m, 'state', where);
      if (state !== undefined && state !== 'active' && state !== 'closed') throw entryError(where, 'state must be active or closed');
      const ctx = await this.as(undefined, where);
      const created = await this.call(ctx, 'POST', '/projects/:id/milestones', { ...rest(m, ['state']), id: String(projectId) }, where);
      if (state === 'closed') await this.call(ctx, 'PUT', '/projects/:id/milestones/:milestone_id', { id: String(projectId), milestone_id: created.id, state_event: 'close' }, where);
      out[created.title] = created.id;
    }
  }

  /** assignees/reviewers by username, milestone by title (seeded or existing), labels as given. */
  private async issuableFields(projectId: number, key: string, entry: Entry, where: string): Promise<Entry> {
    const out: Entry = {};
    for (const [field, param] of [['assignees', 'assignee_ids'], ['reviewers', 'reviewer_ids']] as const) {
      const list = names(entry, field, where);
      if (list) out[param] = await Promise.all(list.map((u) => this.userId(u, where)));
    }
    const milestone = str(entry, 'milestone', where);
    if (milestone !== undefined) {
      let id = this.result.milestones[key]?.[milestone];
      if (id === undefined) {
        const row = await this.db.selectFrom('milestones').select('id').where('project_id', '=', projectId).where('title', '=', milestone).executeTakeFirst();
        if (!row) throw entryError(where, `no milestone ${milestone} in ${key}`);
        id = row.id;
      }
      out.milestone_id = id;
    }
    const labels = names(entry, 'labels', where);
    if (labels) out.labels = labels.join(',');
    return out;
  }

  private async issues(projectId: number, key: string, list: unknown, label: string): Promise<void> {
    const out = (this.result.issues[key] ??= []);
    for (const [i, issue] of listOf(list, `${label} issues`).entries()) {
      const where = `${label} issues[${i}]${typeof issue.title === 'string' ? ` (${issue.title})` : ''}`;
      const state = str(issue, 'state', where);
      if (state !== undefined && state !== 'opened' && state !== 'closed') throw entryError(where, 'state must be opened or closed');
      const ctx = await this.as(str(issue, 'author', where), where);
      const fields = await this.issuableFields(projectId, key, issue, where);
      const body = { ...rest(issue, ['author', 'assignees', 'reviewers', 'milestone', 'labels', 'state']), ...fields, id: String(projectId) };
      const created = await this.call(ctx, 'POST', '/projects/:id/issues', body, where);
      if (state === 'closed') await this.call(ctx, 'PUT', '/projects/:id/issues/:issue_iid', { id: String(projectId), issue_iid: created.iid, state_event: 'close' }, where);
      out.push({ id: created.id, iid: created.iid, title: created.title });
    }
  }

  private async mergeRequests(projectId: number, key: string, list: unknown, label: string): Promise<void> {
    const out = (this.result.merge_requests[key] ??= []);
    for (const [i, mr] of listOf(list, `${label} merge_requests`).entries()) {
      const where = `${label} merge_requests[${i}]${typeof mr.title === 'string' ? ` (${mr.title})` : ''}`;
      const state = str(mr, 'state', where);
      if (state !== undefined && !['opened', 'closed', 'merged'].includes(state)) throw entryError(where, 'state must be opened, closed or merged');
      const ctx = await this.as(str(mr, 'author', where), where);
      const fields = await this.issuableFields(projectId, key, mr, where);
      const project = await this.db.selectFrom('projects').select('default_branch').where('id', '=', projectId).executeTakeFirstOrThrow();
      const body = {
        target_branch: project.default_branch,
        ...rest(mr, ['author', 'assignees', 'reviewers', 'milestone', 'labels', 'state']),
        ...fields,
        id: String(projectId),
      };
      const created = await this.call(ctx, 'POST', '/projects/:id/merge_requests', body, where);
      const ref = { id: String(projectId), merge_request_iid: created.iid };
      if (state === 'closed') await this.call(ctx, 'PUT', '/projects/:id/merge_requests/:merge_request_iid', { ...ref, state_event: 'close' }, where);
      if (state === 'merged') await this.call(ctx, 'PUT', '/projects/:id/merge_requests/:merge_request_iid/merge', ref, where);
      out.push({ id: created.id, iid: created.iid, title: created.title });
    }
  }

  private async schedules(projectId: number, key: string, list: unknown, label: string): Promise<void> {
    const items = listOf(list, `${label} pipeline_schedules`);
    if (items.length === 0) return;
    if (!this.has('POST', '/projects/:id/pipeline_schedules')) throw entryError(`${label} pipeline_schedules`, 'not supported yet on this server');
    const out = (this.result.pipeline_schedules[key] ??= []);
    for (const [i, s] of items.entries()) {
      const where = `${label} pipeline_schedules[${i}]${typeof s.description === 'string' ? ` (${s.description})` : ''}`;
      const ctx = await this.as(str(s, 'owner', where), where);
      const created = await this.call(ctx, 'POST', '/projects/:id/pipeline_schedules', { ...rest(s, ['owner', 'variables']), id: String(projectId) }, where);
      for (const [j, v] of listOf(s.variables, `${where} variables`).entries()) {
        await this.call(ctx, 'POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables', { ...v, id: String(projectId), pipeline_schedule_id: created.id }, `${where} variables[${j}]`);
      }
      out.push({ id: created.id, description: created.description });
    }
  }

  /** NuGet packages, each published through `PUT /projects/:id/packages/nuget` as the project's creator. */
  private async packages(projectId: number, key: string, list: unknown, label: string, owner: string | undefined): Promise<void> {
    const out = (this.result.packages[key] ??= []);
    for (const [i, entry] of listOf(list, `${label} packages`).entries()) {
      const named = typeof entry.name === 'string' || typeof entry.name === 'number';
      const shown = named ? ` (${entry.name}${typeof entry.version === 'string' || typeof entry.version === 'number' ? ` ${entry.version}` : ''})` : '';
      const where = `${label} packages[${i}]${shown}`;
      let spec;
      try {
        spec = packageSpec(entry);
      } catch (err) {
        if (err instanceof SeedPackageError) throw entryError(where, err.message);
        throw err;
      }
      const ctx = await this.as(owner, where);
      const upload = await writeSeedPackage(ctx.blobs, spec, ctx.clock.now());
      try {
        await this.call(ctx, 'PUT', '/projects/:id/packages/nuget', { id: String(projectId), package: upload }, where);
      } finally {
        // Claimed (moved) by the upload when it succeeded; left behind otherwise.
        await ctx.blobs.delete(upload.blobKey);
      }
      const stored = await this.db
        .selectFrom('packages')
        .innerJoin('package_files', 'package_files.package_id', 'packages.id')
        .select(['packages.id', 'packages.name', 'packages.version', 'package_files.blob_key'])
        .where('packages.project_id', '=', projectId)
        .where('packages.package_type', '=', 'nuget')
        .where('packages.lower_name', '=', spec.name.trim().toLowerCase())
        .where('packages.normalized_version', '=', normalizeVersion(spec.version.trim()) ?? '')
        .orderBy('package_files.id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      this.blobKeys.push(stored.blob_key);
      out.push({ id: stored.id, name: stored.name, version: stored.version });
    }
  }
}

/**
 * Creates the world described by `world` (parsed YAML or JSON) in one transaction through
 * the REST routes' handlers; answers the ids by name. Any failing entry throws a 400
 * naming it and nothing is kept.
 */
export async function seedWorld(deps: Deps, routes: Route[], world: unknown): Promise<SeedResult> {
  if (!isEntry(world)) throw new BadRequestError('seed: the document must be a mapping with users, groups and projects');
  const unknown = Object.keys(world).filter((k) => !TOP_KEYS.includes(k));
  if (unknown.length) throw new BadRequestError(`seed: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${TOP_KEYS.join(', ')})`);
  const users = listOf(world.users, 'users');
  const groups = listOf(world.groups, 'groups');
  const projects = listOf(world.projects, 'projects');
  const named = (kind: string, i: number, e: Entry, key: string) => `${kind}[${i}]${typeof e[key] === 'string' ? ` (${e[key]})` : ''}`;
  return exclusive(deps, async () => {
    let seeder: Seeder | undefined;
    try {
      return await deps.db.transaction().execute(async (trx) => {
        seeder = new Seeder(deps, routes, joinTransaction(trx));
        for (const [i, e] of users.entries()) await seeder.user(e, named('users', i, e, 'username'));
        for (const [i, e] of groups.entries()) await seeder.group(e, named('groups', i, e, 'path'));
        for (const [i, e] of projects.entries()) {
          const label = `projects[${i}]${typeof e.path === 'string' ? ` (${typeof e.namespace === 'string' ? `${e.namespace}/` : ''}${e.path})` : ''}`;
          await seeder.project(e, label);
        }
        return seeder.result;
      });
    } catch (err) {
      // The rows are rolled back; the package files they pointed to go too.
      for (const key of seeder?.blobKeys ?? []) await deps.blobs.delete(key).catch(() => {});
      throw err;
    }
  });
}
