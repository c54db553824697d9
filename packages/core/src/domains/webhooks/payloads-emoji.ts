/**
 * Emoji events as GitLab's Gitlab::DataBuilder::Emoji writes them: the reaction
 * (Gitlab::HookData::EmojiBuilder's safe attributes, the action and `awarded_on_url`), the
 * acting user and project, and the awardable: a note with its noteable, or the issue, merge
 * request or project snippet itself (keyed by its class, `project_snippet` for a snippet).
 */
import type { Kysely } from 'kysely';
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import type { Database } from '../../storage/database.js';
import type { AwardEmojiRow } from '../award-emoji/index.js';
import { noteableHookAttrs, noteableUrl, noteHookAttrs, projectHookAttrs, userHookAttrs, type MergeStatusOf } from './payloads.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

/** The payload key of each awardable class (`noteable.class.underscore`). */
const AWARDABLE_KEY: Record<string, string> = { Issue: 'issue', MergeRequest: 'merge_request', Snippet: 'project_snippet' };

const AWARDABLE_TABLE = { Issue: 'issues', MergeRequest: 'merge_requests', Snippet: 'snippets', Note: 'notes' } as const;

/** The project of an awardable (null when it is gone). */
export async function awardableProject(db: Db, type: string, id: number): Promise<ProjectRow | null> {
  const table = AWARDABLE_TABLE[type as keyof typeof AWARDABLE_TABLE];
  if (!table) return null;
  const row = await db.selectFrom(table).select('project_id').where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  return (await db.selectFrom('projects').selectAll().where('id', '=', row.project_id).executeTakeFirst()) ?? null;
}

/** What a noteable's URL names it by: the iid of an issue or merge request, the id of a snippet. */
async function noteableRef(db: Db, type: string, id: number): Promise<number> {
  if (type === 'Issue') return (await db.selectFrom('issues').select('iid').where('id', '=', id).executeTakeFirstOrThrow()).iid;
  if (type === 'MergeRequest') return (await db.selectFrom('merge_requests').select('iid').where('id', '=', id).executeTakeFirstOrThrow()).iid;
  return id;
}

export interface EmojiPayloadInput {
  by: UserRow;
  project: ProjectRow;
  award: AwardEmojiRow;
  action: 'award' | 'revoke';
  statusOf?: MergeStatusOf;
}

/** Gitlab::DataBuilder::Emoji.build(award, user, action). */
export async function buildEmojiPayload(db: Db, urls: UrlBuilder, input: EmojiPayloadInput): Promise<Json> {
  const { award, project } = input;
  const projectAttrs = await projectHookAttrs(db, urls, project);
  let noteable = { type: award.awardable_type, id: award.awardable_id };
  let note: Json | null = null;
  if (award.awardable_type === 'Note') {
    const row = await db.selectFrom('notes').selectAll().where('id', '=', award.awardable_id).executeTakeFirstOrThrow();
    noteable = { type: row.noteable_type, id: row.noteable_id };
    note = noteHookAttrs(urls, project, row, await noteableRef(db, row.noteable_type, row.noteable_id));
  }
  const awardedOnUrl = note ? (note.url as string) : noteableUrl(urls, project, noteable.type, await noteableRef(db, noteable.type, noteable.id));
  const data: Json = {
    object_kind: 'emoji',
    event_type: input.action,
    user: userHookAttrs(input.by),
    project_id: project.id,
    project: projectAttrs,
    object_attributes: {
      user_id: award.user_id,
      created_at: award.created_at,
      id: award.id,
      name: award.name,
      awardable_type: award.awardable_type,
      awardable_id: award.awardable_id,
      updated_at: award.updated_at,
      action: input.action,
      awarded_on_url: awardedOnUrl,
    },
  };
  if (note) data.note = note;
  data[AWARDABLE_KEY[noteable.type] ?? 'snippet'] = await noteableHookAttrs(db, urls, project, projectAttrs, noteable.type, noteable.id, input.statusOf);
  return data;
}
