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

/** GitLab's Taskable#task_status: "1 of 2 checklist items completed" (the issue entity shows it when there are tasks). */
export function taskStatus(status: TaskCompletionStatus): string {
  return `${status.completed_count} of ${status.count} checklist item${status.count === 1 ? '' : 's'} completed`;
}
