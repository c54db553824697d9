/** The model rules GitLab's MergeRequest validates, as pure functions of the values. */
import { BadRequestError, UnprocessableError } from '../../kernel/errors.js';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;

/** `Draft:`, `[Draft]`, `(Draft)` and the older `WIP:` prefixes mark a draft (any case). */
const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:|wip:)/i;

export function isDraftTitle(title: string): boolean {
  return DRAFT_PREFIX.test(title);
}

/**
 * A branch name a merge request may use: git's check-ref-format rules plus GitLab's
 * (no leading `-`, not `HEAD`, no `refs/` prefix, not a 40-hex commit id).
 */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === 'HEAD' || name === '@') return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (/^refs\/(heads|remotes|tags)\//.test(name) || /^[0-9a-f]{40}$/i.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/** GitLab's `branch_conflict`: 422 with the model's message list. */
export function checkDistinctBranches(source: string, target: string): void {
  if (source === target) throw new UnprocessableError(["You can't use same project/branch for source and target"]);
}

type ModelErrors = Record<string, string[]>;

function add(errors: ModelErrors, field: string, message: string) {
  (errors[field] ??= []).push(message);
}

/** Title, description and branch names; 400 `{"message":{"title":["can't be blank"]}}` listing every problem. */
export function checkMergeRequestFields(values: { title?: string; description?: string | null; source_branch?: string; target_branch?: string }): void {
  const errors: ModelErrors = {};
  if (values.title !== undefined) {
    if (values.title === '') add(errors, 'title', "can't be blank");
    else if (values.title.length > TITLE_MAX) add(errors, 'title', `is too long (maximum is ${TITLE_MAX} characters)`);
  }
  if (values.description && values.description.length > DESCRIPTION_MAX) {
    add(errors, 'description', `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
  }
  for (const field of ['source_branch', 'target_branch'] as const) {
    const value = values[field];
    if (value === undefined) continue;
    if (value === '') add(errors, field, "can't be blank");
    else if (!isValidBranchName(value)) add(errors, field, 'is invalid');
  }
  if (Object.keys(errors).length) throw new BadRequestError(errors, { raw: true });
}
