/**
 * Reading the repository model: resolving a ref (branch, tag, full ref or commit sha) to a
 * commit and to the ref whose files it carries, and reading files on a ref. Every domain that
 * needs code (CI, releases, approvals, artifacts by ref) goes through these.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { RefKind, RepositoryCommitRow, RepositoryFileRow, RepositoryRefRow } from './repository.table.js';

type Db = Kysely<Database>;

export const SHA_RE = /^[0-9a-f]{40}$/;
const SHORT_SHA_RE = /^[0-9a-f]{7,40}$/;

/** Git's blob id of some content: sha1("blob <size>\0" + content). */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

export async function selectRef(db: Db, projectId: number, kind: RefKind, name: string): Promise<RepositoryRefRow | undefined> {
  return db
    .selectFrom('repository_refs')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('kind', '=', kind)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function selectBranch(db: Db, projectId: number, name: string) {
  return selectRef(db, projectId, 'branch', name);
}

export async function selectTag(db: Db, projectId: number, name: string) {
  return selectRef(db, projectId, 'tag', name);
}

/** True when the project has no branch at all (GitLab's `empty_repo`). */
export async function repositoryIsEmpty(db: Db, projectId: number): Promise<boolean> {
  const row = await db.selectFrom('repository_refs').select('id').where('project_id', '=', projectId).where('kind', '=', 'branch').limit(1).executeTakeFirst();
  return !row;
}

/** A commit by full sha, or by an unambiguous prefix of 7+ hex digits. */
export async function selectCommit(db: Db, projectId: number, sha: string): Promise<RepositoryCommitRow | undefined> {
  const lower = sha.toLowerCase();
  if (SHA_RE.test(lower)) {
    return db.selectFrom('repository_commits').selectAll().where('project_id', '=', projectId).where('sha', '=', lower).executeTakeFirst();
  }
  if (!SHORT_SHA_RE.test(lower)) return undefined;
  const rows = await db
    .selectFrom('repository_commits')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('sha', '>=', lower)
    .where('sha', '<', `${lower}g`)
    .limit(2)
    .execute();
  return rows.length === 1 ? rows[0] : undefined;
}

export interface ResolvedRef {
  /** What the name designated. */
  kind: RefKind | 'commit';
  /** The branch or tag (for a commit sha: the first ref whose head it is, which carries its files). */
  ref: RepositoryRefRow | undefined;
  commit: RepositoryCommitRow;
}

/**
 * Resolves a revision the way `git rev-parse` does for the forms GitLab's API accepts:
 * `refs/heads/x`, `refs/tags/x`, a tag name, a branch name (tags win when both exist, as in
 * git), then a full or abbreviated commit sha.
 */
export async function resolveRevision(db: Db, projectId: number, revision: string): Promise<ResolvedRef | undefined> {
  let ref: RepositoryRefRow | undefined;
  if (revision.startsWith('refs/heads/')) ref = await selectBranch(db, projectId, revision.slice('refs/heads/'.length));
  else if (revision.startsWith('refs/tags/')) ref = await selectTag(db, projectId, revision.slice('refs/tags/'.length));
  else ref = (await selectTag(db, projectId, revision)) ?? (await selectBranch(db, projectId, revision));
  if (ref) {
    const commit = await selectCommit(db, projectId, ref.commit_sha);
    return commit && { kind: ref.kind, ref, commit };
  }
  const commit = await selectCommit(db, projectId, revision);
  if (!commit) return undefined;
  const holder = await db
    .selectFrom('repository_refs')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('commit_sha', '=', commit.sha)
    .orderBy('kind') // branch before tag
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return { kind: 'commit', ref: holder, commit };
}

export interface FileAtRef {
  file: RepositoryFileRow;
  size: number;
  /** The stored content; files are small (the request body limit bounds them). */
  content: Buffer;
}

/** The file at `path` on a ref, with its content. */
export async function readFileOnRef(db: Db, ref: RepositoryRefRow, path: string): Promise<FileAtRef | undefined> {
  const row = await db
    .selectFrom('repository_files')
    .innerJoin('repository_blobs', (j) => j.onRef('repository_blobs.sha', '=', 'repository_files.blob_sha').on('repository_blobs.project_id', '=', ref.project_id))
    .selectAll('repository_files')
    .select(['repository_blobs.size', 'repository_blobs.content'])
    .where('repository_files.ref_id', '=', ref.id)
    .where('repository_files.path', '=', path)
    .executeTakeFirst();
  if (!row) return undefined;
  const { size, content, ...file } = row;
  return { file, size, content: Buffer.from(content, 'base64') };
}

/** The file at `path` for any revision (branch, tag, sha at a ref head); undefined when either is missing. */
export async function readFileAtRevision(db: Db, projectId: number, revision: string, path: string): Promise<(FileAtRef & { resolved: ResolvedRef }) | undefined> {
  const resolved = await resolveRevision(db, projectId, revision);
  if (!resolved?.ref) return undefined;
  const found = await readFileOnRef(db, resolved.ref, path);
  return found && { ...found, resolved };
}

/** One page of the files on a ref, ordered by path (the runner and the tree API walk these). */
export async function listFilesOnRef(db: Db, refId: number, options: { limit: number; offset: number; under?: string }) {
  let q = db.selectFrom('repository_files').selectAll().where('ref_id', '=', refId);
  if (options.under) {
    // An exact prefix test: range tricks on '/' depend on PostgreSQL's collation.
    const prefix = `${options.under}/`;
    q = q.where((eb) => eb(eb.fn('substr', ['path', eb.val(1), eb.val(prefix.length)]), '=', prefix));
  }
  return q.orderBy('path').limit(options.limit).offset(options.offset).execute();
}

/** Shell-style wildcard of protected branch names (`*` matches any run, including `/`). */
export function branchPatternMatches(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(branch);
}
