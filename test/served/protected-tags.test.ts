/**
 * Protected tags through the served binary and the client SDK, as GitLab answers:
 * - DELETE /projects/:id/repository/tags/:tag_name: `Gitlab::Git::TagPolicy#delete_tag` needs
 *   `delete_protected_tag` (Maintainer) for a protected tag, else 403 `403 Forbidden`; the
 *   pre-receive TagCheck then needs the tag's create access too, else 400 with its message.
 * - POST /projects/:id/releases: Releases::CreateService refuses a tag the user may not create
 *   (`can_create_tag?`), new or existing, with 403 `You are not allowed to create this tag as it
 *   is protected.`; nothing is created.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const CREATE_MESSAGE = 'You are not allowed to create this tag as it is protected.';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

const refusedWith = (status: number, body: unknown) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.deepEqual([err.status, err.body], [status, body]);
  return true;
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: protected tags: deleting them and releases creating them (served)`, () => {
    let f: ServedForgelet;
    let maint: { id: number; token: string };
    let dev: { id: number; token: string };
    let project: any;
    const tags = (name = '') => `/projects/${project.id}/repository/tags${name ? `/${encodeURIComponent(name)}` : ''}`;
    const tagNames = async () => (ok(await f.api('GET', `${tags()}?order_by=name&sort=asc`)) as any[]).map((t) => t.name);

    before(async () => {
      f = await startServed(dialect);
      maint = await f.createUser('tagmaint');
      dev = await f.createUser('tagdev');
      project = ok(await f.api('POST', '/projects', { body: { name: 'tagged', path: 'tagged' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: maint.id, access_level: 40 } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 30 } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/repository/commits`, { body: { branch: 'main', commit_message: 'First', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] } }), 201);
      for (const name of ['v1.0', 'v1.1', 'locked-1', 'plain-1']) ok(await f.api('POST', tags(), { body: { tag_name: name, ref: 'main' } }), 201);
      // v*: Maintainers create; locked-*: no one creates.
      ok(await f.api('POST', `/projects/${project.id}/protected_tags`, { body: { name: 'v*' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/protected_tags`, { body: { name: 'locked-*', create_access_level: 0 } }), 201);
    });
    after(() => f?.stop());

    it('DELETE a protected tag: Developers 403, Maintainers only with create access (else 400), unprotected tags as before', async () => {
      const devClient = new Forgelet({ url: f.url, token: dev.token });
      const maintClient = new Forgelet({ url: f.url, token: maint.token });
      ok(await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v1.0', name: 'One' } }), 201);

      const refused = await f.api('DELETE', tags('v1.0'), { token: dev.token });
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
      await assert.rejects(devClient.repositoryTags.remove(project.id, 'v1.0'), refusedWith(403, { message: '403 Forbidden' }));
      await assert.rejects(devClient.repositoryTags.remove(project.id, 'locked-1'), refusedWith(403, { message: '403 Forbidden' }));
      // A tag no one may create: not even a Maintainer deletes it (GitLab's TagCheck), 400 with its message.
      const locked = await f.api('DELETE', tags('locked-1'), { token: maint.token });
      assert.deepEqual([locked.status, locked.body], [400, { message: CREATE_MESSAGE }]);
      await assert.rejects(maintClient.repositoryTags.remove(project.id, 'locked-1'), refusedWith(400, { message: CREATE_MESSAGE }));
      // The owner (root, an administrator) neither: `No one` admits nobody.
      assert.deepEqual((await f.api('DELETE', tags('locked-1'))).body, { message: CREATE_MESSAGE });
      assert.deepEqual(await tagNames(), ['locked-1', 'plain-1', 'v1.0', 'v1.1']);
      assert.equal((await f.api('GET', `/projects/${project.id}/releases/v1.0`)).status, 200);

      // Maintainers are in v*'s create list: deleted, with its release.
      await maintClient.repositoryTags.remove(project.id, 'v1.0');
      assert.equal((await f.api('DELETE', tags('v1.1'), { token: maint.token })).status, 204);
      assert.equal((await f.api('GET', `/projects/${project.id}/releases/v1.0`)).status, 404);
      // Unprotected: a Developer deletes it.
      await devClient.repositoryTags.remove(project.id, 'plain-1');
      assert.deepEqual(await tagNames(), ['locked-1']);
      // Refused before anything else: a missing tag is still 404.
      assert.deepEqual((await f.api('DELETE', tags('v9'), { token: dev.token })).body, { message: '404 Tag Not Found' });
    });

    it('POST /releases creating a protected tag: 403 unless the user may create it (new or existing tag)', async () => {
      const devClient = new Forgelet({ url: f.url, token: dev.token });
      const refused = await f.api('POST', `/projects/${project.id}/releases`, { token: dev.token, body: { tag_name: 'v2.0', ref: 'main', name: 'Two' } });
      assert.deepEqual([refused.status, refused.body], [403, { message: CREATE_MESSAGE }]);
      await assert.rejects(devClient.releases.create(project.id, 'v2.0', { ref: 'main' }), refusedWith(403, { message: CREATE_MESSAGE }));
      assert.ok(!(await tagNames()).includes('v2.0'), 'no tag created');
      // An existing protected tag: GitLab asks `can_create_tag?` all the same.
      await assert.rejects(devClient.releases.create(project.id, 'locked-1'), refusedWith(403, { message: CREATE_MESSAGE }));
      // Whom the rule admits creates tag and release; unprotected tags stay open to Developers.
      const made = await new Forgelet({ url: f.url, token: maint.token }).releases.create(project.id, 'v2.0', { ref: 'main', name: 'Two' });
      assert.equal(made.tag_name, 'v2.0');
      assert.equal((await devClient.releases.create(project.id, 'dev-1', { ref: 'main' })).tag_name, 'dev-1');
      assert.deepEqual(await tagNames(), ['dev-1', 'locked-1', 'v2.0']);
      assert.equal((await f.api('GET', `/projects/${project.id}/releases`)).body.length, 2);
    });
  });
}
