import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { NOTEABLE_SEGMENTS, type NoteableSegment } from '../notes/find-note.js';
import * as awards from './award-emoji.js';

/** The path parameter naming each awardable: issues and merge requests by iid, snippets by id. */
const REF_PARAM = { issues: 'issue_iid', merge_requests: 'merge_request_iid', snippets: 'snippet_id' } as const satisfies Record<NoteableSegment, string>;

/** GitLab's `If-Unmodified-Since` check reads the header leniently and ignores what it can't parse. */
function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The four routes under one base (an awardable, or a note of one). */
function awardRoutes(segment: NoteableSegment, onNote: boolean): Route[] {
  const key = REF_PARAM[segment];
  const base = `/projects/:id/${segment}/:${key}${onNote ? '/notes/:note_id' : ''}/award_emoji`;
  const what = `${onNote ? 'a comment on ' : ''}${segment === 'issues' ? 'an issue' : segment === 'merge_requests' ? 'a merge request' : 'a snippet'}`;
  // The awardable's key differs per segment, so it is declared untyped and read back in `target`.
  const scope = { id: p.string(), ...({ [key]: p.integer() } as {}), ...(onNote ? ({ note_id: p.integer() } as {}) : {}) };
  const target = (input: { id: string }): awards.AwardableTarget => {
    const values = input as unknown as Record<string, number>;
    return { project: input.id, segment, ref: values[key]!, noteId: onNote ? values.note_id : undefined };
  };
  const one = params({ ...scope, award_id: p.integer() });
  const tag = 'award_emoji';
  return [
    route('GET', base, { auth: 'optional', params: params({ ...scope, ...awards.ListAwardEmojiInput.shape }), tag, summary: `List emoji reactions on ${what}` },
      async (ctx, input) => paged(await awards.listAwardEmoji(ctx, target(input), input))),
    route('GET', `${base}/:award_id`, { auth: 'optional', params: one, tag, summary: `Get an emoji reaction on ${what}` },
      async (ctx, input) => ok(await awards.getAwardEmoji(ctx, target(input), input.award_id))),
    route('POST', base, { auth: 'required', params: params({ ...scope, ...awards.CreateAwardEmojiInput.shape }), tag, summary: `Add an emoji reaction to ${what}` },
      async (ctx, input) => created(await awards.awardEmoji(ctx, target(input), { name: input.name }))),
    route('DELETE', `${base}/:award_id`, { auth: 'required', params: one, tag, summary: `Delete an emoji reaction from ${what}` },
      async (ctx, input, req) => {
        await awards.removeAwardEmoji(ctx, target(input), input.award_id, { unmodifiedSince: unmodifiedSince(req.headers['if-unmodified-since']) });
        return noContent();
      }),
  ];
}

export const awardEmojiRoutes: Route[] = (Object.keys(NOTEABLE_SEGMENTS) as NoteableSegment[]).flatMap((segment) => [
  ...awardRoutes(segment, false),
  ...awardRoutes(segment, true),
]);
