/**
 * GitLab's auto-disabling of failing hooks (WebHooks::AutoDisabling): after 4 failures in a row a
 * project or group hook is temporarily disabled, for 1 minute doubling with each further failure
 * up to 24 hours; on its 40th it is disabled for good. A success, a successful test or an edit
 * re-enables it. System hooks are never disabled.
 */
import type { WebHookRow } from './webhook.table.js';

export const TEMPORARILY_DISABLED_FAILURE_THRESHOLD = 3;
export const PERMANENTLY_DISABLED_FAILURE_THRESHOLD = 39;
export const INITIAL_BACKOFF_MS = 60_000;
export const MAX_BACKOFF_MS = 24 * 60 * 60_000;

type FailureState = Pick<WebHookRow, 'type' | 'recent_failures' | 'disabled_until'>;

const autoDisabling = (hook: FailureState) => hook.type !== 'SystemHook';

export function temporarilyDisabled(hook: FailureState, now: Date): boolean {
  return (
    autoDisabling(hook) &&
    hook.disabled_until !== null &&
    new Date(hook.disabled_until).getTime() >= now.getTime() &&
    hook.recent_failures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD &&
    hook.recent_failures <= PERMANENTLY_DISABLED_FAILURE_THRESHOLD
  );
}

export function permanentlyDisabled(hook: FailureState): boolean {
  return autoDisabling(hook) && hook.recent_failures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD;
}

export function executable(hook: FailureState, now: Date): boolean {
  return !temporarilyDisabled(hook, now) && !permanentlyDisabled(hook);
}

export function alertStatusOf(hook: FailureState, now: Date): 'executable' | 'temporarily_disabled' | 'disabled' {
  if (temporarilyDisabled(hook, now)) return 'temporarily_disabled';
  if (permanentlyDisabled(hook)) return 'disabled';
  return 'executable';
}

/** The failure state after one more failure, or null when nothing changes (GitLab's `backoff!`). */
export function backoff(hook: FailureState, now: Date): Pick<WebHookRow, 'recent_failures' | 'disabled_until'> | null {
  if (!autoDisabling(hook) || !executable(hook, now)) return null;
  const failures = Math.min(Math.max(hook.recent_failures + 1, 1), PERMANENTLY_DISABLED_FAILURE_THRESHOLD + 1);
  if (failures <= TEMPORARILY_DISABLED_FAILURE_THRESHOLD) return { recent_failures: failures, disabled_until: hook.disabled_until };
  const steps = hook.recent_failures - TEMPORARILY_DISABLED_FAILURE_THRESHOLD;
  const ms = Math.min(Math.max(INITIAL_BACKOFF_MS * 2 ** steps, INITIAL_BACKOFF_MS), MAX_BACKOFF_MS);
  return { recent_failures: failures, disabled_until: new Date(now.getTime() + ms).toISOString() };
}
