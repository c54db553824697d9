import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

for (const dialect of DIALECTS) {
  describe(`${dialect}: releases`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let dev: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let app: any; // private
    let pub: any; // public
    let head: string; // app's main
    let milestone: any;

    const enc = encodeURIComponent;
    const rel = (project: any, tag = '') => `/projects/${project.id}/releases${tag ? `/${enc(tag)}` : ''}`;
    async function release(project: any, body: Record<string, unknown>, token = dev.token): Promise<any> {
      const r = await f.api('POST', rel(project), { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    async function count(table: 'releases' | 'release_links' | 'release_milestones'): Promise<number> {
      const row = await f.forge.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    }
    async function tags(projectId: number): Promise<string[]> {
      const rows = await f.forge.database.db
        .selectFrom('repository_refs')
        .select('name')
        .where('project_id', '=', projectId)
        .where('kind', '=', 'tag')
        .orderBy('name')
        .execute();
      return rows.map((r) => r.name);
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, dev, reporter, guest, outsider] = await createUsers(f, ['rowner', 'rdev', 'rreporter', 'rguest', 'routsider']);
      group = await createGroup(f, owner.token, { name: 'Rel', path: 'rel', visibility: 'public' });
      app = await createProject(f, owner.token, { name: 'app', namespace_id: group.id, visibility: 'private' });
      pub = await createProject(f, owner.token, { name: 'pub', namespace_id: group.id, visibility: 'public' });
      await addMember(f, 'groups', group.id, dev.id, 30);
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
      await commitFiles(f, app.id, 'main', { 'README.md': 'one' });
      head = await commitFiles(f, app.id, 'main', { 'README.md': 'two' }, { message: 'Second\n\nSigned-off-by: Dev <dev@example.com>' });
      await commitFiles(f, pub.id, 'main', { 'README.md': 'pub' });
      const m = await f.api('POST', `/projects/${app.id}/milestones`, { body: { title: 'M1', due_date: '2024-07-01' } });
      expectStatus(m, 201);
      milestone = m.body;
    });
    after(() => f.stop());

    it('create from a ref: the tag (annotated), the release, its links and milestones; the whole entity', async () => {
      const r = await f.api('POST', rel(app), {
        token: dev.token,
        body: {
          tag_name: 'v1.0',
          ref: 'main',
          tag_message: 'Version one',
          name: 'First',
          description: 'Hello **world**',
          milestones: ['M1'],
          assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] },
        },
      });
      expectStatus(r, 201);
      const web = `${f.url}/rel/app`;
      const link = r.body.assets.links[0];
      assert.deepEqual(r.body, {
        name: 'First',
        tag_name: 'v1.0',
        description: 'Hello **world**',
        created_at: NOW,
        released_at: NOW,
        upcoming_release: false,
        author: { id: dev.id, username: 'rdev', name: 'rdev', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/rdev` },
        commit: r.body.commit,
        milestones: [{ ...milestone, issue_stats: { total: 0, closed: 0 } }],
        commit_path: `/rel/app/-/commit/${head}`,
        tag_path: '/rel/app/-/tags/v1.0',
        assets: {
          count: 5,
          sources: ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({ format, url: `${web}/-/archive/v1.0/app-v1.0.${format}` })),
          links: [{ id: link.id, name: 'bin', url: 'https://example.com/bin', direct_asset_url: `${web}/-/releases/v1.0/downloads/bin/app`, external: true, link_type: 'package' }],
        },
        evidences: [],
        _links: {
          closed_issues_url: `${web}/-/issues?release_tag=v1.0&scope=all&state=closed`,
          closed_merge_requests_url: `${web}/-/merge_requests?release_tag=v1.0&scope=all&state=closed`,
          edit_url: `${web}/-/releases/v1.0/edit`,
          merged_merge_requests_url: `${web}/-/merge_requests?release_tag=v1.0&scope=all&state=merged`,
          opened_issues_url: `${web}/-/issues?release_tag=v1.0&scope=all&state=opened`,
          opened_merge_requests_url: `${web}/-/merge_requests?release_tag=v1.0&scope=all&state=opened`,
          self: `${web}/-/releases/v1.0`,
        },
      });
      assert.deepEqual(Object.keys(r.body), [
        'name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release', 'author', 'commit', 'milestones', 'commit_path', 'tag_path', 'assets', 'evidences', '_links',
      ]);
      assert.equal(r.body.commit.id, head);
      assert.equal(r.body.commit.title, 'Second');
      assert.deepEqual(r.body.commit.trailers, { 'Signed-off-by': 'Dev <dev@example.com>' });
      assert.equal(r.body.commit.web_url, `${web}/-/commit/${head}`);
      const tag = await f.forge.database.db.selectFrom('repository_refs').selectAll().where('project_id', '=', app.id).where('name', '=', 'v1.0').executeTakeFirstOrThrow();
      assert.deepEqual([tag.kind, tag.commit_sha, tag.message], ['tag', head, 'Version one']);

      const got = await f.api('GET', rel(app, 'v1.0'), { token: reporter.token });
      expectStatus(got, 200);
      assert.deepEqual(got.body, withoutEdit(r.body), 'Reporters see all but edit_url');
    });

    function withoutEdit(body: any) {
      const { edit_url: _e, ...links } = body._links;
      return { ...body, _links: links };
    }

    it('tags with slashes arrive encoded (release%2F1.0); an existing tag needs no ref; name defaults to the tag', async () => {
      const made = await release(app, { tag_name: 'release/1.0', ref: 'v1.0' });
      assert.equal(made.name, 'release/1.0');
      assert.equal(made.description, null);
      assert.equal(made.tag_path, '/rel/app/-/tags/release%2F1.0');
      assert.equal(made._links.self, `${f.url}/rel/app/-/releases/release%2F1.0`);
      assert.equal(made.assets.sources[0].url, `${f.url}/rel/app/-/archive/release/1.0/app-release-1.0.zip`);
      assert.equal(made.commit.id, head);
      let r = await f.api('GET', `/projects/${enc('rel/app')}/releases/release%2F1.0`);
      expectStatus(r, 200);
      assert.equal(r.body.tag_name, 'release/1.0');
      // delete the release, keep the tag; create it again from the existing tag, no ref
      r = await f.api('DELETE', `/projects/${app.id}/releases/release%2F1.0`, { token: dev.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, made);
      assert.ok((await tags(app.id)).includes('release/1.0'));
      const again = await release(app, { tag_name: 'release/1.0', name: 'Again' });
      assert.equal(again.name, 'Again');
      assert.equal(again.commit.id, head);
    });

    it('create errors: GitLab statuses and messages, nothing written', async () => {
      const before = { releases: await count('releases'), links: await count('release_links'), tags: await tags(app.id) };
      const cases: Array<[Record<string, unknown>, number, unknown]> = [
        [{ name: 'no tag' }, 400, { error: 'tag_name is missing' }],
        [{ tag_name: 'v9' }, 422, { message: 'Ref is not specified' }],
        [{ tag_name: 'v1.0' }, 409, { message: 'Release already exists' }],
        [{ tag_name: 'bad..name', ref: 'main' }, 400, { message: 'Tag name invalid' }],
        [{ tag_name: 'HEAD', ref: 'main' }, 400, { message: 'Tag name invalid' }],
        [{ tag_name: 'v9', ref: 'nope' }, 400, { message: 'Target nope is invalid' }],
        [{ tag_name: 'v9', ref: 'main', milestones: ['M1', 'nope', 'zip'] }, 400, { message: 'Milestone(s) not found: nope, zip' }],
        [{ tag_name: 'v9', ref: 'main', milestone_ids: [999999] }, 400, { message: 'Milestone id(s) not found: 999999' }],
        [{ tag_name: 'v9', ref: 'main', milestones: ['M1'], milestone_ids: [milestone.id] }, 400, {
          error: 'milestones, milestone_ids Cannot specify milestones and milestone_ids at the same time',
        }],
        [{ tag_name: 'v9', ref: 'main', released_at: 'soon' }, 400, { error: 'released_at is invalid' }],
        [{ tag_name: 'v9', ref: 'main', assets: { links: [{ name: 'x' }] } }, 400, { error: 'assets[links][0][url] is missing' }],
        [{ tag_name: 'v9', ref: 'main', assets: { links: [{ name: 'x', url: 'javascript:alert(1)' }] } }, 400, {
          message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp',
        }],
        [{ tag_name: 'v9', ref: 'main', assets: { links: [{ name: '', url: 'https://a.example/x', filepath: 'no-slash' }] } }, 400, {
          message: "Validation failed: Links name can't be blank, Links filepath is in an invalid format",
        }],
        [{ tag_name: 'v9', ref: 'main', assets: { links: [{ name: 'a', url: 'https://a.example/1' }, { name: 'a', url: 'https://a.example/1' }] } }, 400, {
          message: 'Validation failed: Links have duplicate values (a), Links have duplicate values (https://a.example/1)',
        }],
        [{ tag_name: 'v9', ref: 'main', assets: { links: [{ name: 'a', url: 'https://a.example/1', link_type: 'exe' }] } }, 400, { message: "'exe' is not a valid link_type" }],
      ];
      for (const [body, status, expected] of cases) {
        const r = await f.api('POST', rel(app), { token: dev.token, body });
        assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
      }
      assert.deepEqual({ releases: await count('releases'), links: await count('release_links'), tags: await tags(app.id) }, before);
    });

    it('released_at: UTC when no zone is given, offsets converted, a future date is upcoming; milestone_ids', async () => {
      let r = await release(app, { tag_name: 'old', ref: 'main', released_at: '2019-03-25 10:00:00' });
      assert.equal(r.released_at, '2019-03-25T10:00:00.000Z');
      assert.equal(r.created_at, NOW);
      assert.equal(r.upcoming_release, false);
      r = await release(app, { tag_name: 'tokyo', ref: 'main', released_at: '2019-03-25T10:00:00+09:00' });
      assert.equal(r.released_at, '2019-03-25T01:00:00.000Z');
      r = await release(app, { tag_name: 'future', ref: 'main', released_at: '2024-06-16T00:00:00Z', milestone_ids: [milestone.id] });
      assert.equal(r.upcoming_release, true);
      assert.deepEqual(r.milestones.map((m: any) => m.title), ['M1']);
      clock.set(new Date('2024-06-17T00:00:00.000Z'), true);
      try {
        r = (await f.api('GET', rel(app, 'future'))).body;
        assert.equal(r.upcoming_release, false, 'the clock decides');
      } finally {
        clock.set(new Date(NOW), true);
      }
    });

    it('list: released_at desc by default, order_by/sort, updated filters, pagination in SQL, include_html_description', async () => {
      const tagsOf = async (query: string) => {
        const r = await f.api('GET', `${rel(app)}${query}`);
        expectStatus(r, 200);
        return r.body.map((x: any) => x.tag_name);
      };
      // released: future 06-16, v1.0 and release/1.0 at NOW (ids ascending), old 2019-03-25 10:00, tokyo 2019-03-25 01:00
      assert.deepEqual(await tagsOf(''), ['future', 'release/1.0', 'v1.0', 'old', 'tokyo']);
      assert.deepEqual(await tagsOf('?sort=asc'), ['tokyo', 'old', 'v1.0', 'release/1.0', 'future']);
      assert.deepEqual(await tagsOf('?order_by=created_at&sort=asc'), ['v1.0', 'release/1.0', 'old', 'tokyo', 'future']);
      let r = await f.api('GET', `${rel(app)}?per_page=2&page=2`);
      assert.deepEqual(r.body.map((x: any) => x.tag_name), ['v1.0', 'old']);
      assert.equal(r.headers.get('x-total'), '5');
      assert.equal(r.headers.get('x-total-pages'), '3');
      r = await f.api('GET', `${rel(app)}?order_by=name`);
      assert.deepEqual([r.status, r.body], [400, { error: 'order_by does not have a valid value' }]);

      clock.set(new Date('2024-06-20T00:00:00.000Z'), true);
      try {
        const put = await f.api('PUT', rel(app, 'old'), { token: dev.token, body: { description: 'touched' } });
        expectStatus(put, 200);
      } finally {
        clock.set(new Date(NOW), true);
      }
      assert.deepEqual(await tagsOf(`?updated_after=${enc('2024-06-19T00:00:00Z')}`), ['old']);
      assert.deepEqual(await tagsOf(`?updated_before=${enc('2024-06-19T00:00:00Z')}&sort=asc`), ['tokyo', 'v1.0', 'release/1.0', 'future']);

      r = await f.api('GET', `${rel(app)}?include_html_description=true&per_page=100`);
      const v1 = r.body.find((x: any) => x.tag_name === 'v1.0');
      assert.equal(v1.description_html, '<p>Hello <strong>world</strong></p>');
      assert.equal(r.body.find((x: any) => x.tag_name === 'tokyo').description_html, '');
      r = await f.api('GET', `${rel(app, 'v1.0')}?include_html_description=True`);
      assert.equal(r.body.description_html, '<p>Hello <strong>world</strong></p>');
      r = await f.api('GET', rel(app, 'v1.0'));
      assert.ok(!('description_html' in r.body));
    });

    it('permissions: Guests list without code details, get 403 on one; Reporters read; Developers write; outsiders 404', async () => {
      // Guest of the private project: no tag, commit, sources, paths; name Release-<id>
      let r = await f.api('GET', `${rel(app)}?per_page=100`, { token: guest.token });
      expectStatus(r, 200);
      const v1 = r.body.find((x: any) => x.description === 'Hello **world**');
      const id = (await f.forge.database.db.selectFrom('releases').select('id').where('tag_name', '=', 'v1.0').executeTakeFirstOrThrow()).id;
      assert.deepEqual(Object.keys(v1), ['name', 'description', 'created_at', 'released_at', 'upcoming_release', 'author', 'milestones', 'assets', '_links']);
      assert.equal(v1.name, `Release-${id}`);
      assert.deepEqual(Object.keys(v1.assets), ['count', 'links']);
      assert.equal(v1.assets.count, 1);
      assert.ok(!('edit_url' in v1._links));
      r = await f.api('GET', rel(app, 'v1.0'), { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('GET', rel(app, 'nope'), { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('GET', rel(app, 'nope'), { token: reporter.token });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }]);
      r = await f.api('GET', rel(app, 'v1.0'), { token: reporter.token });
      expectStatus(r, 200);
      assert.equal(r.body.name, 'First');
      assert.ok(!('edit_url' in r.body._links), 'Reporters cannot edit');

      for (const token of [outsider.token, null]) {
        r = await f.api('GET', rel(app), { token });
        assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND]);
        r = await f.api('GET', rel(app, 'v1.0'), { token });
        assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND]);
      }
      r = await f.api('POST', rel(app), { token: reporter.token, body: { tag_name: 'r1', ref: 'main' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('POST', rel(app), { token: outsider.token, body: { tag_name: 'r1', ref: 'main' } });
      assert.deepEqual([r.status, r.body], [404, PROJECT_NOT_FOUND]);
      r = await f.api('PUT', rel(app, 'v1.0'), { token: reporter.token, body: { name: 'x' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('DELETE', rel(app, 'v1.0'), { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);

      // a public project: anyone reads everything, outsiders cannot write
      const p1 = await release(pub, { tag_name: 'p1', ref: 'main' });
      r = await f.api('GET', rel(pub), { token: null });
      expectStatus(r, 200);
      assert.deepEqual(r.body, [withoutEdit(p1)]);
      r = await f.api('GET', rel(pub, 'p1'), { token: outsider.token });
      assert.deepEqual(r.body, withoutEdit(p1));
      r = await f.api('POST', rel(pub), { token: outsider.token, body: { tag_name: 'p2', ref: 'main' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('POST', rel(pub), { token: null, body: { tag_name: 'p2', ref: 'main' } });
      assert.equal(r.status, 401);
    });

    it('update: fields, milestones replaced and removed; GitLab errors (403 for a missing release, 404 when the tag is gone)', async () => {
      const m2 = (await f.api('POST', `/projects/${app.id}/milestones`, { body: { title: 'M2', due_date: '2024-06-20' } })).body;
      let r = await f.api('PUT', rel(app, 'v1.0'), { token: dev.token, body: { name: 'Renamed', released_at: '2024-06-01T00:00:00Z', milestones: ['M1', 'M2'] } });
      expectStatus(r, 200);
      assert.equal(r.body.name, 'Renamed');
      assert.equal(r.body.description, 'Hello **world**', 'unchanged');
      assert.equal(r.body.released_at, '2024-06-01T00:00:00.000Z');
      assert.deepEqual(r.body.milestones.map((m: any) => m.title), ['M2', 'M1'], 'by due date');
      r = await f.api('PUT', rel(app, 'v1.0'), { token: dev.token, body: { milestone_ids: [m2.id], description: null } });
      assert.deepEqual(r.body.milestones.map((m: any) => m.title), ['M2']);
      assert.equal(r.body.description, null);
      r = await f.api('PUT', rel(app, 'v1.0'), { token: dev.token, body: { milestones: [] } });
      expectStatus(r, 200);
      assert.ok(!('milestones' in r.body));

      const cases: Array<[string, Record<string, unknown>, number, unknown]> = [
        ['v1.0', {}, 400, { message: 'params is empty' }],
        ['v1.0', { sha: 'abc' }, 400, { message: 'params is empty' }],
        ['v1.0', { milestones: ['nope'] }, 400, { message: 'Milestone(s) not found: nope' }],
        ['v1.0', { released_at: 'later' }, 400, { error: 'released_at is invalid' }],
        ['missing', { name: 'x' }, 403, FORBIDDEN],
      ];
      for (const [tag, body, status, expected] of cases) {
        r = await f.api('PUT', rel(app, tag), { token: dev.token, body });
        assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
      }
      // the tag of 'tokyo' disappears: the release stays listed but cannot be changed
      await f.forge.database.db.deleteFrom('repository_refs').where('project_id', '=', app.id).where('name', '=', 'tokyo').execute();
      r = await f.api('PUT', rel(app, 'tokyo'), { token: dev.token, body: { name: 'x' } });
      assert.deepEqual([r.status, r.body], [404, { message: 'Tag does not exist' }]);
      r = await f.api('DELETE', rel(app, 'tokyo'), { token: dev.token });
      assert.deepEqual([r.status, r.body], [404, { message: 'Tag does not exist' }]);
      r = await f.api('GET', rel(app, 'tokyo'));
      expectStatus(r, 200);
    });

    it('delete answers the release; the tag stays; links and milestones go', async () => {
      const made = await release(app, {
        tag_name: 'doomed', ref: 'main', milestones: ['M1'], assets: { links: [{ name: 'x', url: 'https://x.example/1' }] },
      });
      const before = { links: await count('release_links'), ms: await count('release_milestones') };
      let r = await f.api('DELETE', rel(app, 'doomed'), { token: dev.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, made);
      assert.deepEqual({ links: await count('release_links'), ms: await count('release_milestones') }, { links: before.links - 1, ms: before.ms - 1 });
      assert.ok((await tags(app.id)).includes('doomed'));
      r = await f.api('DELETE', rel(app, 'doomed'), { token: dev.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('GET', rel(app, 'doomed'));
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }]);
    });

    it('permalink/latest and downloads redirect (302)', async () => {
      let r = await f.api('GET', `${rel(app)}/permalink/latest`);
      assert.equal(r.status, 302);
      assert.equal(r.headers.get('location'), `${f.url}/api/v4/projects/${app.id}/releases/future`);
      r = await f.api('GET', `${rel(app)}/permalink/latest/downloads/bin/app?include_html_description=true`);
      assert.equal(r.status, 302);
      assert.equal(r.headers.get('location'), `${f.url}/api/v4/projects/${app.id}/releases/future/downloads/bin/app?include_html_description=true`);
      r = await f.api('GET', `${rel(app)}/permalink/latest`, { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      const empty = await createProject(f, owner.token, { name: 'empty', namespace_id: group.id });
      r = await f.api('GET', `${rel(empty)}/permalink/latest`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }]);

      r = await f.api('GET', `${rel(app, 'v1.0')}/downloads/bin/app`, { token: reporter.token });
      assert.equal(r.status, 302);
      assert.equal(r.headers.get('location'), 'https://example.com/bin');
      r = await f.api('GET', `${rel(app, 'v1.0')}/downloads/bin/other`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not found' }]);
      r = await f.api('GET', `${rel(app, 'v0')}/downloads/bin/app`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }]);
      r = await f.api('GET', `${rel(app, 'v1.0')}/downloads/bin/app`, { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
    });
  });
}
