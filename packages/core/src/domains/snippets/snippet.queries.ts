import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { NewSnippetRow, SnippetRow } from './snippet.table.js';

export async function insertSnippet(db: Kysely<Database>, values: NewSnippetRow): Promise<SnippetRow> {
  return db.insertInto('snippets').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function selectSnippetById(db: Kysely<Database>, projectId: number, id: number): Promise<SnippetRow | undefined> {
  return db.selectFrom('snippets').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

/** The project's snippets of the given visibilities, newest first (GitLab's `id_desc`). */
export function selectProjectSnippets(db: Kysely<Database>, projectId: number, visibilities: string[]) {
  return db.selectFrom('snippets').selectAll().where('project_id', '=', projectId).where('visibility', 'in', visibilities).orderBy('id', 'desc');
}

export async function updateSnippetById(
  db: Kysely<Database>,
  id: number,
  values: Partial<Pick<SnippetRow, 'title' | 'description' | 'visibility' | 'file_name' | 'content' | 'updated_at'>>,
): Promise<SnippetRow> {
  return db.updateTable('snippets').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes the snippet row; its notes and reactions (no foreign key) are their domains' to delete first. */
export async function deleteSnippetById(trx: Kysely<Database>, id: number): Promise<void> {
  await trx.deleteFrom('snippets').where('id', '=', id).execute();
}
