/** The queries of `ci_variables`; nothing else touches the table. */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { CiVariableRow, CiVariableUpdate, NewCiVariableRow } from './ci-variable.table.js';

type Db = Kysely<Database>;

/** The variables of an owner, in creation order (for pagination). */
export function selectVariablesOf(db: Db, owner: string) {
  return db.selectFrom('ci_variables').selectAll().where('owner', '=', owner).orderBy('id');
}

/** An owner's variables with the key, at most `limit`, optionally of one environment scope. */
export function selectVariablesByKey(db: Db, owner: string, key: string, environmentScope: string | undefined, limit: number): Promise<CiVariableRow[]> {
  let q = db.selectFrom('ci_variables').selectAll().where('owner', '=', owner).where('key', '=', key);
  if (environmentScope !== undefined) q = q.where('environment_scope', '=', environmentScope);
  return q.orderBy('id').limit(limit).execute();
}

export async function keyTaken(db: Db, owner: string, key: string, environmentScope: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('ci_variables').select('id').where('owner', '=', owner).where('key', '=', key).where('environment_scope', '=', environmentScope);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export function insertVariable(db: Db, row: NewCiVariableRow): Promise<CiVariableRow> {
  return db.insertInto('ci_variables').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateVariableById(db: Db, id: number, changes: CiVariableUpdate): Promise<CiVariableRow> {
  return db.updateTable('ci_variables').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteVariableById(db: Db, id: number): Promise<void> {
  await db.deleteFrom('ci_variables').where('id', '=', id).execute();
}

/**
 * The variables a job may receive from these owners: every one when `protectedRef`, else the
 * unprotected ones.
 */
export function selectVariablesForOwners(db: Db, owners: string[], protectedRef: boolean): Promise<CiVariableRow[]> {
  if (!owners.length) return Promise.resolve([]);
  let q = db.selectFrom('ci_variables').selectAll().where('owner', 'in', owners);
  if (!protectedRef) q = q.where('protected', '=', 0);
  return q.orderBy('id').execute();
}

/** The masked variables of these owners (to hide their values in job logs). */
export function selectMaskedValuesOf(db: Db, owners: string[]): Promise<Pick<CiVariableRow, 'value_encrypted'>[]> {
  if (!owners.length) return Promise.resolve([]);
  return db.selectFrom('ci_variables').select('value_encrypted').where('owner', 'in', owners).where('masked', '=', 1).execute();
}
