import type { Generated, Insertable, Selectable } from 'kysely';

export interface SnippetTable {
  id: Generated<number>;
  project_id: number;
  title: string;
  description: string | null;
  file_name: string;
  content: string;
  visibility: string; // private | internal | public
  author_id: number;
  created_at: string;
  updated_at: string;
}
export type SnippetRow = Selectable<SnippetTable>;
export type NewSnippetRow = Insertable<SnippetTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    snippets: SnippetTable;
  }
}
