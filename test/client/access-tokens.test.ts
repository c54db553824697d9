import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet, GroupAccessTokens, ProjectAccessTokens } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

const REVOKED_BODY = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };

interface Kind {
  name: string;
  tokens: (api: Forgelet) => ProjectAccessTokens | GroupAccessTokens;
  source: string;
  resourceType: 'project' | 'group';
  /** Something only a member of the source can read. */
  read: (api: Forgelet, source: string) => Promise<{ id: number }>;
}

const KINDS: Kind[] = [
  { name: 'projectAccessTokens', tokens: (api) => api.projectAccessTokens, source: 'acme/web', resourceType: 'project', read: (api, s) => api.projects.show(s) },
  { name: 'groupAccessTokens', tokens: (api) => api.groupAccessTokens, source: 'acme', resourceType: 'group', read: (api, s) => api.groups.show(s) },
];

for (const dialect of DIALECTS) {
  describe(`${dialect}: client access tokens`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      const acme = await api.groups.create({ name: 'Acme', path: 'acme' });
      await api.projects.create({ name: 'web', namespace_id: acme.id });
    });
    after(() => f.stop());

    describe('personalAccessTokens', () => {
      let alice: { id: number; username: string; token: string };
      before(async () => (alice = await f.createUser('alice')));

      it('createForUser returns the clear token once; show, showSelf and all do not', async () => {
        const created = await api.personalAccessTokens.createForUser(alice.id, { name: 'ci', description: 'for CI', scopes: ['api', 'read_user'], expires_at: '2099-01-01' });
        assert.match(created.token, /^glpat-/);
        assert.equal(created.user_id, alice.id);
        assert.deepEqual(created.scopes, ['api', 'read_user']);
        assert.equal(created.expires_at, '2099-01-01');
        assert.equal(created.active, true);
        const { token: _token, ...stored } = created;

        assert.deepEqual(await api.personalAccessTokens.show(created.id), stored);
        const asCi = clientFor(f, { token: created.token });
        const self = await asCi.personalAccessTokens.showSelf();
        assert.equal(self.id, created.id);
        assert.equal('token' in self, false);

        const mine = await clientFor(f, { token: alice.token }).personalAccessTokens.all().toArray();
        assert.deepEqual(mine.map((t) => t.name).sort(), ['ci', 'test']);
        assert.ok(mine.every((t) => t.user_id === alice.id));
        const filtered = await api.personalAccessTokens.all({ user_id: alice.id, search: 'c' }).toArray();
        assert.deepEqual(filtered.map((t) => t.id), [created.id]);
      });

      it('createForUser with no scopes is a 400 with the model error', async () => {
        const err = await apiError(api.personalAccessTokens.createForUser(alice.id, { name: 'none', scopes: [] }));
        assert.equal(err.status, 400);
        assert.deepEqual(err.body, { message: { scopes: ["can't be blank"] } });
        assert.equal(err.message, '{"scopes":["can\'t be blank"]}');
      });

      it('revoke: the token then gets 401 invalid_token through a new client', async () => {
        const { id, token } = await api.personalAccessTokens.createForUser(alice.id, { name: 'short-lived', scopes: ['api'] });
        const holder = clientFor(f, { token });
        assert.equal((await holder.users.current()).id, alice.id);

        await api.personalAccessTokens.revoke(id);
        const err = await apiError(clientFor(f, { token }).users.current());
        assert.equal(err.status, 401);
        assert.deepEqual(err.body, REVOKED_BODY);
        assert.equal(err.message, 'invalid_token');
        assert.deepEqual(err.cause.request, { method: 'GET', url: `${f.url}/api/v4/user` });

        const shown = await api.personalAccessTokens.show(id);
        assert.equal(shown.revoked, true);
        assert.equal(shown.active, false);
        const inactive = await api.personalAccessTokens.all({ user_id: alice.id, state: 'inactive' }).toArray();
        assert.deepEqual(inactive.map((t) => t.id), [id]);

        const twice = await apiError(api.personalAccessTokens.revoke(id));
        assert.equal(twice.status, 400);
        assert.equal(twice.message, '400 Bad request - Token already revoked');
      });

      it('rotate by id and rotate("self") issue working tokens and revoke the old ones', async () => {
        const first = await api.personalAccessTokens.createForUser(alice.id, { name: 'rotating', scopes: ['api'] });
        const second = await api.personalAccessTokens.rotate(first.id);
        assert.notEqual(second.id, first.id);
        assert.equal(second.name, 'rotating');
        assert.match(second.expires_at ?? '', /^\d{4}-\d{2}-\d{2}$/);
        assert.equal((await apiError(clientFor(f, { token: first.token }).users.current())).status, 401);

        const third = await clientFor(f, { token: second.token }).personalAccessTokens.rotate('self', { expires_at: '2099-03-01' });
        assert.equal(third.expires_at, '2099-03-01');
        assert.equal((await clientFor(f, { token: third.token }).users.current()).id, alice.id);
        assert.deepEqual((await apiError(clientFor(f, { token: second.token }).users.current())).body, REVOKED_BODY);
      });

      it('revokeSelf revokes the calling token only', async () => {
        const { token } = await api.personalAccessTokens.createForUser(alice.id, { name: 'self-revoking', scopes: ['api'] });
        const holder = clientFor(f, { token });
        await holder.personalAccessTokens.revokeSelf();
        const err = await apiError(holder.personalAccessTokens.showSelf());
        assert.equal(err.status, 401);
        assert.deepEqual(err.body, REVOKED_BODY);
        assert.equal((await clientFor(f, { token: alice.token }).users.current()).id, alice.id);
      });
    });

    for (const kind of KINDS) {
      describe(kind.name, () => {
        it('create gives a bot member token; show and all list it without the clear token', async () => {
          const created = await kind.tokens(api).create(kind.source, { name: 'deploy', scopes: ['read_api'], expires_at: '2099-01-01' });
          assert.match(created.token, /^glpat-/);
          assert.equal(created.access_level, 40);
          assert.equal(created.resource_type, kind.resourceType);
          assert.deepEqual(created.scopes, ['read_api']);

          const { token: _token, ...stored } = created;
          assert.deepEqual(await kind.tokens(api).show(kind.source, created.id), stored);

          const bot = clientFor(f, { token: created.token });
          const me = await bot.users.current();
          assert.equal(me.bot, true);
          assert.equal(me.name, 'deploy');
          assert.equal((await kind.read(bot, kind.source)).id, created.resource_id);
          assert.notEqual((await kind.tokens(api).show(kind.source, created.id)).last_used_at, null);
          const reporter = await kind.tokens(api).create(kind.source, { name: 'reader', scopes: ['read_api'], access_level: 20 });
          assert.equal(reporter.access_level, 20);
          const listed = await kind.tokens(api).all(kind.source, { per_page: 1 }).toArray();
          assert.deepEqual(listed.map((t) => t.id), [created.id, reporter.id]);
          assert.ok(listed.every((t) => !('token' in t)));
        });

        it('rotate replaces the token; revoke makes the new one 401; 404 for an unknown id', async () => {
          const created = await kind.tokens(api).create(kind.source, { name: 'rotated', scopes: ['api'] });
          const rotated = await kind.tokens(api).rotate(kind.source, created.id, { expires_at: '2099-02-01' });
          assert.notEqual(rotated.id, created.id);
          assert.equal(rotated.expires_at, '2099-02-01');
          assert.equal(rotated.resource_id, created.resource_id);
          assert.deepEqual((await apiError(clientFor(f, { token: created.token }).users.current())).body, REVOKED_BODY);
          assert.equal((await clientFor(f, { token: rotated.token }).users.current()).name, 'rotated');

          await kind.tokens(api).revoke(kind.source, rotated.id);
          const err = await apiError(clientFor(f, { token: rotated.token }).users.current());
          assert.equal(err.status, 401);
          assert.deepEqual((await kind.tokens(api).show(kind.source, rotated.id)).revoked, true);
          const inactive = await kind.tokens(api).all(kind.source, { state: 'inactive' }).toArray();
          assert.deepEqual(inactive.map((t) => t.id), [created.id, rotated.id]);

          const missing = await apiError(kind.tokens(api).show(kind.source, 999999));
          assert.equal(missing.status, 404);
          assert.deepEqual(missing.body, { message: `404 ${kind.resourceType === 'project' ? 'Project' : 'Group'} Access Token Not Found` });
        });
      });
    }
  });
}
