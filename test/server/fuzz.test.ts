/**
 * A fuzz corpus over every operation of the OpenAPI document (issue 23): malformed path
 * values (bad ids, huge numbers, bad percent-encodings, traversal), every declared field of the
 * wrong type or out of range, broken JSON, bad encodings and compression bombs, malformed
 * multipart and query strings. Every answer must come within REQUEST_TIMEOUT_MS and be below
 * 500 (malformed framing and bad path values: never a success), nothing may be logged as a server error,
 * and the connection must stay usable: the next request goes on the same socket unless the
 * answer said `Connection: close`, and then the server must close it.
 *
 * Deterministic: a fixed seed (FUZZ_SEED may change it outside CI) picks the mutations; each
 * operation gets about four requests, so both dialects run in well under a minute.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { openConnection, type Connection, type WireResponse } from '../support/raw-http.js';
import { createGroup, createProject } from './http.js';
import { nupkg, putPackage } from './packages-fixtures.js';

const SEED = process.env.FUZZ_SEED && !process.env.CI ? Number(process.env.FUZZ_SEED) : 23;
const REQUEST_TIMEOUT_MS = 10_000;

// ------------------------------------------------------------------ the corpus

/** mulberry32: small, fast, the same sequence everywhere. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]! };
}
type Rng = ReturnType<typeof prng>;

/** Path values no route should take for a real resource (already percent-encoded). */
const BAD_PATH_VALUES = [
  '0', '-1', 'abc', '99999999999999999999', '2147483648', '9223372036854775808', '1.5', '1e3', '0x1f',
  '%00', '%ZZ', '%', '%E0%A4%A', '%F0%9F%92%A9', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', 'x'.repeat(300), '%20', '%0D%0Aset-cookie:x',
];

/**
 * Path parameters where any of BAD_PATH_VALUES can name something real, so a 2xx is right:
 * a namespace path to test (`-1` is free: 200 `exists: false`, as GitLab), a label by name (the
 * fuzzer creates labels named like these values), a NuGet package id (`0x1f` is one).
 */
const FREE_FORM_PATH_PARAMS = new Set([
  '/namespaces/{id}/exists id',
  '/projects/{id}/labels/{label_id} label_id',
  // The NuGet v2 entry of a name and version is built from them alone (GitLab's V2 metadata
  // presenter: nuget asks it for the download URL); any valid package id names it.
  "/projects/{id}/packages/nuget/v2/Packages(Id='{package_name}',Version='{package_version}') package_name",
  "/projects/{id}/packages/pkgfeed/v2/Packages(Id='{package_name}',Version='{package_version}') package_name",
]);

const HUGE = '9'.repeat(30);
const MUTATIONS: Record<string, readonly unknown[]> = {
  integer: ['abc', '1.5', -1, 0, HUGE, 2147483648, 9223372036854775807, 1e308, '', ' ', [1, 2], { a: 1 }, true, null, '1e5', '0x10'],
  number: ['abc', -1e308, 1e308, 'NaN', 'Infinity', [], {}, true],
  string: ['', ' ', '\u0000', 'x'.repeat(70_000), '💩'.repeat(100), '\ud800', '<script>alert(1)</script>', "'; DROP TABLE users; --", { a: 1 }, [1, [2]], 12345, false, null, '%ZZ', '../../etc/passwd'],
  boolean: ['maybe', 2, -1, {}, [], 'TRUE ', null, ''],
  'date-time': ['not-a-date', '2024-13-45T99:99:99Z', '99999-01-01', '0000-00-00', '-000001-01-01T00:00:00Z', '', 1e15, {}, '2024-02-30'],
  date: ['not-a-date', '2024-13-45', '99999-01-01', '', 1e15, '2024-02-30', '0000-00-00'],
  array: ['notarray', { x: 1 }, [[1]], [{}], [null], Array.from({ length: 2000 }, (_, i) => i), ''],
  object: ['str', [1, 2], 42, null, { '': { '': {} } }, { __proto__: { polluted: 1 }, constructor: { prototype: { polluted: 1 } } }],
  enum: ['bogus', '', 0, {}, [], 'ALL'],
  binary: ['not a file', { kind: 'file', blobKey: '../../../etc/passwd', filename: 'x', size: 1 }, 123],
};

interface Param {
  name: string;
  in: 'path' | 'query';
  schema: Schema;
}
interface Schema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
}
interface Operation {
  method: string;
  /** OpenAPI template, `/projects/{id}/issues`. */
  path: string;
  params: Param[];
  /** Body fields (POST, PUT, PATCH) and the body's content type. */
  body: { type: string; fields: Record<string, Schema> } | null;
  /** The handler reads the body itself (`*\/*`). */
  rawBody: boolean;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      const type = Object.keys(content)[0];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p: Param) => p.in === 'path' || p.in === 'query'),
        body: type ? { type, fields: content[type]?.schema?.properties ?? {} } : null,
        rawBody: type === '*/*',
      });
    }
  }
  // Deletions last (deepest first), so they do not take the world away from the others.
  const rank = (o: Operation) => (o.method === 'DELETE' ? 1 : 0);
  return ops.sort((a, b) => rank(a) - rank(b) || (rank(a) ? b.path.length - a.path.length : 0) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function kindOf(schema: Schema): string {
  if (schema.enum) return 'enum';
  if (schema.oneOf) return kindOf(schema.oneOf[0]!);
  if (schema.format === 'binary') return 'binary';
  if (schema.format === 'date-time' || schema.format === 'date') return schema.format;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  return type && MUTATIONS[type] ? type : 'string';
}

/** A malformed value for a field of this schema. */
function mutate(schema: Schema, rng: Rng): unknown {
  return rng.pick(MUTATIONS[kindOf(schema)]!);
}

/** Values of the right type at the edges: they pass validation and reach the handler and the database. */
const EDGES: Record<string, readonly unknown[]> = {
  integer: [0, 1, -1, 2147483647, -2147483647],
  number: [0, -0.5, 1e300],
  string: ['', ' ', 'x'.repeat(70_000), '💩', '\ud800', "'; DROP TABLE users; --", '../../etc/passwd', 'a\r\nb', '%ZZ', '\u202e', '*', '%', '_', '\\', '.', '-1', 'a/b', '0', 'main', 'null'],
  boolean: [true, false],
  'date-time': ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00Z', '1970-01-01', '2024-02-29T23:59:60Z', '2024-06-01T00:00:00+14:00'],
  date: ['0001-01-01', '9999-12-31', '2024-02-29', '1900-01-01'],
  array: [[], Array.from({ length: 1000 }, (_, i) => i + 1), ['', ''], [0]],
  object: [{}, { a: { b: { c: {} } } }],
  binary: [{ file: true }],
};

/** A value of the right type at an edge. */
function edge(schema: Schema, rng: Rng): unknown {
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.oneOf) return edge(rng.pick(schema.oneOf), rng);
  const kind = kindOf(schema);
  if (kind === 'array' && schema.items) return rng.next() < 0.5 ? rng.pick(EDGES.array!) : [edge(schema.items, rng), edge(schema.items, rng)];
  return rng.pick(EDGES[kind] ?? EDGES.string!);
}

/** An ordinary value of the schema, so that the fields beside an edge value pass. */
function plausible(schema: Schema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.oneOf) return plausible(schema.oneOf[0]!);
  switch (kindOf(schema)) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'date-time':
      return '2024-06-01T00:00:00Z';
    case 'date':
      return '2024-06-01';
    case 'array':
      return schema.items ? [plausible(schema.items)] : [];
    case 'object':
      return {};
    case 'binary':
      return { file: true };
    default:
      return 'fuzz';
  }
}

/** `k=v` pairs as Rack reads them (arrays `k[]=v`, hashes `k[a]=v`), values percent-encoded. */
function queryPairs(key: string, value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) out.push(`${key}=`);
  else if (Array.isArray(value)) value.slice(0, 50).forEach((v) => queryPairs(`${key}[]`, v, out));
  else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) queryPairs(`${key}[${k}]`, v, out);
  // (through a Buffer: a lone surrogate becomes U+FFFD instead of making encodeURIComponent throw)
  else out.push(`${key}=${encodeURIComponent(Buffer.from(String(value).slice(0, 2000)).toString()).replace(/%25ZZ/g, '%ZZ')}`);
  return out;
}

interface Attack {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Framing no route can accept: the answer must be a 4xx (a route reading its own body may decide otherwise: below 500 then). */
  malformed: boolean;
}

let bomb: Buffer | null = null;
/** 64 MiB of zeros, gzipped to 64 KB. */
const gzipBomb = () => (bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024)));

const BODY_ATTACKS: (() => Attack)[] = [
  () => ({ name: 'broken JSON', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{"title": "x", "a": [1, 2'), malformed: true }),
  () => ({ name: 'JSON array', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('[1, 2, 3]'), malformed: true }),
  () => ({ name: 'JSON string', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('"just a string"'), malformed: true }),
  () => ({ name: 'deep JSON', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('['.repeat(200_000) + ']'.repeat(200_000)), malformed: true }),
  () => ({ name: 'invalid UTF-8 JSON', headers: { 'Content-Type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x3a, 0x31]), malformed: true }),
  () => ({ name: 'gzip that is not', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: Buffer.from('{"not":"gzip"}'), malformed: true }),
  () => ({ name: 'gzip bomb', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: gzipBomb(), malformed: true }),
  () => ({ name: 'truncated gzip', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: gzipSync('{"title":"x"}').subarray(0, 12), malformed: true }),
  () => ({ name: 'deflate garbage', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' }, body: randomBytes(512), malformed: true }),
  () => ({ name: 'multipart without boundary', headers: { 'Content-Type': 'multipart/form-data' }, body: Buffer.from('--x\r\n\r\n'), malformed: true }),
  () => ({
    name: 'truncated multipart',
    headers: { 'Content-Type': 'multipart/form-data; boundary=zz' },
    body: Buffer.from('--zz\r\nContent-Disposition: form-data; name="title"\r\n\r\nhalf a val'),
    malformed: true,
  }),
  () => ({
    name: 'multipart gzip bomb',
    headers: { 'Content-Type': 'multipart/form-data; boundary=zz', 'Content-Encoding': 'gzip' },
    body: gzipBomb(),
    malformed: true,
  }),
  () => ({
    name: 'multipart part without name',
    headers: { 'Content-Type': 'multipart/form-data; boundary=zz' },
    body: Buffer.from('--zz\r\nContent-Disposition: form-data\r\n\r\nx\r\n--zz--\r\n'),
    malformed: true,
  }),
  () => ({ name: 'UTF-16 JSON', headers: { 'Content-Type': 'application/json; charset=utf-16' }, body: Buffer.from('{"title":"x"}', 'utf16le'), malformed: true }),
  () => ({ name: 'odd form keys', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: Buffer.from('a[=1&b]]=2&c[][][]=3&%ZZ=%ZZ&d[x][][y]=1&=&&__proto__[polluted]=1'), malformed: false }),
];

const QUERY_ATTACKS: string[] = [
  'page=-1&per_page=0',
  'page=99999999999999999999&per_page=99999999999999999999',
  '%ZZ=%ZZ&a[b][c][d][e][f]=1&x[]=1&x=2&x[y]=3',
  `filter=${'q'.repeat(5000)}`,
  Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&'),
  'sort=%00&order_by=%00&search=%00',
  'search=%FF%FE%C3%28&name=%ED%A0%80',
  '__proto__[polluted]=1&constructor[prototype][polluted]=1',
];

// ------------------------------------------------------------------ the run

interface Finding {
  what: string;
  status: number | string;
  body: string;
}

class Wire {
  private c: Connection | null = null;
  private previous = '(none)';
  readonly closeChecks: Promise<string | null>[] = [];
  constructor(private readonly url: string) {}

  async send(label: string, head: string, body: Buffer, isHead: boolean): Promise<WireResponse> {
    if (!this.c || this.c.isClosed) this.c = await openConnection(this.url);
    const c = this.c;
    void c.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    const answer = await c.next(REQUEST_TIMEOUT_MS, { head: isHead });
    if (answer === 'timeout') {
      c.destroy();
      this.c = null;
      throw new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms to ${label} (previous request on this connection: ${this.previous})`);
    }
    if (answer === 'closed') {
      this.c = null;
      throw new Error(`the connection was closed without an answer to ${label} (previous request on this connection: ${this.previous})`);
    }
    this.previous = label;
    if ((answer.headers.connection ?? '').toLowerCase() === 'close') {
      this.closeChecks.push(
        Promise.race([c.closed.then(() => null), new Promise<string>((r) => setTimeout(() => r(`${label}: Connection: close, but the connection stayed open`), 8000).unref())]),
      );
      this.c = null;
    }
    return answer;
  }

  close(): void {
    this.c?.destroy();
  }
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: fuzzing every operation of the OpenAPI document`, () => {
    let f: TestForgelet;
    const errors: string[] = [];
    const values = new Map<string, string>();
    /** `<first path segment>:<name>` → a value for routes under that prefix only. */
    const perPrefix = new Map<string, string>();
    let projectId = '';
    let groupId = '';
    let aliceId = '';

    before(async () => {
      f = await startTestServer(dialect, {
        logger: { info: () => {}, error: (line, err) => errors.push(`${line} ${err instanceof Error ? err.stack : String(err ?? '')}`) },
      });
      const alice = await f.createUser('alice');
      aliceId = String(alice.id);
      const group = await createGroup(f, f.rootToken, { name: 'Fuzz', path: 'fz' });
      groupId = String(group.id);
      const project = await createProject(f, f.rootToken, { name: 'App', path: 'app', namespace_id: group.id });
      projectId = String(project.id);
      const sha = await commitFiles(f, project.id, 'main', { 'README.md': '# app\n', '.gitlab-ci.yml': 'test:\n  script: echo ok\n' });
      await commitFiles(f, project.id, 'feature', { 'feature.txt': 'new\n' }, { startBranch: 'main' });
      const must = async (method: string, path: string, body: Record<string, unknown>) => {
        const r = await f.api(method, path, { body });
        assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
        return r.body;
      };
      const p = `/projects/${project.id}`;
      const issue = await must('POST', `${p}/issues`, { title: 'Fuzzed' });
      const note = await must('POST', `${p}/issues/${issue.iid}/notes`, { body: 'a note' });
      const mr = await must('POST', `${p}/merge_requests`, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
      const label = await must('POST', `${p}/labels`, { name: 'bug', color: '#ff0000' });
      const milestone = await must('POST', `${p}/milestones`, { title: 'M1' });
      const epic = await must('POST', `/groups/${group.id}/epics`, { title: 'Epic' });
      await must('POST', `${p}/releases`, { tag_name: 'v1', ref: 'main', name: 'v1' });
      const schedule = await must('POST', `${p}/pipeline_schedules`, { description: 'nightly', ref: 'main', cron: '0 1 * * *' });
      const env = await must('POST', `${p}/environments`, { name: 'production' });
      // More of the world, so that fewer requests stop at a 404: each is optional (a step that
      // fails leaves its parameters at 1, and says so).
      const optional = async (what: string, make: () => Promise<Record<string, string>>) => {
        try {
          for (const [k, v] of Object.entries(await make())) values.set(k, v);
        } catch (err) {
          console.log(`fuzz ${dialect}: world without ${what}: ${(err as Error).message.slice(0, 200)}`);
        }
      };
      await optional('a pipeline', async () => {
        const pipeline = await must('POST', `${p}/pipeline`, { ref: 'main' });
        const jobs = await f.api('GET', `${p}/pipelines/${pipeline.id}/jobs`);
        return { pipeline_id: String(pipeline.id), job_id: String(jobs.body[0]?.id ?? 1) };
      });
      await optional('a snippet', async () => {
        const snippet = await must('POST', `${p}/snippets`, { title: 'S', file_name: 's.txt', content: 'x', visibility: 'private' });
        return { snippet_id: String(snippet.id) };
      });
      await optional('members', async () => {
        await must('POST', `${p}/members`, { user_id: alice.id, access_level: 30 });
        await must('POST', `/groups/${group.id}/members`, { user_id: alice.id, access_level: 30 });
        return {};
      });
      await optional('an award', async () => ({ award_id: String((await must('POST', `${p}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' })).id) }));
      await optional('a release link', async () => ({ link_id: String((await must('POST', `${p}/releases/v1/assets/links`, { name: 'bin', url: 'https://example.com/bin' })).id) }));
      await optional('a schedule variable', async () => {
        await must('POST', `${p}/pipeline_schedules/${schedule.id}/variables`, { key: 'KEY', value: 'v' });
        return {};
      });
      await optional('a member role', async () => ({ member_role_id: String((await must('POST', `/groups/${group.id}/member_roles`, { name: 'Fuzz role', base_access_level: 10, read_code: true })).id) }));
      await optional('a package', async () => {
        const archive = await nupkg({ id: 'Fuzz.Pkg', version: '1.0.0' });
        const r = await putPackage(f, `${p}/packages/nuget`, archive, { 'PRIVATE-TOKEN': f.rootToken });
        assert.equal(r.status, 201, r.text);
        const list = await f.api('GET', `${p}/packages`);
        return { package_name: 'Fuzz.Pkg', package_version: '1.0.0', package_filename: 'fuzz.pkg.1.0.0.nupkg', package_id: String(list.body[0]?.id ?? 1) };
      });
      for (const kind of ['projects', 'groups'] as const) {
        const owner = kind === 'projects' ? project.id : group.id;
        await optional(`a ${kind} access token`, async () => {
          const token = await must('POST', `/${kind}/${owner}/access_tokens`, { name: 'bot', scopes: ['api'], access_level: 30, expires_at: '2999-01-01' });
          perPrefix.set(`${kind}:token_id`, String(token.id));
          return {};
        });
      }
      await optional('a group label and milestone', async () => {
        perPrefix.set('groups:label_id', String((await must('POST', `/groups/${group.id}/labels`, { name: 'team', color: '#00ff00' })).id));
        perPrefix.set('groups:milestone_id', String((await must('POST', `/groups/${group.id}/milestones`, { title: 'GM1' })).id));
        return {};
      });
      for (const [k, v] of Object.entries({
        user_id: aliceId,
        issue_iid: String(issue.iid),
        merge_request_iid: String(mr.iid),
        noteable_id: String(issue.iid),
        note_id: String(note.id),
        label_id: String(label.id),
        milestone_id: String(milestone.id),
        epic_iid: String(epic.iid),
        epic_id: String(epic.id),
        pipeline_schedule_id: String(schedule.id),
        environment_id: String(env.id),
        branch: 'main',
        name: 'main',
        ref_path: 'main',
        sha,
        file_path: 'README.md',
        tag_name: 'v1',
        key: 'KEY',
        target_project_id: projectId,
        target_group_id: groupId,
      })) values.set(k, v);
    });
    after(() => f?.stop());

    it('answers every malformed request below 500, in time, on a connection that stays usable', async () => {
      const doc = (await f.api('GET', '/openapi.json', { token: null })).body;
      const ops = operationsOf(doc);
      assert.ok(ops.length > 300, `${ops.length} operations in the document`);
      const rng = prng(SEED);
      const wire = new Wire(f.url);
      const findings: Finding[] = [];
      let requests = 0;
      const statuses = new Map<number, number>();
      let attack = 0;
      let queryAttack = 0;

      /** The value of a path parameter for a real resource of this route. */
      const realValue = (op: Operation, name: string): string => {
        if (name === 'id') {
          const root = op.path.split('/')[1];
          return root === 'projects' ? projectId : root === 'groups' ? groupId : root === 'users' ? aliceId : '1';
        }
        return perPrefix.get(`${op.path.split('/')[1]}:${name}`) ?? values.get(name) ?? '1';
      };

      type Payload = { attack: Attack } | { fields: Record<string, unknown> } | null;
      const fire = async (op: Operation, what: string, path: string, query: string[], body: Payload, strict: boolean, token: string) => {
        const target = query.length ? `${path}?${query.join('&')}` : path;
        const headers: Record<string, string> = { Host: 'forgelet.test', 'PRIVATE-TOKEN': token };
        let payload: Buffer = Buffer.alloc(0);
        if (body && 'attack' in body) {
          Object.assign(headers, body.attack.headers);
          payload = body.attack.body;
        } else if (body) {
          payload = op.body?.type === 'multipart/form-data' ? multipartOf(body.fields, headers) : Buffer.from(JSON.stringify(body.fields));
          headers['Content-Type'] ??= 'application/json';
        }
        if (payload.length) headers['Content-Length'] = String(payload.length);
        const head = `${op.method} /api/v4${target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
        const label = `${op.method} ${op.path} [${what}]`;
        requests++;
        let answer: WireResponse;
        try {
          answer = await wire.send(label, head, payload, op.method === 'HEAD');
        } catch (err) {
          findings.push({ what: label, status: 'no answer', body: (err as Error).message });
          return;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        // (a redirect is an answer too: `…/permalink/latest/<anything>` is one)
        const bad = answer.status >= 500 || (strict && answer.status < 300);
        if (bad) findings.push({ what: `${label} ${target.slice(0, 160)}`, status: answer.status, body: answer.text.slice(0, 300) });
      };

      for (const op of ops) {
        // Routes that may revoke the token they are called with get a token of their own.
        const token = /personal_access_tokens/.test(op.path) ? await freshRootToken(f) : f.rootToken;
        if (op.path.includes('{token_id}') && op.path.startsWith('/personal_access_tokens')) values.set('token_id', await freshRootTokenId(f));
        const pathParams = op.params.filter((p) => p.in === 'path');
        const fields: [string, Schema, 'query' | 'body'][] = [
          ...op.params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema, 'query'] as [string, Schema, 'query']),
          ...Object.entries(op.body?.fields ?? {}).map(([n, s]) => [n, s, 'body'] as [string, Schema, 'body']),
        ];
        const fill = (bad: Set<string>) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => (bad.has(name) ? rng.pick(BAD_PATH_VALUES) : encodeURIComponent(realValue(op, name))));

        // 1. a bad value in one path parameter
        if (pathParams.length) {
          const name = rng.pick(pathParams).name;
          await fire(op, `path ${name}`, fill(new Set([name])), [], null, !FREE_FORM_PATH_PARAMS.has(`${op.path} ${name}`), token);
        }
        // 2. most fields malformed (what validation catches), then, twice, one field at an
        //    edge beside ordinary values for the others (what gets through to the handler)
        for (let round = 0; round < 3; round++) {
          const query: string[] = [];
          const body: Record<string, unknown> = {};
          const target = fields.length ? rng.pick(fields)[0] : '';
          for (const [name, schema, where] of fields) {
            let value: unknown;
            if (round === 0) {
              if (rng.next() < 0.25) continue;
              value = mutate(schema, rng);
            } else value = name === target ? edge(schema, rng) : plausible(schema);
            if (where === 'query') queryPairs(name, value, query);
            else body[name] = value;
          }
          const what = round === 0 ? 'malformed fields' : `edge ${target}`;
          await fire(op, what, fill(new Set()), query, op.body ? { fields: body } : null, false, token);
        }
        // 3. broken framing or encoding of the body, or a broken query string
        if (op.body) {
          const a = BODY_ATTACKS[attack++ % BODY_ATTACKS.length]!();
          await fire(op, a.name, fill(new Set()), [], { attack: a }, a.malformed && !op.rawBody, token);
        } else {
          await fire(op, 'query', fill(new Set()), [QUERY_ATTACKS[queryAttack++ % QUERY_ATTACKS.length]!], null, false, token);
        }
      }
      // A request line over Node's 16 KB header limit: 431 and a closed connection, not a hang.
      await fire({ method: 'GET', path: '/projects', params: [], body: null, rawBody: false }, 'oversized request line', '/projects', [`x=${'y'.repeat(20_000)}`], null, true, f.rootToken);
      wire.close();
      console.log(`fuzz ${dialect}: seed ${SEED}, ${requests} requests over ${ops.length} operations; statuses ${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}×${v}`).join(' ')}`);
      const unclosed = (await Promise.all(wire.closeChecks)).filter((x): x is string => x !== null);
      const report = findings.map((x) => `${x.what} → ${x.status} ${x.body}`).join('\n');
      assert.equal(findings.length, 0, `seed ${SEED}, ${requests} requests over ${ops.length} operations, ${findings.length} findings:\n${report}`);
      assert.deepEqual(unclosed, []);
      assert.deepEqual(errors, [], `server errors logged (seed ${SEED}):\n${errors.join('\n').slice(0, 6000)}`);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'a query or form key polluted Object.prototype');
    });
  });
}

/** A multipart body of the fields (files as small random parts). */
function multipartOf(fields: Record<string, unknown>, headers: Record<string, string>): Buffer {
  const boundary = `fuzz${randomBytes(6).toString('hex')}`;
  headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const file = typeof value === 'object' && value !== null && !Array.isArray(value);
    const text = file ? randomBytes(64) : Buffer.from(String(value).slice(0, 5000));
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="f.bin"' : ''}\r\n\r\n`), text, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

async function freshRootToken(f: TestForgelet): Promise<string> {
  const r = await f.api('POST', '/users/1/personal_access_tokens', { body: { name: 'fuzz', scopes: ['api', 'sudo'] } });
  assert.equal(r.status, 201, r.text);
  return r.body.token;
}

async function freshRootTokenId(f: TestForgelet): Promise<string> {
  const r = await f.api('POST', '/users/1/personal_access_tokens', { body: { name: 'fuzz-target', scopes: ['api'] } });
  assert.equal(r.status, 201, r.text);
  return String(r.body.id);
}
