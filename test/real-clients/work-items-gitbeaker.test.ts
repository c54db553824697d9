/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: work items (issue 3's "Must show").
 * An issue and a note of it get a `thumbsup`, both reaction lists are read back, the issue
 * is closed and reopened and its two state events read back; a duplicate award and an
 * unknown name are refused as GitLab refuses them (404 with the message); a member who did
 * not award a reaction cannot delete it (401) while its author can (204). A merge request is
 * created, awarded `tada`, merged, and its `merged` state event read back.
 *
 * MergeRequestStateEvents is not a named export of @gitbeaker/rest (REAL-CLIENTS.md §5.12),
 * so every resource here is used through `new Gitlab()`, as a user would.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure } from './support.js';

type Client = InstanceType<typeof Gitlab>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 work items`, () => {
    let f: ServedForgelet;
    let root: Client;
    let rootId: number;
    /** A Developer of the project who awarded nothing (their own PAT). */
    let bob: Client;
    let bobId: number;
    let projectId: number;
    let issue: { id: number; iid: number };
    let noteId: number;
    /** root's `thumbsup` on the issue and on the note (set by the first test). */
    let issueAwardId: number;
    let noteAwardId: number;

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect);
      root = new Gitlab({ host: f.url, token: f.rootToken });
      rootId = (await root.Users.showCurrentUser()).id;
      const project = await root.Projects.create({ name: 'Work Items', path: 'work-items', visibility: 'public', initializeWithReadme: true });
      assert.equal(project.visibility, 'public');
      projectId = project.id;

      const created = await root.Users.create({ username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'correct-horse-battery', skipConfirmation: true });
      bobId = created.id;
      const pat = await root.Users.createPersonalAccessToken(bobId, 'work-items', ['api']);
      const member = await root.ProjectMembers.add(projectId, 30, { userId: bobId });
      assert.equal(member.access_level, 30);
      bob = new Gitlab({ host: f.url, token: pat.token! });

      const i = await root.Issues.create(projectId, 'Reactions and state events', { description: 'made by gitbeaker' });
      assert.equal(i.state, 'opened');
      issue = { id: i.id, iid: i.iid };
      const note = await root.IssueNotes.create(projectId, issue.iid, 'a note to react to');
      assert.equal(note.body, 'a note to react to');
      assert.equal(note.noteable_iid, issue.iid);
      noteId = note.id;
      console.log(`[${dialect}] gitbeaker work-items setup (server, project, member, issue, note): ${Math.round(performance.now() - t0)} ms`);
    });
    after(() => f?.stop());

    it('awards thumbsup on the issue (IssueAwardEmojis) and on its note (IssueNoteAwardEmojis), and lists both', async () => {
      const onIssue = await root.IssueAwardEmojis.award(projectId, issue.iid, 'thumbsup');
      assert.equal(onIssue.name, 'thumbsup');
      assert.equal(onIssue.awardable_type, 'Issue');
      assert.equal(onIssue.awardable_id, issue.id);
      assert.equal(onIssue.user.id, rootId);
      issueAwardId = onIssue.id;

      const onNote = await root.IssueNoteAwardEmojis.award(projectId, issue.iid, noteId, 'thumbsup');
      assert.equal(onNote.name, 'thumbsup');
      assert.equal(onNote.awardable_type, 'Note');
      assert.equal(onNote.awardable_id, noteId);
      assert.equal(onNote.user.id, rootId);
      noteAwardId = onNote.id;
      assert.notEqual(noteAwardId, issueAwardId);

      const issueList = await root.IssueAwardEmojis.all(projectId, issue.iid);
      assert.deepEqual(
        issueList.map((a) => [a.id, a.name, a.awardable_type, a.awardable_id, a.user.username]),
        [[issueAwardId, 'thumbsup', 'Issue', issue.id, 'root']],
      );
      const noteList = await root.IssueNoteAwardEmojis.all(projectId, issue.iid, noteId);
      assert.deepEqual(
        noteList.map((a) => [a.id, a.name, a.awardable_type, a.awardable_id, a.user.username]),
        [[noteAwardId, 'thumbsup', 'Note', noteId, 'root']],
      );
      const shown = await root.IssueNoteAwardEmojis.show(projectId, issue.iid, noteId, noteAwardId);
      assert.equal(shown.id, noteAwardId);
    });

    it('refuses a second identical award and an unknown emoji name as GitLab does (404 + message)', async () => {
      const again = await gitbeakerFailure(root.IssueAwardEmojis.award(projectId, issue.iid, 'thumbsup'));
      assert.deepEqual(again, { status: 404, message: '404 Award Emoji Name has already been taken Not Found' });
      const againOnNote = await gitbeakerFailure(root.IssueNoteAwardEmojis.award(projectId, issue.iid, noteId, 'thumbsup'));
      assert.deepEqual(againOnNote, { status: 404, message: '404 Award Emoji Name has already been taken Not Found' });
      const unknown = await gitbeakerFailure(root.IssueAwardEmojis.award(projectId, issue.iid, 'not_an_emoji_xyz'));
      assert.deepEqual(unknown, { status: 404, message: '404 Award Emoji Name is not a valid emoji name Not Found' });
      // Nothing was added by the refused calls.
      assert.deepEqual(ids(await root.IssueAwardEmojis.all(projectId, issue.iid)), [issueAwardId]);
      assert.deepEqual(ids(await root.IssueNoteAwardEmojis.all(projectId, issue.iid, noteId)), [noteAwardId]);
    });

    it('closes (root) and reopens (bob) the issue with Issues.edit stateEvent; IssueStateEvents reads closed then reopened', async () => {
      assert.deepEqual(await root.IssueStateEvents.all(projectId, issue.iid), [], 'a never-closed issue lists no state events');
      const closed = await root.Issues.edit(projectId, issue.iid, { stateEvent: 'close' });
      assert.equal(closed.state, 'closed');
      const reopened = await bob.Issues.edit(projectId, issue.iid, { stateEvent: 'reopen' });
      assert.equal(reopened.state, 'opened');

      const events = await root.IssueStateEvents.all(projectId, issue.iid);
      assert.deepEqual(
        events.map((e) => [e.state, e.resource_type, e.resource_id, e.user.id, e.user.username]),
        [
          ['closed', 'Issue', issue.id, rootId, 'root'],
          ['reopened', 'Issue', issue.id, bobId, 'bob'],
        ],
      );
      assert.ok(events[0].id < events[1].id, 'oldest first');
      assert.ok(Date.parse(String(events[0].created_at)) <= Date.parse(String(events[1].created_at)));
      const one = await bob.IssueStateEvents.show(projectId, issue.iid, events[1].id);
      assert.deepEqual(one, events[1]);
    });

    it("a member cannot delete another user's reaction (401, it stays); its author deletes it (204)", async () => {
      // bob's own thumbsup is not a duplicate of root's: uniqueness is per user.
      const bobs = await bob.IssueAwardEmojis.award(projectId, issue.iid, 'thumbsup');
      assert.equal(bobs.user.id, bobId);

      const onIssue = await gitbeakerFailure(bob.IssueAwardEmojis.remove(projectId, issue.iid, issueAwardId));
      assert.equal(onIssue.status, 401, onIssue.message);
      assert.equal(onIssue.message, '401 Unauthorized');
      const onNote = await gitbeakerFailure(bob.IssueNoteAwardEmojis.remove(projectId, issue.iid, noteId, noteAwardId));
      assert.equal(onNote.status, 401, onNote.message);
      // Both reactions still exist.
      assert.equal((await root.IssueAwardEmojis.show(projectId, issue.iid, issueAwardId)).user.id, rootId);
      assert.equal((await root.IssueNoteAwardEmojis.show(projectId, issue.iid, noteId, noteAwardId)).user.id, rootId);

      const removed = await root.IssueAwardEmojis.remove(projectId, issue.iid, issueAwardId, { showExpanded: true });
      assert.equal(removed.status, 204);
      const removedNote = await root.IssueNoteAwardEmojis.remove(projectId, issue.iid, noteId, noteAwardId, { showExpanded: true });
      assert.equal(removedNote.status, 204);
      const gone = await gitbeakerFailure(root.IssueAwardEmojis.show(projectId, issue.iid, issueAwardId));
      assert.equal(gone.status, 404);
      assert.deepEqual(ids(await root.IssueAwardEmojis.all(projectId, issue.iid)), [bobs.id]);
      assert.deepEqual(await root.IssueNoteAwardEmojis.all(projectId, issue.iid, noteId), []);
    });

    it('merge request: create (feature → main), award tada, merge, MergeRequestStateEvents reads merged', async () => {
      // A merge needs both branches: the README gave `main`; a commit through the API gives `feature`.
      const commit = await root.Commits.create(projectId, 'feature', 'Add the feature', [{ action: 'create', filePath: 'feature.txt', content: 'on\n' }], { startBranch: 'main' });
      const mr = await root.MergeRequests.create(projectId, 'feature', 'main', 'Add the feature');
      assert.equal(mr.sha, commit.id);
      assert.equal(mr.state, 'opened');
      assert.equal(mr.source_branch, 'feature');
      assert.equal(mr.target_branch, 'main');

      const tada = await root.MergeRequestAwardEmojis.award(projectId, mr.iid, 'tada');
      assert.equal(tada.name, 'tada');
      assert.equal(tada.awardable_type, 'MergeRequest');
      assert.equal(tada.awardable_id, mr.id);
      assert.deepEqual(ids(await root.MergeRequestAwardEmojis.all(projectId, mr.iid)), [tada.id]);

      assert.deepEqual(await root.MergeRequestStateEvents.all(projectId, mr.iid), []);
      const merged = await root.MergeRequests.merge(projectId, mr.iid);
      assert.equal(merged.state, 'merged');
      assert.ok(merged.merged_at, 'merged_at is set');
      assert.match(String(merged.merge_commit_sha), /^[0-9a-f]{40}$/);

      const events = await root.MergeRequestStateEvents.all(projectId, mr.iid);
      assert.deepEqual(
        events.map((e) => [e.state, e.resource_type, e.resource_id, e.user.id]),
        [['merged', 'MergeRequest', mr.id, rootId]],
      );
      assert.deepEqual(await root.MergeRequestStateEvents.show(projectId, mr.iid, events[0].id), events[0]);
    });
  });
}

function ids(list: { id: number }[]): number[] {
  return list.map((x) => x.id);
}
