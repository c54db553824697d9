/** A small source world for direct transfer tests: group `src-grp` with a subgroup, a project, labels, milestones, issues and notes. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { ForgeletHttp } from './server.js';

async function ok(f: ForgeletHttp, method: string, path: string, body: unknown): Promise<any> {
  const r = await f.api(method, path, { body });
  if (r.status !== 201 && r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

export async function seedSourceGroup(f: ForgeletHttp, path = 'src-grp'): Promise<{ group: any; project: any }> {
  const group = await ok(f, 'POST', '/groups', { name: 'Source Group', path });
  await ok(f, 'POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id });
  await ok(f, 'POST', `/groups/${group.id}/labels`, { name: 'g-label', color: '#123456' });
  await ok(f, 'POST', `/groups/${group.id}/milestones`, { title: 'g-ms' });
  const project = await ok(f, 'POST', '/projects', { name: 'proj', path: 'proj', namespace_id: group.id });
  const issue = await ok(f, 'POST', `/projects/${project.id}/issues`, { title: 'an issue', labels: 'g-label' });
  await ok(f, 'POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'a note' });
  return { group, project };
}

export async function waitForImport(f: ForgeletHttp, id: number, timeoutMs = 15_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await f.api('GET', `/bulk_imports/${id}`);
    if (['finished', 'failed', 'canceled'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`migration ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/**
 * A fake GitLab 17 source for direct transfer: the REST answers the importer reads (version,
 * token self, groups, subgroups, projects, members, users) and the relation exports
 * (`POST …/export_relations`, `GET …/status`, `GET …/download`) as GitLab serves them: a status
 * per relation (0 started, 1 finished; batched with `batches`), gzipped NDJSON batches, 404
 * `Export not found` for a relation it does not export (and 400 `relation is not portable` for a
 * project download of one). Records come from test/fixtures/gitlab-export/ (GitLab's shapes).
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gitlab-export');

export const FAKE_GITLAB_TOKEN = 'glpat-fakegitlabsourcetoken0001';

function fixtureRecords(dir: string): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const file of readdirSync(join(FIXTURES, dir))) {
    if (!file.endsWith('.ndjson')) continue;
    const text = readFileSync(join(FIXTURES, dir, file), 'utf8');
    out.set(file.replace(/\.ndjson$/, ''), text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)));
  }
  return out;
}

const STAMP = '2025-01-10T10:00:00.000Z';
const USERS: Record<number, any> = {
  1: { id: 1, username: 'root', name: 'Administrator', state: 'active', public_email: '' },
  22: { id: 22, username: 'alice', name: 'Alice Liddell', state: 'active', public_email: 'alice@example.com' },
  25: { id: 25, username: 'bob', name: 'Bob Builder', state: 'active', public_email: '' },
};
const member = (id: number, access_level: number) => ({ ...USERS[id], access_level, expires_at: null, created_at: STAMP, membership_state: 'active' });

export interface FakeGitLab {
  url: string;
  /** `METHOD path?query` of every request, in order. */
  requests: string[];
  stop(): Promise<void>;
}

export async function startFakeGitLab(options: { batchSize?: number; version?: string } = {}): Promise<FakeGitLab> {
  const batchSize = options.batchSize ?? 2;
  const groups: Record<string, any> = {
    'gl-group': { id: 4351, name: 'GitLab Group', path: 'gl-group', full_path: 'gl-group', full_name: 'GitLab Group', description: 'Migrated from a GitLab', visibility: 'private', parent_id: null, project_creation_level: 'developer', subgroup_creation_level: 'maintainer', request_access_enabled: true, lfs_enabled: true, created_at: STAMP },
    'gl-group/platform': { id: 4352, name: 'Platform', path: 'platform', full_path: 'gl-group/platform', full_name: 'GitLab Group / Platform', description: '', visibility: 'private', parent_id: 4351, project_creation_level: 'developer', subgroup_creation_level: 'maintainer', request_access_enabled: true, lfs_enabled: true, created_at: STAMP },
  };
  const projects: Record<string, any> = {
    'gl-group/gl-project': { id: 5, name: 'GitLab Project', path: 'gl-project', path_with_namespace: 'gl-group/gl-project', description: 'A project on GitLab', visibility: 'private', default_branch: 'master', topics: ['ruby'], issues_enabled: true, merge_requests_enabled: true, jobs_enabled: true, wiki_enabled: true, snippets_enabled: true, namespace: { id: 4351, full_path: 'gl-group', kind: 'group' }, created_at: STAMP },
  };
  const exports: Record<string, Map<string, unknown[]>> = { 'group:4351': fixtureRecords('group'), 'group:4352': fixtureRecords('subgroup'), 'project:5': fixtureRecords('project') };
  const members: Record<string, any[]> = { 'group:4351': [member(22, 30), member(25, 40)], 'group:4352': [], 'project:5': [member(22, 40)] };
  const requested = new Set<string>();
  const statusPolls = new Map<string, number>();
  const requests: string[] = [];

  const find = (kind: 'groups' | 'projects', ref: string) => {
    const table = kind === 'groups' ? groups : projects;
    const key = decodeURIComponent(ref);
    return table[key] ?? Object.values(table).find((x) => String(x.id) === key);
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const list = (res: ServerResponse, items: unknown[]) => send(res, 200, items, { 'X-Total': String(items.length), 'X-Page': '1', 'X-Per-Page': '100', 'X-Next-Page': '', 'X-Total-Pages': '1' });

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers['private-token'] !== FAKE_GITLAB_TOKEN) return send(res, 401, { message: '401 Unauthorized' });
    const path = url.pathname.replace(/^\/api\/v4/, '');
    let m: RegExpMatchArray | null;
    if (req.method === 'GET' && path === '/version') return send(res, 200, { version: options.version ?? '17.9.1-ee', revision: 'a1b2c3d4e5f', kas: { enabled: false }, enterprise: true });
    if (req.method === 'GET' && path === '/personal_access_tokens/self') return send(res, 200, { id: 7, name: 'migration', revoked: false, created_at: STAMP, scopes: ['api'], user_id: 1, active: true, expires_at: null });
    if (req.method === 'GET' && (m = path.match(/^\/users\/(\d+)$/))) return USERS[Number(m[1])] ? send(res, 200, USERS[Number(m[1])]) : send(res, 404, { message: '404 User Not Found' });
    if ((m = path.match(/^\/(groups|projects)\/([^/]+)(\/.*)?$/))) {
      const kind = m[1] as 'groups' | 'projects';
      const owner = find(kind, m[2]!);
      if (!owner) return send(res, 404, { message: `404 ${kind === 'groups' ? 'Group' : 'Project'} Not Found` });
      const key = `${kind === 'groups' ? 'group' : 'project'}:${owner.id}`;
      const rest = m[3] ?? '';
      if (req.method === 'GET' && rest === '') return send(res, 200, owner);
      if (req.method === 'GET' && rest === '/subgroups') return list(res, Object.values(groups).filter((g) => g.parent_id === owner.id));
      if (req.method === 'GET' && rest === '/projects') return list(res, Object.values(projects).filter((p) => p.namespace.id === owner.id));
      if (req.method === 'GET' && rest === '/members') return list(res, members[key] ?? []);
      if (req.method === 'POST' && rest === '/export_relations') {
        requested.add(key);
        return send(res, 202, { message: '202 Accepted' });
      }
      const relation = url.searchParams.get('relation') ?? '';
      const records = exports[key]!.get(relation);
      if (req.method === 'GET' && rest === '/export_relations/status') {
        if (!requested.has(key) || !records) return send(res, 404, { message: 'Export not found' });
        // The issues export is still running on the first poll.
        const polls = (statusPolls.get(`${key}:${relation}`) ?? 0) + 1;
        statusPolls.set(`${key}:${relation}`, polls);
        if (relation === 'issues' && polls === 1) return send(res, 200, { relation, status: 0, error: null, updated_at: STAMP, batched: true, batches_count: 0, total_objects_count: 0, batches: [] });
        const count = Math.ceil(records.length / batchSize);
        return send(res, 200, {
          relation,
          status: 1,
          error: null,
          updated_at: STAMP,
          batched: true,
          batches_count: count,
          total_objects_count: records.length,
          batches: Array.from({ length: count }, (_, i) => ({ status: 1, batch_number: i + 1, objects_count: Math.min(batchSize, records.length - i * batchSize), error: null, updated_at: STAMP })),
        });
      }
      if (req.method === 'GET' && rest === '/export_relations/download') {
        if (!records) return kind === 'projects' ? send(res, 400, { error: 'relation is not portable' }) : send(res, 404, { message: 'Export not found' });
        if (url.searchParams.get('batched') !== 'true') return send(res, 400, { message: 'Export is batched' });
        const n = Number(url.searchParams.get('batch_number'));
        const batch = records.slice((n - 1) * batchSize, n * batchSize);
        if (!(n >= 1) || batch.length === 0) return send(res, 404, { message: 'Batch not found' });
        const gz = gzipSync(Buffer.from(batch.map((r) => JSON.stringify(r)).join('\n') + '\n'));
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${relation}.ndjson.gz"`, 'Content-Length': String(gz.length) });
        return res.end(gz);
      }
    }
    return send(res, 404, { message: '404 Not Found' });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
