/**
 * A project's legacy runner registration token (`runners_token`): the project's own attribute,
 * as GitLab's `projects.runners_token_encrypted` (`Project#ensure_runners_token`). The project
 * entity shows it to who administers the project; ci registers runners with it.
 */
import type { Generated, Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import type { Database } from '../../storage/database.js';
import { preparedQuery } from '../../storage/prepared.js';

export const REGISTRATION_TOKEN_PREFIX = 'GR1348941';

export interface CiRegistrationTokenTable {
  id: Generated<number>;
  project_id: number;
  token_digest: string;
  token_encrypted: string;
  created_at: string;
}

// The table in the database schema (storage/database.ts); its name is the one migration 005 gave it.
declare module '../../storage/database.js' {
  interface Database {
    ci_registration_tokens: CiRegistrationTokenTable;
  }
}

/** Read on every project GET by maintainers: compiled once. */
const selectRegistrationToken = preparedQuery((db, projectId: number) =>
  db.selectFrom('ci_registration_tokens').select('token_encrypted').where('project_id', '=', projectId),
  { cache: true },
);

/**
 * Opened registration tokens by sealed text and secret box (AES-GCM costs more than the rest of
 * a project GET): the sealed text changes when the token is reset, so an entry is never stale.
 */
const openedTokens = new WeakMap<object, Map<string, string>>();

function openRegistrationToken(secrets: Deps['secrets'], sealed: string): string {
  let opened = openedTokens.get(secrets);
  if (!opened) openedTokens.set(secrets, (opened = new Map()));
  let plain = opened.get(sealed);
  if (plain === undefined) {
    plain = secrets.decrypt(sealed);
    if (opened.size >= 1024) opened.clear();
    opened.set(sealed, plain);
  }
  return plain;
}

/**
 * The project's registration token (`runners_token`), created on first use. Safe under
 * concurrency: the unique index keeps one, and every caller reads that one back.
 */
export async function projectRunnersToken(deps: Pick<Deps, 'db' | 'secrets' | 'clock'>, projectId: number): Promise<string> {
  const [existing] = await selectRegistrationToken(deps.db, projectId);
  if (existing) return openRegistrationToken(deps.secrets, (existing as { token_encrypted: string }).token_encrypted);
  const token = randomToken(REGISTRATION_TOKEN_PREFIX, 15);
  await deps.db
    .insertInto('ci_registration_tokens')
    .values({ project_id: projectId, token_digest: digestToken(token), token_encrypted: deps.secrets.encrypt(token), created_at: nowIso(deps) })
    .onConflict((oc) => oc.column('project_id').doNothing())
    .execute();
  const row = await deps.db.selectFrom('ci_registration_tokens').selectAll().where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return deps.secrets.decrypt(row.token_encrypted);
}

/** The project whose registration token this is (legacy runner registration), if any. */
export async function projectOfRunnersToken(db: Kysely<Database>, token: string): Promise<number | undefined> {
  const row = await db.selectFrom('ci_registration_tokens').select('project_id').where('token_digest', '=', digestToken(token)).executeTakeFirst();
  return row?.project_id;
}
