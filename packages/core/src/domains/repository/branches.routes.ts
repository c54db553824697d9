import { accepted, noContent, created, ok, paged, route, type Route } from '../../kernel/route.js';
import { branchExists, createBranch, deleteBranch, deleteMergedBranches, getBranch, listBranches } from './branches.js';
import { BranchRefInput, CreateBranchInput, ListBranchesInput, ProjectRepositoryInput } from './branches.schema.js';
import { unmodifiedSince } from './repository-access.js';

const tag = 'branches';

export const branchesRoutes: Route[] = [
  route('GET', '/projects/:id/repository/branches', { auth: 'optional', jobToken: true, params: ListBranchesInput, tag, summary: 'List repository branches, by name' },
    async (ctx, input) => paged(await listBranches(ctx, input))),
  route('HEAD', '/projects/:id/repository/branches/:branch', { auth: 'optional', jobToken: true, params: BranchRefInput, tag, summary: 'Does a branch exist (204 or 404)' },
    async (ctx, input) => {
      await branchExists(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/repository/branches/:branch', { auth: 'optional', jobToken: true, params: BranchRefInput, tag, summary: 'Get a branch (its name URL-encoded)' },
    async (ctx, input) => ok(await getBranch(ctx, input))),
  route('POST', '/projects/:id/repository/branches', { auth: 'required', params: CreateBranchInput, tag, summary: 'Create a branch from a ref (Developer)' },
    async (ctx, input) => created(await createBranch(ctx, input))),
  route('DELETE', '/projects/:id/repository/branches/:branch', { auth: 'required', params: BranchRefInput, tag, summary: 'Delete a branch (Developer; not the default branch)' },
    async (ctx, input, req) => {
      await deleteBranch(ctx, input, { unmodifiedSince: unmodifiedSince(req.headers['if-unmodified-since']) });
      return noContent();
    }),
  route('DELETE', '/projects/:id/repository/merged_branches', { auth: 'optional', params: ProjectRepositoryInput, tag, summary: 'Delete branches merged into the default branch (Developer)' },
    async (ctx, input) => {
      await deleteMergedBranches(ctx, input.id);
      return accepted();
    }),
];
