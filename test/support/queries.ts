import type { Kysely } from 'kysely';
import { sqliteHandleOf } from '../../packages/core/src/storage/dialect.js';

/**
 * The SQL the database is asked while `run` runs: Kysely's queries (builders and raw, through its
 * executor) and, on SQLite, statements prepared on the connection directly (storage/prepared.ts
 * runs its compiled statements so). Read-cache hits ask nothing.
 */
export async function queriesDuring<T>(db: Kysely<any>, run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const executor = db.getExecutor() as unknown as { executeQuery: (...args: any[]) => unknown };
  const execute = executor.executeQuery;
  const sqlite = sqliteHandleOf(db);
  const prepare = sqlite?.prepare;
  const queries: string[] = [];
  executor.executeQuery = function (this: unknown, ...args: any[]) {
    queries.push(String(args[0]?.sql ?? ''));
    return execute.apply(this, args);
  };
  if (sqlite) {
    sqlite.prepare = ((source: string) => {
      queries.push(source);
      return prepare!.call(sqlite, source);
    }) as typeof sqlite.prepare;
  }
  try {
    return { result: await run(), queries };
  } finally {
    executor.executeQuery = execute;
    if (sqlite) sqlite.prepare = prepare!;
  }
}
