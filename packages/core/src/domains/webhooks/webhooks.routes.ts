import type { Ctx } from '../../access/context.js';
import type { Page } from '../../kernel/pagination.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import { listHookEvents, resendHookEvent, testHook, testSystemHook } from './deliveries.js';
import { createHook, deleteHook, findHook, hookParent, listHooks, presentHook, setHookKey, unsetHookKey, updateHook } from './hooks.js';
import type { GroupHookEntity, HookEntity, ProjectHookEntity } from './webhook.entity.js';
import {
  CreateGroupHookInput,
  CreateProjectHookInput,
  CreateSystemHookInput,
  HookEventsInput,
  HookKeyInput,
  ProjectHookRefInput,
  ProjectHooksInput,
  ResendHookEventInput,
  SetHookKeyInput,
  SetSystemHookKeyInput,
  SystemHookKeyInput,
  SystemHookRefInput,
  SystemHooksInput,
  TestHookInput,
  UpdateGroupHookInput,
  UpdateProjectHookInput,
  UpdateSystemHookInput,
} from './webhook.schema.js';

const project = (ctx: Ctx, id: string, write: boolean) => hookParent(ctx, 'project', id, write);
const group = (ctx: Ctx, id: string, write: boolean) => hookParent(ctx, 'group', id, write);
const system = (ctx: Ctx, write: boolean) => hookParent(ctx, 'system', undefined, write);

// Project hooks (Maintainer): GitLab's API::ProjectHooks with API::Hooks::{UrlVariables, CustomHeaders, TriggerTest, Events, ResendHook}.
const projectHookRoutes = [
  route('GET', '/projects/:id/hooks', { auth: 'required', params: ProjectHooksInput, tag: 'project_hooks', summary: 'List project hooks' },
    async (ctx, input) => paged((await listHooks(ctx, await project(ctx, input.id, false), input)) as Page<ProjectHookEntity>)),
  route('GET', '/projects/:id/hooks/:hook_id', { auth: 'required', params: ProjectHookRefInput, tag: 'project_hooks', summary: 'Get a project hook' },
    async (ctx, input) => ok(presentHook(ctx, await findHook(ctx, await project(ctx, input.id, false), input.hook_id)) as ProjectHookEntity)),
  route('POST', '/projects/:id/hooks', { auth: 'required', params: CreateProjectHookInput, tag: 'project_hooks', summary: 'Add a project hook' },
    async (ctx, input) => created((await createHook(ctx, await project(ctx, input.id, true), input)) as ProjectHookEntity)),
  route('PUT', '/projects/:id/hooks/:hook_id', { auth: 'required', params: UpdateProjectHookInput, tag: 'project_hooks', summary: 'Edit a project hook (re-enables it)' },
    async (ctx, input) => ok((await updateHook(ctx, await project(ctx, input.id, true), input.hook_id, input)) as ProjectHookEntity)),
  route('DELETE', '/projects/:id/hooks/:hook_id', { auth: 'required', params: ProjectHookRefInput, tag: 'project_hooks', summary: 'Delete a project hook' },
    async (ctx, input) => {
      await deleteHook(ctx, await project(ctx, input.id, true), input.hook_id);
      return noContent();
    }),
  route('POST', '/projects/:id/hooks/:hook_id/test/:trigger', { auth: 'required', params: TestHookInput, tag: 'project_hooks', summary: 'Send a test event to a project hook' },
    async (ctx, input) => created(await testHook(ctx, await project(ctx, input.id, true), input.hook_id, input.trigger))),
  route('PUT', '/projects/:id/hooks/:hook_id/custom_headers/:key', { auth: 'required', params: SetHookKeyInput, tag: 'project_hooks', summary: 'Set a custom header of a project hook' },
    async (ctx, input) => {
      await setHookKey(ctx, await project(ctx, input.id, true), input.hook_id, 'custom_headers_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/projects/:id/hooks/:hook_id/custom_headers/:key', { auth: 'required', params: HookKeyInput, tag: 'project_hooks', summary: 'Unset a custom header of a project hook' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await project(ctx, input.id, true), input.hook_id, 'custom_headers_encrypted', input.key);
      return noContent();
    }),
  route('PUT', '/projects/:id/hooks/:hook_id/url_variables/:key', { auth: 'required', params: SetHookKeyInput, tag: 'project_hooks', summary: 'Set a URL variable of a project hook' },
    async (ctx, input) => {
      await setHookKey(ctx, await project(ctx, input.id, true), input.hook_id, 'url_variables_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/projects/:id/hooks/:hook_id/url_variables/:key', { auth: 'required', params: HookKeyInput, tag: 'project_hooks', summary: 'Unset a URL variable of a project hook' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await project(ctx, input.id, true), input.hook_id, 'url_variables_encrypted', input.key);
      return noContent();
    }),
  route('GET', '/projects/:id/hooks/:hook_id/events', { auth: 'required', params: HookEventsInput, tag: 'project_hooks', summary: 'Recent deliveries of a project hook' },
    async (ctx, input) => paged(await listHookEvents(ctx, await project(ctx, input.id, false), input))),
  route('POST', '/projects/:id/hooks/:hook_id/events/:hook_log_id/resend', { auth: 'required', params: ResendHookEventInput, tag: 'project_hooks', summary: 'Resend a delivery of a project hook' },
    async (ctx, input) => created(await resendHookEvent(ctx, await project(ctx, input.id, true), input.hook_id, input.hook_log_id))),
];

// Group hooks (Owner, Premium): EE's API::GroupHooks.
const groupHookRoutes = [
  route('GET', '/groups/:id/hooks', { tier: 'premium', auth: 'required', params: ProjectHooksInput, tag: 'group_hooks', summary: 'List group hooks (Premium)' },
    async (ctx, input) => paged((await listHooks(ctx, await group(ctx, input.id, false), input)) as Page<GroupHookEntity>)),
  route('GET', '/groups/:id/hooks/:hook_id', { tier: 'premium', auth: 'required', params: ProjectHookRefInput, tag: 'group_hooks', summary: 'Get a group hook (Premium)' },
    async (ctx, input) => ok(presentHook(ctx, await findHook(ctx, await group(ctx, input.id, false), input.hook_id)) as GroupHookEntity)),
  route('POST', '/groups/:id/hooks', { tier: 'premium', auth: 'required', params: CreateGroupHookInput, tag: 'group_hooks', summary: 'Add a group hook (Premium)' },
    async (ctx, input) => created((await createHook(ctx, await group(ctx, input.id, true), input)) as GroupHookEntity)),
  route('PUT', '/groups/:id/hooks/:hook_id', { tier: 'premium', auth: 'required', params: UpdateGroupHookInput, tag: 'group_hooks', summary: 'Edit a group hook (Premium; re-enables it)' },
    async (ctx, input) => ok((await updateHook(ctx, await group(ctx, input.id, true), input.hook_id, input)) as GroupHookEntity)),
  route('DELETE', '/groups/:id/hooks/:hook_id', { tier: 'premium', auth: 'required', params: ProjectHookRefInput, tag: 'group_hooks', summary: 'Delete a group hook (Premium)' },
    async (ctx, input) => {
      await deleteHook(ctx, await group(ctx, input.id, true), input.hook_id);
      return noContent();
    }),
  route('POST', '/groups/:id/hooks/:hook_id/test/:trigger', { tier: 'premium', auth: 'required', params: TestHookInput, tag: 'group_hooks', summary: 'Send a test event to a group hook (Premium)' },
    async (ctx, input) => created(await testHook(ctx, await group(ctx, input.id, true), input.hook_id, input.trigger))),
  route('PUT', '/groups/:id/hooks/:hook_id/custom_headers/:key', { tier: 'premium', auth: 'required', params: SetHookKeyInput, tag: 'group_hooks', summary: 'Set a custom header of a group hook (Premium)' },
    async (ctx, input) => {
      await setHookKey(ctx, await group(ctx, input.id, true), input.hook_id, 'custom_headers_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/groups/:id/hooks/:hook_id/custom_headers/:key', { tier: 'premium', auth: 'required', params: HookKeyInput, tag: 'group_hooks', summary: 'Unset a custom header of a group hook (Premium)' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await group(ctx, input.id, true), input.hook_id, 'custom_headers_encrypted', input.key);
      return noContent();
    }),
  route('PUT', '/groups/:id/hooks/:hook_id/url_variables/:key', { tier: 'premium', auth: 'required', params: SetHookKeyInput, tag: 'group_hooks', summary: 'Set a URL variable of a group hook (Premium)' },
    async (ctx, input) => {
      await setHookKey(ctx, await group(ctx, input.id, true), input.hook_id, 'url_variables_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/groups/:id/hooks/:hook_id/url_variables/:key', { tier: 'premium', auth: 'required', params: HookKeyInput, tag: 'group_hooks', summary: 'Unset a URL variable of a group hook (Premium)' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await group(ctx, input.id, true), input.hook_id, 'url_variables_encrypted', input.key);
      return noContent();
    }),
  route('GET', '/groups/:id/hooks/:hook_id/events', { tier: 'premium', auth: 'required', params: HookEventsInput, tag: 'group_hooks', summary: 'Recent deliveries of a group hook (Premium)' },
    async (ctx, input) => paged(await listHookEvents(ctx, await group(ctx, input.id, false), input))),
  route('POST', '/groups/:id/hooks/:hook_id/events/:hook_log_id/resend', { tier: 'premium', auth: 'required', params: ResendHookEventInput, tag: 'group_hooks', summary: 'Resend a delivery of a group hook (Premium)' },
    async (ctx, input) => created(await resendHookEvent(ctx, await group(ctx, input.id, true), input.hook_id, input.hook_log_id))),
];

// System hooks (administrators): API::SystemHooks.
const systemHookRoutes = [
  route('GET', '/hooks', { auth: 'required', params: SystemHooksInput, tag: 'system_hooks', summary: 'List system hooks' },
    async (ctx, input) => paged(await listHooks(ctx, await system(ctx, false), input))),
  route('GET', '/hooks/:hook_id', { auth: 'required', params: SystemHookRefInput, tag: 'system_hooks', summary: 'Get a system hook' },
    async (ctx, input) => ok(presentHook(ctx, await findHook(ctx, await system(ctx, false), input.hook_id)) as HookEntity)),
  route('POST', '/hooks', { auth: 'required', params: CreateSystemHookInput, tag: 'system_hooks', summary: 'Add a system hook' },
    async (ctx, input) => created(await createHook(ctx, await system(ctx, true), input))),
  route('PUT', '/hooks/:hook_id', { auth: 'required', params: UpdateSystemHookInput, tag: 'system_hooks', summary: 'Edit a system hook' },
    async (ctx, input) => ok(await updateHook(ctx, await system(ctx, true), input.hook_id, input))),
  route('POST', '/hooks/:hook_id', { auth: 'required', params: SystemHookRefInput, tag: 'system_hooks', summary: 'Send a test event to a system hook' },
    async (ctx, input) => {
      await system(ctx, true);
      return created(await testSystemHook(ctx, input.hook_id));
    }),
  route('DELETE', '/hooks/:hook_id', { auth: 'required', params: SystemHookRefInput, tag: 'system_hooks', summary: 'Delete a system hook' },
    async (ctx, input) => {
      await deleteHook(ctx, await system(ctx, true), input.hook_id);
      return noContent();
    }),
  route('PUT', '/hooks/:hook_id/custom_headers/:key', { auth: 'required', params: SetSystemHookKeyInput, tag: 'system_hooks', summary: 'Set a custom header of a system hook' },
    async (ctx, input) => {
      await setHookKey(ctx, await system(ctx, true), input.hook_id, 'custom_headers_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/hooks/:hook_id/custom_headers/:key', { auth: 'required', params: SystemHookKeyInput, tag: 'system_hooks', summary: 'Unset a custom header of a system hook' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await system(ctx, true), input.hook_id, 'custom_headers_encrypted', input.key);
      return noContent();
    }),
  route('PUT', '/hooks/:hook_id/url_variables/:key', { auth: 'required', params: SetSystemHookKeyInput, tag: 'system_hooks', summary: 'Set a URL variable of a system hook' },
    async (ctx, input) => {
      await setHookKey(ctx, await system(ctx, true), input.hook_id, 'url_variables_encrypted', input.key, input.value);
      return noContent();
    }),
  route('DELETE', '/hooks/:hook_id/url_variables/:key', { auth: 'required', params: SystemHookKeyInput, tag: 'system_hooks', summary: 'Unset a URL variable of a system hook' },
    async (ctx, input) => {
      await unsetHookKey(ctx, await system(ctx, true), input.hook_id, 'url_variables_encrypted', input.key);
      return noContent();
    }),
];

export const webhooksRoutes = [...projectHookRoutes, ...groupHookRoutes, ...systemHookRoutes];
