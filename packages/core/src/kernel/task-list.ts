/**
 * Task lists in Markdown descriptions (GitLab's Taskable): the `task_completion_status` of
 * issues and merge requests, one computation for both.
 */

// A task item: optional blockquote markers, a list marker, then `[ ]` or `[x]`, then text.
const TASK_ITEM = /^(?:>\s{0,4})*\s*(?:[-+*]|\d+[.)])\s+\[([ xX])\]\s+\S/;

export interface TaskCompletionStatus {
  count: number;
  completed_count: number;
}

/** Checklist items of a Markdown description, as GitLab counts them for `task_completion_status`. */
export function taskCompletion(description: string | null): TaskCompletionStatus {
  let count = 0;
  let completed = 0;
  for (const line of (description ?? '').split('\n')) {
    const m = TASK_ITEM.exec(line);
    if (!m) continue;
    count += 1;
    if (m[1] !== ' ') completed += 1;
  }
  return { count, completed_count: completed };
}
