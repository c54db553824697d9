/**
 * @gitbeaker/rest 43.8.0 against the served Forgelet: the substrate stock tools call (issue 27):
 * Namespaces (all, show by id and encoded path, exists), label priority and approvals_before_merge,
 * impersonation tokens, deploy tokens, and token rotation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure } from './support.js';

type Client = InstanceType<typeof Gitlab>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 namespaces and tokens`, () => {
    let f: ServedForgelet;
    let root: Client;
    let alice: { id: number; username: string; token: string };
    let asAlice: Client;
    let group: { id: number; full_path: string };
    let sub: { id: number; full_path: string };

    before(async () => {
      f = await startServed(dialect, { tier: 'premium' });
      root = new Gitlab({ host: f.url, token: f.rootToken });
      alice = await f.createUser('alice');
      asAlice = new Gitlab({ host: f.url, token: alice.token });
      group = (await asAlice.Groups.create('Platform', 'platform')) as any;
      sub = (await asAlice.Groups.create('Tools', 'tools', { parentId: group.id })) as any;
    });
    after(() => f?.stop());

    it('Namespaces.all, show (id and full path) and exists', async () => {
      const mine = await asAlice.Namespaces.all();
      assert.deepEqual(mine.map((n) => [n.kind, n.full_path]), [['user', 'alice'], ['group', 'platform'], ['group', 'platform/tools']]);
      const top = await asAlice.Namespaces.all({ topLevelOnly: true, search: 'plat' });
      assert.deepEqual(top.map((n) => n.full_path), ['platform']);
      const shown = await asAlice.Namespaces.show('platform/tools');
      assert.equal(shown.id, sub.id);
      assert.equal(shown.parent_id, group.id);
      assert.equal(shown.members_count_with_descendants, 1);
      assert.equal(shown.plan, 'default');
      assert.deepEqual(await asAlice.Namespaces.show(sub.id), shown);
      assert.deepEqual(await asAlice.Namespaces.exists('platform'), { exists: true, suggests: ['platform1'] });
      assert.deepEqual(await asAlice.Namespaces.exists('tools', { parentId: String(group.id) }), { exists: true, suggests: ['tools1'] });
      assert.deepEqual(await asAlice.Namespaces.exists('free-path'), { exists: false, suggests: [] });
      const all = await root.Namespaces.all({ perPage: 100 });
      assert.ok(all.some((n) => n.full_path === 'root'), 'administrators see every namespace');
      const hidden = await gitbeakerFailure(asAlice.Namespaces.show('root'));
      assert.equal(hidden.status, 404);
    });

    it('ProjectLabels priority and Projects approvalsBeforeMerge round-trip', async () => {
      const project = await asAlice.Projects.create({ name: 'app', namespaceId: sub.id, approvalsBeforeMerge: 1 });
      assert.equal((project as any).approvals_before_merge, 1);
      const label = await asAlice.ProjectLabels.create(project.id, 'bug', '#d9534f', { priority: 3 });
      assert.equal(label.priority, 3);
      const edited = await asAlice.ProjectLabels.edit(project.id, label.id, { color: '#d9534f', priority: 0 });
      assert.equal(edited.priority, 0);
      assert.equal((await asAlice.ProjectLabels.show(project.id, 'bug')).priority, 0);
      const cleared = await asAlice.ProjectLabels.edit(project.id, 'bug', { color: '#d9534f', priority: null } as never);
      assert.equal(cleared.priority, null);
      await asAlice.Projects.edit(project.id, { approvalsBeforeMerge: 2 });
      assert.equal((await asAlice.Projects.show(project.id)).approvals_before_merge, 2);
      assert.equal((await asAlice.MergeRequestApprovals.showConfiguration(project.id)).approvals_before_merge, 2);
    });

    it('UserImpersonationTokens: create, show, all by state, revoke; the token acts as the user', async () => {
      const t = await root.UserImpersonationTokens.create(alice.id, 'support', ['api'], { expiresAt: '2099-01-01' });
      assert.equal(t.impersonation, true);
      assert.match(String(t.token), /^glpat-/);
      const asUser = new Gitlab({ host: f.url, token: String(t.token) });
      assert.equal((await asUser.Users.showCurrentUser()).username, 'alice');
      assert.equal((await root.UserImpersonationTokens.show(alice.id, t.id)).name, 'support');
      await root.UserImpersonationTokens.revoke(alice.id, t.id);
      assert.deepEqual((await root.UserImpersonationTokens.all(alice.id, { state: 'inactive' })).map((x) => x.id), [t.id]);
      const refused = await gitbeakerFailure(asAlice.UserImpersonationTokens.all(alice.id));
      assert.equal(refused.status, 403);
    });

    it('DeployTokens: project and group create/show/all/remove, the instance list', async () => {
      const pt = await asAlice.DeployTokens.create('ci', ['read_package_registry'], { projectId: 'platform/tools/app' });
      assert.match(pt.token, /^gldt-/);
      assert.equal((await asAlice.DeployTokens.show(pt.id, { projectId: 'platform/tools/app' })).username, `gitlab+deploy-token-${pt.id}`);
      const gt = await asAlice.DeployTokens.create('grp', ['read_repository'], { groupId: group.id, username: 'grp-bot' });
      assert.deepEqual((await asAlice.DeployTokens.all({ groupId: group.id })).map((t) => t.username), ['grp-bot']);
      assert.deepEqual((await asAlice.DeployTokens.all({ projectId: 'platform/tools/app' })).map((t) => t.name), ['ci']);
      assert.deepEqual((await root.DeployTokens.all()).map((t) => t.name), ['ci', 'grp']);
      await asAlice.DeployTokens.remove(pt.id, { projectId: 'platform/tools/app' });
      await asAlice.DeployTokens.remove(gt.id, { groupId: group.id });
      assert.equal((await gitbeakerFailure(asAlice.DeployTokens.show(pt.id, { projectId: 'platform/tools/app' }))).status, 404);
    });

    it('PersonalAccessTokens.rotate (id and self), ProjectAccessTokens.rotate, GroupAccessTokens.rotate', async () => {
      const bob = await f.createUser('bob');
      const asBob = new Gitlab({ host: f.url, token: bob.token });
      const self = await asBob.PersonalAccessTokens.rotate('self', { expiresAt: '2099-05-01' });
      assert.equal(self.expires_at, '2099-05-01');
      const next = new Gitlab({ host: f.url, token: String(self.token) });
      const byId = await next.PersonalAccessTokens.rotate(self.id);
      assert.notEqual(byId.id, self.id);
      const pat = await asAlice.ProjectAccessTokens.create('platform/tools/app', 'bot', ['api'], '2099-01-01');
      const rp = await asAlice.ProjectAccessTokens.rotate('platform/tools/app', pat.id, { expiresAt: '2099-02-01' });
      assert.deepEqual([rp.name, rp.expires_at], ['bot', '2099-02-01']);
      const gat = await asAlice.GroupAccessTokens.create(group.id, 'gbot', ['read_api'], '2099-01-01');
      const rg = await asAlice.GroupAccessTokens.rotate(group.id, gat.id);
      assert.match(rg.token, /^glpat-/);
      const again = await gitbeakerFailure(asAlice.GroupAccessTokens.rotate(group.id, gat.id));
      assert.equal(again.status, 400);
    });
  });
}
