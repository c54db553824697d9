/**
 * GitLab's GraphQL `AwardEmoji` (app/graphql/types/award_emojis/award_emoji_type.rb) and
 * `Issue.awardEmoji` / `MergeRequest.awardEmoji`, over GET …/issues/:iid/award_emoji and
 * …/merge_requests/:iid/award_emoji (the same awardable lookup and policy).
 */
import { gql, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import type { Ctx } from '../../access/context.js';
import { listAwardEmoji, type AwardableSegment } from './award-emoji.js';
import { emojiOf } from './emoji-names.js';
import type { AwardEmojiEntity } from './award-emoji.entity.js';

const { nn, string, from } = gql;

/** GitLab's `unicode`: the emoji's code points in hex, joined by `-` (`1f44d`). */
const hexOf = (emoji: string) => [...emoji].map((c) => c.codePointAt(0)!.toString(16)).join('-');

export const awardEmojiGraphql: GraphqlModule = (g) => {
  g.defineObject('AwardEmoji', {
    description: 'An emoji awarded by a user',
    fields: () => ({
      name: from(nn(string), 'name', 'Emoji name.'),
      emoji: { type: nn(string), description: 'Emoji as an icon.', resolve: async (a: AwardEmojiEntity) => (await emojiOf(a.name))?.emoji ?? '' },
      description: { type: nn(string), description: 'Emoji description.', resolve: async (a: AwardEmojiEntity) => (await emojiOf(a.name))?.description ?? a.name },
      unicode: { type: nn(string), description: 'Emoji in Unicode.', resolve: async (a: AwardEmojiEntity) => hexOf((await emojiOf(a.name))?.emoji ?? '') },
      user: from(nn(g.object('UserCore')), 'user', 'User who awarded the emoji.'),
    }),
  });
  const awardsOf = (segment: AwardableSegment) => ({
    type: g.connection('AwardEmoji'),
    description: 'List of emoji reactions associated with the object.',
    args: connectionArgs,
    resolve: (awardable: { project_id: number; iid: number }, args: ConnectionArgs, ctx: Ctx) =>
      visibleConnection(resolveConnection(args, (page) => listAwardEmoji(ctx, { project: String(awardable.project_id), segment, ref: awardable.iid }, page))),
  });
  g.extend('Issue', () => ({ awardEmoji: awardsOf('issues') }));
  g.extend('MergeRequest', () => ({ awardEmoji: awardsOf('merge_requests') }));
};
