/**
 * Finders shared by every domain: `:id` is a numeric id or a URL-decoded full path
 * (case-insensitive). They answer 404 for what the caller can't see, as GitLab's
 * `find_project!` / `find_group!` do.
 */
import { sql } from 'kysely';
import type { Ctx } from './context.js';
import { MovedError, NotFoundError } from '../kernel/errors.js';
import { MAX_DB_INTEGER } from '../kernel/params.js';
import { canRead } from './policy.js';
import { preparedQuery } from '../storage/prepared.js';
import type { NamespaceRow } from './namespace.table.js';
import type { ProjectRow } from './project.table.js';
import type { UserRow } from './user.table.js';

const NUMERIC = /^\d+$/;
/** Digits too large for an id name no row (GitLab's `find_by(id:)` finds nothing: 404). */
const tooLarge = (text: string) => Number(text) > MAX_DB_INTEGER;

/** A project by id or current full path (case-insensitive). */
const selectProjectById = preparedQuery((db, id: number) => db.selectFrom('projects').selectAll().where('id', '=', id), { cache: true });
const selectProjectByPath = preparedQuery(
  (db, path: string) => db.selectFrom('projects').selectAll().where(sql`lower(path_with_namespace)`, '=', path),
  { cache: true },
);

export async function selectProjectByRef(ctx: Pick<Ctx, 'db'>, ref: string | number): Promise<ProjectRow | undefined> {
  const text = String(ref);
  if (NUMERIC.test(text) && tooLarge(text)) return undefined;
  const rows = NUMERIC.test(text) ? await selectProjectById(ctx.db, Number(text)) : await selectProjectByPath(ctx.db, text.toLowerCase());
  return rows[0] as ProjectRow | undefined;
}

/** The project a renamed or transferred project's old path now names (its redirect route). */
export async function selectRedirectedProject(ctx: Pick<Ctx, 'db'>, path: string): Promise<ProjectRow | undefined> {
  const redirect = await ctx.db
    .selectFrom('redirect_routes')
    .select('source_id')
    .where('path_lower', '=', path.toLowerCase())
    .where('source_kind', '=', 'project')
    .executeTakeFirst();
  return redirect ? ctx.db.selectFrom('projects').selectAll().where('id', '=', redirect.source_id).executeTakeFirst() : undefined;
}

/** A group by id or current full path (case-insensitive), kept in the read cache as projects are. */
const selectGroupById = preparedQuery((db, id: number) => db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').where('id', '=', id), { cache: true });
const selectGroupByPath = preparedQuery(
  (db, path: string) => db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').where(sql`lower(full_path)`, '=', path),
  { cache: true },
);

export async function selectGroupByRef(ctx: Pick<Ctx, 'db'>, ref: string | number): Promise<NamespaceRow | undefined> {
  const text = String(ref);
  if (NUMERIC.test(text) && tooLarge(text)) return undefined;
  const rows = NUMERIC.test(text) ? await selectGroupById(ctx.db, Number(text)) : await selectGroupByPath(ctx.db, text.toLowerCase());
  return rows[0] as NamespaceRow | undefined;
}

/** The project the caller can read, by id or full path; 404 otherwise. */
export async function findProject(ctx: Ctx, ref: string | number): Promise<ProjectRow> {
  const project = await selectProjectByRef(ctx, ref);
  if (!project) {
    // A renamed project's old path: the server answers GET with 301 to the id URL.
    const moved = NUMERIC.test(String(ref)) ? undefined : await selectRedirectedProject(ctx, String(ref));
    if (moved && (await canRead(ctx, { kind: 'project', project: moved }))) throw new MovedError(String(ref), moved.id);
    throw new NotFoundError('Project');
  }
  if (!(await canRead(ctx, { kind: 'project', project }))) throw new NotFoundError('Project');
  return project;
}

/** The group the caller can read, by id or full path; 404 otherwise. */
export async function findGroup(ctx: Ctx, ref: string | number): Promise<NamespaceRow> {
  const group = await selectGroupByRef(ctx, ref);
  if (!group || !(await canRead(ctx, { kind: 'group', group }))) throw new NotFoundError('Group');
  return group;
}

/** A user by id or username; 404 `User Not Found`. */
export async function findUser(ctx: Pick<Ctx, 'db'>, ref: string | number): Promise<UserRow> {
  const text = String(ref);
  const q = ctx.db.selectFrom('users').selectAll();
  const user = NUMERIC.test(text)
    ? tooLarge(text)
      ? undefined
      : await q.where('id', '=', Number(text)).executeTakeFirst()
    : await q.where(sql`lower(username)`, '=', text.toLowerCase()).executeTakeFirst();
  if (!user) throw new NotFoundError('User');
  return user;
}

export async function selectNamespaceById(ctx: Pick<Ctx, 'db'>, id: number): Promise<NamespaceRow> {
  return ctx.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
