import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client project users`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
    });
    after(() => f.stop());

    it('projects.users: the members of the project and its groups, with search and skip_users, page by page', async () => {
      const root = await api.users.current();
      const group = await api.groups.create({ name: 'Team', path: 'pu-team' });
      const project = await api.projects.create({ name: 'svc', namespace_id: group.id });
      const ada = await f.createUser('ada');
      const bob = await f.createUser('bob');
      await api.groupMembers.add(group.id, { user_id: ada.id, access_level: 20 });
      await api.projectMembers.add(project.id, { user_id: bob.id, access_level: 30 });

      const all = await api.projects.users(project.path_with_namespace, { per_page: 1 }).toArray();
      assert.deepEqual(all.map((u) => u.username), [root.username, 'ada', 'bob']);
      assert.deepEqual(Object.keys(all[1]!), ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']);

      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const found = await recorded.projects.users(project.id, { search: 'bob', skip_users: [root.id] }).toArray();
      assert.deepEqual(found.map((u) => u.id), [bob.id]);
      assert.match(sent[0]!.url, new RegExp(`/api/v4/projects/${project.id}/users\\?`));
      assert.deepEqual((await api.projects.users(project.id, { skip_users: [root.id, ada.id] }).toArray()).map((u) => u.id), [bob.id]);
    });
  });
}
