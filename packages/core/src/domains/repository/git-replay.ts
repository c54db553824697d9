/**
 * Replaying a repository kept only in the database (before git storage, migration 028) into
 * a bare git repository, in one `git fast-import`: every commit with its message, author,
 * committer, dates and parents; each ref head gets exactly the files the database kept for
 * it; an older commit gets its parent's tree with the changes the database recorded, where
 * the content of a changed file is known (a file whose last commit it is), and renames and
 * deletions always. Then the old (random) commit ids are replaced by git's wherever the
 * database keeps them, in the same transaction.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { Deps } from '../../access/context.js';
import type { GitRepositories } from '../../storage/git.js';
import { data, gitIdent, quotePath as quote } from './git-write.js';

type Trx = Kysely<Database>;


/** Writes the project's database repository into a fresh git repository; returns old id -> git id. */
export async function replayRepositoryIn(trx: Trx, git: GitRepositories, projectId: number): Promise<Map<string, string>> {
  const project = await trx.selectFrom('projects').select(['id', 'default_branch']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const commits = await trx.selectFrom('repository_commits').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  const changes = await trx
    .selectFrom('repository_commit_changes as ch')
    .innerJoin('repository_commits as c', 'c.id', 'ch.commit_id')
    .select(['c.sha', 'ch.path', 'ch.previous_path', 'ch.change'])
    .where('c.project_id', '=', projectId)
    .orderBy('ch.id')
    .execute();
  const refs = await trx.selectFrom('repository_refs').selectAll().where('project_id', '=', projectId).orderBy('kind').orderBy('id').execute();
  const files = refs.length ? await trx.selectFrom('repository_files').selectAll().where('ref_id', 'in', refs.map((r) => r.id)).orderBy('path').execute() : [];

  await git.remove(projectId);
  await git.ensure(projectId, project.default_branch);
  const parts: Buffer[] = [Buffer.from('feature done\n')];
  // Blobs, once each, by mark.
  const blobMark = new Map<string, number>();
  let mark = 0;
  const wantedBlobs = [...new Set(files.map((f) => f.blob_sha))];
  for (let i = 0; i < wantedBlobs.length; i += 200) {
    const rows = await trx.selectFrom('repository_blobs').select(['sha', 'content']).where('project_id', '=', projectId).where('sha', 'in', wantedBlobs.slice(i, i + 200)).execute();
    for (const b of rows) {
      blobMark.set(b.sha, ++mark);
      parts.push(Buffer.from(`blob\nmark :${mark}\n`), ...data(Buffer.from(b.content, 'base64')));
    }
  }
  const filesByRef = new Map<number, typeof files>();
  for (const f of files) filesByRef.set(f.ref_id, [...(filesByRef.get(f.ref_id) ?? []), f]);
  const headFiles = new Map<string, typeof files>(); // commit -> files of the first ref (branches first) at it
  for (const r of refs) if (!headFiles.has(r.commit_sha)) headFiles.set(r.commit_sha, filesByRef.get(r.id) ?? []);
  const known = new Map<string, (typeof files)[number]>(); // `${commit}\0${path}` -> the file version it wrote
  for (const f of files) if (f.last_commit_sha) known.set(`${f.last_commit_sha}\0${f.path}`, f);
  const changesOf = new Map<string, typeof changes>();
  for (const c of changes) changesOf.set(c.sha, [...(changesOf.get(c.sha) ?? []), c]);

  // Parents before children (ids are mostly in that order already).
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const parentsOf = (c: (typeof commits)[number]) => (JSON.parse(c.parent_ids) as string[]).filter((p) => bySha.has(p));
  const ordered: typeof commits = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (root: (typeof commits)[number]) => {
    const stack: Array<{ c: (typeof commits)[number]; next: number }> = [{ c: root, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (top.next === 0) {
        if (state.get(top.c.sha)) {
          stack.pop();
          continue;
        }
        state.set(top.c.sha, 'visiting');
      }
      const parents = parentsOf(top.c);
      if (top.next < parents.length) {
        const p = bySha.get(parents[top.next++]!)!;
        if (!state.get(p.sha)) stack.push({ c: p, next: 0 });
        continue;
      }
      state.set(top.c.sha, 'done');
      ordered.push(top.c);
      stack.pop();
    }
  };
  for (const c of commits) visit(c);

  const commitMark = new Map<string, number>();
  const scratch = 'refs/forgelet/replay';
  const entry = (f: (typeof files)[number]) => {
    const m = blobMark.get(f.blob_sha);
    return m ? `M ${f.executable ? '100755' : '100644'} :${m} ${quote(f.path)}\n` : '';
  };
  // The paths each replayed tree holds (kept until the last child by first parent is written):
  // a rename whose source the lossy replay never wrote is skipped, as fast-import refuses it.
  const pathsAt = new Map<string, Set<string>>();
  const firstChildren = new Map<string, number>();
  for (const c of ordered) {
    const first = parentsOf(c)[0];
    if (first) firstChildren.set(first, (firstChildren.get(first) ?? 0) + 1);
  }
  for (const c of ordered) {
    const parents = parentsOf(c);
    commitMark.set(c.sha, ++mark);
    if (!parents.length) parts.push(Buffer.from(`reset ${scratch}\n`));
    parts.push(
      Buffer.from(
        `commit ${scratch}\nmark :${mark}\nauthor ${gitIdent({ name: c.author_name, email: c.author_email, date: c.authored_date })}\n` +
          `committer ${gitIdent({ name: c.committer_name, email: c.committer_email, date: c.committed_date })}\n`,
      ),
      ...data(Buffer.from(c.message, 'utf8')),
    );
    if (parents.length) parts.push(Buffer.from(`from :${commitMark.get(parents[0]!)}\n`));
    for (const p of parents.slice(1)) parts.push(Buffer.from(`merge :${commitMark.get(p)}\n`));
    const head = headFiles.get(c.sha);
    const tree = new Set<string>(head ? head.filter((f) => entry(f)).map((f) => f.path) : parents[0] ? (pathsAt.get(parents[0]) ?? []) : []);
    if (head) {
      parts.push(Buffer.from(`deleteall\n${head.map(entry).join('')}`));
    } else {
      for (const ch of changesOf.get(c.sha) ?? []) {
        const version = known.get(`${c.sha}\0${ch.path}`);
        if (ch.change === 'deleted') {
          parts.push(Buffer.from(`D ${quote(ch.path)}\n`));
          tree.delete(ch.path);
        } else if (ch.change === 'renamed' && ch.previous_path) {
          if (version) parts.push(Buffer.from(`D ${quote(ch.previous_path)}\n${entry(version)}`));
          else if (tree.has(ch.previous_path)) parts.push(Buffer.from(`R ${quote(ch.previous_path)} ${quote(ch.path)}\n`));
          else continue;
          tree.delete(ch.previous_path);
          tree.add(ch.path);
        } else if (version) {
          parts.push(Buffer.from(entry(version)));
          tree.add(ch.path);
        }
      }
    }
    pathsAt.set(c.sha, tree);
    const first = parents[0];
    if (first) {
      const left = (firstChildren.get(first) ?? 1) - 1;
      firstChildren.set(first, left);
      if (left <= 0) pathsAt.delete(first);
    }
  }
  const order = ordered.map((c) => c.sha);
  parts.push(Buffer.from(order.map((sha) => `get-mark :${commitMark.get(sha)}\n`).join('')));
  for (const r of refs) {
    const m = commitMark.get(r.commit_sha);
    if (!m) continue;
    if (r.kind === 'branch') parts.push(Buffer.from(`reset refs/heads/${r.name}\nfrom :${m}\n\n`));
    else if (r.message) {
      const tagger = gitIdent({ name: r.tagger_name ?? 'Forgelet', email: r.tagger_email ?? 'forgelet@localhost', date: r.created_at });
      parts.push(Buffer.from(`tag ${r.name}\nfrom :${m}\ntagger ${tagger}\n`), ...data(Buffer.from(`${r.message}\n`, 'utf8')));
    } else parts.push(Buffer.from(`reset refs/tags/${r.name}\nfrom :${m}\n\n`));
  }
  parts.push(Buffer.from(`reset ${scratch}\n\ndone\n`));
  const out = await git.run(projectId, ['fast-import', '--quiet', '--force'], { input: Buffer.concat(parts) });
  const shas = out.stdout.toString('utf8').trim().split('\n').filter(Boolean);
  const map = new Map<string, string>();
  order.forEach((old, i) => map.set(old, shas[i]!));
  await git.run(projectId, ['symbolic-ref', 'HEAD', `refs/heads/${project.default_branch}`]);
  await remapCommitIds(trx, projectId, map);
  return map;
}

type Column = { table: string; column: string; scope: (qb: any) => any };

/** Every column that names a commit of the project. */
function commitColumns(projectId: number): Column[] {
  const inProject = (col: string) => (qb: any) => qb.where(col, '=', projectId);
  const refsOfProject = (qb: any) => qb.where('ref_id', 'in', (eb: any) => eb.selectFrom('repository_refs').select('id').where('project_id', '=', projectId));
  const commitsOfProject = (qb: any) => qb.where('commit_id', 'in', (eb: any) => eb.selectFrom('repository_commits').select('id').where('project_id', '=', projectId));
  const mrsOfProject = (qb: any) =>
    qb.where('merge_request_id', 'in', (eb: any) => eb.selectFrom('merge_requests').select('id').where((w: any) => w.or([w('project_id', '=', projectId), w('source_project_id', '=', projectId)])));
  const mrs = (qb: any) => qb.where((w: any) => w.or([w('project_id', '=', projectId), w('source_project_id', '=', projectId)]));
  return [
    { table: 'repository_commits', column: 'sha', scope: inProject('project_id') },
    { table: 'repository_commit_parents', column: 'parent_sha', scope: commitsOfProject },
    { table: 'repository_refs', column: 'commit_sha', scope: inProject('project_id') },
    { table: 'repository_files', column: 'last_commit_sha', scope: refsOfProject },
    { table: 'merge_requests', column: 'sha', scope: mrs },
    { table: 'merge_requests', column: 'merge_commit_sha', scope: mrs },
    { table: 'merge_requests', column: 'squash_commit_sha', scope: mrs },
    { table: 'merge_request_approval_syncs', column: 'sha', scope: mrsOfProject },
    { table: 'ci_pipelines', column: 'sha', scope: inProject('project_id') },
    { table: 'ci_pipelines', column: 'before_sha', scope: inProject('project_id') },
    { table: 'releases', column: 'sha', scope: inProject('project_id') },
    { table: 'deployments', column: 'sha', scope: inProject('project_id') },
    { table: 'resource_state_events', column: 'source_commit', scope: (qb: any) => qb },
  ];
}

/** Replaces old commit ids by new ones in every column naming the project's commits (chunks of CASE updates). */
async function remapCommitIds(trx: Trx, projectId: number, map: Map<string, string>): Promise<void> {
  const pairs = [...map.entries()].filter(([o, n]) => o !== n);
  if (!pairs.length) return;
  const db = trx as Kysely<any>;
  for (const { table, column, scope } of commitColumns(projectId)) {
    for (let i = 0; i < pairs.length; i += 200) {
      const chunk = pairs.slice(i, i + 200);
      const cases = sql.join(chunk.map(([o, n]) => sql`when ${o} then ${n}`), sql` `);
      await scope(
        db
          .updateTable(table)
          .set({ [column]: sql`case ${sql.ref(column)} ${cases} else ${sql.ref(column)} end` })
          .where(column, 'in', chunk.map(([o]) => o)),
      ).execute();
    }
  }
  // Parent lists kept as JSON on each commit.
  const rows = await trx.selectFrom('repository_commits').select(['id', 'parent_ids']).where('project_id', '=', projectId).execute();
  for (const r of rows) {
    const parents = JSON.parse(r.parent_ids) as string[];
    const mapped = parents.map((p) => map.get(p) ?? p);
    if (mapped.some((p, i) => p !== parents[i])) await trx.updateTable('repository_commits').set({ parent_ids: JSON.stringify(mapped) }).where('id', '=', r.id).execute();
  }
}

/**
 * Replays the project's repository first when it waits for it (imported by direct transfer
 * into the tables, or queued by migration 028 and not yet replayed): every write calls this.
 */
export async function replayIfPending(trx: Trx, git: GitRepositories, projectId: number): Promise<void> {
  const pending = await trx.selectFrom('repository_replays').select('project_id').where('project_id', '=', projectId).executeTakeFirst();
  if (!pending) return;
  await replayRepositoryIn(trx, git, projectId);
  await trx.deleteFrom('repository_replays').where('project_id', '=', projectId).execute();
}

/**
 * First start after the upgrade: every project queued by migration 028 (repository tables
 * without a git repository) is replayed into git, one transaction per project.
 */
export async function replayPendingRepositories(deps: Pick<Deps, 'db' | 'git'>): Promise<number> {
  const pending = await deps.db.selectFrom('repository_replays').select('project_id').orderBy('project_id').execute();
  for (const { project_id } of pending) {
    await deps.db.transaction().execute(async (trx) => {
      await replayRepositoryIn(trx, deps.git, project_id);
      await trx.deleteFrom('repository_replays').where('project_id', '=', project_id).execute();
    });
  }
  return pending.length;
}
