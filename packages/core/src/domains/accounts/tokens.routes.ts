import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as tokens from './tokens.js';

const tokenRef = p.string().regex(/^(self|\d+)$/);
const asRef = (id: string) => (id === 'self' ? 'self' : Number(id));

const resourceTokenRoutes = (kind: 'project' | 'group') => {
  const base = `/${kind}s/:id/access_tokens`;
  const one = params({ id: p.string(), token_id: p.id() });
  const label = kind === 'project' ? 'project' : 'group';
  return [
    route('GET', base, { auth: 'required', params: tokens.ListResourceAccessTokensInput, tag: `${label}_access_tokens`, summary: `List ${label} access tokens` },
      async (ctx, input) => paged(await tokens.listResourceAccessTokens(ctx, kind, input))),
    route('POST', base, { auth: 'required', params: tokens.CreateResourceAccessTokenInput, tag: `${label}_access_tokens`, summary: `Create a ${label} access token` },
      async (ctx, input) => created(await tokens.createResourceAccessToken(ctx, kind, input))),
    route('GET', `${base}/:token_id`, { auth: 'required', params: one, tag: `${label}_access_tokens`, summary: `Get a ${label} access token` },
      async (ctx, { id, token_id }) => ok(await tokens.getResourceAccessToken(ctx, kind, id, token_id))),
    route('DELETE', `${base}/:token_id`, { auth: 'required', params: one, tag: `${label}_access_tokens`, summary: `Revoke a ${label} access token` },
      async (ctx, { id, token_id }) => {
        await tokens.revokeResourceAccessToken(ctx, kind, id, token_id);
        return noContent();
      }),
    route('POST', `${base}/:token_id/rotate`, {
      auth: 'required', params: params({ id: p.string(), token_id: p.id(), expires_at: p.date().optional() }), tag: `${label}_access_tokens`, summary: `Rotate a ${label} access token`,
    }, async (ctx, { id, token_id, expires_at }) => ok(await tokens.rotateResourceAccessToken(ctx, kind, id, token_id, expires_at))),
  ];
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
    auth: 'required', params: params({ token_id: tokenRef, expires_at: p.date().optional() }), tag: 'personal_access_tokens', summary: 'Rotate a personal access token (or self)',
    scopes: ['api', 'self_rotate'],
  }, async (ctx, { token_id, expires_at }) => ok(await tokens.rotatePersonalAccessToken(ctx, asRef(token_id), expires_at))),
  ...resourceTokenRoutes('project'),
  ...resourceTokenRoutes('group'),
];
