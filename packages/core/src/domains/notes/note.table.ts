import type { Generated, Insertable, Selectable } from 'kysely';

export interface NoteTable {
  id: Generated<number>;
  project_id: number;
  noteable_type: string; // Issue | MergeRequest | Snippet
  noteable_id: number;
  body: string;
  author_id: number;
  /** System notes record actions ("closed"); users cannot edit them. */
  system: Generated<number>;
  internal: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type NoteRow = Selectable<NoteTable>;
export type NewNoteRow = Insertable<NoteTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    notes: NoteTable;
  }
}
