/** Shared by the real-client CI/CD variable suites (python-gitlab, gitbeaker, ruby-gitlab): variables as GitLab answers them, and its messages. */

/** A project or group variable (`Entities::Ci::Variable`), defaults filled in. */
export function variable(key: string, value: string | null, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { variable_type: 'env_var', key, value, hidden: false, protected: false, masked: false, raw: false, environment_scope: '*', description: null, ...more };
}

/** An instance variable: no environment scope, never hidden. */
export function instanceVariable(key: string, value: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  const { hidden: _h, environment_scope: _e, ...v } = variable(key, value, more);
  return v;
}

/** The value of a `masked_and_hidden` variable, which no answer may contain. */
export const HIDDEN_VALUE = 'hidden-value-never-shown';
/** A masked value that does not meet the masking rules (`{"message":{"value":["is invalid"]}}`, 400). */
export const INVALID_VALUE = { value: ['is invalid'] };
export const AMBIGUOUS_KEY = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";
export const HIDDEN_MASKED_UPDATE = { base: ['Updating masked attribute is not allowed on updates for hidden variables.'] };
