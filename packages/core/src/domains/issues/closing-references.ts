/**
 * GitLab's automatic issue closing: the issues a commit message or a merge request's title and
 * description close ("Closes #12", "Fixes group/app#3 and #4", "Resolves
 * https://host/group/app/-/issues/5"). The statements are found with GitLab's default
 * `issue_closing_pattern` (config/gitlab.yml.example), `%{issue_ref}` standing for an issue
 * reference or a link; the references inside them are then read as GitLab's reference
 * extractor does: `#N` in the project itself, `path#N` with a full project path or a project
 * of the same namespace, and links to an issue of this instance. External tracker keys
 * (`JIRA-12`) match the pattern and close nothing here.
 */

/** An issue a text refers to: `projectPath` null for the text's own project. */
export interface IssueReference {
  projectPath: string | null;
  iid: number;
}

const PATH = String.raw`[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*`;
const LINK = String.raw`https?://[^\s<>"']+`;
const ISSUE_REF = String.raw`(?:(?:${LINK})|(?:(?:${PATH})?#\d+))`;

/** GitLab's default closing pattern with `%{issue_ref}` filled in. */
const CLOSING_PATTERN = String.raw`\b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +(?:(?:issues? +)?${ISSUE_REF}(?:(?: *,? +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)`;

const LOCAL_OR_PATH = new RegExp(String.raw`(?:^|[\s,(])(${PATH})?#(\d+)\b`, 'g');
const LINKS = new RegExp(LINK, 'g');

/**
 * The issues `text` closes, in order of appearance, without repeats. `baseUrl` is this
 * instance's external URL (links elsewhere close nothing); `namespacePath` the full path of the
 * text's project's namespace (a bare `project#N` names a project there).
 */
export function closingReferences(text: string | null | undefined, baseUrl: string, namespacePath: string): IssueReference[] {
  if (!text) return [];
  const out: IssueReference[] = [];
  const seen = new Set<string>();
  const add = (projectPath: string | null, iid: number) => {
    if (!Number.isSafeInteger(iid) || iid < 1) return;
    const key = `${projectPath?.toLowerCase() ?? ''}#${iid}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ projectPath, iid });
  };
  const base = baseUrl.replace(/\/+$/, '');
  for (const match of text.matchAll(new RegExp(CLOSING_PATTERN, 'g'))) {
    let statement = match[1] ?? '';
    // Links first, then what is left of the statement for `#N` and `path#N`.
    statement = statement.replace(LINKS, (link) => {
      const url = link.replace(/[.,;:!?)]+$/, '');
      if (url.startsWith(`${base}/`)) {
        const m = /^\/(.+?)\/(?:-\/)?(?:issues|work_items)\/(\d+)(?:[/?#].*)?$/.exec(url.slice(base.length));
        if (m) add(m[1]!, Number(m[2]));
      }
      return ' ';
    });
    for (const ref of statement.matchAll(LOCAL_OR_PATH)) {
      const path = ref[1];
      if (path === undefined) add(null, Number(ref[2]));
      else add(path.includes('/') ? path : `${namespacePath}/${path}`, Number(ref[2]));
    }
  }
  return out;
}
