import type { Ctx } from '../../access/context.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import * as deploy from './deploy-tokens.js';

const remove = (kind: deploy.DeployTokenOwner) => async (ctx: Ctx, input: deploy.DeployTokenRefInput) => {
  await deploy.deleteDeployToken(ctx, kind, input);
  return noContent();
};

export const deployTokenRoutes = [
  route('GET', '/deploy_tokens', { auth: 'admin', params: deploy.ListAllDeployTokensInput, tag: 'deploy_tokens', summary: 'List every deploy token (admin)' },
    async (ctx, input) => paged(await deploy.listAllDeployTokens(ctx, input))),

  route('GET', '/projects/:id/deploy_tokens', { auth: 'required', params: deploy.ListDeployTokensInput, tag: 'deploy_tokens', summary: "List a project's deploy tokens" },
    async (ctx, input) => paged(await deploy.listDeployTokens(ctx, 'project', input))),
  route('POST', '/projects/:id/deploy_tokens', { auth: 'required', params: deploy.CreateDeployTokenInput, tag: 'deploy_tokens', summary: 'Create a project deploy token' },
    async (ctx, input) => created(await deploy.createDeployToken(ctx, 'project', input))),
  route('GET', '/projects/:id/deploy_tokens/:token_id', { auth: 'required', params: deploy.DeployTokenRefInput, tag: 'deploy_tokens', summary: 'Get a project deploy token' },
    async (ctx, input) => ok(await deploy.getDeployToken(ctx, 'project', input))),
  route('DELETE', '/projects/:id/deploy_tokens/:token_id', { auth: 'required', params: deploy.DeployTokenRefInput, tag: 'deploy_tokens', summary: 'Delete a project deploy token' },
    remove('project')),

  route('GET', '/groups/:id/deploy_tokens', { auth: 'required', params: deploy.ListDeployTokensInput, tag: 'deploy_tokens', summary: "List a group's deploy tokens" },
    async (ctx, input) => paged(await deploy.listDeployTokens(ctx, 'group', input))),
  route('POST', '/groups/:id/deploy_tokens', { auth: 'required', params: deploy.CreateDeployTokenInput, tag: 'deploy_tokens', summary: 'Create a group deploy token' },
    async (ctx, input) => created(await deploy.createDeployToken(ctx, 'group', input))),
  route('GET', '/groups/:id/deploy_tokens/:token_id', { auth: 'required', params: deploy.DeployTokenRefInput, tag: 'deploy_tokens', summary: 'Get a group deploy token' },
    async (ctx, input) => ok(await deploy.getDeployToken(ctx, 'group', input))),
  route('DELETE', '/groups/:id/deploy_tokens/:token_id', { auth: 'required', params: deploy.DeployTokenRefInput, tag: 'deploy_tokens', summary: 'Delete a group deploy token' },
    remove('group')),
];
