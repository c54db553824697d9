/**
 * What happens around `git receive-pack`: the pre-receive check that accepts or refuses each
 * ref update before any ref moves (GitLab's Gitlab::Checks::BranchCheck, run by its
 * /internal/allowed API while the pushed objects sit in quarantine), and the post-receive
 * step that hands the moved refs to the repository domain.
 *
 * Git runs both hooks; each is a small POSIX shell script that sends its standard input, the
 * quarantine environment and the push options over FIFOs that exist for the one push, and
 * prints the answer. So the decisions are made here, with the request's actor, and a hook can
 * never act for another push.
 */
import { execFile } from 'node:child_process';
import { closeSync, constants as fsConstants, openSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ctx } from '../../access/context.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { canCreateTag, canOnBranch, protectionsOf, tagProtectionsOf, TAG_MESSAGES, type RefUpdate } from '../repository/index.js';

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
  if (update.ref.startsWith('refs/tags/')) return tagUpdateRefusal(ctx, project, update);
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

/** GitLab's Gitlab::Checks::TagCheck: the default branch's name, and protected tags (created only by whom their rules admit, never updated, never deleted by push). */
async function tagUpdateRefusal(ctx: Ctx, project: ProjectRow, update: PushedRefUpdate): Promise<string | null> {
  const tag = update.ref.slice('refs/tags/'.length);
  const creation = update.oldSha === ZERO_SHA;
  const deletion = update.newSha === ZERO_SHA;
  if (creation && tag === project.default_branch) return TAG_MESSAGES.defaultBranchCollision;
  if (!(await tagProtectionsOf(ctx.db, project.id, tag)).length) return null;
  if (!creation && !deletion) return TAG_MESSAGES.updateProtectedTag;
  if (deletion) {
    const maintainer = await can(ctx, 'admin_protected_branch', { kind: 'project', project });
    return maintainer ? TAG_MESSAGES.nonWebDeleteProtectedTag : TAG_MESSAGES.deleteProtectedTag;
  }
  return (await canCreateTag(ctx, project, tag)) ? null : TAG_MESSAGES.createProtectedTag;
}

/** What a hook asks: which hook, its standard input, its quarantine environment, the push options (`git push -o`). */
interface HookRequest {
  hook: 'pre-receive' | 'post-receive';
  updates: PushedRefUpdate[];
  env: QuarantineEnv;
  pushOptions: string[];
}
interface HookAnswer {
  ok: boolean;
  message?: string;
  /** Print the message as it is (post-receive's notes), not as `GitLab: ` errors. */
  plain?: boolean;
}

/**
 * Both hooks' program: a POSIX shell script (no node start per hook: a push used to start
 * node twice, ~50 ms each). It talks to the server over two FIFOs of the push's own
 * directory (FORGELET_HOOK_DIR, mode 0700), which the server holds open for the push:
 * it writes its request to `in` as lines (`hook <name>`, `env K=V`, `option <push option>`,
 * `ref <old> <new> <ref>`, ending with `.`) and reads the answer from `out` (`ok` or `no`,
 * then message lines, ending with `.`). Git refuses newlines in push options and ref names,
 * so no line can break the framing. Without FORGELET_HOOK_DIR (a push that did not come
 * through Forgelet, e.g. an administrator on the server) it accepts.
 */
const HOOK_SH = `#!/bin/sh
# Forgelet: asks the server that runs this push (see domains/git-http/receive.ts).
[ -n "$FORGELET_HOOK_DIR" ] || exit 0
exec 3<"$FORGELET_HOOK_DIR/out" || exit 1
{
  printf 'hook %s\\n' "\${0##*/}"
  for k in GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_QUARANTINE_PATH; do
    eval "v=\\"\\\${$k-}\\""
    [ -n "$v" ] && printf 'env %s=%s\\n' "$k" "$v"
  done
  i=0
  while [ "$i" -lt "\${GIT_PUSH_OPTION_COUNT:-0}" ]; do
    eval "v=\\"\\\${GIT_PUSH_OPTION_$i-}\\""
    printf 'option %s\\n' "$v"
    i=$((i + 1))
  done
  while read -r old new ref; do printf 'ref %s %s %s\\n' "$old" "$new" "$ref"; done
  printf '.\\n'
} >"$FORGELET_HOOK_DIR/in" || exit 1
IFS= read -r verdict <&3
while IFS= read -r line <&3; do
  [ "$line" = . ] && break
  printf '%s\\n' "$line" >&2
done
[ "$verdict" = ok ]
`;

/** Parses one hook request (the lines before `.`). */
export function parseHookRequest(text: string): HookRequest | null {
  const request: HookRequest = { hook: 'pre-receive', updates: [], env: {}, pushOptions: [] };
  let named = false;
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    const word = space < 0 ? line : line.slice(0, space);
    const rest = space < 0 ? '' : line.slice(space + 1);
    if (word === 'hook' && (rest === 'pre-receive' || rest === 'post-receive')) {
      request.hook = rest;
      named = true;
    } else if (word === 'env') {
      const eq = rest.indexOf('=');
      const key = rest.slice(0, eq);
      if (eq > 0 && ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'].includes(key)) request.env[key] = rest.slice(eq + 1);
    } else if (word === 'option') request.pushOptions.push(rest);
    else if (word === 'ref') request.updates.push(...parseRefUpdates(rest));
  }
  return named ? request : null;
}

/** The answer's lines: the verdict, the message (GitLab's `GitLab: ` prefix on refusals), the end mark. */
function answerText(answer: HookAnswer): string {
  const lines = answer.message ? answer.message.split('\n').map((l) => (answer.plain ? l : `GitLab: ${l}`)) : [];
  // A message line that is exactly `.` would end the answer early.
  return [answer.ok ? 'ok' : 'no', ...lines.map((l) => (l === '.' ? ' .' : l)), '.', ''].join('\n');
}

/** The hooks directory (`core.hooksPath` of every receive-pack), written once per process when missing or different. */
const hooksDirs = new Map<string, Promise<string>>();
export function ensureHooksDir(root: string): Promise<string> {
  let pending = hooksDirs.get(root);
  if (!pending) {
    pending = (async () => {
      // Versioned: processes of an older Forgelet sharing the root keep their own hooks.
      const dir = join(root, '.forgelet-hooks', 'v2');
      await mkdir(dir, { recursive: true });
      for (const name of ['pre-receive', 'post-receive']) {
        const file = join(dir, name);
        const current = await readFile(file, 'utf8').catch(() => null);
        if (current === HOOK_SH) continue;
        // Written aside and renamed: another process may be running the hook right now.
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, HOOK_SH);
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

/** An answer larger than a pipe's atomic write would need a blocking write: messages are capped well below. */
const MAX_ANSWER = 32 * 1024;

/**
 * Opens the FIFOs one push's hooks talk to. `check` decides pre-receive (a message refuses the
 * whole push, as GitLab's hook does); `received` runs at post-receive, before git answers the
 * client, so a client that sees its push done sees the database updated too. Both get the
 * push options (`git push -o`, GIT_PUSH_OPTION_n), as GitLab's /internal/allowed and
 * /internal/post_receive do.
 */
export async function openPushSession(
  ctx: Ctx,
  handlers: {
    check: (updates: PushedRefUpdate[], env: QuarantineEnv, pushOptions: string[]) => Promise<string | null>;
    /** May return lines for git to print (GitLab's "To create a merge request" note). */
    received: (updates: PushedRefUpdate[], pushOptions: string[]) => Promise<string | null>;
  },
): Promise<PushSession> {
  const hooksDir = await ensureHooksDir(ctx.git.root);
  const dir = await mkdtemp(join(tmpdir(), 'forgelet-push-'));
  const inPath = join(dir, 'in');
  const outPath = join(dir, 'out');
  await runGitFree('mkfifo', ['-m', '600', inPath, outPath]);
  // Read-write and non-blocking: opening never waits for the hook, reading never sees an end
  // of file between the two hooks, and the hook's own opens never block (this end is there).
  const inFd = openSync(inPath, fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
  const outFd = openSync(outPath, fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
  const accepted: PushedRefUpdate[] = [];
  const answer = async (request: HookRequest): Promise<HookAnswer> => {
    if (request.hook === 'pre-receive') {
      const message = await handlers.check(request.updates, request.env, request.pushOptions);
      return message === null ? { ok: true } : { ok: false, message };
    }
    accepted.push(...request.updates);
    const note = await handlers.received(request.updates, request.pushOptions);
    return note ? { ok: true, message: note, plain: true } : { ok: true };
  };
  const reply = (a: HookAnswer) => {
    let text = answerText(a);
    if (text.length > MAX_ANSWER) text = answerText({ ...a, message: a.message!.slice(0, MAX_ANSWER - 100) });
    try {
      writeSync(outFd, text);
    } catch {
      // the hook is gone (the push was interrupted)
    }
  };
  const input = new Socket({ fd: inFd, readable: true, writable: false });
  let pending = '';
  let queue = Promise.resolve();
  input.setEncoding('utf8');
  input.on('error', () => {});
  input.on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n.\n')) >= 0 || pending.startsWith('.\n')) {
      const cut = pending.startsWith('.\n') ? 0 : end + 1;
      const requestText = pending.slice(0, cut);
      pending = pending.slice(cut + 2);
      const request = parseHookRequest(requestText);
      queue = queue.then(async () => {
        if (!request) return reply({ ok: false, message: 'Internal API error' });
        await answer(request).then(reply, (err: unknown) => {
          // The push's refs stay as git left them; the message says what failed, never a secret.
          reply({ ok: false, message: `Internal error: ${err instanceof Error ? err.message.split('\n')[0] : 'unknown'}` });
        });
      });
    }
  });
  return {
    env: { FORGELET_HOOK_DIR: dir },
    hooksDir,
    accepted,
    async close() {
      await queue;
      input.destroy();
      try {
        closeSync(outFd);
      } catch {
        // already closed
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs a small program (mkfifo) to completion. */
function runGitFree(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, (err) => (err ? reject(err) : resolve()));
  });
}
