/**
 * CI inputs: the `spec: inputs:` header document of a CI file, the values a pipeline is
 * created with, and `$[[ inputs.name ]]` interpolation of the content document. Messages are
 * GitLab's (Gitlab::Ci::Config::Interpolation).
 */

export type InputType = 'string' | 'number' | 'boolean' | 'array';
const INPUT_TYPES: InputType[] = ['array', 'boolean', 'number', 'string'];
const INPUT_KEYS = new Set(['default', 'description', 'options', 'regex', 'type']);

export interface InputSpec {
  type: InputType;
  hasDefault: boolean;
  default?: unknown;
  options?: unknown[];
  regex?: string;
}

const isHash = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function typeName(t: InputType): string {
  return t === 'array' ? 'an array' : `a ${t}`;
}

function valueMatches(type: InputType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
  }
}

/** Parses the header's `spec`; errors and warnings use GitLab's `header:spec:...` locations. */
export function parseInputSpecs(spec: unknown, errors: string[], warnings: string[]): Map<string, InputSpec> {
  const out = new Map<string, InputSpec>();
  if (!isHash(spec)) {
    errors.push('header:spec config should be a hash');
    return out;
  }
  for (const key of Object.keys(spec)) {
    if (key === 'inputs') continue;
    if (key === 'include' || key === 'component') warnings.push(`header:spec:${key} is not supported by Forgelet and was ignored`);
    else errors.push(`header:spec config contains unknown keys: ${key}`);
  }
  const inputs = spec.inputs;
  if (inputs === undefined || inputs === null) return out;
  if (!isHash(inputs)) {
    errors.push('header:spec:inputs config should be a hash');
    return out;
  }
  for (const [name, raw] of Object.entries(inputs)) {
    const def = raw ?? {};
    if (!isHash(def)) {
      errors.push(`header:spec:inputs:${name} config should be a hash`);
      continue;
    }
    const unknown = Object.keys(def).filter((k) => !INPUT_KEYS.has(k));
    for (const k of unknown) {
      if (k === 'rules') warnings.push(`header:spec:inputs:${name}:rules is not supported by Forgelet and was ignored`);
      else errors.push(`header:spec:inputs:${name} config contains unknown keys: ${k}`);
    }
    const type = def.type ?? 'string';
    if (typeof type !== 'string' || !INPUT_TYPES.includes(type as InputType)) {
      errors.push(`unknown input specification for \`${name}\` (valid types: ${INPUT_TYPES.join(', ')})`);
      continue;
    }
    const s: InputSpec = { type: type as InputType, hasDefault: 'default' in def };
    if (s.hasDefault) s.default = def.default;
    if (def.options !== undefined) {
      if (!Array.isArray(def.options)) errors.push(`header:spec:inputs:${name} options should be an array`);
      else s.options = def.options;
    }
    if (def.regex !== undefined) {
      if (typeof def.regex !== 'string') errors.push(`header:spec:inputs:${name} regex should be a string`);
      else s.regex = def.regex;
    }
    out.set(name, s);
  }
  return out;
}

/** A Ruby-style `/…/` or bare pattern as a RegExp; null when it does not compile. */
function compileRegex(text: string): RegExp | null {
  const m = /^\/(.*)\/([imx]*)$/s.exec(text);
  try {
    return m ? new RegExp(m[1]!, (m[2] ?? '').replace('x', '')) : new RegExp(text);
  } catch {
    return null;
  }
}

/** Resolves the inputs a pipeline is created with against the specs: values by name, or errors. */
export function resolveInputs(specs: Map<string, InputSpec>, given: Record<string, unknown>, errors: string[]): Record<string, unknown> {
  const unknown = Object.keys(given).filter((k) => !specs.has(k));
  if (unknown.length) errors.push(`unknown input arguments: ${unknown.join(', ')}`);
  const values: Record<string, unknown> = {};
  for (const [name, spec] of specs) {
    const provided = given[name];
    const err = (message: string) => errors.push(`\`${name}\` input: ${message}`);
    if (provided === undefined || provided === null) {
      if (!spec.hasDefault) {
        err('required value has not been provided');
        continue;
      }
      if (!valueMatches(spec.type, spec.default)) {
        err(`default value is not ${typeName(spec.type)}`);
        continue;
      }
    } else if (!valueMatches(spec.type, provided)) {
      err(`provided value is not ${typeName(spec.type)}`);
      continue;
    }
    const value = provided ?? spec.default;
    if (spec.options && !spec.options.some((o) => o === value)) {
      err(`\`${Array.isArray(value) ? JSON.stringify(value) : String(value)}\` cannot be used because it is not in the list of the allowed options`);
      continue;
    }
    if (spec.regex !== undefined && spec.type === 'string') {
      const re = compileRegex(spec.regex);
      if (!re) {
        err('invalid regular expression');
        continue;
      }
      if (!re.test(String(value))) {
        err(`${provided === undefined || provided === null ? 'default' : 'provided'} value does not match required RegEx pattern`);
        continue;
      }
    }
    values[name] = value;
  }
  return values;
}

const BLOCK = /\$\[\[(.*?)\]\]/gs;

/** Interpolates one string: a lone `$[[ … ]]` keeps the input's type, embedded ones become text. */
function interpolateString(text: string, values: Record<string, unknown>, errors: string[]): unknown {
  if (!text.includes('$[[')) return text;
  const evaluate = (expr: string): { ok: boolean; value?: unknown } => {
    const [access, ...functions] = expr.split('|').map((s) => s.trim());
    if (functions.length) {
      const fn = functions[0]!.replace(/\(.*$/s, '');
      errors.push(`interpolation function \`${fn}\` is not supported by Forgelet`);
      return { ok: false };
    }
    const objects = (access ?? '').split('.');
    if (objects.length <= 1) {
      errors.push('invalid interpolation access pattern');
      return { ok: false };
    }
    let memo: unknown = { inputs: values };
    for (const key of objects) {
      if (!isHash(memo) || !(key in memo)) {
        errors.push(`unknown interpolation key: \`${key}\``);
        return { ok: false };
      }
      memo = memo[key];
    }
    return { ok: true, value: memo };
  };
  const whole = /^\$\[\[(.*?)\]\]$/s.exec(text);
  if (whole && !whole[1]!.includes(']]')) {
    const r = evaluate(whole[1]!);
    return r.ok ? r.value : text;
  }
  return text.replace(BLOCK, (match, expr: string) => {
    const r = evaluate(expr);
    if (!r.ok) return match;
    return typeof r.value === 'string' ? r.value : JSON.stringify(r.value);
  });
}

/** Interpolates every string (keys included) of a parsed document. */
export function interpolate(node: unknown, values: Record<string, unknown>, errors: string[]): unknown {
  if (typeof node === 'string') return interpolateString(node, values, errors);
  if (Array.isArray(node)) return node.map((n) => interpolate(n, values, errors));
  if (isHash(node)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const key = interpolateString(k, values, errors);
      out[typeof key === 'string' ? key : JSON.stringify(key)] = interpolate(v, values, errors);
    }
    return out;
  }
  return node;
}
