/**
 * Git's smart HTTP protocol at GitLab's URLs (gitprotocol-http):
 *
 *   GET  /<namespace>/<project>(.git)/info/refs?service=git-upload-pack|git-receive-pack
 *   POST /<namespace>/<project>(.git)/git-upload-pack
 *   POST /<namespace>/<project>(.git)/git-receive-pack
 *
 * Debian's `git upload-pack` / `git receive-pack --stateless-rpc` do the protocol work
 * (rather than `git http-backend`: no CGI environment to build and no CGI headers to parse,
 * and the access decision, which http-backend cannot make, stays here before git starts).
 * Bodies stream both ways: the request (already gunzipped by the server) is piped into git's
 * standard input and git's output is the response, so no pack is ever held in memory.
 * Protocol v2 (the `Git-Protocol` header) reaches git as GIT_PROTOCOL, as http-backend does.
 */
import { Readable } from 'node:stream';
import type { Actor, Ctx, Deps } from '../../access/context.js';
import { contextFor } from '../../access/context.js';
import type { JobTokenResolver } from '../../access/authenticate.js';
import type { ProjectRow } from '../../access/project.table.js';
import { text, type Reply, type StreamReply, type TextReply } from '../../kernel/route.js';
import { selectProjectByRef, selectRedirectedProject } from '../../access/lookup.js';
import { processOutput } from '../../storage/git.js';
import { parsePushOptions, type PushOptions } from '../repository/index.js';
import { applyMergeRequestPushOptions, openMergeRequestIids } from '../merge-requests/index.js';
import { BASIC_REALM, GIT_MESSAGES, gitAccessRefusal, gitActor, type GitRefusal, type GitService } from './access.js';
import { openPushSession, refUpdateRefusal, ZERO_SHA, type PushedRefUpdate } from './receive.js';

export interface GitHttpRequest {
  method: string;
  /** The URL path (still percent-encoded). */
  path: string;
  /** The query string without `?`. */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The request body, decompressed. */
  body: AsyncIterable<Uint8Array>;
}

export interface GitHttpAnswer {
  reply: Reply;
  /** Who made the request (for the access log). */
  actor: Actor;
}

/** Runs after a push moved refs, with the pusher's context (the repository domain's push processing). */
export type PushedRefsHandler = (ctx: Ctx, project: ProjectRow, updates: PushedRefUpdate[], pushOptions: PushOptions) => Promise<void>;

export interface GitHttpOptions {
  jobTokenResolver?: JobTokenResolver;
  /** What the database learns of a push (see receive.ts). */
  pushed?: PushedRefsHandler;
}

type GitAction = 'info/refs' | GitService;
const GIT_PATH = /^\/(.+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** The project path and the action of a git smart HTTP URL; null for any other path. */
export function matchGitHttpPath(path: string): { projectPath: string; action: GitAction } | null {
  const m = GIT_PATH.exec(path);
  if (!m) return null;
  let projectPath: string;
  try {
    projectPath = m[1]!.split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
  // A project is always <namespace>/<project> (a bare number would otherwise name a project id).
  const segments = projectPath.split('/');
  if (segments.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return { projectPath, action: m[2] as GitAction };
}

const NO_CACHE = { Expires: 'Fri, 01 Jan 1980 00:00:00 GMT', Pragma: 'no-cache', 'Cache-Control': 'no-cache, max-age=0, must-revalidate' };

function refusal(r: GitRefusal): TextReply {
  return text(`${r.message}\n`, 'text/plain', r.status, r.status === 401 ? { 'WWW-Authenticate': BASIC_REALM } : undefined);
}

function basicOf(header: string | undefined): { username: string; password: string } | undefined {
  if (!header) return undefined;
  const m = /^basic\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** `Git-Protocol: version=2` (and other key=value pairs git sends) for GIT_PROTOCOL; nothing unsafe passes. */
function protocolEnv(headers: GitHttpRequest['headers']): Record<string, string> {
  const value = headers['git-protocol'];
  return value && /^[\w.=:-]+$/.test(value) ? { GIT_PROTOCOL: value } : {};
}

function pktLine(line: string): string {
  return `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
}

/**
 * Runs git with the request body as input; the reply streams its output. A git that fails
 * breaks the stream (the server drops the connection) rather than ending it as if complete.
 */
function gitStream(
  deps: Deps,
  projectId: number,
  args: string[],
  options: { env: Record<string, string>; input?: AsyncIterable<Uint8Array>; prefix?: string; contentType: string; done?: () => Promise<void> },
): StreamReply {
  const child = deps.git.spawn(projectId, args, { env: options.env });
  // (Stopped when the client goes away.)
  const out = processOutput(child, `git ${args.join(' ')}`, { prefix: options.prefix, done: options.done });
  const stdin = child.stdin!;
  stdin.on('error', () => {}); // git may stop reading early; its exit code tells
  if (options.input) {
    const input = Readable.from(options.input);
    input.on('error', () => child.kill());
    input.pipe(stdin);
  } else stdin.end();
  return { kind: 'stream', status: 200, body: out, contentType: options.contentType, headers: NO_CACHE };
}

/**
 * GitLab's post-receive notes (git prints them as `remote:` lines): for each pushed branch
 * other than the default one, its open merge request ("View merge request for ...") or, for a
 * new branch without one, where to open it (MergeRequests::GetUrlsService).
 */
async function mergeRequestNotes(ctx: Ctx, project: ProjectRow, updates: PushedRefUpdate[]): Promise<string[]> {
  const lines: string[] = [];
  const branches = updates.filter((u) => u.ref.startsWith('refs/heads/') && u.newSha !== ZERO_SHA).map((u) => ({ branch: u.ref.slice('refs/heads/'.length), created: u.oldSha === ZERO_SHA }));
  const pushed = branches.filter((b) => b.branch !== project.default_branch);
  if (!pushed.length || !project.merge_requests_enabled) return lines;
  const open = await openMergeRequestIids(ctx, project.id, pushed.map((b) => b.branch));
  for (const { branch, created } of pushed) {
    const iid = open.get(branch);
    if (iid !== undefined) lines.push('', `View merge request for ${branch}:`, `  ${ctx.urls.web(`/${project.path_with_namespace}/-/merge_requests/${iid}`)}`);
    else if (created) lines.push('', `To create a merge request for ${branch}, visit:`, `  ${ctx.urls.web(`/${project.path_with_namespace}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${encodeURIComponent(branch)}`)}`);
  }
  return lines;
}

/** GitLab's ContainerMoved message (lib/gitlab/checks/container_moved.rb) for a push at a project's old path. */
export function projectMovedMessage(deps: Deps, oldPath: string, project: ProjectRow): string {
  return [
    `Project '${oldPath}' was moved to '${project.path_with_namespace}'.`,
    '',
    'Please update your Git remote:',
    '',
    `  git remote set-url origin ${deps.urls.web(`/${project.path_with_namespace}`)}.git`,
  ].join('\n');
}

/** GitLab's warning for push options that could not be applied (API::Helpers::InternalHelpers#push_options_warning). */
function pushOptionsWarning(raw: string[], errors: string[]): string {
  return `WARNINGS:\nError encountered with push options ${raw.map((o) => `'${o}'`).join(' ')}: ${errors.join('\n\n')}`;
}

/** Serves one git smart HTTP request (after `matchGitHttpPath` matched its path). */
export async function serveGitHttp(deps: Deps, options: GitHttpOptions, req: GitHttpRequest): Promise<GitHttpAnswer> {
  const matched = matchGitHttpPath(req.path)!;
  const actor = await gitActor(deps, basicOf(req.headers.authorization), options.jobTokenResolver);
  if (!actor) return { reply: refusal({ status: 401, message: GIT_MESSAGES.accessDenied }), actor: { kind: 'anonymous', user: null, token: null, isAdmin: false } };
  const answer = (reply: Reply): GitHttpAnswer => ({ reply, actor });

  let service: GitService;
  if (matched.action === 'info/refs') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(text('Method Not Allowed\n', 'text/plain', 405));
    const named = new URLSearchParams(req.query).get('service');
    // The dumb protocol (no service) is not served, as GitLab does not.
    if (named !== 'git-upload-pack' && named !== 'git-receive-pack') return answer(text('Unsupported service\n', 'text/plain', 403));
    service = named;
  } else {
    if (req.method !== 'POST') return answer(text('Method Not Allowed\n', 'text/plain', 405));
    service = matched.action;
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== `application/x-${service}-request`) return answer(text('Unsupported Media Type\n', 'text/plain', 415));
  }

  const ctx = contextFor(deps, actor);
  const current = await selectProjectByRef(deps, matched.projectPath);
  const project = current ?? (await selectRedirectedProject(deps, matched.projectPath));
  // Reached by a path the project had before a rename or transfer (GitLab's redirect routes).
  const movedFrom = !current && project ? matched.projectPath : null;
  const refused = await gitAccessRefusal(ctx, project, service);
  if (refused) return answer(refusal(refused));
  const repo = project!;
  await deps.git.ensure(repo.id, repo.default_branch);
  const command = service.slice('git-'.length);

  if (matched.action === 'info/refs') {
    const env = service === 'git-upload-pack' ? protocolEnv(req.headers) : {};
    // Protocol v2 starts with the capability advertisement, without the service line.
    const v2 = env.GIT_PROTOCOL?.split(':').includes('version=2') ?? false;
    return answer(
      gitStream(deps, repo.id, [command, '--stateless-rpc', '--advertise-refs', '.'], {
        env,
        prefix: v2 ? undefined : `${pktLine(`# service=${service}\n`)}0000`,
        contentType: `application/x-${service}-advertisement`,
      }),
    );
  }
  if (service === 'git-upload-pack') {
    return answer(gitStream(deps, repo.id, ['upload-pack', '--stateless-rpc', '.'], { env: protocolEnv(req.headers), input: req.body, contentType: 'application/x-git-upload-pack-result' }));
  }
  const session = await openPushSession(ctx, {
    async check(updates, env) {
      for (const update of updates) {
        const message = await refUpdateRefusal(ctx, repo, update, env);
        if (message !== null) return message;
      }
      return null;
    },
    async received(updates, rawOptions) {
      const pushOptions = parsePushOptions(rawOptions);
      if (options.pushed && updates.length) await options.pushed(ctx, repo, updates, pushOptions);
      const lines: string[] = [];
      if (pushOptions.merge_request) {
        const branches = updates.filter((u) => u.ref.startsWith('refs/heads/') && u.newSha !== ZERO_SHA).map((u) => ({ branch: u.ref.slice('refs/heads/'.length), created: u.oldSha === ZERO_SHA }));
        const errors = await applyMergeRequestPushOptions(ctx, repo, branches, pushOptions);
        if (errors.length) lines.push('', pushOptionsWarning(rawOptions, errors));
      }
      lines.push(...(await mergeRequestNotes(ctx, repo, updates)));
      if (movedFrom) lines.push('', projectMovedMessage(deps, movedFrom, repo));
      return lines.length ? [...lines, ''].join('\n') : null;
    },
  });
  try {
    return answer(
      gitStream(deps, repo.id, ['-c', `core.hooksPath=${session.hooksDir}`, 'receive-pack', '--stateless-rpc', '.'], {
        env: session.env,
        input: req.body,
        contentType: 'application/x-git-receive-pack-result',
        done: () => session.close(),
      }),
    );
  } catch (err) {
    await session.close();
    throw err;
  }
}
