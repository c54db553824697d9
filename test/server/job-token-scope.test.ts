import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { authorize } from '../../packages/core/src/access/policy.js';
import type { Actor } from '@forgelet/core';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: job token scope`, () => {
    let f: TestForgelet;
    let maintainer: User;
    let developer: User;
    let outsider: User;
    let group: any;
    let sub: any;
    let target: any; // jts/target: the project whose scope is managed
    let source: any; // jts/sub/source: the project whose jobs want in
    let stranger: any; // an unrelated private project of the outsider
    const base = () => `/projects/${target.id}/job_token_scope`;

    before(async () => {
      f = await startTestServer(dialect);
      [maintainer, developer, outsider] = await createUsers(f, ['jtsmaint', 'jtsdev', 'jtsout']);
      group = await createGroup(f, f.rootToken, { name: 'JTS', path: 'jts' });
      sub = await createGroup(f, f.rootToken, { name: 'Sub', path: 'sub', parent_id: group.id });
      target = await createProject(f, f.rootToken, { name: 'target', namespace_id: group.id });
      source = await createProject(f, f.rootToken, { name: 'source', namespace_id: sub.id });
      stranger = await createProject(f, outsider.token, { name: 'stranger' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', group.id, developer.id, 30);
    });
    after(() => f.stop());

    /** Does a job of `sourceId`, run by root, get past `authorize(read_project)` on the target? */
    async function jobReaches(sourceId: number, pipelineId = 1): Promise<true | string> {
      const root = await f.forge.database.db.selectFrom('users').selectAll().where('username', '=', 'root').executeTakeFirstOrThrow();
      const actor: Actor = { kind: 'job', user: root, token: { id: 0, scopes: ['api'], kind: 'job' }, isAdmin: false, job: { id: 1, projectId: sourceId, pipelineId } };
      const project = await f.forge.database.db.selectFrom('projects').selectAll().where('id', '=', target.id).executeTakeFirstOrThrow();
      try {
        await authorize(f.forge.context(actor), 'read_project', { kind: 'project', project });
        return true;
      } catch (err) {
        return `${(err as { body?: { message?: string } }).body?.message}`;
      }
    }

    it('shows the settings to maintainers only, inbound on by default', async () => {
      const r = await f.api('GET', base(), { token: maintainer.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, { inbound_enabled: true, outbound_enabled: false });
      assert.equal((await f.api('GET', base(), { token: developer.token })).status, 403);
      assert.equal((await f.api('GET', base(), { token: outsider.token })).status, 404);
      assert.equal((await f.api('GET', base(), { token: null })).status, 401);
    });

    it('refuses a job token from another project until it is allowlisted, by project then by group', async () => {
      const denied = `403 Forbidden - Authentication by CI/CD job token not allowed from ${source.path_with_namespace} to ${target.path_with_namespace}.`;
      assert.equal(await jobReaches(target.id), true, 'a project always reaches itself');
      assert.equal(await jobReaches(source.id), denied);

      const add = await f.api('POST', `${base()}/allowlist`, { token: maintainer.token, body: { target_project_id: source.id } });
      expectStatus(add, 201);
      assert.deepEqual(add.body, { source_project_id: target.id, target_project_id: source.id });
      assert.equal(await jobReaches(source.id), true);
      const dup = await f.api('POST', `${base()}/allowlist`, { token: maintainer.token, body: { target_project_id: source.id } });
      assert.deepEqual([dup.status, dup.body], [400, { message: 'Target project is already in the job token scope' }]);
      const list = await f.api('GET', `${base()}/allowlist?per_page=1`, { token: maintainer.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((p: any) => p.id), [target.id]);
      assert.equal(list.headers.get('x-total'), '2');
      const page2 = await f.api('GET', `${base()}/allowlist?per_page=1&page=2`, { token: maintainer.token });
      assert.deepEqual(page2.body.map((p: any) => [p.id, p.path_with_namespace, p.namespace.full_path]), [[source.id, 'jts/sub/source', 'jts/sub']]);

      expectStatus(await f.api('DELETE', `${base()}/allowlist/${source.id}`, { token: maintainer.token }), 204);
      assert.equal(await jobReaches(source.id), denied, 'refused again after removal');
      const gone = await f.api('DELETE', `${base()}/allowlist/${source.id}`, { token: maintainer.token });
      assert.equal(gone.status, 404);

      // A group containing the source (its parent's parent) lets it in.
      const g = await f.api('POST', `${base()}/groups_allowlist`, { token: maintainer.token, body: { target_group_id: group.id } });
      expectStatus(g, 201);
      assert.deepEqual(g.body, { source_project_id: target.id, target_group_id: group.id });
      assert.equal(await jobReaches(source.id), true);
      const groups = await f.api('GET', `${base()}/groups_allowlist`, { token: maintainer.token });
      assert.deepEqual(groups.body, [{ id: group.id, web_url: `${new URL(f.url).origin}/groups/jts`, name: 'JTS' }]);
      const gdup = await f.api('POST', `${base()}/groups_allowlist`, { token: maintainer.token, body: { target_group_id: group.id } });
      assert.deepEqual([gdup.status, gdup.body], [400, { message: 'This group is already in the job token scope' }]);
      expectStatus(await f.api('DELETE', `${base()}/groups_allowlist/${group.id}`, { token: maintainer.token }), 204);
      assert.equal(await jobReaches(source.id), denied);

      // Scope off: every project's jobs get in.
      expectStatus(await f.api('PATCH', base(), { token: maintainer.token, body: { enabled: false } }), 204);
      assert.deepEqual((await f.api('GET', base(), { token: maintainer.token })).body, { inbound_enabled: false, outbound_enabled: false });
      assert.equal(await jobReaches(source.id), true);
      expectStatus(await f.api('PATCH', base(), { token: maintainer.token, body: { enabled: true } }), 204);
      assert.equal(await jobReaches(source.id), denied);
    });

    it('refuses targets the caller cannot see, bad ids and missing parameters', async () => {
      const hidden = await f.api('POST', `${base()}/allowlist`, { token: maintainer.token, body: { target_project_id: stranger.id } });
      assert.equal(hidden.status, 404);
      assert.match(hidden.body.message, /does not exist or you don't have permission/);
      const missing = await f.api('POST', `${base()}/allowlist`, { token: maintainer.token, body: {} });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'target_project_id is missing' }]);
      const bad = await f.api('POST', `${base()}/groups_allowlist`, { token: maintainer.token, body: { target_group_id: 'abc' } });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'target_group_id is invalid' }]);
      const patch = await f.api('PATCH', base(), { token: maintainer.token, body: {} });
      assert.deepEqual([patch.status, patch.body], [400, { error: 'enabled is missing' }]);
      assert.equal((await f.api('POST', `${base()}/allowlist`, { token: developer.token, body: { target_project_id: source.id } })).status, 403);
    });

    it('an instance that enforces the allowlist keeps inbound on and refuses to turn it off', async () => {
      assert.equal((await f.api('GET', '/application/settings', { token: maintainer.token })).status, 403);
      const set = await f.api('PUT', '/application/settings', { body: { enforce_ci_inbound_job_token_scope_enabled: true } });
      expectStatus(set, 200);
      assert.equal(set.body.enforce_ci_inbound_job_token_scope_enabled, true);
      expectStatus(await f.api('PATCH', base(), { token: maintainer.token, body: { enabled: false } }), 400);
      const off = await f.api('PATCH', base(), { token: maintainer.token, body: { enabled: false } });
      assert.match(off.body.message, /^400 Bad request - .*enforce/);
      // A project whose own setting is off is still enforced.
      await f.forge.database.db.updateTable('ci_job_token_settings').set({ inbound_enabled: 0 }).where('project_id', '=', target.id).execute();
      assert.deepEqual((await f.api('GET', base(), { token: maintainer.token })).body, { inbound_enabled: true, outbound_enabled: false });
      assert.notEqual(await jobReaches(source.id), true);
      expectStatus(await f.api('PUT', '/application/settings', { body: { enforce_ci_inbound_job_token_scope_enabled: false } }), 200);
      assert.equal(await jobReaches(source.id), true);
    });
  });
}
