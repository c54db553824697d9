/**
 * The OpenAPI 3.1 document of the REST API, generated from the route declarations: one
 * operation per route, path parameters from `:name` segments, greedy `*name` ones (anywhere in
 * the path) and `:name`s embedded in a segment (`Packages(Id=':package_name',…)`), query
 * parameters (GET/DELETE/HEAD and raw-body routes) or a request body (POST/PUT/PATCH) from the
 * params schema, security from the route's auth mode, the answers each handler gives
 * (status, content type, JSON Schema of the body: generated from the reply types the routes
 * declare into generated/openapi-responses.ts by scripts/openapi-responses.ts), and GitLab's
 * error bodies for 4xx.
 */
import { generatedResponses } from '../generated/openapi-responses.js';
import type { JsonSchema, ObjectField, Shape } from './params.js';
import type { Method, Route } from './route.js';

/** One answer of a route: what scripts/openapi-responses.ts reads from the route's declared reply type. */
export interface ResponseDecl {
  status: number;
  /** The Reply kind: json (a body), page (a JSON array with pagination headers), empty, text, stream, redirect. */
  kind: 'json' | 'page' | 'empty' | 'text' | 'stream' | 'redirect';
  /** Content types of text and stream answers (`*\/*` when chosen at run time). */
  contentTypes?: string[];
  /** JSON Schema 2020-12 of a json body or of one page item; `$ref`s point into `components.schemas`. */
  schema?: Record<string, unknown>;
}

/** The answers of every route by `METHOD path`, and the schemas they reference. */
export interface ResponseTable {
  routes: Record<string, readonly ResponseDecl[]>;
  schemas: Record<string, Record<string, unknown>>;
}

export interface OpenApiOptions {
  /** Base URL of the API, e.g. `https://forge.example/api/v4`. */
  serverUrl: string;
  /** Forgelet's version (info.version). */
  version: string;
  /** The GitLab version the API answers as. */
  gitlabVersion?: string;
  /** The answers of the routes (default: the generated table). */
  responses?: ResponseTable;
}

type Doc = Record<string, unknown>;

const BODY_METHODS = new Set<Method>(['POST', 'PUT', 'PATCH']);

/** 3.0-style `nullable: true` (params.ts) as JSON Schema 2020-12 (`type: [T, 'null']`), recursively. */
export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable') continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([n, s]) => [n, toJsonSchema2020(s)]));
    } else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) {
      out.items = toJsonSchema2020(v as JsonSchema);
    } else if (v instanceof Date) {
      out[k] = v.toISOString();
    } else out[k] = v;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** True when a schema holds a file part anywhere (a multipart upload route). */
function hasBinary(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as JsonSchema;
  if (s.format === 'binary') return true;
  return Object.values(s).some((v) => (v && typeof v === 'object' ? hasBinary(v) : false));
}

/** A path segment: literal text, a `:param`, a greedy `*param` (may hold `/`), or text with embedded `:params`. */
interface Segment {
  kind: 'static' | 'param' | 'rest' | 'pattern';
  /** The literal text (static, pattern) or the param's name. */
  name: string;
  /** The params of a pattern segment, in order; the param itself otherwise. */
  vars: string[];
}

const EMBEDDED = /:([A-Za-z0-9_]+)/g;

const segmentsOf = (path: string): Segment[] =>
  path
    .split('/')
    .filter(Boolean)
    .map((s): Segment => {
      if (/^[:*][A-Za-z0-9_]+$/.test(s)) return { kind: s.startsWith(':') ? 'param' : 'rest', name: s.slice(1), vars: [s.slice(1)] };
      const vars = [...s.matchAll(EMBEDDED)].map((m) => m[1]!);
      return vars.length ? { kind: 'pattern', name: s, vars } : { kind: 'static', name: s, vars: [] };
    });

/** A segment in OpenAPI's spelling, its params named by `name(i)` (`{}` for the template key). */
function templateOf(seg: Segment, name: (i: number) => string): string {
  if (seg.kind === 'static') return seg.name;
  if (seg.kind === 'pattern') {
    let i = 0;
    return seg.name.replace(EMBEDDED, () => `{${name(i++)}}`);
  }
  return `{${name(0)}}`;
}

/** The path with every variable blanked: routes with equal keys have identical OpenAPI templates. */
const templateKey = (segs: Segment[]) => segs.map((s) => templateOf(s, () => '')).join('/');

const MESSAGE = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }] };

/** GitLab's error bodies. */
const ERROR_SCHEMAS: Record<string, Doc> = {
  Error: {
    description: 'GitLab error body: `message` (text, or field → messages for model errors) or `error`.',
    type: 'object',
    properties: { message: MESSAGE, error: { type: 'string' } },
  },
  ValidationError: {
    description: 'A parameter failed validation: `{"error": "title is missing"}`.',
    type: 'object',
    properties: { error: { type: 'string' } },
    required: ['error'],
    additionalProperties: false,
  },
  MessageError: {
    description: '`{"message": "404 Project Not Found"}`; for model errors a field → messages object, or a list.',
    type: 'object',
    properties: { message: MESSAGE },
    required: ['message'],
    additionalProperties: false,
  },
  OAuthError: {
    description: 'An expired or revoked token, or a token without the scope the route needs.',
    type: 'object',
    properties: { error: { type: 'string' }, error_description: { type: 'string' }, scope: { type: 'string' } },
    required: ['error', 'error_description'],
    additionalProperties: false,
  },
};

const errorResponse = (description: string, ...refs: string[]) => ({
  description,
  content: { 'application/json': { schema: refs.length === 1 ? { $ref: `#/components/schemas/${refs[0]}` } : { anyOf: refs.map((r) => ({ $ref: `#/components/schemas/${r}` })) } } },
});

/** `components.responses`: the client errors routes share. */
const ERROR_RESPONSES: Record<string, { description: string; content: Doc }> = {
  BadRequest: errorResponse('Bad request: a parameter is missing or invalid (`error`), or the request cannot be done (`message`)', 'ValidationError', 'MessageError'),
  Unauthorized: errorResponse('Unauthorized: no valid credentials (`message`), or an expired or revoked token (OAuth `error`)', 'MessageError', 'OAuthError'),
  Forbidden: errorResponse('Forbidden (`message`), or a token without the scope (OAuth `error`)', 'MessageError', 'OAuthError'),
  NotFound: errorResponse('Not found, or not visible to the caller', 'MessageError'),
  ClientError: errorResponse('Other client error (409, 412, 413, 422, 429...)', 'Error'),
};

/** A shared error response, merged with what the handler itself answers under that status (e.g. a text 400 of the runner API). */
function errorRef(responses: Doc, status: string, name: string): void {
  const own = responses[status] as Doc | undefined;
  if (!own) {
    responses[status] = { $ref: `#/components/responses/${name}` };
    return;
  }
  const shared = ERROR_RESPONSES[name]!;
  responses[status] = { ...own, description: `${shared.description}; or ${own.description}`, content: { ...shared.content, ...((own.content as Doc) ?? {}) } };
}

function operationIdOf(method: Method, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/^[:*]/, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, ''))
    .filter(Boolean);
  return [method.toLowerCase(), ...words].join('_');
}

function securityOf(route: Route): Array<Record<string, string[]>> {
  if (route.auth === 'none') return [];
  const scopes = [...(route.scopes ?? (route.method === 'GET' || route.method === 'HEAD' ? ['api', 'read_api'] : ['api']))];
  const reqs: Array<Record<string, string[]>> = [{ PrivateToken: scopes }, { Bearer: scopes }];
  if (route.jobToken) reqs.push({ JobToken: [] }, { JobTokenQuery: [] });
  if (route.basicAuth) reqs.push({ Basic: scopes });
  // An empty requirement: anonymous callers are allowed.
  if (route.auth === 'optional') reqs.push({});
  return reqs;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found (redirect)',
  304: 'Not Modified',
  416: 'Range Not Satisfiable',
};

const PAGE_HEADERS = ['Link', 'X-Total', 'X-Total-Pages', 'X-Page', 'X-Per-Page', 'X-Next-Page', 'X-Prev-Page'];

/** The success (and redirect) answers of a route, then the client errors that apply to it. */
function responsesOf(route: Route, table: ResponseTable): Doc {
  const key = `${route.method} ${route.path}`;
  const decls = table.routes[key];
  const head = route.method === 'HEAD';
  const responses: Doc = {};
  if (!decls?.length) {
    // Only routes built outside the domains (tests) miss from the table; the tests require every served route in it.
    responses.default = { description: 'Not described: the route is missing from the generated response table (npm run generate:openapi)' };
  }
  for (const d of decls ?? []) {
    const status = String(d.status);
    const res = (responses[status] ??= { description: STATUS_TEXT[d.status] ?? `Status ${d.status}` }) as Doc;
    const headers = (res.headers ?? {}) as Doc;
    const content = (res.content ?? {}) as Record<string, Doc>;
    switch (d.kind) {
      case 'json':
        content['application/json'] = { schema: mergeSchema(content['application/json']?.schema as Doc | undefined, d.schema ?? {}) };
        break;
      case 'page':
        content['application/json'] = { schema: mergeSchema(content['application/json']?.schema as Doc | undefined, { type: 'array', items: d.schema ?? {} }) };
        for (const h of PAGE_HEADERS) headers[h] = { $ref: `#/components/headers/${h}` };
        res.description = `${res.description}: one page, pagination in the headers`;
        break;
      case 'text':
      case 'stream':
        for (const type of d.contentTypes ?? ['*/*']) {
          // JSON sent as prepared text (this document) is still an object to the caller.
          const schema = d.kind === 'stream' ? { type: 'string', contentMediaType: type === '*/*' ? 'application/octet-stream' : type } : type === 'application/json' ? { type: 'object' } : { type: 'string' };
          content[type] = { schema };
        }
        if (d.kind === 'stream') res.description = `${res.description}: the file`;
        break;
      case 'redirect':
        headers.Location = { $ref: '#/components/headers/Location' };
        break;
      case 'empty':
        break;
    }
    if (Object.keys(content).length && !head) res.content = content;
    if (Object.keys(headers).length) res.headers = headers;
  }
  const params = Object.keys((route.params as ObjectField<Shape>).shape).length > 0;
  if (params || (BODY_METHODS.has(route.method) && !route.rawBody)) errorRef(responses, '400', 'BadRequest');
  if (route.auth !== 'none') {
    errorRef(responses, '401', 'Unauthorized');
    errorRef(responses, '403', 'Forbidden');
  }
  if (route.path.includes(':') || route.path.includes('*')) errorRef(responses, '404', 'NotFound');
  responses['4XX'] = { $ref: '#/components/responses/ClientError' };
  return responses;
}

/** Two bodies under one status and content type: either may come. */
function mergeSchema(prior: Doc | undefined, next: Doc): Doc {
  if (!prior) return next;
  const list = (prior.anyOf as Doc[] | undefined) ?? [prior];
  return list.some((s) => JSON.stringify(s) === JSON.stringify(next)) ? prior : { anyOf: [...list, next] };
}

function operationOf(route: Route, segs: Segment[], names: string[], operationId: string, table: ResponseTable): Doc {
  const shape = (route.params as ObjectField<Shape>).shape;
  const pathNames = new Set(segs.flatMap((s) => s.vars));
  const parameters: Doc[] = [];
  let i = 0;
  for (const seg of segs) {
    for (const declared of seg.vars) {
      const name = names[i++]!;
      const field = shape[declared];
      const schema = field ? toJsonSchema2020(field.schema()) : { type: 'string' };
      delete schema.default;
      const notes: string[] = [];
      if (typeof schema.description === 'string') notes.push(schema.description);
      if (seg.kind === 'rest') notes.push('The rest of the path: may contain `/`.');
      if (name !== declared) notes.push(`Named \`${declared}\` in this operation's declaration.`);
      const param: Doc = { name, in: 'path', required: true, schema };
      if (/^(project_|group_)?id$/.test(declared) && /^\/(projects|groups)\//.test(route.path) && segs.indexOf(seg) === 1) {
        notes.unshift(`The ID or URL-encoded path of the ${route.path.startsWith('/projects/') ? 'project' : 'group'}.`);
      }
      if (notes.length) param.description = notes.join(' ');
      if (seg.kind === 'rest') param['x-greedy'] = true;
      parameters.push(param);
    }
  }

  const rest = Object.entries(shape).filter(([k]) => !pathNames.has(k));
  const op: Doc = { operationId, tags: [route.tag ?? 'other'] };
  if (route.summary) op.summary = route.summary;
  const ruleNotes = rulesText(route.params as ObjectField<Shape>);
  if (ruleNotes) op.description = ruleNotes;

  const inBody = BODY_METHODS.has(route.method) && !route.rawBody;
  if (!inBody) {
    for (const [name, field] of rest) {
      const schema = toJsonSchema2020(field.schema());
      const param: Doc = { name, in: 'query', required: !field.isOptional, schema };
      if (typeof schema.description === 'string') param.description = schema.description;
      if (schema.type === 'object') {
        param.style = 'deepObject';
        param.explode = true;
      }
      parameters.push(param);
    }
  }
  if (parameters.length) op.parameters = parameters;

  if (inBody && rest.length) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, field] of rest) {
      properties[name] = toJsonSchema2020(field.schema());
      if (!field.isOptional) required.push(name);
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length) schema.required = required;
    const content: Doc = hasBinary(schema)
      ? { 'multipart/form-data': { schema } }
      : { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } };
    op.requestBody = { required: required.length > 0, content };
  } else if (route.rawBody && BODY_METHODS.has(route.method)) {
    op.requestBody = { required: false, content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  }

  op.security = securityOf(route);
  op.responses = responsesOf(route, table);
  const ext: Doc = {};
  if (route.auth === 'admin') ext['x-forgelet-admin'] = true;
  if (route.uploadLimit !== undefined) ext['x-forgelet-upload-limit'] = route.uploadLimit;
  return { ...op, ...ext };
}

function rulesText(params: ObjectField<Shape>): string | undefined {
  const r = params.rules;
  const lines: string[] = [];
  for (const keys of r.exactlyOneOf ?? []) lines.push(`Exactly one of ${keys.join(', ')}.`);
  for (const keys of r.atLeastOneOf ?? []) lines.push(`At least one of ${keys.join(', ')}.`);
  for (const keys of r.mutuallyExclusive ?? []) lines.push(`At most one of ${keys.join(', ')}.`);
  for (const keys of r.allOrNone ?? []) lines.push(`All or none of ${keys.join(', ')}.`);
  return lines.length ? lines.join(' ') : undefined;
}

/** The OpenAPI 3.1 document of the given routes (paths are relative to `serverUrl`). */
export function buildOpenApi(routes: readonly Route[], options: OpenApiOptions): Doc {
  const table = options.responses ?? generatedResponses();
  const paths: Record<string, Doc> = {};
  // Routes whose templates differ only in parameter names share the first one's names.
  const canonical = new Map<string, string[]>();
  const usedIds = new Set<string>();
  const tags = new Set<string>();

  for (const route of routes) {
    const segs = segmentsOf(route.path);
    const key = templateKey(segs);
    const own = segs.flatMap((s) => s.vars);
    const names = canonical.get(key) ?? own;
    if (!canonical.has(key)) canonical.set(key, own);
    let next = 0;
    const template = '/' + segs.map((s) => templateOf(s, () => names[next++]!)).join('/');

    let operationId = operationIdOf(route.method, route.path);
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${operationIdOf(route.method, route.path)}_${n}`;
    usedIds.add(operationId);

    const item = (paths[template] ??= {});
    const verb = route.method.toLowerCase();
    const op = operationOf(route, segs, names, operationId, table);
    if (item[verb]) {
      // Two declarations on one template (a `:param` and a `*rest` at the same place): keep the first.
      const first = item[verb] as Doc;
      first['x-forgelet-also'] = [...((first['x-forgelet-also'] as string[]) ?? []), `${route.method} ${route.path}`];
      continue;
    }
    item[verb] = op;
    tags.add(route.tag ?? 'other');
  }

  const header = (description: string, schema: Doc = { type: 'string' }) => ({ description, schema });
  const integerHeader = { type: 'string', pattern: '^[0-9]*$' };
  for (const name of Object.keys(ERROR_SCHEMAS)) {
    if (table.schemas[name]) throw new Error(`openapi: the response type ${name} has the name of an error schema`);
  }
  const info: Doc = {
    title: 'Forgelet',
    version: options.version,
    description: 'GitLab-compatible REST API (`/api/v4`) served by Forgelet.',
    license: { name: 'MIT', identifier: 'MIT' },
  };
  if (options.gitlabVersion) info['x-gitlab-version'] = options.gitlabVersion;
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: options.serverUrl }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...ERROR_SCHEMAS, ...table.schemas },
      responses: ERROR_RESPONSES,
      headers: {
        Link: header('RFC 8288 links to the `prev`, `next`, `first` and `last` pages (every query parameter repeated); at most 4,096 characters: when longer, the links that fit, `next` first, or none'),
        'X-Total': header('Number of items (absent when not counted: over 10,000)', integerHeader),
        'X-Total-Pages': header('Number of pages (absent when not counted)', integerHeader),
        'X-Page': header('This page', integerHeader),
        'X-Per-Page': header('Items per page', integerHeader),
        'X-Next-Page': header('The next page, empty on the last', integerHeader),
        'X-Prev-Page': header('The previous page, empty on the first', integerHeader),
        Location: header('Where the resource is'),
      },
      securitySchemes: {
        PrivateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN', description: 'Personal, project or group access token' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'Access token (or OAuth token) as `Authorization: Bearer`' },
        JobToken: { type: 'apiKey', in: 'header', name: 'JOB-TOKEN', description: 'CI job token' },
        JobTokenQuery: { type: 'apiKey', in: 'query', name: 'job_token', description: 'CI job token as a query parameter' },
        Basic: { type: 'http', scheme: 'basic', description: 'Username and a token as password (package feeds)' },
      },
    },
  };
}
