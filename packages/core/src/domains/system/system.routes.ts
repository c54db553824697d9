import type { Ctx } from '../../access/context.js';
import { ok, route } from '../../kernel/route.js';
import { FORGELET_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../kernel/version.js';

/** GitLab's version answer; migration sources are checked with it. */
function versionInfo(ctx: Ctx) {
  return {
    version: GITLAB_COMPATIBLE_VERSION,
    revision: `forgelet-${FORGELET_VERSION}`,
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: ctx.config.tier !== 'free',
  };
}

const scopes = ['api', 'read_api', 'read_user'];

export const systemRoutes = [
  route('GET', '/version', { auth: 'required', tag: 'system', summary: 'Version of the instance (GitLab-compatible)', scopes },
    async (ctx) => ok(versionInfo(ctx))),
  route('GET', '/metadata', { auth: 'required', tag: 'system', summary: 'Instance metadata', scopes },
    async (ctx) => ok(versionInfo(ctx))),
];
