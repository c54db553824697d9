/**
 * Parameter schemas: one declaration per endpoint, used for validation, for the TypeScript
 * types of handlers and clients, and for the OpenAPI document. Coercion and messages follow
 * Grape (GitLab's API framework): strings from query and form bodies are coerced to the
 * declared type, booleans accept true/false/t/f/1/0/yes/no/y/n/on/off in any case, and
 * problems read `name is missing`, `id is invalid`, `state does not have a valid value`.
 */
import { ValidationError } from './errors.js';

/**
 * Values of a key repeated in a query or form (`in=a&in=b`). Array fields take them all;
 * scalar fields take the last, as Rack does.
 */
export class RepeatedValues extends Array<unknown> {}

export interface Problem {
  field: string;
  message: string;
}

type Result<T> = { ok: true; value: T } | { ok: false; message: string; problems?: Problem[] };

export interface JsonSchema {
  [key: string]: unknown;
}

export abstract class Field<T, Opt extends boolean = false> {
  declare readonly _type: T;
  declare readonly _opt: Opt;
  isOptional = false;
  isNullable = false;
  defaultValue: unknown = undefined;
  description: string | undefined;
  allowBlank = true;

  protected abstract coerce(raw: unknown, name: string): Result<T>;
  abstract schema(): JsonSchema;

  optional(): Field<T, true> {
    const f = this.clone();
    f.isOptional = true;
    return f as unknown as Field<T, true>;
  }

  /** null is kept (clears a value) instead of counting as absent. */
  nullable(): Field<T | null, Opt> {
    const f = this.clone();
    f.isNullable = true;
    return f as unknown as Field<T | null, Opt>;
  }

  default(value: T): Field<T, false> {
    const f = this.clone();
    f.isOptional = true;
    f.defaultValue = value;
    return f as unknown as Field<T, false>;
  }

  describe(text: string): this {
    const f = this.clone();
    f.description = text;
    return f;
  }

  /** Grape's `allow_blank: false`: an empty string is refused with `X is empty`. */
  nonBlank(): this {
    const f = this.clone();
    f.allowBlank = false;
    return f;
  }

  protected clone(): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this)), this);
  }

  /** Parses one value; appends problems and returns undefined when it fails. */
  run(raw: unknown, name: string, problems: Problem[]): T | undefined {
    if (raw === undefined || (raw === null && !this.isNullable)) {
      if (this.defaultValue !== undefined) return this.defaultValue as T;
      if (!this.isOptional) problems.push({ field: name, message: 'is missing' });
      return undefined;
    }
    if (raw === null) return null as T;
    if (raw instanceof RepeatedValues && !(this instanceof ArrayField)) raw = raw[raw.length - 1];
    if (!this.allowBlank && (raw === '' || (typeof raw === 'string' && raw.trim() === ''))) {
      problems.push({ field: name, message: 'is empty' });
      return undefined;
    }
    const r = this.coerce(raw, name);
    if (!r.ok) {
      if (r.problems) problems.push(...r.problems);
      else problems.push({ field: name, message: r.message });
      return undefined;
    }
    return r.value;
  }

  protected withMeta(s: JsonSchema): JsonSchema {
    if (this.description) s.description = this.description;
    if (this.defaultValue !== undefined) s.default = this.defaultValue;
    if (this.isNullable) s.nullable = true;
    return s;
  }
}

/**
 * The largest integer a column holds (PostgreSQL `integer`: every id, iid and count). Larger
 * integer parameters are refused; a larger numeric `:id` is no row's id (404).
 */
export const MAX_DB_INTEGER = 2_147_483_647;

/** `Gitlab::Search::Params`: a search is at most 4,096 characters and 64 terms. */
export const SEARCH_CHAR_LIMIT = 4096;
export const SEARCH_TERM_LIMIT = 64;
/** A username (a namespace path) is at most 255 characters. */
export const USERNAME_MAX = 255;

class StringField extends Field<string> {
  maxLen: number | undefined;
  maxTerms: number | undefined;
  pattern: RegExp | undefined;
  protected coerce(raw: unknown): Result<string> {
    let v: string;
    if (typeof raw === 'string') v = raw;
    else if (typeof raw === 'number' || typeof raw === 'boolean') v = String(raw);
    else return { ok: false, message: 'is invalid' };
    // PostgreSQL text cannot hold U+0000, and no request has a reason to send it (GitLab's HandleNullBytes)
    if (v.includes('\u0000')) return { ok: false, message: 'is invalid' };
    if (this.pattern && !this.pattern.test(v)) return { ok: false, message: 'is invalid' };
    if (this.maxLen !== undefined && v.length > this.maxLen)
      return { ok: false, message: `is expected to have length less than or equal to ${this.maxLen}` };
    if (this.maxTerms !== undefined && v.trim().split(/\s+/).length > this.maxTerms)
      return { ok: false, message: `has too many search terms (maximum is ${this.maxTerms})` };
    return { ok: true, value: v };
  }
  max(n: number): this {
    const f = this.clone();
    f.maxLen = n;
    return f;
  }
  /** At most n whitespace-separated terms. */
  terms(n: number): this {
    const f = this.clone();
    f.maxTerms = n;
    return f;
  }
  regex(re: RegExp): this {
    const f = this.clone();
    f.pattern = re;
    return f;
  }
  schema(): JsonSchema {
    const s: JsonSchema = { type: 'string' };
    if (this.maxLen !== undefined) s.maxLength = this.maxLen;
    return this.withMeta(s);
  }
}

const INT_RE = /^-?\d+$/;
class IntegerField extends Field<number> {
  minimum: number | undefined;
  protected coerce(raw: unknown): Result<number> {
    let n: number;
    if (typeof raw === 'number' && Number.isInteger(raw)) n = raw;
    else if (typeof raw === 'string' && INT_RE.test(raw.trim())) n = Number(raw.trim());
    else return { ok: false, message: 'is invalid' };
    if (!Number.isSafeInteger(n)) return { ok: false, message: 'is invalid' };
    if (this.minimum !== undefined && n < this.minimum) return { ok: false, message: 'does not have a valid value' };
    if (n > MAX_DB_INTEGER || n < -MAX_DB_INTEGER) return { ok: false, message: 'does not have a valid value' };
    return { ok: true, value: n };
  }
  min(n: number): this {
    const f = this.clone();
    f.minimum = n;
    return f;
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'integer' });
  }
}

const TRUE_WORDS = new Set(['true', 't', '1', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['false', 'f', '0', 'no', 'n', 'off']);
/** Parses a Grape-style boolean; undefined when the text is not one. */
export function parseBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 1 || raw === 0) return raw === 1;
  if (typeof raw !== 'string') return undefined;
  const w = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(w)) return true;
  if (FALSE_WORDS.has(w)) return false;
  return undefined;
}

class BooleanField extends Field<boolean> {
  protected coerce(raw: unknown): Result<boolean> {
    const b = parseBoolean(raw);
    return b === undefined ? { ok: false, message: 'is invalid' } : { ok: true, value: b };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'boolean' });
  }
}

class EnumField<V extends string | number> extends Field<V> {
  constructor(readonly values: readonly V[]) {
    super();
  }
  protected coerce(raw: unknown): Result<V> {
    for (const v of this.values) {
      if (v === raw || (typeof v === 'number' && typeof raw === 'string' && String(v) === raw.trim())) return { ok: true, value: v };
    }
    return { ok: false, message: 'does not have a valid value' };
  }
  schema(): JsonSchema {
    const numeric = typeof this.values[0] === 'number';
    return this.withMeta({ type: numeric ? 'integer' : 'string', enum: [...this.values] });
  }
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
class DateTimeField extends Field<Date> {
  protected coerce(raw: unknown): Result<Date> {
    if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, message: 'is invalid' };
    const text = raw.trim();
    const d = DATE_RE.test(text) ? new Date(`${text}T00:00:00.000Z`) : new Date(text);
    if (Number.isNaN(d.getTime())) return { ok: false, message: 'is invalid' };
    return { ok: true, value: d };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', format: 'date-time' });
  }
}

/** A calendar date kept as `YYYY-MM-DD` text (datetimes are cut to their UTC date). */
class DateField extends Field<string> {
  protected coerce(raw: unknown): Result<string> {
    if (typeof raw !== 'string') return { ok: false, message: 'is invalid' };
    const text = raw.trim();
    const d = new Date(DATE_RE.test(text) ? `${text}T00:00:00.000Z` : text);
    if (Number.isNaN(d.getTime())) return { ok: false, message: 'is invalid' };
    return { ok: true, value: d.toISOString().slice(0, 10) };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', format: 'date' });
  }
}

class ArrayField<T> extends Field<T[]> {
  splitCommas = false;
  constructor(readonly item: Field<T, boolean>) {
    super();
  }
  protected coerce(raw: unknown, name: string): Result<T[]> {
    let list: unknown[];
    if (Array.isArray(raw)) list = raw;
    else if (typeof raw === 'string' && this.splitCommas) list = raw === '' ? [] : raw.split(',').map((s) => s.trim());
    else if (raw !== null && typeof raw === 'object' && !(this.item instanceof ObjectField)) return { ok: false, message: 'is invalid' };
    else if (raw !== null && typeof raw === 'object') {
      // form bodies may give `a[0][x]=..` as an object keyed by index
      list = Object.keys(raw as object)
        .sort((a, b) => Number(a) - Number(b))
        .map((k) => (raw as Record<string, unknown>)[k]);
    } else list = [raw];
    const problems: Problem[] = [];
    const out: T[] = [];
    list.forEach((v, i) => {
      const itemName = this.item instanceof ObjectField ? `${name}[${i}]` : name;
      const before = problems.length;
      const value = this.item.run(v, itemName, problems);
      if (problems.length === before) out.push(value as T);
    });
    if (problems.length) {
      // Grape reports a bad scalar element once for the whole array
      const unique = problems.filter((p, i) => problems.findIndex((q) => q.field === p.field && q.message === p.message) === i);
      return { ok: false, message: 'is invalid', problems: unique };
    }
    return { ok: true, value: out };
  }
  /** Also accept `"1,2,3"` (GitLab does for most id lists). */
  commaSeparated(): this {
    const f = this.clone();
    f.splitCommas = true;
    return f;
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'array', items: this.item.schema() });
  }
}

export type Shape = Record<string, Field<any, boolean>>;

type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Field<any, true> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type InferShape<S extends Shape> = Simplify<
  { [K in RequiredKeys<S>]: S[K]['_type'] } & { [K in OptionalKeys<S>]?: S[K]['_type'] }
>;

export interface ObjectRules {
  /** `a, b are missing, at least one parameter must be provided` */
  atLeastOneOf?: string[][];
  /** `a, b are missing, exactly one parameter must be provided` / `a, b are mutually exclusive` */
  exactlyOneOf?: string[][];
  /** `a, b are mutually exclusive` */
  mutuallyExclusive?: string[][];
  /** `a, b provide all or none of parameters` */
  allOrNone?: string[][];
}

export class ObjectField<S extends Shape> extends Field<InferShape<S>> {
  constructor(
    readonly shape: S,
    readonly rules: ObjectRules = {},
  ) {
    super();
  }

  protected coerce(raw: unknown, name: string): Result<InferShape<S>> {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, message: 'is invalid' };
    const problems: Problem[] = [];
    const value = this.parseInto(raw as Record<string, unknown>, name, problems);
    if (problems.length) return { ok: false, message: 'is invalid', problems };
    return { ok: true, value };
  }

  parseInto(raw: Record<string, unknown>, prefix: string, problems: Problem[]): InferShape<S> {
    const out: Record<string, unknown> = {};
    if (this.rules.exactlyOneOf || this.rules.atLeastOneOf || this.rules.mutuallyExclusive || this.rules.allOrNone) this.checkRules(raw, prefix, problems);
    // (entries computed once: this runs on every request)
    for (const [key, field] of (this.entries ??= Object.entries(this.shape) as [string, S[keyof S]][])) {
      const v = field.run(raw[key], prefix ? `${prefix}[${key}]` : key, problems);
      if (v !== undefined) out[key] = v;
    }
    return out as InferShape<S>;
  }

  private entries: [string, S[keyof S]][] | undefined;

  private checkRules(raw: Record<string, unknown>, prefix: string, problems: Problem[]): void {
    const present = (k: string) => raw[k] !== undefined && raw[k] !== null;
    const label = (k: string) => (prefix ? `${prefix}[${k}]` : k);
    const ruleProblem = (keys: string[], message: string) => problems.push({ field: keys.map(label).join(', '), message });
    for (const keys of this.rules.exactlyOneOf ?? []) {
      const n = keys.filter(present).length;
      if (n === 0) ruleProblem(keys, 'are missing, exactly one parameter must be provided');
      else if (n > 1) ruleProblem(keys, 'are mutually exclusive');
    }
    // Grape's at_least_one_of looks at the keys given: `priority: null` (clear it) counts.
    const given = (k: string) => raw[k] !== undefined;
    for (const keys of this.rules.atLeastOneOf ?? []) {
      if (!keys.some(given)) ruleProblem(keys, 'are missing, at least one parameter must be provided');
    }
    for (const keys of this.rules.mutuallyExclusive ?? []) {
      if (keys.filter(present).length > 1) ruleProblem(keys, 'are mutually exclusive');
    }
    for (const keys of this.rules.allOrNone ?? []) {
      const n = keys.filter(present).length;
      if (n > 0 && n < keys.length) ruleProblem(keys, 'provide all or none of parameters');
    }
  }

  schema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [k, f] of Object.entries(this.shape)) {
      properties[k] = f.schema();
      if (!f.isOptional) required.push(k);
    }
    const s: JsonSchema = { type: 'object', properties };
    if (required.length) s.required = required;
    return this.withMeta(s);
  }
}

/** Any JSON value, passed through (hashes such as `metadata`, `inputs` values). */
class JsonField extends Field<unknown> {
  protected coerce(raw: unknown): Result<unknown> {
    return { ok: true, value: raw };
  }
  schema(): JsonSchema {
    return this.withMeta({});
  }
}

/** A file part of a multipart body, already streamed to the blob store by the server. */
export interface UploadedFile {
  kind: 'file';
  /** Blob-store key of the stored upload. */
  blobKey: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
}

class FileField extends Field<UploadedFile> {
  protected coerce(raw: unknown): Result<UploadedFile> {
    if (raw && typeof raw === 'object' && (raw as UploadedFile).kind === 'file') return { ok: true, value: raw as UploadedFile };
    return { ok: false, message: 'is invalid' };
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', format: 'binary' });
  }
}

export const p = {
  string: () => new StringField(),
  /** A `search` filter, bounded as GitLab bounds searches (SEARCH_CHAR_LIMIT, SEARCH_TERM_LIMIT). */
  search: () => new StringField().max(SEARCH_CHAR_LIMIT).terms(SEARCH_TERM_LIMIT),
  /** A username given to find or filter by (at most USERNAME_MAX characters). */
  username: () => new StringField().max(USERNAME_MAX),
  integer: () => new IntegerField(),
  /** A positive database id. */
  id: () => new IntegerField().min(1),
  boolean: () => new BooleanField(),
  enum: <const V extends string | number>(values: readonly V[]) => new EnumField<V>(values),
  datetime: () => new DateTimeField(),
  date: () => new DateField(),
  array: <T>(item: Field<T, boolean>) => new ArrayField<T>(item),
  object: <S extends Shape>(shape: S, rules?: ObjectRules) => new ObjectField(shape, rules),
  json: () => new JsonField(),
  file: () => new FileField(),
};

/** Declares the parameters of one endpoint. */
export function params<S extends Shape>(shape: S, rules?: ObjectRules): ObjectField<S> {
  return new ObjectField(shape, rules);
}

export type Infer<F> = F extends Field<infer T, infer O> ? (O extends true ? T | undefined : T) : never;

/** Validates merged request parameters against a schema; throws a ValidationError listing every problem. */
export function parseParams<S extends Shape>(schema: ObjectField<S>, raw: Record<string, unknown>): InferShape<S> {
  const problems: Problem[] = [];
  const value = schema.parseInto(raw, '', problems);
  if (problems.length) throw new ValidationError(problems);
  return value;
}
