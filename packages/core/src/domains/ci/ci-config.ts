/**
 * `.gitlab-ci.yml`: parsed with the `yaml` package (YAML 1.2, anchors and `<<` merges),
 * validated with GitLab's messages, turned into the jobs of a pipeline. What Forgelet does not
 * run (`rules`, `cache`, `services`, `include`, `extends`, …) is reported as a warning naming
 * its location and left out, never treated as something else.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { interpolate, parseInputSpecs, resolveInputs } from './ci-inputs.js';
import { parseDuration } from './durations.js';

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual';
export const DEFAULT_STAGES = ['build', 'test', 'deploy'];

export interface CiVariableSpec {
  key: string;
  value: string;
  /** `expand: false`: the runner must not expand `$VARS` in the value. */
  raw?: boolean;
}

export interface CiImageSpec {
  name: string;
  entrypoint?: string[];
}

export interface CiArtifactsSpec {
  name?: string;
  paths?: string[];
  exclude?: string[];
  untracked?: boolean;
  when?: 'on_success' | 'on_failure' | 'always';
  expire_in?: string;
}

export interface CiEnvironmentSpec {
  name: string;
  deployment_tier?: string;
  action?: string;
}

export interface CiNeedSpec {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

/** One job as stored in `ci_jobs.definition` (JSON). */
export interface CiJobDefinition {
  script: string[];
  before_script: string[];
  after_script: string[];
  image: CiImageSpec | null;
  /** Global variables, then the job's (a later key wins). */
  variables: CiVariableSpec[];
  /** null: stage ordering; a list (possibly empty): DAG ordering. */
  needs: CiNeedSpec[] | null;
  dependencies: string[] | null;
  environment: CiEnvironmentSpec | null;
  artifacts: CiArtifactsSpec | null;
  tags: string[];
  /** Seconds. */
  timeout: number | null;
}

export interface CiJobSpec {
  name: string;
  stage: string;
  stageIdx: number;
  when: JobWhen;
  allowFailure: boolean;
  definition: CiJobDefinition;
}

export interface CiConfig {
  /** `.pre`, the declared (or default) stages, `.post`. */
  stages: string[];
  jobs: CiJobSpec[];
  /** `workflow:name`. */
  name: string | null;
  /** The resolved inputs (stored on the pipeline). */
  inputs: Record<string, unknown>;
}

export type CiConfigResult =
  | { valid: true; config: CiConfig; errors: []; warnings: string[] }
  | { valid: false; config: null; errors: string[]; warnings: string[] };

const isHash = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const ROOT_KEYS = ['default', 'include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache', 'workflow'];
const ROOT_UNSUPPORTED = new Set(['include', 'services', 'cache']);
const DEFAULT_SUPPORTED = new Set(['before_script', 'after_script', 'image', 'artifacts', 'tags', 'timeout']);
const DEFAULT_UNSUPPORTED = new Set(['cache', 'services', 'interruptible', 'retry', 'hooks', 'id_tokens', 'identity']);
const JOB_SUPPORTED = new Set([
  'script', 'stage', 'type', 'when', 'allow_failure', 'needs', 'environment', 'artifacts', 'variables', 'image',
  'before_script', 'after_script', 'tags', 'timeout', 'dependencies',
]);
const JOB_UNSUPPORTED = new Set([
  'extends', 'rules', 'only', 'except', 'cache', 'services', 'retry', 'parallel', 'interruptible', 'resource_group',
  'coverage', 'release', 'secrets', 'inherit', 'start_in', 'hooks', 'id_tokens', 'identity', 'pages', 'manual_confirmation',
  'dast_configuration', 'trigger', 'run', 'inputs',
]);
const ARTIFACT_SUPPORTED = new Set(['name', 'paths', 'exclude', 'untracked', 'when', 'expire_in']);
const ARTIFACT_UNSUPPORTED = new Set(['reports', 'expose_as', 'public', 'access']);
const ENVIRONMENT_KEYS = new Set(['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier']);
const ENVIRONMENT_ACTIONS = ['start', 'prepare', 'stop', 'verify', 'access'];
const DEPLOYMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'];
const IMAGE_KEYS = new Set(['name', 'entrypoint', 'ports', 'pull_policy', 'docker', 'kubernetes']);
const ALLOWED_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];

function unsupported(location: string): string {
  return `${location} is not supported by Forgelet and was ignored`;
}

/** GitLab's "string or nested array of strings up to 10 levels deep", flattened; null when not one. */
function commands(value: unknown, depth = 0): string[] | null {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || depth > 10) return null;
  const out: string[] = [];
  for (const v of value) {
    const inner = commands(v, depth + 1);
    if (inner === null) return null;
    out.push(...inner);
  }
  return out;
}

function arrayOfStrings(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;
}

/** Scalar YAML values as the text GitLab stores (numbers and booleans stringified). */
function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

class Checker {
  errors: string[] = [];
  warnings: string[] = [];

  variables(value: unknown, location: string, label: string): CiVariableSpec[] {
    if (value === undefined || value === null) return [];
    const bad = () => {
      this.errors.push(`${label} config should be a hash of key value pairs, value can be a hash`);
      return [];
    };
    if (!isHash(value)) return bad();
    const out: CiVariableSpec[] = [];
    for (const [key, raw] of Object.entries(value)) {
      const text = scalarText(raw);
      if (text !== null) {
        out.push({ key, value: text });
        continue;
      }
      if (!isHash(raw)) return bad();
      const allowed = location === 'variables' ? ['value', 'description', 'expand', 'options'] : ['value', 'expand'];
      const extra = Object.keys(raw).filter((k) => !allowed.includes(k));
      if (extra.length) {
        this.errors.push(`${label} config uses invalid data keys: ${extra.join(', ')}`);
        continue;
      }
      const v = raw.value === undefined ? '' : scalarText(raw.value);
      if (v === null) return bad();
      if (raw.expand !== undefined && typeof raw.expand !== 'boolean') {
        this.errors.push(`${location}:${key} expand should be a boolean value`);
        continue;
      }
      if (raw.options !== undefined) this.warnings.push(unsupported(`${location}:${key}:options`));
      out.push(raw.expand === false ? { key, value: v, raw: true } : { key, value: v });
    }
    return out;
  }

  script(value: unknown, location: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    const list = commands(value);
    if (list === null) {
      this.errors.push(`${location} config should be a string or a nested array of strings up to 10 levels deep`);
      return undefined;
    }
    return list;
  }

  image(value: unknown, location: string): CiImageSpec | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return { name: value };
    if (!isHash(value)) {
      this.errors.push(`${location} config should be a hash or a string`);
      return undefined;
    }
    for (const k of Object.keys(value)) {
      if (!IMAGE_KEYS.has(k)) this.errors.push(`${location} config contains unknown keys: ${k}`);
      else if (k !== 'name' && k !== 'entrypoint') this.warnings.push(unsupported(`${location}:${k}`));
    }
    if (typeof value.name !== 'string' || value.name === '') {
      this.errors.push(`${location} name can't be blank`);
      return undefined;
    }
    const image: CiImageSpec = { name: value.name };
    if (value.entrypoint !== undefined) {
      const ep = arrayOfStrings(value.entrypoint);
      if (!ep) this.errors.push(`${location} entrypoint should be an array of strings`);
      else image.entrypoint = ep;
    }
    return image;
  }

  artifacts(value: unknown, location: string): CiArtifactsSpec | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isHash(value)) {
      this.errors.push(`${location} config should be a hash`);
      return undefined;
    }
    const out: CiArtifactsSpec = {};
    for (const [k, v] of Object.entries(value)) {
      if (ARTIFACT_UNSUPPORTED.has(k)) {
        this.warnings.push(unsupported(`${location}:${k}`));
        continue;
      }
      if (!ARTIFACT_SUPPORTED.has(k)) {
        this.errors.push(`${location} config contains unknown keys: ${k}`);
        continue;
      }
      if (k === 'name') {
        if (typeof v !== 'string') this.errors.push(`${location} name should be a string`);
        else out.name = v;
      } else if (k === 'paths' || k === 'exclude') {
        const list = arrayOfStrings(v);
        if (!list) this.errors.push(`${location} ${k} should be an array of strings`);
        else out[k] = list;
      } else if (k === 'untracked') {
        if (typeof v !== 'boolean') this.errors.push(`${location} untracked should be a boolean value`);
        else out.untracked = v;
      } else if (k === 'when') {
        if (v !== 'on_success' && v !== 'on_failure' && v !== 'always') this.errors.push(`${location} when should be on_success, on_failure or always`);
        else out.when = v;
      } else if (k === 'expire_in') {
        const text = scalarText(v);
        if (text === null || (text.trim().toLowerCase() !== 'never' && parseDuration(text) === null)) {
          this.errors.push(`${location} expire in should be a duration`);
        } else out.expire_in = text;
      }
    }
    return out;
  }

  tags(value: unknown, location: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    const list = arrayOfStrings(value);
    if (!list) {
      this.errors.push(`${location} config should be an array of strings`);
      return undefined;
    }
    return list;
  }

  timeout(value: unknown, location: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const seconds = parseDuration(value);
    if (seconds === null || seconds <= 0) {
      this.errors.push(`${location} config should be a duration`);
      return undefined;
    }
    return seconds;
  }

  environment(value: unknown, location: string): CiEnvironmentSpec | null {
    if (value === undefined || value === null) return null;
    if (typeof value === 'string') {
      if (value === '') this.errors.push(`${location} name can't be blank`);
      return { name: value };
    }
    if (!isHash(value)) {
      this.errors.push(`${location} config should be a hash or a string`);
      return null;
    }
    for (const k of Object.keys(value)) {
      if (!ENVIRONMENT_KEYS.has(k)) this.errors.push(`${location} config contains unknown keys: ${k}`);
      else if (k !== 'name' && k !== 'action' && k !== 'deployment_tier') this.warnings.push(unsupported(`${location}:${k}`));
    }
    if (typeof value.name !== 'string' || value.name === '') {
      this.errors.push(`${location} name can't be blank`);
      return null;
    }
    const env: CiEnvironmentSpec = { name: value.name };
    if (value.action !== undefined) {
      if (typeof value.action !== 'string' || !ENVIRONMENT_ACTIONS.includes(value.action)) {
        this.errors.push(`${location} action should be start, stop, prepare, verify, or access`);
      } else env.action = value.action;
    }
    if (value.deployment_tier !== undefined) {
      if (typeof value.deployment_tier !== 'string' || !DEPLOYMENT_TIERS.includes(value.deployment_tier)) {
        this.errors.push(`${location} deployment tier must be one of ${DEPLOYMENT_TIERS.join(', ')}`);
      } else env.deployment_tier = value.deployment_tier;
    }
    return env;
  }

  needs(value: unknown, location: string): CiNeedSpec[] | null {
    if (value === undefined || value === null) return null;
    const list = Array.isArray(value) ? value : typeof value === 'string' || isHash(value) ? [value] : null;
    if (!list) {
      this.errors.push(`${location} config should be a string, a hash, or an array of strings or hashes`);
      return null;
    }
    const out: CiNeedSpec[] = [];
    for (const need of list) {
      if (typeof need === 'string') {
        out.push({ name: need, artifacts: true, optional: false });
        continue;
      }
      if (!isHash(need)) {
        this.errors.push(`${location} config should be a string, a hash, or an array of strings or hashes`);
        continue;
      }
      if ('pipeline' in need || 'project' in need) {
        this.warnings.push(unsupported(`${location}:${'project' in need ? 'project' : 'pipeline'}`));
        continue;
      }
      const extra = Object.keys(need).filter((k) => !['job', 'artifacts', 'optional', 'parallel'].includes(k));
      if (extra.length) {
        this.errors.push(`${location}:need config contains unknown keys: ${extra.join(', ')}`);
        continue;
      }
      if ('parallel' in need) this.warnings.push(unsupported(`${location}:parallel`));
      if (typeof need.job !== 'string' || need.job === '') {
        this.errors.push(`${location}:need job can't be blank`);
        continue;
      }
      if (need.artifacts !== undefined && typeof need.artifacts !== 'boolean') this.errors.push(`${location}:need artifacts should be a boolean value`);
      if (need.optional !== undefined && typeof need.optional !== 'boolean') this.errors.push(`${location}:need optional should be a boolean value`);
      out.push({ name: need.job, artifacts: need.artifacts !== false, optional: need.optional === true });
    }
    return out;
  }
}

interface DefaultSettings {
  before_script?: string[];
  after_script?: string[];
  image?: CiImageSpec;
  artifacts?: CiArtifactsSpec;
  tags?: string[];
  timeout?: number;
}

/** Loads the YAML: the optional `spec:` header and the content document, interpolated. */
function loadDocuments(text: string, givenInputs: Record<string, unknown>, c: Checker): { content: unknown; inputs: Record<string, unknown> } | null {
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { merge: true, uniqueKeys: false, prettyErrors: true }) as Document.Parsed[];
  } catch (err) {
    c.errors.push(`(<unknown>): ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
  if (!Array.isArray(docs)) docs = [docs];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem) {
      const where = problem.linePos?.[0];
      const message = problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').replace(/[.:]$/, '');
      c.errors.push(`(<unknown>): ${message}${where ? ` at line ${where.line} column ${where.col}` : ''}`);
      return null;
    }
  }
  const values: unknown[] = [];
  for (const doc of docs) {
    let hasReference = false;
    const visit = (node: unknown): void => {
      if (hasReference || node === null || typeof node !== 'object') return;
      if ((isScalar(node) || isSeq(node) || isMap(node)) && (node as { tag?: string }).tag === '!reference') {
        hasReference = true;
        return;
      }
      if (isSeq(node) || isMap(node)) for (const item of (node as { items: unknown[] }).items) {
        if (item && typeof item === 'object' && 'key' in item && 'value' in item) visit((item as { value: unknown }).value);
        else visit(item);
      }
    };
    visit(doc.contents);
    if (hasReference) {
      c.errors.push('!reference tags are not supported by Forgelet');
      return null;
    }
    try {
      values.push(doc.toJS({ maxAliasCount: 1000 }));
    } catch (err) {
      c.errors.push(`(<unknown>): ${(err as Error).message.split('\n')[0]}`);
      return null;
    }
  }
  const nonEmpty = values.length;
  let header: unknown;
  let content: unknown;
  if (nonEmpty === 2 && isHash(values[0]) && 'spec' in values[0]) {
    header = values[0];
    content = values[1];
  } else if (nonEmpty === 1) {
    content = values[0];
    if (isHash(content) && 'spec' in content && Object.keys(content).length === 1) {
      // a header with no content document
      c.errors.push('jobs config should contain at least one visible job');
      return null;
    }
  } else if (nonEmpty === 0) {
    content = null;
  } else {
    c.errors.push('Invalid configuration format');
    return null;
  }
  if (header === undefined) {
    if (Object.keys(givenInputs).length) {
      c.errors.push(`unknown input arguments: ${Object.keys(givenInputs).join(', ')}`);
      return null;
    }
    return { content, inputs: {} };
  }
  const h = header as Record<string, unknown>;
  for (const k of Object.keys(h)) if (k !== 'spec') c.errors.push(`header config contains unknown keys: ${k}`);
  const before = c.errors.length;
  const specs = parseInputSpecs(h.spec, c.errors, c.warnings);
  if (c.errors.length > before) return null;
  const inputs = resolveInputs(specs, givenInputs, c.errors);
  if (c.errors.length > before) return null;
  const interpolated = interpolate(content, inputs, c.errors);
  if (c.errors.length > before) return null;
  return { content: interpolated, inputs };
}

/**
 * Parses and validates a CI file. `inputs` are the values the pipeline is created with
 * (checked against the file's `spec:inputs`).
 */
export function parseCiConfig(text: string, options: { inputs?: Record<string, unknown> } = {}): CiConfigResult {
  const c = new Checker();
  const fail = (): CiConfigResult => ({ valid: false, config: null, errors: c.errors, warnings: c.warnings });
  if (text.trim() === '') {
    c.errors.push('Please provide content of .gitlab-ci.yml');
    return fail();
  }
  const loaded = loadDocuments(text, options.inputs ?? {}, c);
  if (!loaded) return fail();
  const root = loaded.content;
  if (!isHash(root)) {
    c.errors.push('Invalid configuration format');
    return fail();
  }

  // Global keys
  let stages = DEFAULT_STAGES;
  if (root.stages !== undefined && root.stages !== null) {
    const list = arrayOfStrings(root.stages);
    if (!list) c.errors.push('stages config should be an array of strings');
    else stages = list;
  }
  const allStages = ['.pre', ...stages.filter((s) => s !== '.pre' && s !== '.post'), '.post'];
  const globalVariables = c.variables(root.variables, 'variables', 'variables');
  for (const key of ROOT_UNSUPPORTED) if (key in root) c.warnings.push(unsupported(key));

  let name: string | null = null;
  if (root.workflow !== undefined && root.workflow !== null) {
    if (!isHash(root.workflow)) c.errors.push('workflow config should be a hash');
    else {
      for (const k of Object.keys(root.workflow)) {
        if (k === 'name') {
          if (typeof root.workflow.name !== 'string') c.errors.push('workflow name should be a string');
          else name = root.workflow.name === '' ? null : root.workflow.name.slice(0, 255);
        } else if (['rules', 'auto_cancel'].includes(k)) c.warnings.push(unsupported(`workflow:${k}`));
        else c.errors.push(`workflow config contains unknown keys: ${k}`);
      }
    }
  }

  const defaults: DefaultSettings = {};
  const legacyBefore = c.script(root.before_script, 'before_script');
  const legacyAfter = c.script(root.after_script, 'after_script');
  const legacyImage = c.image(root.image, 'image');
  if (legacyBefore) defaults.before_script = legacyBefore;
  if (legacyAfter) defaults.after_script = legacyAfter;
  if (legacyImage) defaults.image = legacyImage;
  if (root.default !== undefined && root.default !== null) {
    if (!isHash(root.default)) c.errors.push('default config should be a hash');
    else {
      const d = root.default;
      for (const k of Object.keys(d)) {
        if (DEFAULT_UNSUPPORTED.has(k)) c.warnings.push(unsupported(`default:${k}`));
        else if (!DEFAULT_SUPPORTED.has(k)) c.errors.push(`default config contains unknown keys: ${k}`);
      }
      const before = c.script(d.before_script, 'default:before_script');
      const after = c.script(d.after_script, 'default:after_script');
      const image = c.image(d.image, 'default:image');
      const artifacts = c.artifacts(d.artifacts, 'default:artifacts');
      const tags = c.tags(d.tags, 'default:tags');
      const timeout = c.timeout(d.timeout, 'default:timeout');
      if (before) defaults.before_script = before;
      if (after) defaults.after_script = after;
      if (image) defaults.image = image;
      if (artifacts) defaults.artifacts = artifacts;
      if (tags) defaults.tags = tags;
      if (timeout) defaults.timeout = timeout;
    }
  }

  // Jobs: every other key. Hidden jobs (`.name`) are templates GitLab never runs.
  interface Draft extends CiJobSpec {
    neverRuns: boolean;
  }
  const drafts: Draft[] = [];
  let visible = 0;
  for (const [jobName, raw] of Object.entries(root)) {
    if (ROOT_KEYS.includes(jobName)) continue;
    if (jobName.startsWith('.')) continue;
    if (!isHash(raw) || !('script' in raw || 'run' in raw || 'trigger' in raw)) {
      c.errors.push(`jobs ${jobName} config should implement the script:, run:, or trigger: keyword`);
      continue;
    }
    visible++;
    const loc = `jobs:${jobName}`;
    if (!('script' in raw)) {
      // trigger (downstream pipelines) and run (steps) jobs
      c.warnings.push(unsupported(`${loc}:${'trigger' in raw ? 'trigger' : 'run'}`));
      continue;
    }
    for (const k of Object.keys(raw)) {
      if (JOB_UNSUPPORTED.has(k)) c.warnings.push(unsupported(`${loc}:${k}`));
      else if (!JOB_SUPPORTED.has(k)) c.errors.push(`${loc} config contains unknown keys: ${k}`);
    }
    let script: string[] = [];
    if (raw.script === null || raw.script === '' || (Array.isArray(raw.script) && raw.script.length === 0)) {
      c.errors.push(`${loc} script can't be blank`);
    } else script = c.script(raw.script, `${loc}:script`) ?? [];
    let stage = 'test';
    const stageValue = raw.stage ?? raw.type;
    if (stageValue !== undefined && stageValue !== null) {
      if (typeof stageValue !== 'string') c.errors.push(`${loc}:stage config should be a string`);
      else stage = stageValue;
    }
    let when: JobWhen = 'on_success';
    let neverRuns = false;
    if (raw.when !== undefined && raw.when !== null) {
      if (raw.when === 'never') neverRuns = true;
      else if (raw.when === 'delayed') c.errors.push(`${loc} when delayed is not supported by Forgelet`);
      else if (typeof raw.when !== 'string' || !ALLOWED_WHEN.includes(raw.when)) c.errors.push(`${loc} when should be one of: ${ALLOWED_WHEN.join(', ')}`);
      else when = raw.when as JobWhen;
    }
    let allowFailure = when === 'manual';
    if (raw.allow_failure !== undefined && raw.allow_failure !== null) {
      if (typeof raw.allow_failure === 'boolean') allowFailure = raw.allow_failure;
      else if (isHash(raw.allow_failure)) {
        c.warnings.push(unsupported(`${loc}:allow_failure:exit_codes`));
        allowFailure = false;
      } else c.errors.push(`${loc} allow failure should be a hash or a boolean value`);
    }
    let dependencies: string[] | null = null;
    if (raw.dependencies !== undefined && raw.dependencies !== null) {
      const list = arrayOfStrings(raw.dependencies);
      if (!list) c.errors.push(`${loc} dependencies should be an array of strings`);
      else dependencies = list;
    }
    const jobVariables = c.variables(raw.variables, `${loc}:variables`, `${loc}:variables`);
    const merged = new Map<string, CiVariableSpec>();
    for (const v of [...globalVariables, ...jobVariables]) merged.set(v.key, v);
    const definition: CiJobDefinition = {
      script,
      before_script: c.script(raw.before_script, `${loc}:before_script`) ?? defaults.before_script ?? [],
      after_script: c.script(raw.after_script, `${loc}:after_script`) ?? defaults.after_script ?? [],
      image: c.image(raw.image, `${loc}:image`) ?? defaults.image ?? null,
      variables: [...merged.values()],
      needs: c.needs(raw.needs, `${loc}:needs`),
      dependencies,
      environment: c.environment(raw.environment, `${loc}:environment`),
      artifacts: c.artifacts(raw.artifacts, `${loc}:artifacts`) ?? defaults.artifacts ?? null,
      tags: c.tags(raw.tags, `${loc}:tags`) ?? defaults.tags ?? [],
      timeout: c.timeout(raw.timeout, `${loc}:timeout`) ?? defaults.timeout ?? null,
    };
    drafts.push({ name: jobName, stage, stageIdx: allStages.indexOf(stage), when, allowFailure, definition, neverRuns });
  }
  if (visible === 0) c.errors.push('jobs config should contain at least one visible job');
  if (c.errors.length) return fail();

  // Logical validation (GitLab's YamlProcessor), in job order, first problem wins.
  const byName = new Map(drafts.map((d) => [d.name, d]));
  const logical = (): string | null => {
    for (const job of drafts) {
      if (job.stageIdx < 0) return `${job.name} job: chosen stage ${job.stage} does not exist; available stages are ${allStages.join(', ')}`;
    }
    const dependencyProblem = (job: Draft, dependency: string, type: 'dependency' | 'need', optional = false): string | null => {
      const target = byName.get(dependency);
      if (!target) return optional ? null : `${job.name} job: undefined ${type}: ${dependency}`;
      if (target.stageIdx > job.stageIdx) return `${job.name} job: ${type} ${dependency} is not defined in current or prior stages`;
      return null;
    };
    for (const job of drafts) {
      for (const dep of job.definition.dependencies ?? []) {
        const p = dependencyProblem(job, dep, 'dependency');
        if (p) return p;
      }
      const needs = job.definition.needs;
      if (needs) {
        for (const need of needs) {
          const p = dependencyProblem(job, need.name, 'need', need.optional);
          if (p) return p;
        }
        const seen = new Set<string>();
        const dup = new Set<string>();
        for (const n of needs) (seen.has(n.name) ? dup : seen).add(n.name);
        if (dup.size) return `${job.name} has the following needs duplicated: ${[...dup].join(', ')}.`;
        if (job.definition.dependencies) {
          const missing = job.definition.dependencies.filter((d) => !needs.some((n) => n.name === d));
          if (missing.length) return `jobs:${job.name} dependencies the ${missing.join(', ')} should be part of needs`;
        }
      }
    }
    // circular needs
    const state = new Map<string, number>();
    const cyclic = (n: string): boolean => {
      const s = state.get(n);
      if (s === 1) return true;
      if (s === 2) return false;
      state.set(n, 1);
      for (const need of byName.get(n)?.definition.needs ?? []) if (byName.has(need.name) && cyclic(need.name)) return true;
      state.set(n, 2);
      return false;
    };
    for (const job of drafts) if (cyclic(job.name)) return 'The pipeline has circular dependencies';
    return null;
  };
  const problem = logical();
  if (problem) {
    c.errors.push(problem);
    return fail();
  }

  // Jobs that never run (`when: never`) are left out; needing one is GitLab's seed error.
  const running = drafts.filter((d) => !d.neverRuns);
  for (const job of running) {
    for (const need of job.definition.needs ?? []) {
      const target = byName.get(need.name);
      if (target?.neverRuns && !need.optional) {
        c.errors.push(
          `'${job.name}' job needs '${need.name}' job, but '${need.name}' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.`,
        );
        return fail();
      }
    }
  }
  if (running.length === 0) {
    c.errors.push('Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.');
    return fail();
  }
  const present = new Set(running.map((j) => j.name));
  const jobs: CiJobSpec[] = running.map(({ neverRuns: _n, ...job }) => {
    const needs = job.definition.needs?.filter((n) => present.has(n.name)) ?? null;
    const dependencies = job.definition.dependencies?.filter((d) => present.has(d)) ?? null;
    return { ...job, definition: { ...job.definition, needs, dependencies } };
  });
  return { valid: true, config: { stages: allStages, jobs, name, inputs: loaded.inputs }, errors: [], warnings: c.warnings };
}
