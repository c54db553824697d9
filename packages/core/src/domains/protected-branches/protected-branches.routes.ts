import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import {
  CreateProtectedBranchInput,
  ListProtectedBranchesInput,
  ProtectedBranchRefInput,
  UpdateProtectedBranchInput,
} from './protected-branch.schema.js';
import { createProtectedBranch, deleteProtectedBranch, getProtectedBranch, listProtectedBranches, updateProtectedBranch } from './protected-branches.js';

const tag = 'protected_branches';

export const protectedBranchesRoutes: Route[] = [
  route('GET', '/projects/:id/protected_branches', { auth: 'optional', params: ListProtectedBranchesInput, tag, summary: "List a project's protected branches" },
    async (ctx, input) => paged(await listProtectedBranches(ctx, input))),
  route('GET', '/projects/:id/protected_branches/:name', { auth: 'optional', params: ProtectedBranchRefInput, tag, summary: 'Get a protected branch or wildcard' },
    async (ctx, input) => ok(await getProtectedBranch(ctx, input))),
  route('POST', '/projects/:id/protected_branches', { auth: 'required', params: CreateProtectedBranchInput, tag, summary: 'Protect a branch or wildcard (Maintainer)' },
    async (ctx, input) => created(await createProtectedBranch(ctx, input))),
  route('PATCH', '/projects/:id/protected_branches/:name', { auth: 'required', params: UpdateProtectedBranchInput, tag, summary: 'Update a protected branch (Maintainer)' },
    async (ctx, input) => ok(await updateProtectedBranch(ctx, input))),
  route('DELETE', '/projects/:id/protected_branches/:name', { auth: 'required', params: ProtectedBranchRefInput, tag, summary: 'Unprotect a branch (Maintainer)' },
    async (ctx, input) => {
      await deleteProtectedBranch(ctx, input);
      return noContent();
    }),
];
