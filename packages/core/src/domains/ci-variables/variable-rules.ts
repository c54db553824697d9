/**
 * GitLab's model validations of CI/CD variables, collected per attribute in the order Rails
 * adds them (`Ci::HasVariable`, `Ci::Maskable`, `HasEnvironmentScope`, the description's
 * length, the key's uniqueness), so a refusal reads `{"message":{"key":[…],"value":[…]}}`.
 */
import type { VariableScope } from './ci-variable.table.js';

export const KEY_MAX_LENGTH = 255;
export const DESCRIPTION_MAX_LENGTH = 255;
/** `Ci::InstanceVariable`'s value limit. */
export const INSTANCE_VALUE_MAX_LENGTH = 10_000;

const KEY_RE = /^[a-zA-Z0-9_]+$/;
/**
 * `Ci::Maskable::REGEX`: one line of at least 8 characters from the Base64 alphabet plus
 * `@`, `:`, `.` and `~` (the runner must find the value verbatim in the log).
 */
export const MASKABLE_RE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
/** `Ci::Maskable::MASK_AND_RAW_REGEX`: a raw value is never expanded, so anything but whitespace, 8 or more. */
export const MASKABLE_RAW_RE = /^[^ \t\r\n\f\v]{8,}$/;
/** `Gitlab::Regex.environment_scope_regex`. */
const ENVIRONMENT_SCOPE_RE = /^[a-zA-Z0-9_/${}. *-]+$/;
const ENVIRONMENT_SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";

/** The attributes a variable would have after the write. */
export interface VariableState {
  key: string;
  value: string;
  masked: boolean;
  raw: boolean;
  environment_scope: string;
  description: string | null;
}

export type ModelErrors = Record<string, string[]>;

function add(errors: ModelErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Whether a masked value can be masked (`masked_and_expanded?` / `masked_and_raw?`). */
export function maskable(value: string, raw: boolean): boolean {
  return (raw ? MASKABLE_RAW_RE : MASKABLE_RE).test(value);
}

/** The validation errors of the variable (empty when valid); `taken` adds the key's uniqueness error. */
export function variableErrors(scope: VariableScope, v: VariableState, taken: boolean): ModelErrors {
  const errors: ModelErrors = {};
  if (v.key === '') add(errors, 'key', "can't be blank");
  if (v.key.length > KEY_MAX_LENGTH) add(errors, 'key', `is too long (maximum is ${KEY_MAX_LENGTH} characters)`);
  if (!KEY_RE.test(v.key)) add(errors, 'key', "can contain only letters, digits and '_'.");
  if (v.masked && !maskable(v.value, v.raw)) add(errors, 'value', 'is invalid');
  if (scope === 'instance') {
    if (v.value.length > INSTANCE_VALUE_MAX_LENGTH) add(errors, 'value', `The value of the provided variable exceeds the ${INSTANCE_VALUE_MAX_LENGTH} character limit`);
  } else {
    if (v.environment_scope === '') add(errors, 'environment_scope', "can't be blank");
    if (!ENVIRONMENT_SCOPE_RE.test(v.environment_scope)) add(errors, 'environment_scope', ENVIRONMENT_SCOPE_MESSAGE);
  }
  if (v.description !== null && v.description.length > DESCRIPTION_MAX_LENGTH) add(errors, 'description', `is too long (maximum is ${DESCRIPTION_MAX_LENGTH} characters)`);
  if (taken) add(errors, 'key', `(${v.key}) has already been taken`);
  return errors;
}

/**
 * Whether an environment scope applies to an environment (`HasEnvironmentScope.on_environment`):
 * `*` to every one, a name to itself, and `*` inside a scope matches any run of characters
 * (GitLab turns it into SQL `LIKE`, case-sensitive on PostgreSQL). A job without an
 * environment gets only `*` variables.
 */
export function scopeMatches(scope: string, environment: string | null): boolean {
  if (scope === '*') return true;
  if (environment === null) return false;
  if (scope === environment) return true;
  if (!scope.includes('*')) return false;
  const pattern = scope.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`, 's').test(environment);
}

/** How specific a matching scope is: `*` 0, a wildcard 1, the exact name 2 (GitLab orders by it; the last wins). */
export function scopeRank(scope: string, environment: string | null): number {
  if (scope === '*') return 0;
  return scope === environment ? 2 : 1;
}
