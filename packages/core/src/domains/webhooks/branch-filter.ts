/**
 * GitLab's ActiveHookFilter for push events: a project or group hook with a
 * `push_events_branch_filter` takes a push only to a matching branch, by its
 * `branch_filter_strategy`: `wildcard` (an exact name or a `*` pattern, RefMatcher), `regex`
 * (unanchored; a pattern that does not compile matches nothing) or `all_branches`. A blank
 * filter takes every branch. Tag pushes and system hooks are not filtered.
 */
import { branchPatternMatches } from '../repository/index.js';
import type { WebHookRow } from './webhook.table.js';

export function branchFilterMatches(hook: Pick<WebHookRow, 'push_events_branch_filter' | 'branch_filter_strategy'>, branch: string): boolean {
  const filter = hook.push_events_branch_filter;
  if (!filter) return true;
  switch (hook.branch_filter_strategy) {
    case 'all_branches':
      return true;
    case 'regex':
      try {
        return new RegExp(filter).test(branch);
      } catch {
        return false;
      }
    default:
      return branchPatternMatches(filter, branch);
  }
}
