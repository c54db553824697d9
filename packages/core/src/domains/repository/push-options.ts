/**
 * `git push -o` options as GitLab reads them (lib/gitlab/push_options.rb): `namespace.key[=value]`,
 * `mr.` an alias of `merge_request.`, a value-less option is `true`, unknown options are
 * ignored; `ci.variable`, `ci.input`, `merge_request.label`, `.unlabel`, `.assign` and
 * `.unassign` may be given several times (kept in order, without repeats).
 */
const VALID: Record<string, readonly string[]> = {
  merge_request: [
    'assign', 'auto_merge', 'create', 'description', 'draft', 'label', 'merge_when_pipeline_succeeds', 'milestone',
    'remove_source_branch', 'target', 'target_project', 'title', 'unassign', 'unlabel',
  ],
  ci: ['skip', 'variable', 'input'],
  integrations: ['skip_ci'],
  secret_detection: ['skip_all'],
};
const MULTI = new Set(['ci.variable', 'ci.input', 'merge_request.label', 'merge_request.unlabel', 'merge_request.assign', 'merge_request.unassign']);
const ALIASES: Record<string, string> = { mr: 'merge_request' };
const OPTION = /^([^.]+)\.([^=]+)=?(.*)$/s;

/** Parsed push options: `options.ci.skip` is `true` or a string; multi-valued keys are string arrays. */
export type PushOptions = Record<string, Record<string, string | true | string[]>>;

export function parsePushOptions(raw: readonly string[]): PushOptions {
  const out: PushOptions = {};
  for (const option of raw) {
    const m = OPTION.exec(option);
    if (!m) continue;
    let namespace = m[1]!.trim();
    const key = m[2]!.trim();
    const value = m[3]!.trim();
    namespace = ALIASES[namespace] ?? namespace;
    if (!VALID[namespace]?.includes(key)) continue;
    const bucket = (out[namespace] ??= {});
    if (MULTI.has(`${namespace}.${key}`)) {
      const list = (bucket[key] ??= []) as string[];
      if (value !== '' && !list.includes(value)) list.push(value);
    } else bucket[key] = value === '' ? true : value;
  }
  return out;
}

/** A single-valued option as GitLab's `to_boolean`-free checks read it: present and not `false`. */
export function pushOptionSet(options: PushOptions | undefined, namespace: string, key: string): boolean {
  const value = options?.[namespace]?.[key];
  return value !== undefined && value !== 'false' && value !== '0';
}

/** The `KEY=value` pairs of a multi-valued option (`ci.variable`, `ci.input`); malformed entries are skipped. */
export function pushOptionPairs(options: PushOptions | undefined, namespace: string, key: string): Array<{ key: string; value: string }> {
  const list = options?.[namespace]?.[key];
  if (!Array.isArray(list)) return [];
  const out: Array<{ key: string; value: string }> = [];
  for (const entry of list) {
    const eq = entry.indexOf('=');
    if (eq > 0) out.push({ key: entry.slice(0, eq), value: entry.slice(eq + 1) });
  }
  return out;
}
