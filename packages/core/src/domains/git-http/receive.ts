/**
 * What happens around `git receive-pack`: the pre-receive check that accepts or refuses each
 * ref update before any ref moves (GitLab's Gitlab::Checks::BranchCheck, run by its
 * /internal/allowed API while the pushed objects sit in quarantine), and the post-receive
 * step that hands the moved refs to the repository domain.
 *
 * Git runs both hooks; each is a few lines of JavaScript (run by this process's node) that
 * sends its standard input and the quarantine environment over a Unix socket that exists for
 * the one push, and prints the answer. So the decisions are made here, with the request's
 * actor, and a hook can never act for another push.
 */
import { createServer, type Server } from 'node:net';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ctx } from '../../access/context.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { canOnBranch, protectionsOf, type RefUpdate } from '../repository/index.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** One pushed ref update, as git's hooks read them: old and new object ids and the full ref name. */
export interface PushedRefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

/** Branch and tag updates in the repository domain's terms (other refs, e.g. refs/merge-requests/*, are git's own business). */
export function toRefUpdates(updates: PushedRefUpdate[]): RefUpdate[] {
  const out: RefUpdate[] = [];
  for (const u of updates) {
    const kind = u.ref.startsWith('refs/heads/') ? 'branch' : u.ref.startsWith('refs/tags/') ? 'tag' : null;
    if (!kind) continue;
    out.push({
      kind,
      name: u.ref.slice(kind === 'branch' ? 'refs/heads/'.length : 'refs/tags/'.length),
      before: u.oldSha === ZERO_SHA ? null : u.oldSha,
      after: u.newSha === ZERO_SHA ? null : u.newSha,
    });
  }
  return out;
}

/** GitLab's texts (lib/gitlab/checks/branch_check.rb). */
export const PUSH_MESSAGES = {
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtectedBranch: 'You are not allowed to force push code to a protected branch on this project.',
  deleteProtectedBranch: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  nonWebDeleteProtectedBranch: 'You can only delete protected branches using the web interface.',
  pushProtectedBranch: 'You are not allowed to push code to protected branches on this project.',
  createProtectedBranch: 'You are not allowed to create protected branches on this project.',
} as const;

export function parseRefUpdates(text: string): PushedRefUpdate[] {
  const out: PushedRefUpdate[] = [];
  for (const line of text.split('\n')) {
    const [oldSha, newSha, ref] = line.trim().split(' ');
    if (oldSha && newSha && ref) out.push({ oldSha, newSha, ref });
  }
  return out;
}

/** The quarantine environment git gives its pre-receive hook (the pushed objects are only there). */
export type QuarantineEnv = Record<string, string>;

/** Is the update a force push (the old commit not an ancestor of the new one)? */
async function isForcePush(ctx: Ctx, project: ProjectRow, update: PushedRefUpdate, env: QuarantineEnv): Promise<boolean> {
  if (update.oldSha === ZERO_SHA || update.newSha === ZERO_SHA) return false;
  const result = await ctx.git.run(project.id, ['merge-base', '--is-ancestor', update.oldSha, update.newSha], { env, okCodes: [0, 1] });
  return result.code === 1;
}

/** Null when the update may go in; else GitLab's message. */
export async function refUpdateRefusal(ctx: Ctx, project: ProjectRow, update: PushedRefUpdate, env: QuarantineEnv): Promise<string | null> {
  if (!update.ref.startsWith('refs/heads/')) return null;
  const branch = update.ref.slice('refs/heads/'.length);
  const deletion = update.newSha === ZERO_SHA;
  if (deletion && branch === project.default_branch) return PUSH_MESSAGES.deleteDefaultBranch;
  const rules = await protectionsOf(ctx.db, project.id, branch);
  if (!rules.length) return null;
  if (deletion) {
    const maintainer = await can(ctx, 'admin_protected_branch', { kind: 'project', project });
    return maintainer ? PUSH_MESSAGES.nonWebDeleteProtectedBranch : PUSH_MESSAGES.deleteProtectedBranch;
  }
  const mayPush = await canOnBranch(ctx, project, branch, 'push');
  if (update.oldSha === ZERO_SHA) {
    if (mayPush || (await canOnBranch(ctx, project, branch, 'merge'))) return null;
    return PUSH_MESSAGES.createProtectedBranch;
  }
  if ((await isForcePush(ctx, project, update, env)) && !rules.some((r) => r.allow_force_push === 1)) return PUSH_MESSAGES.forcePushProtectedBranch;
  return mayPush ? null : PUSH_MESSAGES.pushProtectedBranch;
}

/** What the hooks ask: which hook, its standard input, its quarantine environment. */
interface HookRequest {
  hook: 'pre-receive' | 'post-receive';
  stdin: string;
  env: QuarantineEnv;
}
interface HookAnswer {
  ok: boolean;
  message?: string;
  /** Print the message as it is (post-receive's notes), not as `GitLab: ` errors. */
  plain?: boolean;
}

/**
 * The hooks' program (run as `node -e`): reads the hook's standard input, asks the push's
 * socket, prints the message and exits with the verdict. Without a socket (a push that did not
 * come through Forgelet, e.g. an administrator on the server) it accepts.
 */
const HOOK_JS = `
const net = require('net');
const sock = process.env.FORGELET_HOOK_SOCKET;
if (!sock) process.exit(0);
const input = [];
process.stdin.on('data', (c) => input.push(c));
process.stdin.on('end', () => {
  const env = {};
  for (const k of ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH']) if (process.env[k]) env[k] = process.env[k];
  const out = [];
  const s = net.connect({ path: sock, allowHalfOpen: true });
  s.on('data', (c) => out.push(c));
  s.on('error', () => { process.stderr.write('GitLab: Internal API unreachable\\n'); process.exit(1); });
  s.on('end', () => {
    let answer;
    try { answer = JSON.parse(Buffer.concat(out).toString('utf8')); } catch { answer = { ok: false, message: 'Internal API error' }; }
    if (answer.message) process.stderr.write(answer.message.split('\\n').map((l) => (answer.plain ? '' : 'GitLab: ') + l + '\\n').join(''));
    process.exit(answer.ok ? 0 : 1);
  });
  s.end(JSON.stringify({ hook: process.argv[1], stdin: Buffer.concat(input).toString('utf8'), env }));
});
`;

const HOOK_SH = (name: string) => `#!/bin/sh\n# Forgelet: asks the server that runs this push (see domains/git-http/receive.ts).\n[ -n "$FORGELET_HOOK_SOCKET" ] || exit 0\nexec "$FORGELET_NODE" -e "$FORGELET_HOOK_JS" ${name}\n`;

/** The hooks directory (`core.hooksPath` of every receive-pack), written once per process when missing or different. */
const hooksDirs = new Map<string, Promise<string>>();
export function ensureHooksDir(root: string): Promise<string> {
  let pending = hooksDirs.get(root);
  if (!pending) {
    pending = (async () => {
      const dir = join(root, '.forgelet-hooks');
      await mkdir(dir, { recursive: true });
      for (const name of ['pre-receive', 'post-receive']) {
        const file = join(dir, name);
        const content = HOOK_SH(name);
        const current = await readFile(file, 'utf8').catch(() => null);
        if (current === content) continue;
        // Written aside and renamed: another process may be running the hook right now.
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, content);
        await chmod(temporary, 0o755);
        await rename(temporary, file);
      }
      return dir;
    })();
    pending.catch(() => hooksDirs.delete(root));
    hooksDirs.set(root, pending);
  }
  return pending;
}

export interface PushSession {
  /** The environment for `git receive-pack` (its hooks inherit it). */
  env: Record<string, string>;
  /** `core.hooksPath` for the receive-pack. */
  hooksDir: string;
  /** The updates that went in (after post-receive). */
  accepted: PushedRefUpdate[];
  close(): Promise<void>;
}

/**
 * Opens the socket one push's hooks call. `check` decides pre-receive (a message refuses the
 * whole push, as GitLab's hook does); `received` runs at post-receive, before git answers the
 * client, so a client that sees its push done sees the database updated too.
 */
export async function openPushSession(
  ctx: Ctx,
  handlers: {
    check: (updates: PushedRefUpdate[], env: QuarantineEnv) => Promise<string | null>;
    /** May return lines for git to print (GitLab's "To create a merge request" note). */
    received: (updates: PushedRefUpdate[]) => Promise<string | null>;
  },
): Promise<PushSession> {
  const hooksDir = await ensureHooksDir(ctx.git.root);
  const dir = await mkdtemp(join(tmpdir(), 'forgelet-push-'));
  const socketPath = join(dir, 's');
  const accepted: PushedRefUpdate[] = [];
  const answer = async (request: HookRequest): Promise<HookAnswer> => {
    const updates = parseRefUpdates(request.stdin);
    if (request.hook === 'pre-receive') {
      const message = await handlers.check(updates, request.env ?? {});
      return message === null ? { ok: true } : { ok: false, message };
    }
    accepted.push(...updates);
    const note = await handlers.received(updates);
    return note ? { ok: true, message: note, plain: true } : { ok: true };
  };
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('end', () => {
      let request: HookRequest;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as HookRequest;
      } catch {
        socket.end(JSON.stringify({ ok: false, message: 'Internal API error' }));
        return;
      }
      answer(request).then(
        (a) => socket.end(JSON.stringify(a)),
        (err: unknown) => {
          // The push's refs stay as git left them; the message says what failed, never a secret.
          socket.end(JSON.stringify({ ok: false, message: `Internal error: ${err instanceof Error ? err.message.split('\n')[0] : 'unknown'}` }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    env: { FORGELET_HOOK_SOCKET: socketPath, FORGELET_NODE: process.execPath, FORGELET_HOOK_JS: HOOK_JS },
    hooksDir,
    accepted,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
