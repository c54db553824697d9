/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet, used the way a new user would:
 * groups, subgroups, projects by namespace id, members, lookups by full path,
 * Link-driven pagination (plain and filtered), token scopes and bad tokens.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { createBulkProjects, parseLink, type BulkProject } from './support.js';

/** Status of a gitbeaker request error (fails the test for anything else). */
async function errorStatus(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GitbeakerRequestError, `expected GitbeakerRequestError, got ${String(err)}`);
    assert.ok(err.cause?.response, 'GitbeakerRequestError without cause.response');
    return { status: err.cause.response.status, message: err.message };
  }
  assert.fail('the request succeeded but was expected to fail');
}

const ids = (list: { id: number }[]) => list.map((x) => x.id);

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0`, () => {
    let f: ServedForgelet;
    let root: InstanceType<typeof Gitlab>;
    let bulkGroupId: number;
    let bulk: BulkProject[];
    let listerToken: string;

    before(async () => {
      f = await startServed(dialect);
      root = new Gitlab({ host: f.url, token: f.rootToken });
      // Fixture: 250 private projects in group `bulk`, and a read_api user who is a Reporter
      // there, so that this user's unfiltered GET /projects is exactly those 250.
      const t0 = performance.now();
      const group = await f.api('POST', '/groups', { body: { name: 'Bulk', path: 'bulk', visibility: 'private' } });
      assert.equal(group.status, 201, group.text);
      bulkGroupId = group.body.id;
      bulk = await createBulkProjects(f, bulkGroupId);
      const lister = await f.createUser('lister', { scopes: ['read_api'] });
      listerToken = lister.token;
      const member = await f.api('POST', `/groups/${bulkGroupId}/members`, { body: { user_id: lister.id, access_level: 20 } });
      assert.equal(member.status, 201, member.text);
      console.log(`[${dialect}] gitbeaker fixture: 250 projects + lister in ${Math.round(performance.now() - t0)} ms`);
    });
    after(() => f?.stop());

    it('creates a group, a subgroup and a project in it (by namespace id), adds a new user as member, reads it back by full path', async () => {
      const g = await root.Groups.create('Top Group', 'g', { visibility: 'private' });
      assert.equal(g.full_path, 'g');
      const sub = await root.Groups.create('Sub Group', 'sub', { parentId: g.id, visibility: 'private' });
      assert.equal(sub.full_path, 'g/sub');
      assert.equal(sub.parent_id, g.id);

      const project = await root.Projects.create({ name: 'P', path: 'p', namespaceId: sub.id, visibility: 'private' });
      assert.equal(project.path_with_namespace, 'g/sub/p');
      assert.equal(project.namespace.id, sub.id);

      const alice = await root.Users.create({ username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse-battery', skipConfirmation: true });
      assert.equal(alice.username, 'alice');
      assert.equal(typeof alice.id, 'number');

      const member = await root.ProjectMembers.add(project.id, 30, { userId: alice.id });
      assert.equal(member.id, alice.id);
      assert.equal(member.access_level, 30);

      // GET /projects/g%2Fsub%2Fp
      const shown = await root.Projects.show('g/sub/p');
      assert.equal(shown.id, project.id);
      assert.equal(shown.path_with_namespace, 'g/sub/p');
      const shownGroup = await root.Groups.show('g/sub');
      assert.equal(shownGroup.id, sub.id);

      const members = await root.ProjectMembers.all('g/sub/p');
      assert.deepEqual(
        members.map((m) => [m.username, m.access_level]),
        [['alice', 30]],
      );
      const subgroups = await root.Groups.allSubgroups(g.id);
      assert.deepEqual(ids(subgroups), [sub.id]);
    });

    it('Projects.all({ perPage: 100 }) follows Link rel="next" and returns all 250 projects exactly once', async () => {
      const lister = new Gitlab({ host: f.url, token: listerToken });
      const t0 = performance.now();
      const all = await lister.Projects.all({ perPage: 100 });
      const ms = Math.round(performance.now() - t0);
      assert.equal(all.length, 250, `got ${all.length} projects`);
      const got = ids(all);
      assert.equal(new Set(got).size, 250, 'duplicate ids across pages');
      assert.deepEqual([...got].sort((a, b) => a - b), ids(bulk).sort((a, b) => a - b));

      // First page only (maxPages: 1), expanded: the X-* headers as gitbeaker reads them.
      const first = await lister.Projects.all({ perPage: 100, maxPages: 1, showExpanded: true });
      assert.equal(first.data.length, 100);
      assert.deepEqual(first.paginationInfo, { total: 250, totalPages: 3, current: 1, next: 2, previous: null, perPage: 100 });
      console.log(`[${dialect}] gitbeaker Projects.all(250, perPage 100): ${ms} ms`);
    });

    it('a filtered list (Groups.allProjects with search) keeps its filter on every page', async () => {
      const expected = bulk.filter((b) => b.name.startsWith('alpha-'));
      assert.equal(expected.length, 208);

      // The Link header itself must repeat the filter and per_page (gitbeaker resends only the link's query).
      const raw = await f.api('GET', `/groups/${bulkGroupId}/projects?search=alpha&per_page=100`);
      assert.equal(raw.status, 200);
      const next = parseLink(raw.headers.get('link')).next;
      assert.ok(next, `no rel="next" in Link: ${raw.headers.get('link')}`);
      const nextQuery = new URL(next).searchParams;
      assert.equal(nextQuery.get('search'), 'alpha', next);
      assert.equal(nextQuery.get('per_page'), '100', next);
      assert.equal(nextQuery.get('page'), '2', next);

      const all = await root.Groups.allProjects(bulkGroupId, { perPage: 100, search: 'alpha' });
      assert.equal(all.length, 208, `got ${all.length} projects`);
      assert.equal(new Set(ids(all)).size, 208, 'duplicate ids across pages');
      const strays = all.filter((x) => !x.name.startsWith('alpha-')).map((x) => x.name);
      assert.deepEqual(strays, [], 'projects outside the filter (the filter was dropped on a later page)');
      assert.deepEqual(ids(all).sort((a, b) => a - b), ids(expected).sort((a, b) => a - b));

      const expanded = await root.Groups.allProjects(bulkGroupId, { perPage: 100, search: 'alpha', maxPages: 1, showExpanded: true });
      assert.equal(expanded.paginationInfo.total, 208);
      assert.equal(expanded.paginationInfo.totalPages, 3);
    });

    it('a read_api token (Users.createPersonalAccessToken) can read but gets 403 on writes', async () => {
      const reader = await root.Users.create({ username: 'reader', name: 'Reader', email: 'reader@example.com', password: 'correct-horse-battery', skipConfirmation: true });
      const pat = await root.Users.createPersonalAccessToken(reader.id, 'read-only', ['read_api']);
      assert.deepEqual(pat.scopes, ['read_api']);
      assert.match(pat.token!, /^glpat-/);

      const ro = new Gitlab({ host: f.url, token: pat.token! });
      const me = await ro.Users.showCurrentUser();
      assert.equal(me.username, 'reader');
      const visible = await ro.Projects.all({ perPage: 100 });
      assert.ok(Array.isArray(visible));
      const groups = await ro.Groups.all();
      assert.ok(Array.isArray(groups));

      const refused = await errorStatus(ro.Groups.create('Nope', 'nope'));
      assert.equal(refused.status, 403, refused.message);
      // Nothing was created.
      const check = await f.api('GET', '/groups/nope');
      assert.equal(check.status, 404);
    });

    it('a bad token gets 401', async () => {
      const bad = new Gitlab({ host: f.url, token: 'glpat-not-a-real-token-000000' });
      const e1 = await errorStatus(bad.Users.showCurrentUser());
      assert.equal(e1.status, 401, e1.message);
      assert.match(e1.message, /401 Unauthorized/);
      const e2 = await errorStatus(bad.Projects.all({ perPage: 5 }));
      assert.equal(e2.status, 401, e2.message);
    });
  });
}
