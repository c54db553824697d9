import { p, params } from '../../kernel/params.js';
import { accepted, created, ok, paged, route } from '../../kernel/route.js';
import * as groups from './groups.js';
import * as projects from './projects.js';

export const groupRoutes = [
  route('GET', '/groups', { auth: 'optional', params: groups.ListGroupsInput, tag: 'groups', summary: 'List groups' },
    async (ctx, input) => paged(await groups.listGroups(ctx, input))),
  route('POST', '/groups', { auth: 'required', params: groups.CreateGroupInput, tag: 'groups', summary: 'Create a group or subgroup' },
    async (ctx, input) => created(await groups.createGroup(ctx, input))),
  route('GET', '/groups/:id', { auth: 'optional', params: params({ id: p.string() }), tag: 'groups', summary: 'Get a group' },
    async (ctx, { id }) => ok(await groups.getGroup(ctx, id))),
  route('PUT', '/groups/:id', { auth: 'required', params: groups.UpdateGroupInput, tag: 'groups', summary: 'Update a group' },
    async (ctx, input) => ok(await groups.updateGroup(ctx, input))),
  route('DELETE', '/groups/:id', { auth: 'required', params: params({ id: p.string() }), tag: 'groups', summary: 'Delete a group with its subgroups and projects' },
    async (ctx, { id }) => {
      await groups.deleteGroup(ctx, id);
      return accepted();
    }),
  route('GET', '/groups/:id/subgroups', { auth: 'optional', params: groups.ListSubgroupsInput, tag: 'groups', summary: 'List direct subgroups' },
    async (ctx, input) => paged(await groups.listSubgroups(ctx, input))),
  route('GET', '/groups/:id/descendant_groups', { auth: 'optional', params: groups.ListSubgroupsInput, tag: 'groups', summary: 'List all descendant groups' },
    async (ctx, input) => paged(await groups.listDescendantGroups(ctx, input))),
  route('GET', '/groups/:id/projects', { auth: 'optional', params: projects.ListGroupProjectsInput, tag: 'groups', summary: "List a group's projects", cacheable: true },
    async (ctx, input) => paged(await projects.listGroupProjects(ctx, input))),
];
