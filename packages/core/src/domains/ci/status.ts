/**
 * Job and pipeline statuses as GitLab computes them: the composite status of a set of jobs
 * (Gitlab::Ci::Status::Composite) and the decision a created job takes once the jobs before
 * it are complete (Ci::ProcessBuildService). Pure functions; the processing writes the result.
 */

/** Every status a job or pipeline may report (CommitStatus::AVAILABLE_STATUSES). */
export const AVAILABLE_STATUSES = [
  'created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'success', 'failed',
  'canceling', 'canceled', 'skipped', 'manual', 'scheduled',
] as const;
export type CiStatus = (typeof AVAILABLE_STATUSES)[number];

export const COMPLETED_STATUSES = ['success', 'failed', 'canceled', 'skipped'];
/** Jobs a cancel stops (manual jobs stay playable). */
export const CANCELABLE_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'];
export const ACTIVE_STATUSES = ['preparing', 'pending', 'running', 'waiting_for_resource', 'canceling'];

export interface StatusInput {
  status: string;
  allow_failure: number | boolean;
}

type Key = string;

function keyOf(j: StatusInput): Key {
  const allowFailure = j.allow_failure === true || j.allow_failure === 1;
  if (allowFailure && (j.status === 'failed' || j.status === 'canceled')) return 'success_with_warnings';
  if (allowFailure && j.status === 'manual') return 'ignored';
  return j.status;
}

/** The status of a set of jobs; null when the set is empty. `dag` for the needs of a DAG job. */
export function compositeStatus(jobs: readonly StatusInput[], options: { dag?: boolean } = {}): string | null {
  if (jobs.length === 0) return null;
  const set = new Set(jobs.map(keyOf));
  const any = (...names: Key[]) => names.some((n) => set.has(n));
  const only = (...names: Key[]) => {
    const matching = names.filter((n) => set.has(n)).length;
    return matching > 0 && matching === set.size;
  };
  if (options.dag && (set.has('skipped') || set.has('ignored'))) return 'skipped';
  if (options.dag && !only('success', 'failed', 'canceled', 'skipped', 'success_with_warnings')) return 'pending';
  if (only('skipped', 'ignored')) return 'skipped';
  if (only('success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
  if (only('created', 'success_with_warnings', 'ignored')) return 'created';
  if (only('preparing', 'success_with_warnings', 'ignored')) return 'preparing';
  if (only('canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
  if (only('pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
  if (any('running', 'pending')) return 'running';
  if (any('waiting_for_resource')) return 'waiting_for_resource';
  if (any('manual')) return 'manual';
  if (any('scheduled')) return 'scheduled';
  if (any('preparing')) return 'preparing';
  if (any('created')) return 'running';
  return 'failed';
}

/** True when some allowed-to-fail job failed (GitLab's "passed with warnings"). */
export function hasWarnings(jobs: readonly StatusInput[]): boolean {
  return jobs.some((j) => keyOf(j) === 'success_with_warnings');
}

/**
 * What a created job becomes once the jobs it waits for are complete with `previous` status:
 * `pending`, `manual` or `skipped`. null while they are not complete.
 */
export function nextStatusOf(when: string, dag: boolean, previous: string): 'pending' | 'manual' | 'skipped' | null {
  if (!COMPLETED_STATUSES.includes(previous)) return null;
  let valid: string[];
  switch (when) {
    case 'on_success':
    case 'manual':
      valid = dag ? ['success'] : ['success', 'skipped'];
      break;
    case 'on_failure':
      valid = ['failed'];
      break;
    case 'always':
      valid = ['success', 'failed', 'skipped'];
      break;
    default:
      valid = [];
  }
  if (!valid.includes(previous)) return 'skipped';
  return when === 'manual' ? 'manual' : 'pending';
}
