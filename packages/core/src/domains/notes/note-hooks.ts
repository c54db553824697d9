/**
 * What other domains do when a comment is written, without notes naming them (webhooks): a
 * note created or edited on an issue, merge request or snippet. The wiring (forge.ts) registers
 * each reaction; they run inside the transaction of the change, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { Noteable } from './find-note.js';
import type { NoteRow } from './note.table.js';

export interface NoteChange {
  action: 'create' | 'update';
  by: Ctx;
  note: NoteRow;
  noteable: Noteable;
}

export interface NoteHooks {
  noteChanged?: (trx: Kysely<Database>, change: NoteChange) => Promise<void>;
}

const registered = new HookList<NoteHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerNoteHooks(hooks: NoteHooks): void {
  registered.register(hooks);
}

export async function runNoteChanged(trx: Kysely<Database>, change: NoteChange): Promise<void> {
  for (const h of registered.all()) if (h.noteChanged) await h.noteChanged(trx, change);
}
