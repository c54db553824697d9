import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import {
  createGroupVariable,
  createInstanceVariable,
  createProjectVariable,
  deleteGroupVariable,
  deleteInstanceVariable,
  deleteProjectVariable,
  getGroupVariable,
  getInstanceVariable,
  getProjectVariable,
  listGroupVariables,
  listInstanceVariables,
  listProjectVariables,
  updateGroupVariable,
  updateInstanceVariable,
  updateProjectVariable,
} from './ci-variables.js';
import {
  CreateGroupVariableInput,
  CreateInstanceVariableInput,
  CreateProjectVariableInput,
  GroupVariableRefInput,
  InstanceVariableRefInput,
  ListGroupVariablesInput,
  ListInstanceVariablesInput,
  ListProjectVariablesInput,
  ProjectVariableRefInput,
  UpdateGroupVariableInput,
  UpdateInstanceVariableInput,
  UpdateProjectVariableInput,
} from './ci-variable.schema.js';

const tag = 'ci_variables';

export const ciVariablesRoutes: Route[] = [
  route('GET', '/projects/:id/variables', { auth: 'required', params: ListProjectVariablesInput, tag, summary: 'List project variables (Maintainer)' },
    async (ctx, input) => paged(await listProjectVariables(ctx, input))),
  route('GET', '/projects/:id/variables/:key', { auth: 'required', params: ProjectVariableRefInput, tag, summary: 'Get a project variable; 409 when several environment scopes hold the key and no filter picks one' },
    async (ctx, input) => ok(await getProjectVariable(ctx, input))),
  route('POST', '/projects/:id/variables', { auth: 'required', params: CreateProjectVariableInput, tag, summary: 'Create a project variable' },
    async (ctx, input) => created(await createProjectVariable(ctx, input))),
  route('PUT', '/projects/:id/variables/:key', { auth: 'required', params: UpdateProjectVariableInput, tag, summary: 'Update a project variable' },
    async (ctx, input) => ok(await updateProjectVariable(ctx, input))),
  route('DELETE', '/projects/:id/variables/:key', { auth: 'required', params: ProjectVariableRefInput, tag, summary: 'Delete a project variable' },
    async (ctx, input) => {
      await deleteProjectVariable(ctx, input);
      return noContent();
    }),

  route('GET', '/groups/:id/variables', { auth: 'required', params: ListGroupVariablesInput, tag, summary: 'List group variables (Owner)' },
    async (ctx, input) => paged(await listGroupVariables(ctx, input))),
  route('GET', '/groups/:id/variables/:key', { auth: 'required', params: GroupVariableRefInput, tag, summary: 'Get a group variable' },
    async (ctx, input) => ok(await getGroupVariable(ctx, input))),
  route('POST', '/groups/:id/variables', { auth: 'required', params: CreateGroupVariableInput, tag, summary: 'Create a group variable (environment_scope on Premium and up)' },
    async (ctx, input) => created(await createGroupVariable(ctx, input))),
  route('PUT', '/groups/:id/variables/:key', { auth: 'required', params: UpdateGroupVariableInput, tag, summary: 'Update a group variable' },
    async (ctx, input) => ok(await updateGroupVariable(ctx, input))),
  route('DELETE', '/groups/:id/variables/:key', { auth: 'required', params: GroupVariableRefInput, tag, summary: 'Delete a group variable' },
    async (ctx, input) => {
      await deleteGroupVariable(ctx, input);
      return noContent();
    }),

  route('GET', '/admin/ci/variables', { auth: 'admin', params: ListInstanceVariablesInput, tag, summary: 'List instance variables (administrators)' },
    async (ctx, input) => paged(await listInstanceVariables(ctx, input))),
  route('GET', '/admin/ci/variables/:key', { auth: 'admin', params: InstanceVariableRefInput, tag, summary: 'Get an instance variable' },
    async (ctx, input) => ok(await getInstanceVariable(ctx, input))),
  route('POST', '/admin/ci/variables', { auth: 'admin', params: CreateInstanceVariableInput, tag, summary: 'Create an instance variable' },
    async (ctx, input) => created(await createInstanceVariable(ctx, input))),
  route('PUT', '/admin/ci/variables/:key', { auth: 'admin', params: UpdateInstanceVariableInput, tag, summary: 'Update an instance variable' },
    async (ctx, input) => ok(await updateInstanceVariable(ctx, input))),
  route('DELETE', '/admin/ci/variables/:key', { auth: 'admin', params: InstanceVariableRefInput, tag, summary: 'Delete an instance variable' },
    async (ctx, input) => {
      await deleteInstanceVariable(ctx, input);
      return noContent();
    }),
];
