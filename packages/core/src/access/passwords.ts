/**
 * User passwords, kept only as salted scrypt digests (migration 008). Forgelet authenticates
 * API calls with tokens; the password is checked where GitLab asks for it again
 * (`approval_password` when a project requires re-authentication to approve).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export interface UserPasswordTable {
  user_id: number;
  /** `scrypt$<salt hex>$<key hex>` */
  digest: string;
  updated_at: string;
}

/** The digest to store for `password` (computed outside transactions: scrypt is deliberately slow). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${key.toString('hex')}`;
}

/** Stores (or replaces) the user's password digest (from `hashPassword`), in the caller's transaction. */
export async function storePasswordDigest(db: Kysely<Database>, userId: number, digest: string, now: string): Promise<void> {
  await db.deleteFrom('user_passwords').where('user_id', '=', userId).execute();
  await db.insertInto('user_passwords').values({ user_id: userId, digest, updated_at: now }).execute();
}

/** True when `password` is the user's password; false when it is not or none was ever set. */
export async function verifyUserPassword(db: Kysely<Database>, userId: number, password: string | undefined): Promise<boolean> {
  if (!password) return false;
  const row = await db.selectFrom('user_passwords').select('digest').where('user_id', '=', userId).executeTakeFirst();
  if (!row) return false;
  const [scheme, saltHex, keyHex] = row.digest.split('$');
  if (scheme !== 'scrypt' || !saltHex || !keyHex) return false;
  const expected = Buffer.from(keyHex, 'hex');
  const actual = await scrypt(password, Buffer.from(saltHex, 'hex'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    user_passwords: UserPasswordTable;
  }
}
