import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { IssueNotes, MergeRequestNotes, ProjectSnippetNotes, type ResourceNotes } from '../../packages/client/src/resources/notes.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

type Segment = 'issues' | 'merge_requests' | 'snippets';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client notes`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let guest: Forgelet;
    let project: { id: number; path_with_namespace: string };
    let resources: Record<Segment, ResourceNotes>;
    /** The path id of each noteable: issue and MR iids, the snippet's id. */
    let ref: Record<Segment, number>;

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      project = await api.projects.create({ name: 'Client Notes', visibility: 'public' });
      const user = await f.createUser('cnguest');
      await api.projectMembers.add(project.id, { user_id: user.id, access_level: 10 });
      guest = clientFor(f, { token: user.token });
      // Issues and merge requests straight into their tables: their APIs belong to other domains.
      const db = f.forge.database.db;
      const now = new Date().toISOString();
      await db.insertInto('issues').values({ project_id: project.id, iid: 7, title: 'I', description: null, state: 'opened', issue_type: 'issue', confidential: 0, discussion_locked: 0, author_id: 1, created_at: now, updated_at: now }).execute();
      await db
        .insertInto('merge_requests')
        .values({ project_id: project.id, iid: 3, title: 'M', description: null, state: 'opened', source_branch: 'f', target_branch: 'main', source_project_id: project.id, author_id: 1, sha: 'a'.repeat(40), draft: 0, squash: 0, should_remove_source_branch: 0, discussion_locked: 0, created_at: now, updated_at: now })
        .execute();
      const snippet = await f.api('POST', `/projects/${project.id}/snippets`, { body: { title: 'S', file_name: 's.txt', content: 's', visibility: 'public' } });
      resources = { issues: new IssueNotes(api.requester), merge_requests: new MergeRequestNotes(api.requester), snippets: new ProjectSnippetNotes(api.requester) };
      ref = { issues: 7, merge_requests: 3, snippets: snippet.body.id };
    });
    after(() => f.stop());

    for (const segment of ['issues', 'merge_requests', 'snippets'] as const) {
      it(`${segment}: create, show, all, edit, remove (by id and by full path)`, async () => {
        const notes = resources[segment];
        const first = await notes.create(project.id, ref[segment], 'first', { created_at: new Date('2024-05-01T08:00:00Z') });
        assert.equal(first.body, 'first');
        assert.equal(first.created_at, '2024-05-01T08:00:00.000Z');
        assert.equal(first.noteable_iid, segment === 'snippets' ? null : ref[segment]);
        const second = await notes.create(project.path_with_namespace, ref[segment], 'second', { internal: true });
        assert.equal(second.internal, segment !== 'snippets');

        assert.deepEqual(await notes.show(project.path_with_namespace, ref[segment], first.id), first);
        const listed = await notes.all(project.id, ref[segment], { sort: 'asc' }).toArray();
        assert.deepEqual(listed.map((n) => n.id), [first.id, second.id]);
        const newestFirst = await notes.all(project.id, ref[segment]).toArray();
        assert.deepEqual(newestFirst.map((n) => n.id), [second.id, first.id]);

        const edited = await notes.edit(project.id, ref[segment], first.id, { body: 'first, edited' });
        assert.equal(edited.body, 'first, edited');
        assert.equal((await notes.show(project.id, ref[segment], first.id)).body, 'first, edited');

        await notes.remove(project.id, ref[segment], first.id);
        await notes.remove(project.id, ref[segment], second.id);
        const gone = await apiError(notes.show(project.id, ref[segment], first.id));
        assert.deepEqual([gone.status, gone.body], [404, { message: '404 Note Not Found' }]);
        assert.deepEqual(await notes.all(project.id, ref[segment]).toArray(), []);
      });
    }

    it('all() follows Link rel="next" page by page, keeping sort and order_by', async () => {
      const notes = resources.issues;
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push((await notes.create(project.id, ref.issues, `n${i}`)).id);
      const { fetch, sent } = recordingFetch();
      const paged = new IssueNotes(clientFor(f, { fetch }).requester).all(project.id, ref.issues, { per_page: 2, sort: 'asc', order_by: 'created_at' });
      const seen: number[] = [];
      for await (const note of paged) seen.push(note.id);
      assert.deepEqual(seen, made);
      assert.equal(sent.length, 3);
      assert.equal(sent[1]!.url, `${f.url}/api/v4/projects/${project.id}/issues/7/notes?order_by=created_at&page=2&per_page=2&sort=asc`);
      assert.deepEqual({ total: paged.pagination?.total, totalPages: paged.pagination?.totalPages }, { total: 5, totalPages: 3 });
      for (const id of made) await notes.remove(project.id, ref.issues, id);
    });

    it('errors arrive as ApiError with GitLab\'s body', async () => {
      const own = await resources.issues.create(project.id, ref.issues, 'root says');
      const guestNotes = new IssueNotes(guest.requester);
      const reply = await guestNotes.create(project.id, ref.issues, 'guest says');
      const forbidden = await apiError(guestNotes.edit(project.id, ref.issues, own.id, { body: 'hijack' }));
      assert.deepEqual([forbidden.status, forbidden.body], [403, { message: '403 Forbidden' }]);
      const removeForbidden = await apiError(guestNotes.remove(project.id, ref.issues, own.id));
      assert.equal(removeForbidden.status, 403);
      const blank = await apiError(resources.issues.create(project.id, ref.issues, ' '));
      assert.deepEqual([blank.status, blank.message], [400, '400 Bad request - Note {:note=>["can\'t be blank"]}']);
      const missing = await apiError(resources.merge_requests.all(project.id, 999).toArray());
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Merge Request Not Found' }]);
      await resources.issues.remove(project.id, ref.issues, reply.id);
      await resources.issues.remove(project.id, ref.issues, own.id);
    });
  });
}
