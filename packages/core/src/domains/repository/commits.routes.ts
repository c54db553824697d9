import { created, ok, paged, route, type Route } from '../../kernel/route.js';
import { createCommit, getCommit, getCommitDiff, listCommitRefs, listCommits } from './commits.js';
import { CommitDiffInput, CommitRefsInput, CreateCommitInput, GetCommitInput, ListCommitsInput } from './commits.schema.js';

const tag = 'commits';

export const commitsRoutes: Route[] = [
  route('GET', '/projects/:id/repository/commits', { auth: 'optional', jobToken: true, params: ListCommitsInput, tag, summary: 'List commits of a ref from git, newest first (no totals)' },
    async (ctx, input) => paged(await listCommits(ctx, input))),
  route('POST', '/projects/:id/repository/commits', { auth: 'required', params: CreateCommitInput, tag, summary: 'Commit several file actions at once (push access to the branch)' },
    async (ctx, input) => created(await createCommit(ctx, input))),
  route('GET', '/projects/:id/repository/commits/:sha', { auth: 'optional', jobToken: true, params: GetCommitInput, tag, summary: 'Get a commit by sha, branch or tag, with stats' },
    async (ctx, input) => ok(await getCommit(ctx, input))),
  route('GET', '/projects/:id/repository/commits/:sha/refs', { auth: 'optional', params: CommitRefsInput, tag, summary: 'Branches and tags containing a commit' },
    async (ctx, input) => paged(await listCommitRefs(ctx, input))),
  route('GET', '/projects/:id/repository/commits/:sha/diff', { auth: 'optional', jobToken: true, params: CommitDiffInput, tag, summary: 'The diff of a commit against its first parent, paged' },
    async (ctx, input) => paged(await getCommitDiff(ctx, input))),
];
