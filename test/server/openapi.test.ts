import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { FORGELET_VERSION, buildOpenApi, type Route } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type ApiResponse, type TestForgelet } from '../support/server.js';
import { createUsers, expectStatus } from './http.js';
import { enableTracking, exceptionEvent, store } from './error-tracking.helpers.js';
import { commitCi, createRunner, multipart, zipOf } from './ci-support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `node scripts/openapi-responses.ts --check` in a child (a few seconds of type checking, run beside the server tests). */
function checkGenerated(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/openapi-responses.ts', '--check'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** `/projects/:id/files/*path` → `/projects/{}/files/{}` (the shape OpenAPI compares). */
const templateKey = (path: string) => path.replace(/\{[^}]+\}|[:*][A-Za-z0-9_]+/g, '{}');
const VERBS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('sqlite: openapi.json', () => {
  let f: TestForgelet;
  let doc: any;
  let generated: Promise<{ code: number | null; output: string }>;

  before(async () => {
    generated = checkGenerated();
    f = await startTestServer('sqlite', { testMode: true });
    const r = await f.api('GET', '/openapi.json', { token: null });
    expectStatus(r, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    doc = r.body;
  });
  after(async () => f?.stop());

  it('is a valid OpenAPI 3.1 document describing Forgelet', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    assert.equal(res.valid, true, JSON.stringify(res.errors, null, 2)?.slice(0, 4000));
    assert.equal(validator.version, '3.1');
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'Forgelet');
    assert.equal(doc.info.version, FORGELET_VERSION);
    assert.deepEqual(doc.servers, [{ url: `${f.url}/api/v4` }]);
  });

  it('the validator catches a broken document (it can fail)', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/projects/{id}/pipeline_schedules'].get.parameters[0].in;
    const res = await new Validator().validate(broken);
    assert.equal(res.valid, false);
  });

  it('has one operation per route, with its method (routes added later must appear)', () => {
    const routes: Route[] = f.forge.routes;
    assert.ok(routes.length > 300, `only ${routes.length} routes`);
    assert.ok(routes.some((r) => r.method === 'GET' && r.path === '/openapi.json'));
    const byTemplate = new Map<string, string>();
    for (const path of Object.keys(doc.paths)) {
      assert.ok(!byTemplate.has(templateKey(path)), `${path} and ${byTemplate.get(templateKey(path))} are identical templates`);
      byTemplate.set(templateKey(path), path);
    }
    const missing: string[] = [];
    for (const r of routes) {
      const path = byTemplate.get(templateKey(r.path));
      if (!path || !doc.paths[path][r.method.toLowerCase()]) missing.push(`${r.method} ${r.path}`);
    }
    assert.deepEqual(missing, []);
    const operations = Object.values(doc.paths).flatMap((item: any) => VERBS.filter((v) => item[v]));
    assert.equal(operations.length, routes.length);
  });

  it('the generated response table is up to date with the declared reply types (npm run generate:openapi)', async () => {
    const { code, output } = await generated;
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /warning/, 'every route declares typed answers');
  });

  it('every served route has its success answers: status, content type and, for JSON, a body schema', (t) => {
    const byTemplate = new Map(Object.keys(doc.paths).map((p) => [templateKey(p), p]));
    const figures = { routes: 0, json: 0, empty: 0, binary: 0, text: 0, redirect: 0, paged: 0 };
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const r of f.forge.routes as Route[]) {
      const op = doc.paths[byTemplate.get(templateKey(r.path))!][r.method.toLowerCase()];
      if (seen.has(op.operationId)) continue;
      seen.add(op.operationId);
      figures.routes++;
      const success = Object.entries<any>(op.responses).filter(([st]) => /^[23]\d\d$/.test(st));
      if (!success.length || op.responses.default) problems.push(`${r.method} ${r.path}: no success answer`);
      const types = new Set(success.flatMap(([, res]) => Object.keys(res.content ?? {})));
      for (const [st, res] of success) {
        const json = res.content?.['application/json'];
        const schema = json?.schema?.type === 'array' ? json.schema.items : json?.schema;
        if (json && (!schema || Object.keys(schema).length === 0)) problems.push(`${r.method} ${r.path} ${st}: untyped JSON`);
        if (res.headers?.Link) figures.paged++;
        if (res.headers?.Location) figures.redirect++;
      }
      if (types.has('application/json')) figures.json++;
      else if ([...types].some((ct) => ct === '*/*' || ct.includes('octet-stream') || ct.includes('zip'))) figures.binary++;
      else if (types.size) figures.text++;
      else if (!success.some(([, res]) => res.headers?.Location)) figures.empty++;
    }
    assert.deepEqual(problems, []);
    t.diagnostic(JSON.stringify(figures));
    assert.ok(figures.json > 250 && figures.paged > 80 && figures.binary >= 8 && figures.redirect >= 3, JSON.stringify(figures));
  });

  it('answers per route: entity schemas in components, lists with pagination headers, 201/204/202, files, XML, redirects', () => {
    const schedules = doc.paths['/projects/{id}/pipeline_schedules'];
    const list = schedules.get.responses['200'];
    assert.deepEqual(list.content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/PipelineScheduleEntity' } });
    assert.deepEqual(Object.keys(list.headers), ['Link', 'X-Total', 'X-Total-Pages', 'X-Page', 'X-Per-Page', 'X-Next-Page', 'X-Prev-Page']);
    assert.equal(list.headers.Link.$ref, '#/components/headers/Link');
    assert.deepEqual(Object.keys(schedules.post.responses).filter((st) => st < '4'), ['201']);
    assert.deepEqual(schedules.post.responses['201'].content['application/json'].schema, { $ref: '#/components/schemas/PipelineScheduleDetailsEntity' });
    const details = doc.components.schemas.PipelineScheduleDetailsEntity;
    assert.equal(details.type, 'object');
    assert.equal(details.additionalProperties, false);
    assert.ok(details.required.includes('cron_timezone') && !details.required.includes('variables'), JSON.stringify(details.required));
    assert.deepEqual(details.properties.owner, { anyOf: [{ type: 'null' }, { $ref: '#/components/schemas/UserBasicEntity' }] });
    // GitLab answers DELETE of a schedule with 202 and the schedule; of an issue with 204 and no body.
    const del = doc.paths['/projects/{id}/pipeline_schedules/{pipeline_schedule_id}'].delete.responses;
    assert.deepEqual(del['202'].content['application/json'].schema, { $ref: '#/components/schemas/PipelineScheduleDetailsEntity' });
    assert.ok(!del['200'] && !del['204'], JSON.stringify(del));
    const delIssue = doc.paths['/projects/{id}/issues/{issue_iid}'].delete.responses;
    assert.ok(delIssue['204'] && !delIssue['204'].content && !delIssue['200'], JSON.stringify(delIssue));
    // A download: the file, any content type; a zip archive of the job's artifacts.
    const raw = doc.paths['/projects/{id}/repository/files/{file_path}/raw'].get.responses['200'];
    assert.ok(raw.content['*/*'], JSON.stringify(raw));
    const artifacts = doc.paths['/projects/{id}/jobs/{job_id}/artifacts'].get.responses['200'];
    assert.deepEqual(Object.keys(artifacts.content), ['application/octet-stream']);
    assert.deepEqual(artifacts.content['application/octet-stream'].schema, { type: 'string', contentMediaType: 'application/octet-stream' });
    // The NuGet feed: JSON service index, XML V2 documents, nupkg downloads.
    assert.ok(doc.paths['/projects/{id}/packages/nuget/index.json'].get.responses['200'].content['application/json'].schema.$ref);
    assert.deepEqual(Object.keys(doc.paths['/projects/{id}/packages/nuget/v2'].get.responses['200'].content), ['application/xml; charset=utf-8']);
    // Redirects name their Location.
    const latest = doc.paths['/projects/{id}/releases/permalink/latest'].get.responses;
    assert.deepEqual(latest['302'].headers, { Location: { $ref: '#/components/headers/Location' } });
    // A HEAD route has headers only.
    assert.equal(doc.paths['/projects/{id}/repository/files/{file_path}'].head.responses['200'].content, undefined);
    // Errors: 400 names the field (`error`) or says why (`message`); 404 a `message`.
    assert.deepEqual(doc.components.responses.BadRequest.content['application/json'].schema, { anyOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/MessageError' }] });
    assert.deepEqual(doc.components.schemas.ValidationError.required, ['error']);
    assert.deepEqual(doc.components.schemas.MessageError.required, ['message']);
    assert.equal(doc.paths['/version'].get.responses['400'], undefined, 'no parameters, no 400');
    assert.equal(doc.paths['/version'].get.responses['404'], undefined, 'no path parameters, no 404');
  });

  it('operation ids are unique and every template variable is a required path parameter', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const vars = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const verb of VERBS.filter((v) => item[v])) {
        const op = item[verb];
        assert.ok(op.operationId && !ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        assert.ok(op.tags?.length === 1 && op.summary, `${verb} ${path} lacks a tag or summary`);
        const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path');
        assert.deepEqual(pathParams.map((p: any) => p.name), vars, `${verb} ${path}`);
        assert.ok(pathParams.every((p: any) => p.required === true));
        assert.ok(Object.keys(op.responses).some((st) => /^[23]\d\d$/.test(st)) && op.responses['4XX'], `${verb} ${path} responses`);
      }
    }
    assert.equal(doc.paths['/projects/{id}/releases'].get.operationId, 'get_projects_id_releases');
  });

  it("the specification's routes with OData keys or slashes in their segments are operations of their own, with parameters and answers", () => {
    const paramsOf = (op: any, where: string) => op.parameters.filter((p: any) => p.in === where).map((p: any) => [p.name, p.required]);
    for (const feed of ['nuget', 'pkgfeed']) {
      const v2 = `/projects/{id}/packages/${feed}/v2`;
      const entry = doc.paths[`${v2}/Packages(Id='{package_name}',Version='{package_version}')`]?.get;
      assert.ok(entry, `${feed}: Packages(Id=…,Version=…)`);
      assert.deepEqual(paramsOf(entry, 'path'), [['id', true], ['package_name', true], ['package_version', true]]);
      const query = doc.paths[`${v2}/Packages()`]?.get;
      assert.ok(query, `${feed}: Packages()`);
      assert.deepEqual(paramsOf(query, 'query'), [['$filter', false], ['$skip', false], ['$top', false], ['$orderby', false]]);
      const find = doc.paths[`/projects/{project_id}/packages/${feed}/v2/FindPackagesById()`]?.get;
      assert.ok(find, `${feed}: FindPackagesById()`);
      assert.deepEqual([paramsOf(find, 'path'), paramsOf(find, 'query')], [[['project_id', true]], [['id', true]]]);
      assert.match(find.parameters[0].description, /URL-encoded path of the project/);
      for (const op of [entry, query, find]) assert.deepEqual(Object.keys(op.responses['200'].content), ['application/xml; charset=utf-8']);
    }
    const download = doc.paths['/projects/{id}/jobs/artifacts/{ref_name}/download']?.get;
    assert.ok(download, 'by-ref download');
    assert.deepEqual(paramsOf(download, 'path'), [['id', true], ['ref_name', true]]);
    assert.deepEqual(paramsOf(download, 'query').slice(0, 2), [['job', true], ['search_recent_successful_pipelines', false]]);
    assert.equal(download.parameters[1]['x-greedy'], true);
    assert.ok(download.responses['200'].content['application/octet-stream']);
    const raw = doc.paths['/projects/{id}/jobs/artifacts/{ref_name}/raw/{artifact_path}']?.get;
    assert.ok(raw, 'by-ref raw file');
    assert.deepEqual(paramsOf(raw, 'path'), [['id', true], ['ref_name', true], ['artifact_path', true]]);
    assert.ok(raw.parameters.slice(1, 3).every((p: any) => p['x-greedy'] === true && /may contain `\/`/.test(p.description)));
    assert.deepEqual(paramsOf(raw, 'query')[0], ['job', true]);
    // no catch-all stands in for them any more
    assert.deepEqual(Object.keys(doc.paths).filter((p) => /\/v2\/\{odata\}|jobs\/artifacts\/\{ref_path\}/.test(p)), []);
  });

  it('path parameters: `:id` becomes {id}, greedy `*rest` keeps its name and says it may hold slashes', () => {
    const op = doc.paths['/projects/{id}/jobs/{job_id}/artifacts/{artifact_path}'].get;
    const rest = op.parameters.find((p: any) => p.name === 'artifact_path');
    assert.equal(rest.in, 'path');
    assert.equal(rest['x-greedy'], true);
    assert.match(rest.description, /may contain `\/`/);
    const id = op.parameters.find((p: any) => p.name === 'id');
    assert.match(id.description, /URL-encoded path of the project/);
    assert.equal(op.parameters.filter((p: any) => p.in === 'query' && (p.name === 'id' || p.name === 'artifact_path')).length, 0);
  });

  it('POST bodies come from the params schema in JSON and form encodings (release asset links)', () => {
    const op = doc.paths['/projects/{id}/releases/{tag_name}/assets/links'].post;
    assert.deepEqual(Object.keys(op.requestBody.content).sort(), ['application/json', 'application/x-www-form-urlencoded']);
    assert.equal(op.requestBody.required, true);
    const schema = op.requestBody.content['application/json'].schema;
    assert.deepEqual(schema.required, ['name', 'url']);
    assert.equal(schema.properties.id, undefined, 'path params are not body fields');
    assert.deepEqual(schema.properties.link_type, { type: 'string', enum: ['other', 'runbook', 'image', 'package'], default: 'other' });
    assert.equal(op.parameters.filter((p: any) => p.in !== 'path').length, 0);
    assert.deepEqual(op.security.map((s: any) => Object.keys(s)[0]), ['PrivateToken', 'Bearer', 'JobToken', 'JobTokenQuery']);
    assert.deepEqual(op.security[0].PrivateToken, ['api']);
    const update = doc.paths['/projects/{id}/pipeline_schedules/{pipeline_schedule_id}'].put;
    assert.deepEqual(update.security.map((s: any) => Object.keys(s)[0]), ['PrivateToken', 'Bearer'], 'no job token where the route does not take one');
    assert.equal(op.responses['404'].$ref, '#/components/responses/NotFound');
  });

  it('GET parameters are query parameters with their enums and defaults (pipeline schedules)', () => {
    const op = doc.paths['/projects/{id}/pipeline_schedules'].get;
    const scope = op.parameters.find((p: any) => p.name === 'scope');
    assert.equal(scope.in, 'query');
    assert.equal(scope.required, false);
    assert.deepEqual(scope.schema.enum, ['active', 'inactive']);
    const perPage = op.parameters.find((p: any) => p.name === 'per_page');
    assert.deepEqual(perPage.schema, { type: 'integer', default: 20 });
    assert.equal(op.requestBody, undefined);
    assert.deepEqual(op.security[0].PrivateToken, ['api', 'read_api']);
  });

  it("parameter descriptions come from the params schema's .describe(): query parameters and body fields", () => {
    const list = doc.paths['/projects/{id}/issues'].get;
    const milestone = list.parameters.find((p: any) => p.name === 'milestone');
    assert.match(milestone.description, /None.*Any.*Upcoming.*Started/);
    const create = doc.paths['/projects/{id}/merge_requests/{merge_request_iid}/approve'].post;
    const body = create.requestBody.content['application/json'].schema;
    assert.match(body.properties.sha.description, /head/);
    // every declared parameter of these schemas that has a description reaches the document
    const described = Object.values(doc.paths as Record<string, any>).flatMap((item: any) => Object.values(item)).flatMap((op: any) => [
      ...(op.parameters ?? []).filter((p: any) => p.in !== 'path' && p.description),
      ...Object.values(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}).filter((p: any) => p.description),
    ]);
    assert.ok(described.length > 150, `${described.length} described parameters`);
  });

  it('uploads are multipart; job tokens and HTTP basic are listed where allowed (NuGet push)', () => {
    const op = doc.paths['/projects/{id}/packages/nuget'].put;
    assert.deepEqual(Object.keys(op.requestBody.content), ['multipart/form-data']);
    const schema = op.requestBody.content['multipart/form-data'].schema;
    const file = Object.values<any>(schema.properties).find((s) => s.format === 'binary');
    assert.ok(file, JSON.stringify(schema));
    assert.deepEqual(op.security.map((s: any) => Object.keys(s)[0]), ['PrivateToken', 'Bearer', 'JobToken', 'JobTokenQuery', 'Basic']);
    assert.deepEqual(doc.components.securitySchemes.JobToken, { type: 'apiKey', in: 'header', name: 'JOB-TOKEN', description: 'CI job token' });
    assert.equal(doc.components.securitySchemes.JobTokenQuery.in, 'query');
    assert.equal(doc.components.securitySchemes.Basic.scheme, 'basic');
  });

  it('security follows the auth mode: none, optional (anonymous allowed), required', () => {
    assert.deepEqual(doc.paths['/openapi.json'].get.security, []);
    assert.equal(doc.paths['/openapi.json'].get.responses['401'], undefined);
    const optional = doc.paths['/projects/{id}'].get;
    assert.deepEqual(optional.security.at(-1), {});
    const required = doc.paths['/version'].get;
    assert.ok(!required.security.some((s: any) => Object.keys(s).length === 0));
    assert.equal(required.responses['401'].$ref, '#/components/responses/Unauthorized');
    const error = doc.components.schemas.Error;
    assert.deepEqual(Object.keys(error.properties), ['message', 'error']);
    assert.deepEqual(doc.components.responses.NotFound.content['application/json'].schema, { $ref: '#/components/schemas/MessageError' });
  });

  it('answers the same cached text with or without credentials', async () => {
    const a = await f.api('GET', '/openapi.json', { token: null });
    const b = await f.api('GET', '/openapi.json', { token: 'not-a-token' });
    expectStatus(a, 200);
    expectStatus(b, 200);
    assert.equal(a.text, b.text);
  });

  it('templates differing only in parameter names merge under the first names; nullable becomes a type list', async () => {
    const { p, params } = await import('@forgelet/core');
    const handler = async () => ({ kind: 'empty', status: 204 }) as const;
    const withNote = params({ id: p.integer(), note: p.string().nullable().optional() });
    const routes = [
      { method: 'GET', path: '/things/:thing_id/parts', auth: 'required', tag: 't', summary: 'a', params: params({}), handler },
      { method: 'DELETE', path: '/things/:id/parts', auth: 'required', tag: 't', summary: 'b', params: withNote, handler },
      { method: 'PUT', path: '/things/:id/parts', auth: 'optional', tag: 't', summary: 'c', params: withNote, handler },
      { method: 'GET', path: '/things', auth: 'none', tag: 't', summary: 'd', params: params({}), handler },
    ] as unknown as Route[];
    const responses = {
      routes: {
        'GET /things/:thing_id/parts': [{ status: 200, kind: 'page' as const, schema: { $ref: '#/components/schemas/Thing' } }],
        'GET /things': [{ status: 201, kind: 'json' as const, schema: { $ref: '#/components/schemas/Thing' } }],
      },
      schemas: { Thing: { type: 'object' } },
    };
    const built: any = buildOpenApi(routes, { serverUrl: 'http://x/api/v4', version: '1', responses });
    const parts = built.paths['/things/{thing_id}/parts'];
    assert.deepEqual(parts.get.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/Thing' } });
    assert.equal(parts.get.responses['200'].headers['X-Total'].$ref, '#/components/headers/X-Total');
    assert.match(parts.put.responses.default.description, /missing from the generated response table/, 'an undescribed route says so');
    assert.deepEqual(Object.keys(built.paths['/things'].get.responses), ['201', '4XX'], 'the table\'s answer is used; no params, no path, no auth: no 400/401/403/404');
    assert.deepEqual(built.components.schemas.Thing, { type: 'object' });
    assert.deepEqual(Object.keys(built.paths), ['/things/{thing_id}/parts', '/things']);
    const del = built.paths['/things/{thing_id}/parts'].delete;
    assert.deepEqual(del.parameters[0], { name: 'thing_id', in: 'path', required: true, schema: { type: 'integer' }, description: "Named `id` in this operation's declaration." });
    assert.deepEqual(del.parameters[1], { name: 'note', in: 'query', required: false, schema: { type: ['string', 'null'] } });
    assert.deepEqual(built.paths['/things/{thing_id}/parts'].put.requestBody.content['application/json'].schema, { type: 'object', properties: { note: { type: ['string', 'null'] } } });
    const res = await new Validator().validate(built);
    assert.equal(res.valid, true, JSON.stringify(res.errors));
  });
});

/**
 * Real answers against the document: each request's status must be documented for its
 * operation, its content type listed, and a JSON body must validate (ajv, JSON Schema 2020-12,
 * the document's own `$ref`s) against the documented schema.
 */
for (const dialect of DIALECTS) {
  describe(`${dialect}: real answers match openapi.json`, () => {
    let f: TestForgelet;
    let doc: any;
    let ajv: InstanceType<typeof Ajv2020>;
    let byTemplate: Map<string, string>;
    let checked = 0;
    const DOC_ID = 'https://forgelet.test/openapi.json';

    const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    const deref = (res: any) => (res?.$ref ? doc.components.responses[res.$ref.split('/').pop()] : res);

    /** The documented schema of an answer (fails when the status or content type is not documented). */
    function documented(method: string, routePath: string, r: ApiResponse): { ref: string; schema: any } | null {
      const template = byTemplate.get(templateKey(routePath));
      assert.ok(template, `${routePath} not in the document`);
      const verb = method.toLowerCase();
      const op = doc.paths[template!][verb];
      assert.ok(op, `${method} ${template} not in the document`);
      const status = String(r.status);
      const key = op.responses[status] ? status : op.responses[`${status[0]}XX`] ? `${status[0]}XX` : null;
      assert.ok(key, `${method} ${routePath} answered ${status}, documented: ${Object.keys(op.responses)}: ${r.text.slice(0, 300)}`);
      const res = deref(op.responses[key!]);
      const type = r.headers.get('content-type');
      if (!res.content) {
        assert.equal(r.text, '', `${method} ${routePath} ${status}: documented without a body`);
        return null;
      }
      const mediaType = type && res.content[type] ? type : res.content['*/*'] ? '*/*' : null;
      assert.ok(mediaType, `${method} ${routePath} ${status}: content type ${type} not in ${Object.keys(res.content)}`);
      const ref = op.responses[key!].$ref
        ? `${DOC_ID}#/components/responses/${op.responses[key!].$ref.split('/').pop()}/content/${pointer(mediaType!)}/schema`
        : `${DOC_ID}#/paths/${pointer(template!, verb, 'responses', key!, 'content', mediaType!, 'schema')}`;
      return { ref, schema: res.content[mediaType!].schema };
    }

    /** Asserts the answer is documented and its JSON body validates; returns the body. */
    function conforms(method: string, routePath: string, r: ApiResponse, status: number): any {
      expectStatus(r, status);
      const d = documented(method, routePath, r);
      if (d && typeof r.body === 'object') {
        const validate = ajv.getSchema(d.ref) ?? ajv.compile({ $ref: d.ref });
        assert.ok(validate(r.body), `${method} ${routePath}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(r.body).slice(0, 1500)}`);
      }
      checked++;
      return r.body;
    }

    const call = async (method: string, routePath: string, actual: string, status: number, options: Parameters<TestForgelet['api']>[2] = {}) =>
      conforms(method, routePath, await f.api(method, actual, options), status);

    before(async () => {
      f = await startTestServer(dialect);
      const r = await f.api('GET', '/openapi.json', { token: null });
      expectStatus(r, 200);
      doc = r.body;
      byTemplate = new Map(Object.keys(doc.paths).map((p) => [templateKey(p), p]));
      ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
    });
    after(async () => f?.stop());

    it('projects, groups, users, issues: single entities, lists (with pagination headers) and errors', async () => {
      const [alice] = await createUsers(f, ['oa-alice']);
      conforms('GET', '/user', await f.api('GET', '/user', { token: alice!.token }), 200);
      await call('GET', '/users/:id', `/users/${alice!.id}`, 200);
      const group = await call('POST', '/groups', '/groups', 201, { body: { name: 'OA Group', path: 'oa-group', description: 'd', visibility: 'public' } });
      await call('GET', '/groups/:id', `/groups/${group.id}`, 200);
      await call('GET', '/groups', '/groups', 200);
      const project = await call('POST', '/projects', '/projects', 201, { body: { name: 'oa-app', namespace_id: group.id, visibility: 'public', initialize_with_readme: true } });
      await call('GET', '/projects/:id', `/projects/${project.id}`, 200);
      await call('GET', '/projects/:id', `/projects/${encodeURIComponent(project.path_with_namespace)}`, 200, { token: null });
      const list = await f.api('GET', '/projects?per_page=1');
      conforms('GET', '/projects', list, 200);
      assert.ok(list.headers.get('link') && list.headers.get('x-total'));
      const issue = await call('POST', '/projects/:id/issues', `/projects/${project.id}/issues`, 201, { body: { title: 'Documented', labels: 'bug' } });
      await call('GET', '/projects/:id/issues/:issue_iid', `/projects/${project.id}/issues/${issue.iid}`, 200);
      await call('GET', '/projects/:id/issues', `/projects/${project.id}/issues`, 200);
      await call('POST', '/projects/:id/issues/:issue_iid/notes', `/projects/${project.id}/issues/${issue.iid}/notes`, 201, { body: { body: 'a note' } });
      await call('GET', '/projects/:id/issues/:issue_iid/notes', `/projects/${project.id}/issues/${issue.iid}/notes`, 200);
      await call('POST', '/projects/:id/milestones', `/projects/${project.id}/milestones`, 201, { body: { title: 'v1' } });
      await call('DELETE', '/projects/:id/issues/:issue_iid', `/projects/${project.id}/issues/${issue.iid}`, 204);
      // Errors: 400 naming the field, 404 and 401 with a message, 403.
      const missing = await call('POST', '/projects/:id/issues', `/projects/${project.id}/issues`, 400, { body: {} });
      assert.deepEqual(missing, { error: 'title is missing' });
      await call('GET', '/projects/:id', '/projects/999999', 404);
      await call('GET', '/user', '/user', 401, { token: 'glpat-not-a-token' });
      await call('DELETE', '/projects/:id', `/projects/${project.id}`, 403, { token: alice!.token });
    });

    it('repository, pipelines, jobs, schedules, releases: entities, files and redirects', async () => {
      const project = await call('POST', '/projects', '/projects', 201, { body: { name: 'oa-ci' } });
      await commitFiles(f, project.id, 'main', { '.gitlab-ci.yml': 'build:\n  script: echo hi\n', 'README.md': '# hi\n' });
      await call('GET', '/projects/:id/repository/branches', `/projects/${project.id}/repository/branches`, 200);
      await call('GET', '/projects/:id/repository/commits/:sha', `/projects/${project.id}/repository/commits/main`, 200);
      await call('GET', '/projects/:id/repository/files/*file_path', `/projects/${project.id}/repository/files/README.md?ref=main`, 200);
      const raw = await f.api('GET', `/projects/${project.id}/repository/files/README.md/raw?ref=main`);
      conforms('GET', '/projects/:id/repository/files/*file_path/raw', raw, 200);
      assert.equal(raw.text, '# hi\n');
      const pipeline = await call('POST', '/projects/:id/pipeline', `/projects/${project.id}/pipeline`, 201, { body: { ref: 'main' } });
      await call('GET', '/projects/:id/pipelines/:pipeline_id', `/projects/${project.id}/pipelines/${pipeline.id}`, 200);
      await call('GET', '/projects/:id/pipelines', `/projects/${project.id}/pipelines`, 200);
      const jobs = await call('GET', '/projects/:id/pipelines/:pipeline_id/jobs', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`, 200);
      assert.equal(jobs.length, 1);
      await call('GET', '/projects/:id/jobs/:job_id', `/projects/${project.id}/jobs/${jobs[0].id}`, 200);
      const schedule = await call('POST', '/projects/:id/pipeline_schedules', `/projects/${project.id}/pipeline_schedules`, 201, {
        body: { description: 'nightly', ref: 'main', cron: '0 1 * * *', cron_timezone: 'UTC' },
      });
      await call('POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables', `/projects/${project.id}/pipeline_schedules/${schedule.id}/variables`, 201, { body: { key: 'A', value: 'b' } });
      const details = await call('GET', '/projects/:id/pipeline_schedules/:pipeline_schedule_id', `/projects/${project.id}/pipeline_schedules/${schedule.id}`, 200);
      assert.equal(details.variables.length, 1);
      await call('GET', '/projects/:id/pipeline_schedules', `/projects/${project.id}/pipeline_schedules`, 200);
      await call('POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/play', `/projects/${project.id}/pipeline_schedules/${schedule.id}/play`, 201);
      const release = await call('POST', '/projects/:id/releases', `/projects/${project.id}/releases`, 201, {
        body: { tag_name: 'v1.0', ref: 'main', name: 'One', description: 'first', assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] } },
      });
      await call('GET', '/projects/:id/releases/:tag_name', `/projects/${project.id}/releases/${release.tag_name}`, 200);
      await call('GET', '/projects/:id/releases', `/projects/${project.id}/releases`, 200);
      await call('GET', '/projects/:id/releases/:tag_name/assets/links', `/projects/${project.id}/releases/v1.0/assets/links`, 200);
      const latest = await f.api('GET', `/projects/${project.id}/releases/permalink/latest`);
      conforms('GET', '/projects/:id/releases/permalink/latest', latest, 302);
      assert.match(latest.headers.get('location') ?? '', /releases\/v1\.0$/);
    });

    it('packages (JSON API and NuGet feed), error tracking, flows and bulk imports', async () => {
      const project = await call('POST', '/projects', '/projects', 201, { body: { name: 'oa-feed' } });
      await call('GET', '/projects/:id/packages', `/projects/${project.id}/packages`, 200);
      await call('GET', '/projects/:id/packages/nuget/index.json', `/projects/${project.id}/packages/nuget/index.json`, 200);
      const v2 = await f.api('GET', `/projects/${project.id}/packages/nuget/v2`);
      conforms('GET', '/projects/:id/packages/nuget/v2', v2, 200);
      assert.match(v2.text, /^<\?xml/);
      // Error tracking: settings, client keys, an event through the collector, the errors.
      await call('PUT', '/projects/:id/error_tracking/settings', `/projects/${project.id}/error_tracking/settings?active=true&integrated=true`, 200, { body: {} });
      await call('GET', '/projects/:id/error_tracking/client_keys', `/projects/${project.id}/error_tracking/client_keys`, 200);
      const { key } = await enableTracking(f, project.id);
      expectStatus(await store(f, project.id, key, exceptionEvent({ type: 'TypeError', value: 'boom' })), 200);
      const errors = await call('GET', '/forgelet/projects/:id/error_tracking/errors', `/forgelet/projects/${project.id}/error_tracking/errors`, 200);
      assert.equal(errors.length, 1);
      await call('GET', '/forgelet/projects/:id/error_tracking/errors/:error_id', `/forgelet/projects/${project.id}/error_tracking/errors/${errors[0].id}`, 200);
      await call('GET', '/forgelet/projects/:id/error_tracking/errors/:error_id/events', `/forgelet/projects/${project.id}/error_tracking/errors/${errors[0].id}/events`, 200);
      // Flows.
      await commitFiles(f, project.id, 'main', { 'README.md': 'hi' });
      await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: project.id });
      const flow = await call('POST', '/ai/duo_workflows/workflows', '/ai/duo_workflows/workflows', 201, { body: { project_id: String(project.id), goal: 'Document', workflow_definition: 'software_development' } });
      await call('GET', '/ai/duo_workflows/workflows/:id', `/ai/duo_workflows/workflows/${flow.id}`, 200);
      await call('POST', '/ai/duo_workflows/workflows/:id/checkpoints', `/ai/duo_workflows/workflows/${flow.id}/checkpoints`, 201, { body: { thread_ts: 'a', checkpoint: { step: 1 } } });
      await call('GET', '/ai/duo_workflows/workflows/:id/checkpoints', `/ai/duo_workflows/workflows/${flow.id}/checkpoints`, 200);
      // Bulk imports: the lists, and a refused start (422 with a message).
      await call('GET', '/bulk_imports', '/bulk_imports', 200);
      await call('GET', '/bulk_imports/entities', '/bulk_imports/entities', 200);
      await call('POST', '/bulk_imports', '/bulk_imports', 400, { body: { entities: [] } });
      await call('GET', '/bulk_imports/:import_id', '/bulk_imports/999', 404);
    });

    it('the runner job payload is the declared JobPayload: artifacts, image, variables, steps, dependencies', async () => {
      const project = await call('POST', '/projects', '/projects', 201, { body: { name: 'oa-runner' } });
      await commitCi(f, project.id, [
        'variables: { GLOBAL: "one", RAW_ONE: { value: "$GLOBAL", expand: false } }',
        'build:',
        '  stage: build',
        '  image: { name: "alpine:3.20", entrypoint: [""] }',
        '  variables: { LOCAL: "two" }',
        '  before_script: [echo before]',
        '  script: [make]',
        '  after_script: [echo after]',
        '  environment: { name: review/oa }',
        '  artifacts: { name: out, paths: [dist/], exclude: [dist/tmp/**], untracked: true, when: always, expire_in: 1 week }',
        'test:',
        '  stage: test',
        '  script: [make test]',
        '',
      ].join('\n'));
      const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: project.id });
      await call('POST', '/projects/:id/pipeline', `/projects/${project.id}/pipeline`, 201, {
        body: { ref: 'main', variables: [{ key: 'PIPE', value: 'three' }, { key: 'CONFIG', value: 'a=b\n', variable_type: 'file' }] },
      });
      const take = () => call('POST', '/jobs/request', '/jobs/request', 201, { token: null, body: { token: runner.token, info: { name: 'oa-runner' } } });
      const build = await take();
      assert.deepEqual(build.artifacts, [{ name: 'out', untracked: true, paths: ['dist/'], exclude: ['dist/tmp/**'], when: 'always', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' }]);
      assert.deepEqual(build.image, { name: 'alpine:3.20', entrypoint: [''], ports: [], pull_policy: null });
      assert.deepEqual(build.steps.map((s: any) => [s.name, s.script]), [['script', ['echo before', 'make']], ['after_script', ['echo after']]]);
      const byKey = (key: string) => build.variables.find((v: any) => v.key === key);
      assert.deepEqual([byKey('RAW_ONE'), byKey('CONFIG'), byKey('CI_JOB_TOKEN').masked], [
        { key: 'RAW_ONE', value: '$GLOBAL', public: true, masked: false, raw: true },
        { key: 'CONFIG', value: 'a=b\n', public: false, masked: false, file: true },
        true,
      ]);
      const upload = multipart({ artifact_type: 'archive', artifact_format: 'zip' }, { filename: 'artifacts.zip', content: await zipOf({ 'dist/app.js': 'x' }) });
      expectStatus(await f.api('POST', `/jobs/${build.id}/artifacts`, { token: null, raw: upload.body, headers: { 'Content-Type': upload.contentType, 'JOB-TOKEN': build.token } }), 201);
      expectStatus(await f.api('PUT', `/jobs/${build.id}`, { token: null, body: { token: build.token, state: 'success' } }), 200);
      const test = await take();
      assert.deepEqual(test.dependencies, [{ id: build.id, name: 'build', token: test.token, artifacts_file: { filename: 'artifacts.zip', size: test.dependencies[0].artifacts_file.size } }]);
      assert.deepEqual([test.artifacts, test.image], [[], null]);
      // GitLab's own answer, with what Forgelet does not send yet (services, cache, registry
      // credentials, ports, features), fits the same declaration.
      const gitlab = {
        ...test,
        image: { name: 'ruby:3.3', entrypoint: null, ports: [{ number: 8080, protocol: 'http', name: 'web' }], pull_policy: ['if-not-present'] },
        services: [{ name: 'postgres:16', entrypoint: null, ports: [], alias: 'db', command: null, variables: [{ key: 'POSTGRES_DB', value: 'ci' }] }],
        artifacts: null,
        cache: [{ key: 'gems', untracked: false, paths: ['vendor/'], policy: 'pull-push', when: 'on_success', fallback_keys: [] }],
        credentials: [{ type: 'registry', url: 'registry.example.com', username: 'gitlab-ci-token', password: test.token }],
        features: { trace_sections: true, failure_reasons: ['script_failure'] },
      };
      const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/JobPayload`)!;
      assert.ok(validate(gitlab), ajv.errorsText(validate.errors));
      assert.equal(validate({ ...gitlab, services: [{ name: 'postgres:16' }] }), false, 'a service without its fields is refused');
    });

    it('a schema that disagrees with the answer fails (the check can fail)', async () => {
      const r = await f.api('GET', '/projects?per_page=1');
      expectStatus(r, 200);
      const extra = { ...r, body: [{ ...r.body[0], not_in_the_entity: 1 }] };
      assert.throws(() => conforms('GET', '/projects', extra, 200), /must NOT have additional properties/);
      const { id: _id, ...withoutId } = r.body[0];
      assert.throws(() => conforms('GET', '/projects', { ...r, body: [withoutId] }, 200), /must have required property 'id'/);
      assert.throws(() => conforms('GET', '/projects', { ...r, status: 201 }, 201), /answered 201/);
      assert.ok(checked >= 20, `only ${checked} answers checked`);
    });
  });
}
