/** GitLab's `Entities::Ci::Variable`, as each kind of variable exposes it. */
import type { CiVariableRow, VariableScope } from './ci-variable.table.js';

/** A project or group variable. */
export interface CiVariableEntity {
  variable_type: 'env_var' | 'file';
  key: string;
  /** null once the variable is hidden (`masked_and_hidden`). */
  value: string | null;
  hidden: boolean;
  protected: boolean;
  masked: boolean;
  raw: boolean;
  environment_scope: string;
  description: string | null;
}

/** An instance variable: no environment scope, never hidden. */
export interface CiInstanceVariableEntity {
  variable_type: 'env_var' | 'file';
  key: string;
  value: string;
  protected: boolean;
  masked: boolean;
  raw: boolean;
  description: string | null;
}

export function toCiVariableEntity(row: CiVariableRow, decrypt: (sealed: string) => string): CiVariableEntity {
  return {
    variable_type: row.variable_type as CiVariableEntity['variable_type'],
    key: row.key,
    value: row.hidden === 1 ? null : decrypt(row.value_encrypted),
    hidden: row.hidden === 1,
    protected: row.protected === 1,
    masked: row.masked === 1,
    raw: row.raw === 1,
    environment_scope: row.environment_scope,
    description: row.description,
  };
}

export function toCiInstanceVariableEntity(row: CiVariableRow, decrypt: (sealed: string) => string): CiInstanceVariableEntity {
  return {
    variable_type: row.variable_type as CiInstanceVariableEntity['variable_type'],
    key: row.key,
    value: decrypt(row.value_encrypted),
    protected: row.protected === 1,
    masked: row.masked === 1,
    raw: row.raw === 1,
    description: row.description,
  };
}

/** The entity for a row of the given scope. */
export function entityOf(scope: VariableScope, row: CiVariableRow, decrypt: (sealed: string) => string): CiVariableEntity | CiInstanceVariableEntity {
  return scope === 'instance' ? toCiInstanceVariableEntity(row, decrypt) : toCiVariableEntity(row, decrypt);
}
