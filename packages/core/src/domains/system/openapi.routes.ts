/** `GET /openapi.json`: the OpenAPI 3.1 document of every route, built once per forge and cached. */
import { buildOpenApi } from '../../kernel/openapi.js';
import { route, text, type Route } from '../../kernel/route.js';
import { FORGELET_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../kernel/version.js';

/** The route serving the document of `routes()` (read on first request, so late additions are included). */
export function createOpenApiRoutes(routes: () => readonly Route[]): Route[] {
  // The external URL may change after listen: the text is rebuilt only when it does.
  let cached: { url: string; body: string } | null = null;
  return [
    route('GET', '/openapi.json', { auth: 'none', tag: 'system', summary: 'OpenAPI 3.1 document of this API' }, async (ctx) => {
      const url = ctx.urls.api('/').replace(/\/+$/, '');
      if (cached?.url !== url) {
        const doc = buildOpenApi(routes(), { serverUrl: url, version: FORGELET_VERSION, gitlabVersion: GITLAB_COMPATIBLE_VERSION });
        cached = { url, body: JSON.stringify(doc) };
      }
      return text(cached.body, 'application/json');
    }),
  ];
}
