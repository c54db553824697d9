import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import {
  IssueAwardEmoji,
  IssueNoteAwardEmoji,
  MergeRequestAwardEmoji,
  MergeRequestNoteAwardEmoji,
  SnippetAwardEmoji,
  SnippetNoteAwardEmoji,
} from '../../packages/client/src/resources/award-emoji.js';
import type { ResourceAwardEmoji, ResourceNoteAwardEmoji } from '../../packages/client/src/templates/resource-award-emoji.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

type Segment = 'issues' | 'merge_requests' | 'snippets';
const TYPE_OF: Record<Segment, string> = { issues: 'Issue', merge_requests: 'MergeRequest', snippets: 'Snippet' };

/** An issue, a merge request and a snippet with a note each, written straight to the tables. */
async function seed(f: TestForgelet, projectId: number, authorId: number) {
  const db = f.forge.database.db;
  const now = new Date().toISOString();
  const stamps = { created_at: now, updated_at: now };
  const issue = await db.insertInto('issues').values({ project_id: projectId, iid: 1, title: 'I', description: null, state: 'opened', issue_type: 'issue', confidential: 0, discussion_locked: 0, author_id: authorId, ...stamps }).returning('id').executeTakeFirstOrThrow();
  const mr = await db
    .insertInto('merge_requests')
    .values({ project_id: projectId, iid: 1, title: 'M', description: null, state: 'opened', source_branch: 'f', target_branch: 'main', source_project_id: projectId, author_id: authorId, sha: 'a'.repeat(40), draft: 0, squash: 0, should_remove_source_branch: 0, discussion_locked: 0, ...stamps })
    .returning('id')
    .executeTakeFirstOrThrow();
  const snippet = await db
    .insertInto('snippets')
    .values({ project_id: projectId, title: 'S', file_name: 'a.txt', content: 'x', visibility: 'public', author_id: authorId, ...stamps })
    .returning('id')
    .executeTakeFirstOrThrow();
  const dbId: Record<Segment, number> = { issues: issue.id, merge_requests: mr.id, snippets: snippet.id };
  const note = {} as Record<Segment, number>;
  for (const segment of Object.keys(TYPE_OF) as Segment[]) {
    const row = await db
      .insertInto('notes')
      .values({ project_id: projectId, noteable_type: TYPE_OF[segment], noteable_id: dbId[segment], body: 'c', author_id: authorId, system: 0, internal: 0, ...stamps })
      .returning('id')
      .executeTakeFirstOrThrow();
    note[segment] = row.id;
  }
  return { ref: { issues: 1, merge_requests: 1, snippets: snippet.id } as Record<Segment, number>, dbId, note };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: client emoji reactions`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let other: Forgelet;
    let root: { id: number };
    let project: { id: number; path_with_namespace: string };
    let s: Awaited<ReturnType<typeof seed>>;

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      root = await api.users.current();
      const bob = await f.createUser('bob');
      other = clientFor(f, { token: bob.token });
      project = await api.projects.create({ name: 'app', visibility: 'public' });
      s = await seed(f, project.id, root.id);
    });
    after(() => f.stop());

    const onAwardables: Array<[string, Segment, (api: Forgelet) => ResourceAwardEmoji]> = [
      ['IssueAwardEmoji', 'issues', (a) => new IssueAwardEmoji(a.requester)],
      ['MergeRequestAwardEmoji', 'merge_requests', (a) => new MergeRequestAwardEmoji(a.requester)],
      ['SnippetAwardEmoji', 'snippets', (a) => new SnippetAwardEmoji(a.requester)],
    ];
    for (const [name, segment, make] of onAwardables) {
      it(`${name}: award, show, all, remove; refusals as ApiError`, async () => {
        const awards = make(api);
        const id = project.path_with_namespace; // encoded by the client
        const award = await awards.award(id, s.ref[segment], 'thumbsup');
        assert.deepEqual([award.name, award.awardable_type, award.awardable_id, award.user.id], ['thumbsup', TYPE_OF[segment], s.dbId[segment], root.id]);
        assert.deepEqual(await awards.show(project.id, s.ref[segment], award.id), award);
        await make(other).award(project.id, s.ref[segment], 'tada');
        const all = awards.all(project.id, s.ref[segment], { per_page: 1 });
        assert.deepEqual((await all.toArray()).map((a) => a.name), ['thumbsup', 'tada']);
        assert.equal(all.pagination?.total, 2);

        const again = await apiError(awards.award(project.id, s.ref[segment], 'thumbsup'));
        assert.deepEqual([again.status, again.body], [404, { message: '404 Award Emoji Name has already been taken Not Found' }]);
        const unknown = await apiError(awards.award(project.id, s.ref[segment], 'nope_not_emoji'));
        assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Award Emoji Name is not a valid emoji name Not Found' }]);
        const foreign = await apiError(make(other).remove(project.id, s.ref[segment], award.id));
        assert.equal(foreign.status, 401);

        await awards.remove(project.id, s.ref[segment], award.id);
        assert.deepEqual((await awards.all(project.id, s.ref[segment]).toArray()).map((a) => a.name), ['tada']);
      });
    }

    const onNotes: Array<[string, Segment, (api: Forgelet) => ResourceNoteAwardEmoji]> = [
      ['IssueNoteAwardEmoji', 'issues', (a) => new IssueNoteAwardEmoji(a.requester)],
      ['MergeRequestNoteAwardEmoji', 'merge_requests', (a) => new MergeRequestNoteAwardEmoji(a.requester)],
      ['SnippetNoteAwardEmoji', 'snippets', (a) => new SnippetNoteAwardEmoji(a.requester)],
    ];
    for (const [name, segment, make] of onNotes) {
      it(`${name}: award, show, all, remove`, async () => {
        const awards = make(api);
        const award = await awards.award(project.path_with_namespace, s.ref[segment], s.note[segment], 'eyes');
        assert.deepEqual([award.name, award.awardable_type, award.awardable_id], ['eyes', 'Note', s.note[segment]]);
        assert.deepEqual(await awards.show(project.id, s.ref[segment], s.note[segment], award.id), award);
        assert.deepEqual(await awards.all(project.id, s.ref[segment], s.note[segment]).toArray(), [award]);
        const missing = await apiError(awards.show(project.id, s.ref[segment], s.note[segment], award.id + 1000));
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
        await awards.remove(project.id, s.ref[segment], s.note[segment], award.id);
        assert.deepEqual(await awards.all(project.id, s.ref[segment], s.note[segment]).toArray(), []);
      });
    }
  });
}
