/**
 * Who may fetch from or push to a project over git's smart HTTP, as GitLab's
 * `Repositories::GitHttpClientController` and `Gitlab::GitAccess` decide it:
 *
 * - credentials are HTTP Basic only: `gitlab-ci-token` + a CI job token; any username + a
 *   personal, project or group access token (`oauth2:<token>` included); a deploy token's
 *   username + the token; a username + the user's password; none (anonymous);
 * - a token needs `read_repository`, `write_repository` or `api` to fetch and
 *   `write_repository` or `api` to push (deploy tokens: `read_repository` / `write_repository`);
 * - fetching needs `read_code` (public projects for anyone, internal for signed-in users,
 *   Reporter+ on private ones, a job of a project the job token scope lets in);
 *   pushing needs `push_code` (Developer+); CI jobs never push;
 * - who cannot see the project gets 401 with GitLab's Basic challenge when anonymous (so git
 *   asks for credentials), else 404; who sees it without the ability gets 403 with GitLab's text.
 */
import { sql } from 'kysely';
import type { Actor, Ctx, Deps } from '../../access/context.js';
import { ANONYMOUS } from '../../access/context.js';
import { actorFromAccessToken, actorFromDeployToken, type JobTokenResolver } from '../../access/authenticate.js';
import { verifyUserPassword } from '../../access/passwords.js';
import { can, canRead } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { isDomainError } from '../../kernel/errors.js';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** GitLab's texts (lib/gitlab/git_access.rb, git_http_client_controller.rb). */
export const GIT_MESSAGES = {
  accessDenied:
    "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped.",
  projectNotFound: "The project you were looking for could not be found or you don't have permission to view it.",
  download: 'You are not allowed to download code from this project.',
  upload: 'You are not allowed to push code to this project.',
  ciUpload: 'You are not allowed to upload code.',
  deployTokenUpload: 'This deploy token does not have write access to this project.',
} as const;

export const BASIC_REALM = 'Basic realm="GitLab"';

/** The answer of a refused request (text/plain; git prints it as `remote:` lines). */
export interface GitRefusal {
  status: 401 | 403 | 404;
  message: string;
}

/** Resolves HTTP Basic credentials to an actor; null when they are wrong (401). */
export async function gitActor(deps: Deps, basic: { username: string; password: string } | undefined, jobTokenResolver?: JobTokenResolver): Promise<Actor | null> {
  if (!basic) return ANONYMOUS;
  const { username, password } = basic;
  if (password === '') return null;
  try {
    if (username === 'gitlab-ci-token') return (jobTokenResolver ? await jobTokenResolver(deps, password) : null) ?? null;
    try {
      // Any username with an access token (GitLab's personal_access_token_check ignores the login).
      return await actorFromAccessToken(deps, password);
    } catch (err) {
      if (!isDomainError(err)) throw err;
    }
    try {
      return await actorFromDeployToken(deps, password, username);
    } catch (err) {
      if (!isDomainError(err)) throw err;
    }
    const user = await deps.db.selectFrom('users').selectAll().where(sql`lower(username)`, '=', username.toLowerCase()).executeTakeFirst();
    if (user && user.state === 'active' && (await verifyUserPassword(deps.db, user.id, password))) {
      return { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 };
    }
    return null;
  } catch (err) {
    if (isDomainError(err)) return null;
    throw err;
  }
}

const FETCH_SCOPES = ['api', 'read_repository', 'write_repository'];
const PUSH_SCOPES = ['api', 'write_repository'];

/** Null when the actor may use the service on the project; else the refusal. */
export async function gitAccessRefusal(ctx: Ctx, project: ProjectRow | undefined, service: GitService): Promise<GitRefusal | null> {
  const actor = ctx.actor;
  const anonymous = actor.kind === 'anonymous';
  const push = service === 'git-receive-pack';
  if (!project || !(await canRead(ctx, { kind: 'project', project }))) {
    return anonymous ? { status: 401, message: GIT_MESSAGES.accessDenied } : { status: 404, message: GIT_MESSAGES.projectNotFound };
  }
  // Pushing always needs credentials: git asks for them.
  if (push && anonymous) return { status: 401, message: GIT_MESSAGES.accessDenied };
  const subject = { kind: 'project' as const, project };
  if (actor.deployToken) {
    const scope = push ? 'write_repository' : 'read_repository';
    // canRead above kept the token to its project or group.
    if (actor.deployToken.scopes.includes(scope)) return null;
    return { status: 403, message: push ? GIT_MESSAGES.deployTokenUpload : GIT_MESSAGES.download };
  }
  if (actor.job) {
    if (push) return { status: 403, message: GIT_MESSAGES.ciUpload };
    return (await can(ctx, 'read_code', subject)) ? null : { status: 403, message: GIT_MESSAGES.download };
  }
  if (actor.token && !actor.token.scopes.some((s) => (push ? PUSH_SCOPES : FETCH_SCOPES).includes(s))) {
    // A token without a repository scope is refused as GitLab does: as wrong credentials.
    return { status: 401, message: GIT_MESSAGES.accessDenied };
  }
  if (!(await can(ctx, 'read_code', subject))) return { status: 403, message: GIT_MESSAGES.download };
  if (push && !(await can(ctx, 'push_code', subject))) return { status: 403, message: GIT_MESSAGES.upload };
  return null;
}
