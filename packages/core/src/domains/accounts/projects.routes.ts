import { p, params } from '../../kernel/params.js';
import { accepted, created, ok, paged, route } from '../../kernel/route.js';
import { setProjectArchived } from './project-archive.js';
import * as projects from './projects.js';
import { listProjectUsers, ListProjectUsersInput } from './project-users.js';

export const projectRoutes = [
  route('GET', '/projects', { auth: 'optional', params: projects.ListProjectsInput, tag: 'projects', summary: 'List projects', cacheable: true },
    async (ctx, input) => paged(await projects.listProjects(ctx, input))),
  route('POST', '/projects', { auth: 'required', params: projects.CreateProjectInput, tag: 'projects', summary: 'Create a project' },
    async (ctx, input) => created(await projects.createProject(ctx, input))),
  route('GET', '/projects/:id', { auth: 'optional', params: params({ id: p.string() }), tag: 'projects', summary: 'Get a project', cacheable: true },
    async (ctx, { id }) => ok(await projects.getProject(ctx, id))),
  route('GET', '/projects/:id/users', { auth: 'optional', params: ListProjectUsersInput, tag: 'projects', summary: "Users with access to a project (its and its groups' members)" },
    async (ctx, input) => paged(await listProjectUsers(ctx, input))),
  route('PUT', '/projects/:id', { auth: 'required', params: projects.UpdateProjectInput, tag: 'projects', summary: 'Update a project' },
    async (ctx, input) => ok(await projects.updateProject(ctx, input))),
  route('DELETE', '/projects/:id', { auth: 'required', params: params({ id: p.string() }), tag: 'projects', summary: 'Delete a project' },
    async (ctx, { id }) => {
      await projects.deleteProject(ctx, id);
      return accepted();
    }),
  route('POST', '/projects/:id/archive', { auth: 'required', params: params({ id: p.string() }), tag: 'projects', summary: 'Archive a project' },
    async (ctx, { id }) => created(await setProjectArchived(ctx, id, true))),
  route('POST', '/projects/:id/unarchive', { auth: 'required', params: params({ id: p.string() }), tag: 'projects', summary: 'Unarchive a project' },
    async (ctx, { id }) => created(await setProjectArchived(ctx, id, false))),
];
