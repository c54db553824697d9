/**
 * Source users of imported records. GitLab's export records name users by their source id
 * (`author_id`, `user_id`, `owner_id` …); the importer asks the source for each id it meets
 * (`GET /users/:id`, REST) and maps it to a destination user by email (the `email` an admin
 * token sees, else the `public_email`), as GitLab maps members. Unmapped users' contributions
 * go to the importing user, with the original author's name noted in the text.
 */
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { UserRow } from '../../access/user.table.js';
import type { SourceClient } from './source-client.js';

/** Keys that reference a user by source id, anywhere in a record. */
const USER_KEYS = new Set(['author_id', 'user_id', 'owner_id', 'closed_by_id', 'merge_user_id', 'merged_by_id', 'latest_closed_by_id']);
/** Nested associations whose users the importer never writes. */
const SKIPPED = new Set(['events', 'milestone', 'label', 'parent', 'priorities', 'merge_request_diff', 'resource_label_events', 'resource_milestone_events', 'timelogs']);

export function userIdsIn(value: unknown, out = new Set<number>()): Set<number> {
  if (Array.isArray(value)) {
    for (const v of value) userIdsIn(v, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (USER_KEYS.has(k) && typeof v === 'number') out.add(v);
      else if (!SKIPPED.has(k) && typeof v === 'object') userIdsIn(v, out);
    }
  }
  return out;
}

export interface SourceUser {
  /** The destination user with that email, or null. */
  user: UserRow | null;
  /** The source user's name, for the missing-author note. */
  name: string | null;
}

const UNKNOWN: SourceUser = { user: null, name: null };

/** Answers already had, per destination database and migration (a cache only: a restarted server asks again). */
const seenByDb = new WeakMap<object, Map<string, SourceUser>>();
const SEEN_LIMIT = 10_000;

export class SourceUsers {
  private readonly known = new Map<number, SourceUser>();
  private readonly byEmail = new Map<string, UserRow | null>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly source: SourceClient,
    private readonly importId: number,
    readonly importer: UserRow,
    readonly secrets: Deps['secrets'],
  ) {}

  /** A destination user by email (login or public email), cached. */
  async byEmailAddress(email: string | null | undefined): Promise<UserRow | null> {
    const key = email?.trim().toLowerCase();
    if (!key) return null;
    if (!this.byEmail.has(key)) {
      const u = await this.db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or([eb(sql`lower(email)`, '=', key), eb(sql`lower(public_email)`, '=', key)]))
        .executeTakeFirst();
      this.byEmail.set(key, u ?? null);
    }
    return this.byEmail.get(key) ?? null;
  }

  /** Asks the source once for every user id the records reference (before the step's transaction). */
  async load(records: unknown): Promise<void> {
    for (const id of userIdsIn(records)) {
      if (this.known.has(id)) continue;
      const cached = this.seen().get(`${this.importId}:${id}`);
      if (cached) {
        this.known.set(id, cached);
        continue;
      }
      const res = await this.source.json('GET', `/users/${id}`, {}, [401, 403, 404]);
      if (res.status !== 200 || !res.body || typeof res.body !== 'object') {
        this.remember(id, null, null);
        continue;
      }
      const body = res.body as { name?: unknown; email?: unknown; public_email?: unknown };
      const email = typeof body.email === 'string' && body.email ? body.email : typeof body.public_email === 'string' ? body.public_email : null;
      this.remember(id, await this.byEmailAddress(email), typeof body.name === 'string' ? body.name : null);
    }
  }

  /** Records a user the source described directly (a member entry with its email). */
  remember(id: number, user: UserRow | null, name: string | null): void {
    this.known.set(id, { user, name });
    const seen = this.seen();
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.set(`${this.importId}:${id}`, { user, name });
  }

  private seen(): Map<string, SourceUser> {
    let seen = seenByDb.get(this.db);
    if (!seen) seenByDb.set(this.db, (seen = new Map()));
    return seen;
  }

  of(id: unknown): SourceUser {
    return typeof id === 'number' ? (this.known.get(id) ?? UNKNOWN) : UNKNOWN;
  }
}
