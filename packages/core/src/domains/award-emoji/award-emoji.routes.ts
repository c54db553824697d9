import type { Ctx } from '../../access/context.js';
import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route, type RouteRequest } from '../../kernel/route.js';
import * as awards from './award-emoji.js';

/** The path parameter naming each awardable: issues and merge requests by iid, snippets by id. */
const REF_PARAM = { issues: 'issue_iid', merge_requests: 'merge_request_iid', snippets: 'snippet_id' } as const satisfies Record<awards.AwardableSegment, string>;

/** GitLab's `If-Unmodified-Since` check reads the header leniently and ignores what it can't parse. */
function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The parameters of the routes under one awardable (or a note of one), and the target they name. */
function awardable(segment: awards.AwardableSegment, onNote: boolean) {
  const key = REF_PARAM[segment];
  // The awardable's key differs per segment, so it is declared untyped and read back in `target`.
  const scope = { id: p.string(), ...({ [key]: p.integer() } as {}), ...(onNote ? ({ note_id: p.integer() } as {}) : {}) };
  return {
    list: params({ ...scope, ...awards.ListAwardEmojiInput.shape }),
    one: params({ ...scope, award_id: p.integer() }),
    create: params({ ...scope, ...awards.CreateAwardEmojiInput.shape }),
    target: (input: { id: string }): awards.AwardableTarget => {
      const values = input as unknown as Record<string, number>;
      return { project: input.id, segment, ref: values[key]!, noteId: onNote ? values.note_id : undefined };
    },
  };
}
type Awardable = ReturnType<typeof awardable>;
type One = { id: string; award_id: number };

const list = (a: Awardable) => async (ctx: Ctx, input: { id: string } & awards.ListAwardEmojiInput) => paged(await awards.listAwardEmoji(ctx, a.target(input), input));
const get = (a: Awardable) => async (ctx: Ctx, input: One) => ok(await awards.getAwardEmoji(ctx, a.target(input), input.award_id));
const award = (a: Awardable) => async (ctx: Ctx, input: { id: string } & awards.CreateAwardEmojiInput) => created(await awards.awardEmoji(ctx, a.target(input), { name: input.name }));
const remove = (a: Awardable) => async (ctx: Ctx, input: One, req: RouteRequest) => {
  await awards.removeAwardEmoji(ctx, a.target(input), input.award_id, { unmodifiedSince: unmodifiedSince(req.headers['if-unmodified-since']) });
  return noContent();
};

const issue = awardable('issues', false);
const issueNote = awardable('issues', true);
const mergeRequest = awardable('merge_requests', false);
const mergeRequestNote = awardable('merge_requests', true);
const snippet = awardable('snippets', false);
const snippetNote = awardable('snippets', true);
const tag = 'award_emoji';

export const awardEmojiRoutes: Route[] = [
  route('GET', '/projects/:id/issues/:issue_iid/award_emoji', { auth: 'optional', params: issue.list, tag, summary: 'List emoji reactions on an issue' }, list(issue)),
  route('GET', '/projects/:id/issues/:issue_iid/award_emoji/:award_id', { auth: 'optional', params: issue.one, tag, summary: 'Get an emoji reaction on an issue' }, get(issue)),
  route('POST', '/projects/:id/issues/:issue_iid/award_emoji', { auth: 'required', params: issue.create, tag, summary: 'Add an emoji reaction to an issue' }, award(issue)),
  route('DELETE', '/projects/:id/issues/:issue_iid/award_emoji/:award_id', { auth: 'required', params: issue.one, tag, summary: 'Delete an emoji reaction from an issue' }, remove(issue)),

  route('GET', '/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji', { auth: 'optional', params: issueNote.list, tag, summary: 'List emoji reactions on a comment on an issue' }, list(issueNote)),
  route('GET', '/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id', { auth: 'optional', params: issueNote.one, tag, summary: 'Get an emoji reaction on a comment on an issue' }, get(issueNote)),
  route('POST', '/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji', { auth: 'required', params: issueNote.create, tag, summary: 'Add an emoji reaction to a comment on an issue' }, award(issueNote)),
  route('DELETE', '/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id', { auth: 'required', params: issueNote.one, tag, summary: 'Delete an emoji reaction from a comment on an issue' }, remove(issueNote)),

  route('GET', '/projects/:id/merge_requests/:merge_request_iid/award_emoji', { auth: 'optional', params: mergeRequest.list, tag, summary: 'List emoji reactions on a merge request' }, list(mergeRequest)),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id', { auth: 'optional', params: mergeRequest.one, tag, summary: 'Get an emoji reaction on a merge request' }, get(mergeRequest)),
  route('POST', '/projects/:id/merge_requests/:merge_request_iid/award_emoji', { auth: 'required', params: mergeRequest.create, tag, summary: 'Add an emoji reaction to a merge request' }, award(mergeRequest)),
  route('DELETE', '/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id', { auth: 'required', params: mergeRequest.one, tag, summary: 'Delete an emoji reaction from a merge request' }, remove(mergeRequest)),

  route('GET', '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji', { auth: 'optional', params: mergeRequestNote.list, tag, summary: 'List emoji reactions on a comment on a merge request' }, list(mergeRequestNote)),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id', { auth: 'optional', params: mergeRequestNote.one, tag, summary: 'Get an emoji reaction on a comment on a merge request' }, get(mergeRequestNote)),
  route('POST', '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji', { auth: 'required', params: mergeRequestNote.create, tag, summary: 'Add an emoji reaction to a comment on a merge request' }, award(mergeRequestNote)),
  route('DELETE', '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id', { auth: 'required', params: mergeRequestNote.one, tag, summary: 'Delete an emoji reaction from a comment on a merge request' }, remove(mergeRequestNote)),

  route('GET', '/projects/:id/snippets/:snippet_id/award_emoji', { auth: 'optional', params: snippet.list, tag, summary: 'List emoji reactions on a snippet' }, list(snippet)),
  route('GET', '/projects/:id/snippets/:snippet_id/award_emoji/:award_id', { auth: 'optional', params: snippet.one, tag, summary: 'Get an emoji reaction on a snippet' }, get(snippet)),
  route('POST', '/projects/:id/snippets/:snippet_id/award_emoji', { auth: 'required', params: snippet.create, tag, summary: 'Add an emoji reaction to a snippet' }, award(snippet)),
  route('DELETE', '/projects/:id/snippets/:snippet_id/award_emoji/:award_id', { auth: 'required', params: snippet.one, tag, summary: 'Delete an emoji reaction from a snippet' }, remove(snippet)),

  route('GET', '/projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji', { auth: 'optional', params: snippetNote.list, tag, summary: 'List emoji reactions on a comment on a snippet' }, list(snippetNote)),
  route('GET', '/projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji/:award_id', { auth: 'optional', params: snippetNote.one, tag, summary: 'Get an emoji reaction on a comment on a snippet' }, get(snippetNote)),
  route('POST', '/projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji', { auth: 'required', params: snippetNote.create, tag, summary: 'Add an emoji reaction to a comment on a snippet' }, award(snippetNote)),
  route('DELETE', '/projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji/:award_id', { auth: 'required', params: snippetNote.one, tag, summary: 'Delete an emoji reaction from a comment on a snippet' }, remove(snippetNote)),
];
