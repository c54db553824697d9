/**
 * `/projects/:id/protected_tags` as GitLab's API::ProtectedTags answers it (Maintainer only;
 * `create_access_levels` as Entities::ProtectedRefAccess; 422 for a name already protected and
 * for a bad entry), and the tags API refusing a protected tag to whom its rule does not admit.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { Forgelet, ApiError } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers } from './http.js';

const role = (level: number, description: string) => ({ access_level: level, access_level_description: description, user_id: null, group_id: null });
const noIds = (entity: any) => ({ ...entity, create_access_levels: entity.create_access_levels.map(({ id, ...e }: any) => (assert.equal(typeof id, 'number'), e)) });

for (const dialect of DIALECTS) {
  describe(`${dialect}: protected tags`, () => {
    let f: TestForgelet;
    let maint: { id: number; token: string };
    let dev: { id: number; token: string };
    let project: any;
    const path = (name = '') => `/projects/${project.id}/protected_tags${name ? `/${encodeURIComponent(name)}` : ''}`;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2024-06-15T12:00:00.000Z') });
      const [owner, m, d] = await createUsers(f, ['ptowner', 'ptmaint', 'ptdev']);
      maint = m!;
      dev = d!;
      const group = await createGroup(f, owner!.token, { name: 'Tags', path: 'tags-grp' });
      project = await createProject(f, owner!.token, { name: 'app', namespace_id: group.id });
      await addMember(f, 'groups', group.id, maint.id, 40);
      await addMember(f, 'groups', group.id, dev.id, 30);
      await commitFiles(f, project.id, 'main', { 'README.md': 'app' });
    });
    after(() => f.stop());

    it('protects, lists, shows and unprotects (Maintainer); Developers get 403', async () => {
      const created = await f.api('POST', path(), { token: maint.token, body: { name: 'v*' } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(noIds(created.body), { name: 'v*', create_access_levels: [role(40, 'Maintainers')] });
      const open = await f.api('POST', path(), { token: maint.token, body: { name: 'nightly-*', create_access_level: 30 } });
      assert.deepEqual(noIds(open.body), { name: 'nightly-*', create_access_levels: [role(30, 'Developers + Maintainers')] });

      const list = await f.api('GET', `${path()}?per_page=1`, { token: maint.token });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((t: any) => t.name), ['v*']);
      assert.equal(list.headers.get('x-total'), '2');
      assert.deepEqual(noIds((await f.api('GET', path('nightly-*'), { token: maint.token })).body).create_access_levels, [role(30, 'Developers + Maintainers')]);

      assert.equal((await f.api('GET', path(), { token: dev.token })).status, 403);
      assert.equal((await f.api('POST', path(), { token: dev.token, body: { name: 'x' } })).status, 403);
      assert.deepEqual((await f.api('GET', path('nope'), { token: maint.token })).body, { message: '404 Not found' });

      const again = await f.api('POST', path(), { token: maint.token, body: { name: 'v*' } });
      assert.deepEqual([again.status, again.body], [422, { message: ['Name has already been taken'] }]);
      const bad = await f.api('POST', path(), { token: maint.token, body: { name: 'x', create_access_level: 20 } });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /create_access_level/);
      const missing = await f.api('POST', path(), { token: maint.token, body: {} });
      assert.equal(missing.status, 400);
      assert.match(missing.text, /name/);

      assert.equal((await f.api('DELETE', path('nightly-*'), { token: maint.token })).status, 204);
      assert.equal((await f.api('GET', path('nightly-*'), { token: maint.token })).status, 404);
    });

    it('the tags API refuses a protected tag to whom the rule does not admit', async () => {
      const refused = await f.api('POST', `/projects/${project.id}/repository/tags`, { token: dev.token, body: { tag_name: 'v1.0.0', ref: 'main' } });
      assert.deepEqual([refused.status, refused.body], [400, { message: 'You are not allowed to create this tag as it is protected.' }]);
      assert.equal((await f.api('POST', `/projects/${project.id}/repository/tags`, { token: dev.token, body: { tag_name: 'other-1', ref: 'main' } })).status, 201);
      assert.equal((await f.api('POST', `/projects/${project.id}/repository/tags`, { token: maint.token, body: { tag_name: 'v1.0.0', ref: 'main' } })).status, 201);
    });

    it('the client SDK', async () => {
      const client = new Forgelet({ url: f.url, token: maint.token });
      const tag = await client.protectedTags.protect(project.id, 'release-*', { create_access_level: 0 });
      assert.deepEqual(noIds(tag), { name: 'release-*', create_access_levels: [role(0, 'No one')] });
      assert.deepEqual((await client.protectedTags.show(project.id, 'release-*')).name, 'release-*');
      const names: string[] = [];
      for await (const t of client.protectedTags.all(project.id)) names.push(t.name);
      assert.deepEqual(names, ['v*', 'release-*']);
      await client.protectedTags.unprotect(project.id, 'release-*');
      await assert.rejects(client.protectedTags.show(project.id, 'release-*'), (err: unknown) => err instanceof ApiError && err.status === 404);
    });
  });
}
