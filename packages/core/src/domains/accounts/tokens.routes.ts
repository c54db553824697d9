import type { Ctx } from '../../access/context.js';
import { p, params, type Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as tokens from './tokens.js';
import * as impersonation from './impersonation-tokens.js';

const tokenRef = p.string().regex(/^(self|\d+)$/);
const asRef = (id: string) => (id === 'self' ? 'self' : Number(id));

const one = params({ id: p.string(), token_id: p.id() });
const rotateFields = {
  expires_at: p.date().optional().describe('Expiry of the new token (default: one week from today).'),
  keep_token_lifetime: p.boolean().optional().describe('The new token lives as long as the old one did.'),
};
const RotateResourceTokenInput = params({ id: p.string(), token_id: p.id(), ...rotateFields }, { mutuallyExclusive: [['expires_at', 'keep_token_lifetime']] });

/** `DELETE …/access_tokens/:token_id`, the same under projects and groups. */
const revokeResourceToken = (kind: 'project' | 'group') => async (ctx: Ctx, { id, token_id }: Infer<typeof one>) => {
  await tokens.revokeResourceAccessToken(ctx, kind, id, token_id);
  return noContent();
};

export const tokenRoutes = [
  route('POST', '/users/:user_id/personal_access_tokens', { auth: 'admin', params: tokens.CreatePersonalAccessTokenInput, tag: 'personal_access_tokens', summary: 'Create a personal access token for a user (admin)' },
    async (ctx, input) => created(await tokens.createPersonalAccessToken(ctx, input))),
  route('GET', '/personal_access_tokens', { auth: 'required', params: tokens.ListPersonalAccessTokensInput, tag: 'personal_access_tokens', summary: 'List personal access tokens' },
    async (ctx, input) => paged(await tokens.listPersonalAccessTokens(ctx, input))),
  route('GET', '/personal_access_tokens/:token_id', {
    auth: 'required', params: params({ token_id: tokenRef }), tag: 'personal_access_tokens', summary: 'Get a personal access token (or self)',
    scopes: ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'ai_features', 'k8s_proxy', 'self_rotate', 'create_runner', 'manage_runner', 'sudo', 'admin_mode', 'read_service_ping'],
  }, async (ctx, { token_id }) => ok(await tokens.getPersonalAccessToken(ctx, asRef(token_id)))),
  route('DELETE', '/personal_access_tokens/:token_id', { auth: 'required', params: params({ token_id: tokenRef }), tag: 'personal_access_tokens', summary: 'Revoke a personal access token (or self)' },
    async (ctx, { token_id }) => {
      await tokens.revokePersonalAccessToken(ctx, asRef(token_id));
      return noContent();
    }),
  route('POST', '/personal_access_tokens/:token_id/rotate', {
    auth: 'required', params: params({ token_id: tokenRef, ...rotateFields }, { mutuallyExclusive: [['expires_at', 'keep_token_lifetime']] }), tag: 'personal_access_tokens', summary: 'Rotate a personal access token (or self)',
    scopes: ['api', 'self_rotate'],
  }, async (ctx, { token_id, expires_at, keep_token_lifetime }) =>
    ok(await tokens.rotatePersonalAccessToken(ctx, asRef(token_id), { expiresAt: expires_at, keepTokenLifetime: keep_token_lifetime }))),

  route('GET', '/projects/:id/access_tokens', { auth: 'required', params: tokens.ListResourceAccessTokensInput, tag: 'project_access_tokens', summary: 'List project access tokens' },
    async (ctx, input) => paged(await tokens.listResourceAccessTokens(ctx, 'project', input))),
  route('POST', '/projects/:id/access_tokens', { auth: 'required', params: tokens.CreateResourceAccessTokenInput, tag: 'project_access_tokens', summary: 'Create a project access token' },
    async (ctx, input) => created(await tokens.createResourceAccessToken(ctx, 'project', input))),
  route('GET', '/projects/:id/access_tokens/:token_id', { auth: 'required', params: one, tag: 'project_access_tokens', summary: 'Get a project access token' },
    async (ctx, { id, token_id }) => ok(await tokens.getResourceAccessToken(ctx, 'project', id, token_id))),
  route('DELETE', '/projects/:id/access_tokens/:token_id', { auth: 'required', params: one, tag: 'project_access_tokens', summary: 'Revoke a project access token' },
    revokeResourceToken('project')),
  route('POST', '/projects/:id/access_tokens/:token_id/rotate', { auth: 'required', params: RotateResourceTokenInput, tag: 'project_access_tokens', summary: 'Rotate a project access token' },
    async (ctx, { id, token_id, expires_at, keep_token_lifetime }) =>
      ok(await tokens.rotateResourceAccessToken(ctx, 'project', id, token_id, { expiresAt: expires_at, keepTokenLifetime: keep_token_lifetime }))),

  route('GET', '/groups/:id/access_tokens', { auth: 'required', params: tokens.ListResourceAccessTokensInput, tag: 'group_access_tokens', summary: 'List group access tokens' },
    async (ctx, input) => paged(await tokens.listResourceAccessTokens(ctx, 'group', input))),
  route('POST', '/groups/:id/access_tokens', { auth: 'required', params: tokens.CreateResourceAccessTokenInput, tag: 'group_access_tokens', summary: 'Create a group access token' },
    async (ctx, input) => created(await tokens.createResourceAccessToken(ctx, 'group', input))),
  route('GET', '/groups/:id/access_tokens/:token_id', { auth: 'required', params: one, tag: 'group_access_tokens', summary: 'Get a group access token' },
    async (ctx, { id, token_id }) => ok(await tokens.getResourceAccessToken(ctx, 'group', id, token_id))),
  route('DELETE', '/groups/:id/access_tokens/:token_id', { auth: 'required', params: one, tag: 'group_access_tokens', summary: 'Revoke a group access token' },
    revokeResourceToken('group')),
  route('POST', '/groups/:id/access_tokens/:token_id/rotate', { auth: 'required', params: RotateResourceTokenInput, tag: 'group_access_tokens', summary: 'Rotate a group access token' },
    async (ctx, { id, token_id, expires_at, keep_token_lifetime }) =>
      ok(await tokens.rotateResourceAccessToken(ctx, 'group', id, token_id, { expiresAt: expires_at, keepTokenLifetime: keep_token_lifetime }))),
];

export const impersonationTokenRoutes = [
  route('GET', '/users/:user_id/impersonation_tokens', { auth: 'admin', params: impersonation.ListImpersonationTokensInput, tag: 'users', summary: "List a user's impersonation tokens (admin)" },
    async (ctx, input) => paged(await impersonation.listImpersonationTokens(ctx, input))),
  route('POST', '/users/:user_id/impersonation_tokens', { auth: 'admin', params: impersonation.CreateImpersonationTokenInput, tag: 'users', summary: 'Create an impersonation token (admin)' },
    async (ctx, input) => created(await impersonation.createImpersonationToken(ctx, input))),
  route('GET', '/users/:user_id/impersonation_tokens/:impersonation_token_id', { auth: 'admin', params: impersonation.ImpersonationTokenRefInput, tag: 'users', summary: 'Get an impersonation token (admin)' },
    async (ctx, input) => ok(await impersonation.getImpersonationToken(ctx, input))),
  route('DELETE', '/users/:user_id/impersonation_tokens/:impersonation_token_id', { auth: 'admin', params: impersonation.ImpersonationTokenRefInput, tag: 'users', summary: 'Revoke an impersonation token (admin)' },
    async (ctx, input) => {
      await impersonation.revokeImpersonationToken(ctx, input);
      return noContent();
    }),
];
