/**
 * Bringing the database's index of the repository (commits with their parents and changes,
 * refs, the files at each ref head and their contents) up to date with refs that already
 * moved in git: a `git push` (smart HTTP's post-receive) calls `applyPushedRefUpdates`.
 *
 * Git is the source of truth; the tables are an index derived from it that the SQL users of
 * the repository (merge requests, CI, approvals, webhooks, DORA, releases) join against.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { nowIso, type Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { GitRepositories } from '../../storage/git.js';
import { COMMIT_FORMAT, parseCommits, type GitCommitInfo } from '../../storage/git-read.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import type { PushOptions } from './push-options.js';
import { runRefPushed, runRefUpdated, type RefUpdate } from './push-hooks.js';
import { selectRef } from './refs.js';
import { moveMergeRequestHeads, protectDefaultBranch } from './write-commit.js';
import type { CommitChangeKind, RepositoryRefRow } from './repository.table.js';
import { queueRefMove } from './git-write.js';

type Trx = Kysely<Database>;

interface GitChange {
  path: string;
  previous_path: string | null;
  change: CommitChangeKind;
  additions: number;
  deletions: number;
}

const CHUNK = 500;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Commits reachable from `tips` and from none of `known`, oldest first (parents before children). */
async function commitsBetween(git: GitRepositories, projectId: number, tips: string[], known: string[]): Promise<GitCommitInfo[]> {
  if (!tips.length) return [];
  const input = [...tips, ...known.map((k) => `^${k}`)].join('\n') + '\n';
  const out = await git.run(projectId, ['log', '--reverse', '--topo-order', '-z', `--format=${COMMIT_FORMAT}`, '--stdin'], { input });
  return parseCommits(out.stdout);
}

/** What each commit changed against its first parent (renames found), with line counts. */
async function changesOf(git: GitRepositories, projectId: number, shas: string[]): Promise<Map<string, GitChange[]>> {
  const result = new Map<string, GitChange[]>();
  if (!shas.length) return result;
  const out = await git.run(projectId, ['diff-tree', '--stdin', '-r', '-M', '--root', '--raw', '--numstat', '-z', '-m'], { input: shas.join('\n') + '\n' });
  const fields = out.stdout.toString('utf8').split('\0');
  let current: GitChange[] | null = null;
  let skip = false; // a merge's diffs against its second and later parents
  let byPath = new Map<string, GitChange>();
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (!f) continue;
    if (/^[0-9a-f]{40}$/.test(f)) {
      skip = result.has(f);
      if (!skip) {
        current = [];
        byPath = new Map();
        result.set(f, current);
      }
      continue;
    }
    if (f.startsWith(':')) {
      const [, srcMode, dstMode, , , status] = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(f) ?? [];
      const renamed = status === 'R' || status === 'C';
      const from = fields[++i]!;
      const to = renamed ? fields[++i]! : from;
      if (skip || !current) continue;
      const change: CommitChangeKind =
        status === 'A' ? 'added' : status === 'D' ? 'deleted' : renamed ? 'renamed' : srcMode !== dstMode && status === 'M' ? 'modified' : status === 'T' ? 'mode' : 'modified';
      const entry: GitChange = { path: to, previous_path: renamed ? from : null, change, additions: 0, deletions: 0 };
      current.push(entry);
      byPath.set(to, entry);
      continue;
    }
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(f);
    if (m) {
      let path = m[3]!;
      if (path === '') {
        i += 2; // a rename: old and new paths follow
        path = fields[i]!;
      }
      const entry = skip ? undefined : byPath.get(path);
      if (entry) {
        entry.additions = m[1] === '-' ? 0 : Number(m[1]);
        entry.deletions = m[2] === '-' ? 0 : Number(m[2]);
        if (entry.change === 'modified' && entry.additions === 0 && entry.deletions === 0) entry.change = 'mode';
      }
    }
  }
  return result;
}

/** The files at a commit: path, blob id, executable. */
async function filesAt(git: GitRepositories, projectId: number, sha: string): Promise<Array<{ path: string; blob: string; executable: number }>> {
  const out = await git.run(projectId, ['ls-tree', '-r', '-z', '--full-tree', sha]);
  const files: Array<{ path: string; blob: string; executable: number }> = [];
  for (const entry of out.stdout.toString('utf8').split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (!m || m[2] !== 'blob') continue; // submodules are not files
    files.push({ path: m[4]!, blob: m[3]!, executable: m[1] === '100755' ? 1 : 0 });
  }
  return files;
}

/** Copies into the blob table the contents it lacks (one `git cat-file --batch`). */
async function indexBlobs(trx: Trx, git: GitRepositories, projectId: number, shas: string[]): Promise<void> {
  const wanted = [...new Set(shas)];
  const have = new Set<string>();
  for (const part of chunks(wanted)) {
    const rows = await trx.selectFrom('repository_blobs').select('sha').where('project_id', '=', projectId).where('sha', 'in', part).execute();
    for (const r of rows) have.add(r.sha);
  }
  const missing = wanted.filter((s) => !have.has(s));
  if (!missing.length) return;
  const out = (await git.run(projectId, ['cat-file', '--batch'], { input: missing.join('\n') + '\n' })).stdout;
  let pos = 0;
  const rows: Array<{ project_id: number; sha: string; size: number; content: string }> = [];
  while (pos < out.length) {
    const eol = out.indexOf(10, pos);
    const header = out.subarray(pos, eol).toString('utf8');
    const [sha, , size] = header.split(' ');
    const n = Number(size);
    rows.push({ project_id: projectId, sha: sha!, size: n, content: out.subarray(eol + 1, eol + 1 + n).toString('base64') });
    pos = eol + 1 + n + 1;
  }
  for (const part of chunks(rows, 50)) await trx.insertInto('repository_blobs').values(part).execute();
}

/** The commit a ref's value designates (a tag object peeled) and an annotated tag's message and tagger. */
async function peel(git: GitRepositories, projectId: number, sha: string) {
  const out = await git.run(projectId, ['cat-file', '-t', sha]);
  if (out.stdout.toString().trim() !== 'tag') return { commit: sha, message: null as string | null, taggerName: null as string | null, taggerEmail: null as string | null };
  const commit = (await git.run(projectId, ['rev-parse', `${sha}^{commit}`])).stdout.toString().trim();
  const body = (await git.run(projectId, ['cat-file', 'tag', sha])).stdout.toString('utf8');
  const split = body.indexOf('\n\n');
  const headers = body.slice(0, split < 0 ? body.length : split);
  const tagger = /^tagger (.*) <(.*)> \d+ [+-]\d{4}$/m.exec(headers);
  const message = split < 0 ? '' : body.slice(split + 2).replace(/\n-----BEGIN PGP SIGNATURE-----[\s\S]*$/, '').replace(/\n$/, '');
  return { commit, message: message || null, taggerName: tagger?.[1] ?? null, taggerEmail: tagger?.[2] ?? null };
}

/**
 * Indexes commits git has and the database lacks (reachable from `tips`), with their parents
 * and changes; returns them oldest first.
 */
export async function indexNewCommits(trx: Trx, git: GitRepositories, projectId: number, tips: string[]): Promise<GitCommitInfo[]> {
  const known = (await trx.selectFrom('repository_refs').select('commit_sha').distinct().where('project_id', '=', projectId).execute())
    .map((r) => r.commit_sha)
    .filter(Boolean);
  const found = await commitsBetween(git, projectId, tips, known);
  const already = new Set<string>();
  for (const part of chunks(found.map((c) => c.sha))) {
    for (const r of await trx.selectFrom('repository_commits').select('sha').where('project_id', '=', projectId).where('sha', 'in', part).execute()) already.add(r.sha);
  }
  const fresh = found.filter((c) => !already.has(c.sha));
  const changes = await changesOf(git, projectId, fresh.map((c) => c.sha));
  // The authors' accounts by email, then the commits, their parents and their changes, each in
  // multi-row statements (a push of 1,000 commits is a few dozen round trips, not 3,000).
  const users = new Map<string, number>();
  for (const part of chunks([...new Set(fresh.map((c) => c.authorEmail.toLowerCase()))])) {
    const rows = await trx.selectFrom('users').select(['id', sql<string>`lower(email)`.as('email')]).where(sql<string>`lower(email)`, 'in', part).execute();
    for (const r of rows) if (!users.has(r.email)) users.set(r.email, r.id);
  }
  for (const part of chunks(fresh, 100)) {
    const inserted = await trx
      .insertInto('repository_commits')
      .values(
        part.map((c) => ({
          project_id: projectId,
          sha: c.sha,
          parent_ids: JSON.stringify(c.parents),
          title: c.message.split('\n', 1)[0]!.trim(),
          message: c.message,
          author_name: c.authorName,
          author_email: c.authorEmail,
          authored_date: c.authoredDate,
          authored_tz: c.authorTz,
          committer_name: c.committerName,
          committer_email: c.committerEmail,
          committed_date: c.committedDate,
          committed_tz: c.committerTz,
          user_id: users.get(c.authorEmail.toLowerCase()) ?? null,
          created_at: c.committedDate,
        })),
      )
      .returning(['id', 'sha'])
      .execute();
    const ids = new Map(inserted.map((r) => [r.sha, r.id]));
    const parents = part.flatMap((c) => c.parents.map((parent_sha, position) => ({ commit_id: ids.get(c.sha)!, parent_sha, position })));
    for (const rows of chunks(parents, 300)) await trx.insertInto('repository_commit_parents').values(rows).execute();
    const changed = part.flatMap((c) => (changes.get(c.sha) ?? []).map((ch) => ({ commit_id: ids.get(c.sha)!, ...ch })));
    for (const rows of chunks(changed, 100)) await trx.insertInto('repository_commit_changes').values(rows).execute();
  }
  return fresh;
}

/** Replaces the indexed files of a ref with those of its new head commit. */
async function indexRefFiles(trx: Trx, git: GitRepositories, projectId: number, refId: number, head: string, fresh: GitCommitInfo[], changes: Map<string, string>): Promise<void> {
  const files = await filesAt(git, projectId, head);
  const old = new Map((await trx.selectFrom('repository_files').select(['path', 'blob_sha', 'last_commit_sha']).where('ref_id', '=', refId).execute()).map((r) => [r.path, r]));
  await indexBlobs(trx, git, projectId, files.map((f) => f.blob));
  await trx.deleteFrom('repository_files').where('ref_id', '=', refId).execute();
  const rows = files.map((f) => {
    const before = old.get(f.path);
    const last = before && before.blob_sha === f.blob ? before.last_commit_sha : (changes.get(f.path) ?? fresh.at(-1)?.sha ?? head);
    return { ref_id: refId, path: f.path, blob_sha: f.blob, last_commit_sha: last, executable: f.executable };
  });
  for (const part of chunks(rows, 100)) await trx.insertInto('repository_files').values(part).execute();
}

/** The newest of the `fresh` commits changing each path (for the files' last commits). */
async function lastChangesOf(trx: Trx, projectId: number, fresh: GitCommitInfo[]): Promise<Map<string, string>> {
  if (!fresh.length) return new Map();
  const rows = await trx
    .selectFrom('repository_commit_changes as ch')
    .innerJoin('repository_commits as c', 'c.id', 'ch.commit_id')
    .select(['c.sha', 'ch.path'])
    .where('c.project_id', '=', projectId)
    .where('c.sha', 'in', fresh.map((c) => c.sha).slice(-CHUNK))
    .orderBy('c.id')
    .execute();
  return new Map(rows.map((r) => [r.path, r.sha])); // the newest commit writing each path wins
}

/**
 * The newest commit of `to` and not of `from` changing each path, as `git log -1 -- <path>`
 * finds it through a merge (a clean merge commit changes no path of its own: the commit that
 * changed the file on the merged side is its last commit).
 */
async function lastCommitsOfPaths(git: GitRepositories, projectId: number, to: string, from: string): Promise<Map<string, string>> {
  const args = ['log', '-z', '--format=%x01%H', '--name-only', to, ...(from ? [`^${from}`] : [])];
  const out = (await git.run(projectId, args)).stdout.toString('utf8');
  const last = new Map<string, string>();
  let sha = '';
  for (const field of out.split('\0')) {
    const entry = field.replace(/^\n/, '');
    if (entry.startsWith('\x01')) {
      const [head, ...rest] = entry.slice(1).split('\n');
      sha = head!;
      for (const path of rest.filter(Boolean)) if (!last.has(path)) last.set(path, sha);
    } else if (entry && sha && !last.has(entry)) last.set(entry, sha);
  }
  return last;
}

/**
 * Moves an existing branch to `sha`, a commit already written to git (a merge request's merge
 * commit), inside `trx`: the new commits and the branch's files are indexed, the ref move is
 * queued (compare-and-swap from the head `trx` sees, see git-write.ts) and the push's
 * in-transaction reactions run, as for a commit through the API.
 */
export async function advanceBranchIn(trx: Trx, ctx: Ctx, project: ProjectRow, name: string, sha: string): Promise<RepositoryRefRow> {
  const existing = await selectRef(trx, project.id, 'branch', name);
  if (!existing) throw new Error(`branch ${name} does not exist`);
  const now = nowIso(ctx);
  const fresh = await indexNewCommits(trx, ctx.git, project.id, [sha]);
  const ref = await trx.updateTable('repository_refs').set({ commit_sha: sha, updated_at: now }).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow();
  await indexRefFiles(trx, ctx.git, project.id, ref.id, sha, fresh, await lastCommitsOfPaths(ctx.git, project.id, sha, existing.commit_sha));
  await queueRefMove(trx, ctx.git, project.id, { ref: `refs/heads/${name}`, new: sha, old: existing.commit_sha || null });
  await moveMergeRequestHeads(trx, project.id, name, sha, now);
  await recordProjectActivity(trx, project, now);
  await runRefUpdated(trx, ctx, project, { kind: 'branch', name, before: existing.commit_sha || null, after: sha });
  return ref;
}

/**
 * Refs that already moved in git (a push): the database's index of the repository follows
 * them (new commits, refs, files), open merge requests from moved branches take their new
 * heads, the first branch of an empty repository becomes the default (and protected), and
 * the push hooks run: `refUpdated` for each ref in one transaction, `refPushed` for each
 * after it committed. `before`/`after` are git's old and new values (null for a created or
 * deleted ref); `after` of a tag may be an annotated tag object.
 */
export async function applyPushedRefUpdates(
  ctx: Ctx,
  project: ProjectRow,
  updates: RefUpdate[],
  options: {
    pushOptions?: PushOptions;
    /** Refs a migration fetched (direct transfer): indexed without the push's reactions (no pipelines, webhooks or push events), as GitLab's import. */
    imported?: boolean;
  } = {},
): Promise<void> {
  const { pushOptions, imported = false } = options;
  if (!updates.length) return;
  const git = ctx.git;
  const now = nowIso(ctx);
  const pushed: Array<{ update: RefUpdate; message: string | null; before: string | null }> = [];
  let newHead: string | null = null;
  await ctx.db.transaction().execute(async (trx) => {
    const tips = updates.filter((u) => u.after).map((u) => u.after!);
    const fresh = await indexNewCommits(trx, git, project.id, tips);
    const lastChange = await lastChangesOf(trx, project.id, fresh);
    let empty = !(await trx.selectFrom('repository_refs').select('id').where('project_id', '=', project.id).where('kind', '=', 'branch').limit(1).executeTakeFirst());
    for (const update of updates) {
      const existing = await selectRef(trx, project.id, update.kind, update.name);
      if (!update.after) {
        if (existing) await trx.deleteFrom('repository_refs').where('id', '=', existing.id).execute();
        if (!imported) {
          await recordProjectActivity(trx, project, now);
          await runRefUpdated(trx, ctx, project, { ...update, before: existing?.commit_sha ?? update.before });
        }
        continue; // a deletion runs no post-receive work (no pipeline), as through the API
      }
      const target = update.kind === 'tag' ? await peel(git, project.id, update.after) : { commit: update.after, message: null, taggerName: null, taggerEmail: null };
      const values = {
        commit_sha: target.commit,
        message: target.message,
        tagger_name: target.message ? target.taggerName : null,
        tagger_email: target.message ? target.taggerEmail : null,
        updated_at: now,
      };
      const ref = existing
        ? await trx.updateTable('repository_refs').set(values).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow()
        : await trx
            .insertInto('repository_refs')
            .values({ project_id: project.id, kind: update.kind, name: update.name, created_at: now, ...values })
            .returningAll()
            .executeTakeFirstOrThrow();
      await indexRefFiles(trx, git, project.id, ref.id, target.commit, fresh, lastChange);
      const before = existing?.commit_sha || null;
      if (update.kind === 'branch') {
        await moveMergeRequestHeads(trx, project.id, update.name, target.commit, now);
        if (empty) {
          if (project.default_branch !== update.name) {
            await trx.updateTable('projects').set({ default_branch: update.name }).where('id', '=', project.id).execute();
            newHead = update.name;
          }
          await protectDefaultBranch(trx, project.id, update.name, now);
          empty = false;
        }
      }
      if (imported) continue;
      await recordProjectActivity(trx, project, now);
      await runRefUpdated(trx, ctx, project, { kind: update.kind, name: update.name, before, after: target.commit });
      const head = await trx.selectFrom('repository_commits').select('message').where('project_id', '=', project.id).where('sha', '=', target.commit).executeTakeFirst();
      pushed.push({ update, message: update.kind === 'tag' ? (target.message ?? head?.message ?? null) : (head?.message ?? null), before });
    }
  });
  if (newHead) await git.run(project.id, ['symbolic-ref', 'HEAD', `refs/heads/${newHead}`]);
  for (const p of pushed) await runRefPushed(ctx, project, { kind: p.update.kind, name: p.update.name, message: p.message, before: p.before, pushOptions });
}
