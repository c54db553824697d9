import { ok, route } from '../../kernel/route.js';
import { FORGELET_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../version.js';

export const systemRoutes = [
  route('GET', '/version', { auth: 'required', tag: 'system', summary: 'Version of the instance (GitLab-compatible)', scopes: ['api', 'read_api', 'read_user'] },
    async (ctx) =>
      ok({
        version: GITLAB_COMPATIBLE_VERSION,
        revision: `forgelet-${FORGELET_VERSION}`,
        kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
        enterprise: ctx.config.tier !== 'free',
      })),
  route('GET', '/metadata', { auth: 'required', tag: 'system', summary: 'Instance metadata', scopes: ['api', 'read_api', 'read_user'] },
    async (ctx) =>
      ok({
        version: GITLAB_COMPATIBLE_VERSION,
        revision: `forgelet-${FORGELET_VERSION}`,
        kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
        enterprise: ctx.config.tier !== 'free',
      })),
];
