import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { FORGELET_VERSION, buildOpenApi, type Route } from '@forgelet/core';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { expectStatus } from './http.js';

/** `/projects/:id/files/*path` → `/projects/{}/files/{}` (the shape OpenAPI compares). */
const templateKey = (path: string) => path.replace(/\{[^}]+\}|[:*][A-Za-z0-9_]+/g, '{}');
const VERBS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('sqlite: openapi.json', () => {
  let f: TestForgelet;
  let doc: any;

  before(async () => {
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
        assert.ok(op.responses['2XX'] && op.responses['4XX'], `${verb} ${path} responses`);
      }
    }
    assert.equal(doc.paths['/projects/{id}/releases'].get.operationId, 'get_projects_id_releases');
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
    assert.deepEqual(doc.components.responses.NotFound.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
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
    ] as unknown as Route[];
    const built: any = buildOpenApi(routes, { serverUrl: 'http://x/api/v4', version: '1' });
    assert.deepEqual(Object.keys(built.paths), ['/things/{thing_id}/parts']);
    const del = built.paths['/things/{thing_id}/parts'].delete;
    assert.deepEqual(del.parameters[0], { name: 'thing_id', in: 'path', required: true, schema: { type: 'integer' }, description: "Named `id` in this operation's declaration." });
    assert.deepEqual(del.parameters[1], { name: 'note', in: 'query', required: false, schema: { type: ['string', 'null'] } });
    assert.deepEqual(built.paths['/things/{thing_id}/parts'].put.requestBody.content['application/json'].schema, { type: 'object', properties: { note: { type: ['string', 'null'] } } });
    const res = await new Validator().validate(built);
    assert.equal(res.valid, true, JSON.stringify(res.errors));
  });
});
