import type { Ctx } from '../../access/context.js';
import { p, params, type Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as members from './members.js';

const one = params({ id: p.string(), user_id: p.id() });

/** `DELETE …/members/:user_id`, the same under projects and groups. */
const removeMember = (kind: members.SourceKind) => async (ctx: Ctx, { id, user_id }: Infer<typeof one>) => {
  await members.removeMember(ctx, kind, id, user_id);
  return noContent();
};

// GitLab mounts one set of member endpoints under `/projects/:id` and `/groups/:id` (API::Members).
export const membersRoutes = [
  route('GET', '/projects/:id/members', { auth: 'optional', params: members.ListMembersInput, tag: 'project_members', summary: 'List direct members' },
    async (ctx, input) => paged(await members.listMembers(ctx, 'projects', input))),
  route('GET', '/projects/:id/members/all', { auth: 'optional', params: members.ListMembersInput, tag: 'project_members', summary: 'List members including inherited ones' },
    async (ctx, input) => paged(await members.listAllMembers(ctx, 'projects', input))),
  route('GET', '/projects/:id/members/all/:user_id', { auth: 'optional', params: one, tag: 'project_members', summary: 'Get a member including inherited membership' },
    async (ctx, { id, user_id }) => ok(await members.getMember(ctx, 'projects', id, user_id, true))),
  route('GET', '/projects/:id/members/:user_id', { auth: 'optional', params: one, tag: 'project_members', summary: 'Get a direct member' },
    async (ctx, { id, user_id }) => ok(await members.getMember(ctx, 'projects', id, user_id, false))),
  route('POST', '/projects/:id/members', { auth: 'required', params: members.AddMemberInput, tag: 'project_members', summary: 'Add a member' },
    async (ctx, input) => created(await members.addMember(ctx, 'projects', input))),
  route('PUT', '/projects/:id/members/:user_id', { auth: 'required', params: members.EditMemberInput, tag: 'project_members', summary: 'Edit a member' },
    async (ctx, input) => ok(await members.editMember(ctx, 'projects', input))),
  route('DELETE', '/projects/:id/members/:user_id', { auth: 'required', params: one, tag: 'project_members', summary: 'Remove a member' },
    removeMember('projects')),

  route('GET', '/groups/:id/members', { auth: 'optional', params: members.ListMembersInput, tag: 'group_members', summary: 'List direct members' },
    async (ctx, input) => paged(await members.listMembers(ctx, 'groups', input))),
  route('GET', '/groups/:id/members/all', { auth: 'optional', params: members.ListMembersInput, tag: 'group_members', summary: 'List members including inherited ones' },
    async (ctx, input) => paged(await members.listAllMembers(ctx, 'groups', input))),
  route('GET', '/groups/:id/members/all/:user_id', { auth: 'optional', params: one, tag: 'group_members', summary: 'Get a member including inherited membership' },
    async (ctx, { id, user_id }) => ok(await members.getMember(ctx, 'groups', id, user_id, true))),
  route('GET', '/groups/:id/members/:user_id', { auth: 'optional', params: one, tag: 'group_members', summary: 'Get a direct member' },
    async (ctx, { id, user_id }) => ok(await members.getMember(ctx, 'groups', id, user_id, false))),
  route('POST', '/groups/:id/members', { auth: 'required', params: members.AddMemberInput, tag: 'group_members', summary: 'Add a member' },
    async (ctx, input) => created(await members.addMember(ctx, 'groups', input))),
  route('PUT', '/groups/:id/members/:user_id', { auth: 'required', params: members.EditMemberInput, tag: 'group_members', summary: 'Edit a member' },
    async (ctx, input) => ok(await members.editMember(ctx, 'groups', input))),
  route('DELETE', '/groups/:id/members/:user_id', { auth: 'required', params: one, tag: 'group_members', summary: 'Remove a member' },
    removeMember('groups')),
];
