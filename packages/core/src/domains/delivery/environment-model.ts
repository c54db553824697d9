/**
 * What an environment is, independent of the API: its slug, the tier guessed from its
 * name, the validations GitLab's Environment model runs, and find-or-create by name (used by
 * the deployments API and by CI jobs that declare an `environment`).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { ENVIRONMENT_TIERS, type EnvironmentRow } from './delivery.table.js';

type Db = Kysely<Database>;

/** GitLab's Environment#guess_tier (the first matching pattern wins, in this order). */
export function guessTier(name: string): string {
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging';
  if (/(pr(o|)d|live)/i.test(name)) return 'production';
  return 'other';
}

export function isTier(value: string): boolean {
  return (ENVIRONMENT_TIERS as readonly string[]).includes(value);
}

/**
 * Gitlab::Slug::Environment: lower-case, non-alphanumerics to `-`, a leading letter, no
 * repeated dashes, at most 24 characters; a name that had to change gets a 6-character
 * suffix derived from its SHA-256 (so different names keep different slugs).
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    const suffix = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`).toString(36).slice(-6);
    return `${slug.slice(0, 17)}-${suffix}`;
  }
  return slug.replace(/-$/, '');
}

const NAME_CHARS = 'a-zA-Z0-9_/\\$\\{\\}\\. \\-';
const NAME_CHARS_NO_SLASH = 'a-zA-Z0-9_\\$\\{\\}\\. \\-';
const NAME_RE = new RegExp(`^[${NAME_CHARS_NO_SLASH}]([${NAME_CHARS}]*[${NAME_CHARS_NO_SLASH}])?$`);
export const NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const UNSAFE_SCHEMES = ['javascript', 'data', 'vbscript'];

/** The model errors of an environment's name and external URL (`{"name":[...]}` ...). */
export async function environmentErrors(
  db: Db,
  projectId: number,
  fields: { name?: string; external_url?: string | null },
  exceptId?: number,
): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (fields.name !== undefined) {
    const name = fields.name;
    if (name.trim() === '') add('name', "can't be blank");
    else {
      if (name.length > 255) add('name', 'is too long (maximum is 255 characters)');
      if (!NAME_RE.test(name)) add('name', NAME_MESSAGE);
      let q = db.selectFrom('environments').select('id').where('project_id', '=', projectId).where('name', '=', name);
      if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
      if (await q.executeTakeFirst()) add('name', 'has already been taken');
    }
  }
  const url = fields.external_url;
  if (url !== undefined && url !== null && url !== '') {
    if (url.length > 255) add('external_url', 'is too long (maximum is 255 characters)');
    let scheme: string | null = null;
    try {
      scheme = new URL(url).protocol.replace(/:$/, '').toLowerCase();
    } catch {
      if (/^[a-z][a-z0-9+.-]*:/i.test(url)) scheme = url.slice(0, url.indexOf(':')).toLowerCase();
      else if (/\s/.test(url)) add('external_url', 'URI is invalid');
    }
    if (scheme && UNSAFE_SCHEMES.includes(scheme)) add('external_url', `${scheme} scheme is not allowed`);
  }
  return errors;
}

/**
 * The environment of that name, created (available, tier guessed unless given) when missing.
 * Concurrent requests (other processes on PostgreSQL) may create it, or take the slug picked
 * for it, between the read and the insert: the insert then does nothing on either unique
 * index and the loop reads again (each statement of a PostgreSQL transaction sees what was
 * committed before it; on SQLite nothing commits in between).
 */
export async function findOrCreateEnvironment(
  db: Db,
  projectId: number,
  name: string,
  now: string,
  tier?: string,
): Promise<EnvironmentRow> {
  const byName = () => db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('name', '=', name);
  for (let attempt = 1; ; attempt++) {
    const found = await byName().executeTakeFirst();
    if (found) return found;
    const created = await db
      .insertInto('environments')
      .values({
        project_id: projectId,
        name,
        slug: await uniqueSlug(db, projectId, environmentSlug(name)),
        external_url: null,
        tier: tier ?? guessTier(name),
        description: null,
        auto_stop_at: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (created) return created;
    if (attempt === 5) throw new Error(`environment ${name} of project ${projectId}: no free slug after ${attempt} attempts`);
  }
}

/** Slugs are unique per project; a taken one gets a numeric suffix (rare: names differ in case only). */
export async function uniqueSlug(db: Db, projectId: number, slug: string): Promise<string> {
  let candidate = slug;
  for (let n = 2; ; n += 1) {
    const taken = await db.selectFrom('environments').select('id').where('project_id', '=', projectId).where('slug', '=', candidate).executeTakeFirst();
    if (!taken) return candidate;
    candidate = `${slug.slice(0, 20)}-${n}`;
  }
}
