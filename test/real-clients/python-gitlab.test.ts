/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against
 * `forgelet serve` as users start it (the built bin, test/support/served.ts). The flow lives
 * in python_gitlab_flow.py, which prints one JSON object with each step's results; the tests
 * below assert on it.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { createBulkProjects, probePythonGitlab, pythonStep, runPythonSteps, type BulkProject, type PythonStep } from './support.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_flow.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const paginationWarnings = (s: PythonStep) => s.warnings.filter((w) => /base URL|pagination|get_all|iterator=True|will return a maximum/i.test(w));

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12`, { skip }, () => {
    let f: ServedForgelet;
    let bulk: BulkProject[];
    let results: Record<string, PythonStep>;

    const stepOf = (name: string): PythonStep => pythonStep(results, name);

    before(async () => {
      f = await startServed(dialect);
      const t0 = performance.now();
      const group = await f.api('POST', '/groups', { body: { name: 'Bulk', path: 'bulk', visibility: 'private' } });
      assert.equal(group.status, 201, group.text);
      bulk = await createBulkProjects(f, group.body.id);
      const fixtureMs = Math.round(performance.now() - t0);
      const run = await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken, FORGELET_BULK_GROUP_ID: String(group.body.id) });
      results = run.results;
      const steps = Object.entries(results)
        .filter(([, v]) => typeof v === 'object')
        .map(([k, v]) => `${k}=${v.ms}ms`)
        .join(' ');
      console.log(`[${dialect}] python-gitlab fixture ${fixtureMs} ms; script ${run.ms} ms (${steps})`);
    });
    after(() => f?.stop());

    it('runs python-gitlab 3.x and authenticates (gl.auth) without URL warnings', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('auth');
      assert.equal(s.username, 'root');
      assert.equal(s.is_admin, true);
      assert.deepEqual(s.warnings, []);
    });

    it('creates group, subgroup, project (namespace_id), user and member; gets the project by full path; lists members', () => {
      const s = stepOf('hierarchy');
      assert.equal(s.group.full_path, 'pyg');
      assert.equal(s.subgroup.full_path, 'pyg/sub');
      assert.equal(s.subgroup.parent_id, s.group.id);
      assert.equal(s.project.path_with_namespace, 'pyg/sub/p');
      assert.equal(s.project.namespace_id, s.subgroup.id);
      assert.equal(s.user.username, 'pyalice');
      assert.deepEqual(s.member, { id: s.user.id, access_level: 30 });
      assert.deepEqual(s.fetched, { id: s.project.id, path_with_namespace: 'pyg/sub/p' });
      assert.deepEqual(s.fetched_group, { id: s.subgroup.id, full_path: 'pyg/sub' });
      assert.deepEqual(s.members, [['pyalice', 30]]);
      assert.deepEqual(s.warnings, []);
    });

    it('group.save() (PUT) updates the group', () => {
      const s = stepOf('save_group');
      assert.equal(s.after_save, 'changed by python-gitlab');
      assert.equal(s.reread, 'changed by python-gitlab');
    });

    it('object.delete() and gl.http_delete() delete (a later get() is a 404)', () => {
      const s = stepOf('delete');
      assert.equal(s.group_after?.type, 'GitlabGetError', JSON.stringify(s.group_after));
      assert.equal(s.group_after.response_code, 404);
      assert.ok(s.http_delete_status >= 200 && s.http_delete_status < 300, `http_delete status ${s.http_delete_status}`);
      assert.equal(s.project_after?.type, 'GitlabGetError', JSON.stringify(s.project_after));
      assert.equal(s.project_after.response_code, 404);
    });

    it('user.personal_access_tokens.create() makes a read_api token', () => {
      const s = stepOf('read_api_user');
      assert.deepEqual(s.scopes, ['read_api']);
      assert.equal(s.token_prefix, 'glpat-');
    });

    it('projects.list(per_page=100, iterator=True) yields the 250 projects once each; first page X-Total 250, X-Total-Pages 3; no warnings', () => {
      const s = stepOf('paging_iterator');
      assert.deepEqual(s.first_page, { total: 250, total_pages: 3, per_page: 100, current_page: 1, next_page: 2, prev_page: null });
      assert.equal(s.ids.length, 250, `got ${s.ids.length} ids`);
      assert.equal(new Set(s.ids).size, 250, 'duplicate ids across pages');
      assert.deepEqual(sorted(s.ids), sorted(bulk.map((b) => b.id)));
      assert.equal(s.last_current_page, 3);
      assert.deepEqual(paginationWarnings(s), []);
      assert.deepEqual(s.warnings, []);
    });

    it('projects.list(per_page=100, get_all=True) returns the same 250 projects, no warnings', () => {
      const s = stepOf('paging_get_all');
      assert.equal(s.ids.length, 250);
      assert.deepEqual(sorted(s.ids), sorted(bulk.map((b) => b.id)));
      assert.deepEqual(s.warnings, []);
    });

    it('a filtered list (group.projects.list(search=...)) keeps the filter on every page', () => {
      const s = stepOf('paging_filtered');
      const expected = bulk.filter((b) => b.name.startsWith('alpha-'));
      assert.equal(s.total, 208);
      assert.equal(s.total_pages, 3);
      const strays = s.projects.filter(([, name]: [number, string]) => !name.startsWith('alpha-'));
      assert.deepEqual(strays, [], 'projects outside the filter (the filter was dropped on a later page)');
      const got = s.projects.map(([id]: [number, string]) => id);
      assert.equal(got.length, 208);
      assert.deepEqual(sorted(got), sorted(expected.map((b) => b.id)));
      assert.deepEqual(s.warnings, []);
    });

    it('list() without get_all returns one page and warns with the X-Total it read', () => {
      const s = stepOf('paging_single_page_warning');
      assert.equal(s.count, 100);
      assert.equal(s.warnings.length, 1, JSON.stringify(s.warnings));
      assert.match(s.warnings[0], /returned 100 of 250 items/);
    });

    it('a read_api token can read (auth) but create() raises GitlabCreateError 403', () => {
      const s = stepOf('read_api_write');
      assert.equal(s.username, 'pylister');
      assert.equal(s.create_group?.type, 'GitlabCreateError', JSON.stringify(s.create_group));
      assert.equal(s.create_group.response_code, 403);
      assert.equal(s.nope_exists, false);
    });

    it('a bad token: gl.auth() raises GitlabAuthenticationError 401', () => {
      const s = stepOf('bad_token');
      assert.equal(s.auth?.type, 'GitlabAuthenticationError', JSON.stringify(s.auth));
      assert.equal(s.auth.response_code, 401);
    });
  });
}
