/**
 * What a job receives of the instance's, its groups' and its project's variables, in GitLab's
 * order (`Gitlab::Ci::Variables::Builder#scoped_variables`): instance, then the groups from the
 * root down (the nearest group wins), then the project; the runner lets a later key win.
 * Protected variables only reach jobs on protected refs; a variable applies when its
 * environment scope matches the job's environment (the most specific scope comes last).
 */
import type { Kysely } from 'kysely';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { traversalIds } from '../../access/namespace.table.js';
import type { SecretBox } from '../../kernel/secrets.js';
import type { Database } from '../../storage/database.js';
import { groupOwnerKey, INSTANCE_OWNER, projectOwnerKey } from './ci-variables.js';
import { selectMaskedValuesOf, selectVariablesForOwners } from './ci-variable.queries.js';
import type { CiVariableRow } from './ci-variable.table.js';
import { scopeMatches, scopeRank } from './variable-rules.js';

/** A variable as the runner gets it (`Collection::Item#to_runner_variable`): `file` and `raw` only when true. */
export interface RunnerVariable {
  key: string;
  value: string;
  public: boolean;
  file?: boolean;
  masked: boolean;
  raw?: boolean;
}

export interface JobVariablesInput {
  projectId: number;
  /** The project's namespace: a user's, or a group whose ancestors' variables apply too. */
  namespace: Pick<NamespaceRow, 'kind' | 'traversal'>;
  /** Whether the pipeline's ref is protected. */
  protectedRef: boolean;
  /** The job's environment name (expanded), or null. */
  environment: string | null;
}

function ownersOf(input: Pick<JobVariablesInput, 'projectId' | 'namespace'>): string[] {
  const groups = input.namespace.kind === 'group' ? traversalIds(input.namespace.traversal).map(groupOwnerKey) : [];
  return [INSTANCE_OWNER, ...groups, projectOwnerKey(input.projectId)];
}

function toRunnerVariable(row: CiVariableRow, secrets: SecretBox): RunnerVariable {
  return {
    key: row.key,
    value: secrets.decrypt(row.value_encrypted),
    public: false,
    ...(row.variable_type === 'file' ? { file: true } : {}),
    masked: row.masked === 1,
    ...(row.raw === 1 ? { raw: true } : {}),
  };
}

/** The job's instance, group and project variables, lowest precedence first. */
export async function variablesForJob(deps: { db: Kysely<Database>; secrets: SecretBox }, input: JobVariablesInput): Promise<RunnerVariable[]> {
  const owners = ownersOf(input);
  const rows = (await selectVariablesForOwners(deps.db, owners, input.protectedRef)).filter((r) => scopeMatches(r.environment_scope, input.environment));
  const rank = new Map(owners.map((o, i) => [o, i]));
  // stable: owner (instance, root group … nearest group, project), then scope specificity, then id
  rows.sort((a, b) => rank.get(a.owner)! - rank.get(b.owner)! || scopeRank(a.environment_scope, input.environment) - scopeRank(b.environment_scope, input.environment) || a.id - b.id);
  return rows.map((r) => toRunnerVariable(r, deps.secrets));
}

/**
 * Values of the masked variables that can reach the project's jobs, to show as `[MASKED]` in
 * job logs (the runner masks them before sending; this covers a runner that did not).
 */
export async function maskedValuesForProject(deps: { db: Kysely<Database>; secrets: SecretBox }, input: Pick<JobVariablesInput, 'projectId' | 'namespace'>): Promise<string[]> {
  const rows = await selectMaskedValuesOf(deps.db, ownersOf(input));
  return [...new Set(rows.map((r) => deps.secrets.decrypt(r.value_encrypted)).filter((v) => v !== ''))];
}

/** The log with every masked value replaced by `[MASKED]`, longest values first. */
export function maskLog(log: string, values: string[]): string {
  let out = log;
  for (const v of [...values].sort((a, b) => b.length - a.length)) if (out.includes(v)) out = out.split(v).join('[MASKED]');
  return out;
}
