/** Job variables: `$VAR` / `${VAR}` expansion (gitlab-runner's) and the script environment. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JobPayloadVariable } from '@forgelet/client';

/** A variable of the job, or one the runner adds itself (no `public`/`masked` flags). */
type Variable = Pick<JobPayloadVariable, 'key' | 'value'> & Partial<JobPayloadVariable>;

/** Expands `$NAME` and `${NAME}` from `lookup`; `$$` is a literal `$`; unknown names expand to ''. */
export function expand(text: string, lookup: (name: string) => string | undefined): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    return lookup((braced ?? bare)!) ?? '';
  });
}

const VALID_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface JobEnvironment {
  /** What the script sees (the runner's own environment, then the job's). */
  env: NodeJS.ProcessEnv;
  /** The job's variables after expansion (file variables: their file path). */
  variables: Map<string, string>;
  /** Values to hide in the log. */
  masked: string[];
}

/**
 * The job's variables (later entries win, as in GitLab's list), expanded unless `raw`,
 * file variables written to `fileDir` with the variable set to the path, then `extra`
 * (CI_PROJECT_DIR, CI_BUILDS_DIR …) on top.
 */
export async function buildEnvironment(
  list: JobPayloadVariable[],
  defaults: Record<string, string>,
  extra: Record<string, string>,
  fileDir: string,
  base: NodeJS.ProcessEnv = process.env,
): Promise<JobEnvironment> {
  const raw = new Map<string, Variable>();
  for (const [key, value] of Object.entries(defaults)) raw.set(key, { key, value });
  for (const v of list) if (v && typeof v.key === 'string' && VALID_KEY.test(v.key)) raw.set(v.key, { ...v, value: String(v.value ?? '') });
  for (const [key, value] of Object.entries(extra)) raw.set(key, { key, value, raw: true });

  const lookup = (name: string) => raw.get(name)?.value;
  const variables = new Map<string, string>();
  const masked: string[] = [];
  for (const v of raw.values()) {
    const value = v.raw || v.file ? v.value : expand(v.value, lookup);
    if (v.masked && v.value !== '') masked.push(v.value, value);
    if (v.file) {
      const file = path.join(fileDir, v.key);
      await writeFile(file, v.value, { mode: 0o600 });
      variables.set(v.key, file);
    } else {
      variables.set(v.key, value);
    }
  }
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [key, value] of variables) env[key] = value;
  return { env, variables, masked: [...new Set(masked)] };
}
