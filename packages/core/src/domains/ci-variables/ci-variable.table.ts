import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Where a variable belongs: the instance, a group or a project. */
export type VariableScope = 'instance' | 'group' | 'project';

export interface CiVariableTable {
  id: Generated<number>;
  /** `instance`, `group:<id>` or `project:<id>` (keys are unique per owner and environment scope). */
  owner: string;
  group_id: number | null;
  project_id: number | null;
  key: string;
  /** Sealed with the instance's secret key (kernel/secrets.ts). */
  value_encrypted: string;
  variable_type: string; // env_var | file
  protected: number;
  masked: number;
  /** Masked and hidden: the value is never shown again. */
  hidden: number;
  raw: number;
  description: string | null;
  environment_scope: string;
  created_at: string;
  updated_at: string;
}
export type CiVariableRow = Selectable<CiVariableTable>;
export type NewCiVariableRow = Insertable<CiVariableTable>;
export type CiVariableUpdate = Updateable<CiVariableTable>;

// This domain's table in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    ci_variables: CiVariableTable;
  }
}
