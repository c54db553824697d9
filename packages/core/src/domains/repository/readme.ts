/**
 * The README GitLab shows for a project (Tree#readme_path over the root of the default
 * branch): a root file named `readme` or `index`, case-insensitively, bare or with `.txt` or a
 * markup extension (Gitlab::FileDetector's readme pattern). Of several, the first in tree
 * order (byte order of the names) that GitLab can render as markup wins, else the first plain
 * one (`.txt`, or no extension).
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { cachedRead, preparedQuery } from '../../storage/prepared.js';

// Gitlab::MarkupHelper::EXTENSIONS: Markdown, AsciiDoc and the other markups GitLab renders.
const MARKUP_EXTENSIONS = ['mdown', 'mkd', 'mkdn', 'md', 'markdown', 'rmd', 'adoc', 'ad', 'asciidoc', 'textile', 'rdoc', 'org', 'creole', 'wiki', 'mediawiki', 'rst'];
const README = new RegExp(`^(readme|index)(\\.(txt|${MARKUP_EXTENSIONS.join('|')}))?$`, 'i');

/** The README path among a ref's root file paths, or null. */
export function pickReadme(paths: Iterable<string>): string | null {
  const found = [...paths].filter((p) => README.test(p)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const markup = found.find((p) => MARKUP_EXTENSIONS.includes(p.slice(p.lastIndexOf('.') + 1).toLowerCase()) && p.includes('.'));
  return markup ?? found[0] ?? null;
}

/**
 * Paths that may be a README: those starting with i, I, r or R, found as four ranges of the
 * (ref_id, path) index instead of a scan of every file (each candidate falls in one of them
 * under a bytewise collation and under a linguistic one alike); pickReadme decides.
 */
function candidates(eb: ExpressionBuilder<Database, 'repository_files'>) {
  const range = (from: string, to: string) => eb.and([eb('repository_files.path', '>=', from), eb('repository_files.path', '<', to)]);
  return eb.or([range('I', 'J'), range('R', 'S'), range('i', 'j'), range('r', 's')]);
}

const selectCandidates = preparedQuery(
  (db: Kysely<Database>, projectId: number, branch: string) =>
    db
      .selectFrom('repository_refs')
      .innerJoin('repository_files', 'repository_files.ref_id', 'repository_refs.id')
      .select('repository_files.path')
      .where('repository_refs.project_id', '=', projectId)
      .where('repository_refs.kind', '=', 'branch')
      .where('repository_refs.name', '=', branch)
      .where((eb) => candidates(eb as unknown as ExpressionBuilder<Database, 'repository_files'>)),
  { cache: true },
);

/** The README of one project's default branch (`readme_url`), or null. */
export async function readmePathOf(db: Kysely<Database>, project: { id: number; default_branch: string }): Promise<string | null> {
  return pickReadme((await selectCandidates(db, project.id, project.default_branch)).map((r) => r.path));
}

/** `project id → README path` of each project's default branch, for a page of projects (kept in the read cache). */
export async function readmePathsOf(db: Kysely<Database>, projects: readonly { id: number; default_branch: string }[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (projects.length === 0) return out;
  const query = db
    .selectFrom('repository_refs')
    .innerJoin('projects', (j) => j.onRef('projects.id', '=', 'repository_refs.project_id').onRef('projects.default_branch', '=', 'repository_refs.name'))
    .innerJoin('repository_files', 'repository_files.ref_id', 'repository_refs.id')
    .select(['repository_refs.project_id', 'repository_files.path'])
    .where('repository_refs.project_id', 'in', projects.map((p) => p.id))
    .where('repository_refs.kind', '=', 'branch')
    .where((eb) => candidates(eb as unknown as ExpressionBuilder<Database, 'repository_files'>));
  const rows = await cachedRead(db, query.compile());
  const byProject = new Map<number, string[]>();
  for (const r of rows) byProject.set(r.project_id, [...(byProject.get(r.project_id) ?? []), r.path]);
  for (const [id, paths] of byProject) {
    const readme = pickReadme(paths);
    if (readme) out.set(id, readme);
  }
  return out;
}
