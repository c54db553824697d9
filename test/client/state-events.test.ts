import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { insertStateEvent } from '../../packages/core/src/domains/state-events/state-event.queries.js';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { IssueStateEvents, MergeRequestStateEvents } from '../../packages/client/src/resources/state-events.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client resource state events`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let root: { id: number };
    let project: { id: number; path_with_namespace: string };
    const ids = { issue: 0, mr: 0 };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      root = await api.users.current();
      project = await api.projects.create({ name: 'app' });
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      const stamps = { created_at: now, updated_at: now };
      for (const iid of [1, 2]) {
        const issue = await db.insertInto('issues').values({ project_id: project.id, iid, title: 'I', description: null, state: 'opened', issue_type: 'issue', confidential: 0, discussion_locked: 0, author_id: root.id, ...stamps }).returning('id').executeTakeFirstOrThrow();
        const mr = await db
          .insertInto('merge_requests')
          .values({ project_id: project.id, iid, title: 'M', description: null, state: 'opened', source_branch: `f${iid}`, target_branch: 'main', source_project_id: project.id, author_id: root.id, sha: 'a'.repeat(40), draft: 0, squash: 0, should_remove_source_branch: 0, discussion_locked: 0, ...stamps })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (iid === 1) Object.assign(ids, { issue: issue.id, mr: mr.id });
      }
      const none = { epic_id: null, source_commit: null, source_merge_request_id: null };
      await insertStateEvent(db, { ...none, user_id: root.id, issue_id: ids.issue, merge_request_id: null, state: 'closed', created_at: '2024-01-01T00:00:00.000Z' });
      await insertStateEvent(db, { ...none, user_id: root.id, issue_id: ids.issue, merge_request_id: null, state: 'reopened', created_at: '2024-01-02T00:00:00.000Z' });
      await insertStateEvent(db, { ...none, user_id: root.id, issue_id: null, merge_request_id: ids.mr, state: 'merged', created_at: '2024-01-03T00:00:00.000Z' });
    });
    after(() => f.stop());

    it('IssueStateEvents: all and show; [] for an untouched issue', async () => {
      const events = new IssueStateEvents(api.requester);
      const all = await events.all(project.path_with_namespace, 1, { per_page: 1 }).toArray();
      assert.deepEqual(all.map((e) => [e.state, e.resource_type, e.resource_id, e.user?.id]), [['closed', 'Issue', ids.issue, root.id], ['reopened', 'Issue', ids.issue, root.id]]);
      assert.deepEqual(await events.show(project.id, 1, all[1]!.id), all[1]);
      assert.deepEqual(await events.all(project.id, 2).toArray(), []);
      const missing = await apiError(events.show(project.id, 2, all[0]!.id));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
    });

    it('MergeRequestStateEvents: all and show', async () => {
      const events = new MergeRequestStateEvents(api.requester);
      const all = await events.all(project.id, 1).toArray();
      assert.deepEqual(all.map((e) => [e.state, e.resource_type, e.resource_id]), [['merged', 'MergeRequest', ids.mr]]);
      assert.deepEqual(await events.show(project.path_with_namespace, 1, all[0]!.id), all[0]);
      assert.deepEqual(await events.all(project.id, 2).toArray(), []);
    });
  });
}
