import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as members from './members.js';

const one = params({ id: p.string(), user_id: p.id() });

function memberRoutes(kind: members.SourceKind) {
  const base = `/${kind}/:id/members`;
  const tag = `${kind === 'projects' ? 'project' : 'group'}_members`;
  return [
    route('GET', base, { auth: 'optional', params: members.ListMembersInput, tag, summary: 'List direct members' },
      async (ctx, input) => paged(await members.listMembers(ctx, kind, input))),
    route('GET', `${base}/all`, { auth: 'optional', params: members.ListMembersInput, tag, summary: 'List members including inherited ones' },
      async (ctx, input) => paged(await members.listAllMembers(ctx, kind, input))),
    route('GET', `${base}/all/:user_id`, { auth: 'optional', params: one, tag, summary: 'Get a member including inherited membership' },
      async (ctx, { id, user_id }) => ok(await members.getMember(ctx, kind, id, user_id, true))),
    route('GET', `${base}/:user_id`, { auth: 'optional', params: one, tag, summary: 'Get a direct member' },
      async (ctx, { id, user_id }) => ok(await members.getMember(ctx, kind, id, user_id, false))),
    route('POST', base, { auth: 'required', params: members.AddMemberInput, tag, summary: 'Add a member' },
      async (ctx, input) => created(await members.addMember(ctx, kind, input))),
    route('PUT', `${base}/:user_id`, { auth: 'required', params: members.EditMemberInput, tag, summary: 'Edit a member' },
      async (ctx, input) => ok(await members.editMember(ctx, kind, input))),
    route('DELETE', `${base}/:user_id`, { auth: 'required', params: one, tag, summary: 'Remove a member' },
      async (ctx, { id, user_id }) => {
        await members.removeMember(ctx, kind, id, user_id);
        return noContent();
      }),
  ];
}

export const membersRoutes = [...memberRoutes('projects'), ...memberRoutes('groups')];
