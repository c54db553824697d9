/**
 * GitLab's GraphQL `Note` (app/graphql/types/notes/note_type.rb) and `Issue.notes` /
 * `MergeRequest.notes(filter:)`, over GET …/issues/:iid/notes and …/merge_requests/:iid/notes
 * (internal notes only for Reporters, as there), oldest first as GitLab's GraphQL lists them.
 */
import { GraphQLEnumType } from 'graphql';
import { gql, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { listNotes } from './notes.js';
import { ListNotesInput } from './note.schema.js';
import type { NoteableSegment } from './find-note.js';

const { nn, string, boolean, from } = gql;

export const notesGraphql: GraphqlModule = (g) => {
  g.add(
    new GraphQLEnumType({
      name: 'NotesFilterType',
      description: 'Work item notes collection type.',
      values: {
        ALL_NOTES: { value: 'all_notes', description: 'Show all activity' },
        ONLY_COMMENTS: { value: 'only_comments', description: 'Show comments only' },
        ONLY_ACTIVITY: { value: 'only_activity', description: 'Show history only' },
      },
    }),
  );
  g.defineObject('Note', {
    description: 'A note (a comment, or a system note of an action).',
    fields: () => ({
      id: gql.gid('Note', 'ID of the note.'),
      body: from(nn(string), 'body', 'Content of the note.'),
      author: from(g.object('UserCore'), 'author', 'User who wrote the note.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of the note creation.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', "Timestamp of the note's last activity."),
      system: from(nn(boolean), 'system', 'Indicates whether the note was created by the system or by a user.'),
      internal: from(boolean, 'internal', 'Indicates whether the note is internal.'),
      confidential: from(boolean, 'confidential', 'Indicates if the note is confidential.'),
      resolvable: from(nn(boolean), 'resolvable', 'Indicates if the object can be resolved.'),
      imported: from(boolean, 'imported', 'Indicates whether the note was imported.'),
    }),
  });
  const notesOf = (segment: NoteableSegment) => ({
    type: g.connection('Note'),
    description: 'All notes on this noteable.',
    args: { ...connectionArgs, filter: { type: g.input('NotesFilterType'), defaultValue: 'all_notes', description: 'Type of notes collection: ALL_NOTES, ONLY_COMMENTS, ONLY_ACTIVITY.' } },
    resolve: (noteable: { project_id: number; iid: number }, args: ConnectionArgs & { filter: string }, ctx: Ctx) => {
      const input = parseParams(ListNotesInput, { id: String(noteable.project_id), noteable_id: noteable.iid, sort: 'asc', activity_filter: args.filter });
      return visibleConnection(resolveConnection(args, (page) => listNotes(ctx, segment, { ...input, ...page })));
    },
  });
  g.extend('Issue', () => ({ notes: notesOf('issues') }));
  g.extend('MergeRequest', () => ({ notes: notesOf('merge_requests') }));
};
