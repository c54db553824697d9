/**
 * Writing the project's git repository in step with the database: objects (blobs, trees,
 * commits, annotated tags) are written as a write goes (unreferenced objects are harmless),
 * and the refs move last, in one compare-and-swap `git update-ref --stdin` just before the
 * database transaction commits; when the commit fails they move back. A reader therefore
 * never sees a ref pointing at a commit the database does not know, nor the reverse for long.
 *
 * One commit costs one `git fast-import` (the new blobs inline, the tree built from the
 * parent's with the commit's changes) plus the shared `update-ref`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { Ctx } from '../../access/context.js';
import type { GitRepositories, RefMove } from '../../storage/git.js';
import { ConflictError } from '../../kernel/errors.js';
import { GitCommandError } from '../../storage/git.js';

type Trx = Kysely<Database>;

/** A tree change of a commit: write `path` with `content` (mode from `executable`), or delete it. */
export type TreeOp = { op: 'write'; path: string; content: Buffer; executable: boolean } | { op: 'delete'; path: string };

export interface Ident {
  name: string;
  email: string;
  /** ISO date; git keeps whole seconds in UTC. */
  date: string;
}

/** Ref moves waiting for a transaction's commit, per project. */
class PendingRefs {
  readonly moves = new Map<number, RefMove[]>();
  readonly heads = new Map<number, string>();
  applied: Array<{ projectId: number; moves: RefMove[] }> = [];

  add(projectId: number, move: RefMove): void {
    const list = this.moves.get(projectId) ?? [];
    // Two moves of one ref in a transaction (create a branch, then commit on it) fold into one.
    const prior = list.find((m) => m.ref === move.ref);
    if (prior) prior.new = move.new;
    else list.push({ ...move });
    this.moves.set(projectId, list);
  }

  async apply(git: GitRepositories): Promise<void> {
    for (const [projectId, moves] of this.moves) {
      const effective = moves.filter((m) => !(m.old === null && m.new === null));
      await moveRefs(git, projectId, effective);
      this.applied.push({ projectId, moves: effective });
      const head = this.heads.get(projectId);
      if (head) await git.run(projectId, ['symbolic-ref', 'HEAD', `refs/heads/${head}`]);
    }
  }

  /** Moves applied refs back (the database transaction failed after they moved). */
  async undo(git: GitRepositories): Promise<void> {
    for (const { projectId, moves } of this.applied.reverse()) {
      const back = moves.map((m): RefMove => ({ ref: m.ref, new: m.old ?? null, old: m.new }));
      await git.updateRefs(projectId, back).catch(() => {});
    }
    this.applied = [];
  }
}

const pendingOf = new WeakMap<object, PendingRefs>();

async function moveRefs(git: GitRepositories, projectId: number, moves: RefMove[]): Promise<void> {
  try {
    await git.updateRefs(projectId, moves);
  } catch (error) {
    if (error instanceof GitCommandError && /cannot lock ref|but expected|reference already exists|unable to resolve/.test(error.stderr)) {
      throw new ConflictError('The repository changed while this write was in progress; try again');
    }
    throw error;
  }
}

/**
 * Runs `fn` in a database transaction whose git ref moves (`queueRefMove`) happen just before
 * the commit, and are undone when the commit fails. Every transaction that writes the
 * repository goes through here.
 */
export async function repositoryTransaction<T>(ctx: Pick<Ctx, 'db' | 'git'>, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const pending = new PendingRefs();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      pendingOf.set(trx, pending);
      const result = await fn(trx);
      await pending.apply(ctx.git);
      return result;
    });
  } catch (error) {
    await pending.undo(ctx.git);
    throw error;
  }
}

/**
 * Moves `ref` of the project's repository when `trx` commits (compare-and-swap from `old`:
 * null for a new ref, undefined for no check). Outside `repositoryTransaction` it moves at once.
 */
export async function queueRefMove(trx: Trx, git: GitRepositories, projectId: number, move: RefMove): Promise<void> {
  const pending = pendingOf.get(trx);
  if (pending) pending.add(projectId, move);
  else await moveRefs(git, projectId, [move]);
}

/** Points the repository's HEAD at `branch` when `trx` commits (the default branch changed). */
export async function queueHead(trx: Trx, git: GitRepositories, projectId: number, branch: string): Promise<void> {
  const pending = pendingOf.get(trx);
  if (pending) pending.heads.set(projectId, branch);
  else await git.run(projectId, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
}

/** `Name <email> <epoch> +0000`, with what git refuses in names and emails removed. */
export function gitIdent(ident: Ident): string {
  const clean = (s: string) => s.replace(/[<>\n\r\0]/g, '').trim();
  const seconds = Math.floor(Date.parse(ident.date) / 1000);
  return `${clean(ident.name) || 'Unknown'} <${clean(ident.email)}> ${seconds} +0000`;
}

/** A path as fast-import reads it: C-style quoted. */
export function quotePath(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

export function data(buf: Buffer): Buffer[] {
  return [Buffer.from(`data ${buf.length}\n`), buf, Buffer.from('\n')];
}

/**
 * Writes a commit whose tree is its first parent's (empty without parents) with `ops`
 * applied; returns its id. No ref moves (see `queueRefMove`).
 */
export async function writeCommit(
  git: GitRepositories,
  projectId: number,
  commit: { parents: string[]; message: string; author: Ident; committer: Ident; ops: TreeOp[]; defaultBranch?: string },
): Promise<string> {
  await git.ensure(projectId, commit.defaultBranch);
  const ref = 'refs/forgelet/fast-import';
  const parts: Buffer[] = [
    Buffer.from(`feature done\ncommit ${ref}\nmark :1\nauthor ${gitIdent(commit.author)}\ncommitter ${gitIdent(commit.committer)}\n`),
    ...data(Buffer.from(commit.message, 'utf8')),
  ];
  const [first, ...others] = commit.parents;
  if (first) parts.push(Buffer.from(`from ${first}\n`));
  for (const other of others) parts.push(Buffer.from(`merge ${other}\n`));
  for (const op of commit.ops) {
    if (op.op === 'delete') parts.push(Buffer.from(`D ${quotePath(op.path)}\n`));
    else parts.push(Buffer.from(`M ${op.executable ? '100755' : '100644'} inline ${quotePath(op.path)}\n`), ...data(op.content));
  }
  // `reset` without `from` drops the scratch ref: fast-import writes the objects and no ref.
  parts.push(Buffer.from(`\nget-mark :1\nreset ${ref}\n\ndone\n`));
  const out = await git.run(projectId, ['fast-import', '--quiet', '--date-format=raw'], { input: Buffer.concat(parts) });
  return out.stdout.toString('utf8').trim();
}

/** Writes a commit with the tree of `treeish` (e.g. `<sha>^{tree}`); returns its id. */
export async function writeCommitWithTree(
  git: GitRepositories,
  projectId: number,
  commit: { tree: string; parents: string[]; message: string; author: Ident; committer: Ident },
): Promise<string> {
  const env = (prefix: 'AUTHOR' | 'COMMITTER', ident: Ident) => {
    const m = /^(.*) <(.*)> (\d+ \+0000)$/.exec(gitIdent(ident))!;
    return { [`GIT_${prefix}_NAME`]: m[1]!, [`GIT_${prefix}_EMAIL`]: m[2]!, [`GIT_${prefix}_DATE`]: m[3]! };
  };
  const args = ['commit-tree', commit.tree, ...commit.parents.flatMap((p) => ['-p', p])];
  const out = await git.run(projectId, args, { input: commit.message, env: { ...env('AUTHOR', commit.author), ...env('COMMITTER', commit.committer) } });
  return out.stdout.toString('utf8').trim();
}

/** Writes an annotated tag object for `commit`; returns its id. */
export async function writeTagObject(git: GitRepositories, projectId: number, tag: { name: string; commit: string; message: string; tagger: Ident }): Promise<string> {
  const message = tag.message.endsWith('\n') ? tag.message : `${tag.message}\n`;
  const body = `object ${tag.commit}\ntype commit\ntag ${tag.name}\ntagger ${gitIdent(tag.tagger)}\n\n${message}`;
  const out = await git.run(projectId, ['mktag'], { input: body });
  return out.stdout.toString('utf8').trim();
}
