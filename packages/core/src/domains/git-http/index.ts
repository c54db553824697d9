/** Git over smart HTTP at GitLab's URLs: clone, fetch and push, with GitLab's credentials, access rules and push checks. */
export { matchGitHttpPath, serveGitHttp, type GitHttpAnswer, type GitHttpOptions, type GitHttpRequest, type PushedRefsHandler } from './transport.js';
export { toRefUpdates, ZERO_SHA, type PushedRefUpdate } from './receive.js';
