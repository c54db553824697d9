/**
 * The OpenAPI 3.1 document of the REST API, generated from the route declarations: one
 * operation per route, path parameters from `:name` and greedy `*name` segments, query
 * parameters (GET/DELETE/HEAD and raw-body routes) or a request body (POST/PUT/PATCH) from the
 * params schema, security from the route's auth mode, and GitLab's error bodies for 4xx.
 */
import type { JsonSchema, ObjectField, Shape } from './params.js';
import type { Method, Route } from './route.js';

export interface OpenApiOptions {
  /** Base URL of the API, e.g. `https://forge.example/api/v4`. */
  serverUrl: string;
  /** Forgelet's version (info.version). */
  version: string;
  /** The GitLab version the API answers as. */
  gitlabVersion?: string;
}

type Doc = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };
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

interface Segment {
  kind: 'static' | 'param' | 'rest';
  name: string;
}

const segmentsOf = (path: string): Segment[] =>
  path
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith(':') ? { kind: 'param', name: s.slice(1) } : s.startsWith('*') ? { kind: 'rest', name: s.slice(1) } : { kind: 'static', name: s }));

/** The path with every variable segment blanked: routes with equal keys have identical OpenAPI templates. */
const templateKey = (segs: Segment[]) => segs.map((s) => (s.kind === 'static' ? s.name : '{}')).join('/');

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

function responsesOf(route: Route): Doc {
  const success: Doc =
    route.method === 'HEAD'
      ? { description: 'Success (headers only)' }
      : {
          description: 'Success',
          content: { 'application/json': { schema: {} } },
        };
  const responses: Doc = { '2XX': success };
  responses['400'] = { $ref: '#/components/responses/BadRequest' };
  if (route.auth !== 'none') {
    responses['401'] = { $ref: '#/components/responses/Unauthorized' };
    responses['403'] = { $ref: '#/components/responses/Forbidden' };
  }
  if (route.path.includes(':') || route.path.includes('*')) responses['404'] = { $ref: '#/components/responses/NotFound' };
  responses['4XX'] = { $ref: '#/components/responses/ClientError' };
  return responses;
}

function operationOf(route: Route, segs: Segment[], names: string[], operationId: string): Doc {
  const shape = (route.params as ObjectField<Shape>).shape;
  const pathNames = new Set(segs.filter((s) => s.kind !== 'static').map((s) => s.name));
  const parameters: Doc[] = [];
  let i = 0;
  for (const seg of segs) {
    if (seg.kind === 'static') continue;
    const name = names[i++]!;
    const field = shape[seg.name];
    const schema = field ? toJsonSchema2020(field.schema()) : { type: 'string' };
    delete schema.default;
    const notes: string[] = [];
    if (typeof schema.description === 'string') notes.push(schema.description);
    if (seg.kind === 'rest') notes.push('The rest of the path: may contain `/`.');
    if (name !== seg.name) notes.push(`Named \`${seg.name}\` in this operation's declaration.`);
    const param: Doc = { name, in: 'path', required: true, schema };
    if (seg.name === 'id' && /^\/(projects|groups)\//.test(route.path) && segs.indexOf(seg) === 1) {
      notes.unshift(`The ID or URL-encoded path of the ${route.path.startsWith('/projects/') ? 'project' : 'group'}.`);
    }
    if (notes.length) param.description = notes.join(' ');
    if (seg.kind === 'rest') param['x-greedy'] = true;
    parameters.push(param);
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
  op.responses = responsesOf(route);
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
  const paths: Record<string, Doc> = {};
  // Routes whose templates differ only in parameter names share the first one's names.
  const canonical = new Map<string, string[]>();
  const usedIds = new Set<string>();
  const tags = new Set<string>();

  for (const route of routes) {
    const segs = segmentsOf(route.path);
    const key = templateKey(segs);
    const own = segs.filter((s) => s.kind !== 'static').map((s) => s.name);
    const names = canonical.get(key) ?? own;
    if (!canonical.has(key)) canonical.set(key, own);
    let i = 0;
    const template = '/' + segs.map((s) => (s.kind === 'static' ? s.name : `{${names[i++]}}`)).join('/');

    let operationId = operationIdOf(route.method, route.path);
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${operationIdOf(route.method, route.path)}_${n}`;
    usedIds.add(operationId);

    const item = (paths[template] ??= {});
    const verb = route.method.toLowerCase();
    const op = operationOf(route, segs, names, operationId);
    if (item[verb]) {
      // Two declarations on one template (a `:param` and a `*rest` at the same place): keep the first.
      const first = item[verb] as Doc;
      first['x-forgelet-also'] = [...((first['x-forgelet-also'] as string[]) ?? []), `${route.method} ${route.path}`];
      continue;
    }
    item[verb] = op;
    tags.add(route.tag ?? 'other');
  }

  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_REF } } });
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
      schemas: {
        Error: {
          description: 'GitLab error body: `message` (text, or field → messages for validation errors) or `error`.',
          type: 'object',
          properties: {
            message: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }] },
            error: { type: 'string' },
          },
        },
      },
      responses: {
        BadRequest: errorResponse('Bad request: a parameter is missing or invalid'),
        Unauthorized: errorResponse('Unauthorized: no valid credentials'),
        Forbidden: errorResponse('Forbidden'),
        NotFound: errorResponse('Not found'),
        ClientError: errorResponse('Other client error (409, 413, 422, 429...)'),
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
