/**
 * Emoji events (GitLab's Gitlab::DataBuilder::Emoji, sent by AwardEmojis::AddService and
 * DestroyService): an Emoji Hook to the project's hooks (and its groups') with `emoji_events`
 * when a reaction is added or removed on an issue, a merge request, a snippet or a comment;
 * nothing queued for hooks with the switch off, nor for a refused award; the test trigger
 * sends GitLab's sample (a thumbsup on the project's last note).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import type { TestForgelet } from '../support/server.js';
import { createProject, expectStatus, uniq } from './http.js';
import { useWebhookProject, type HookReceiver, type WebhookProject } from './webhooks-support.js';

const NOW = '2026-03-02T10:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: emoji webhook events`, () => {
    const world = useWebhookProject(dialect, 'emoji', NOW);
    let f: TestForgelet;
    let rx: HookReceiver;
    let group: any;
    let project: any;
    let dev: WebhookProject['dev'];
    before(() => ({ f, rx, group, project, dev } = world));
    const runDue = () => f.forge.deps.queue.runDue();


    it('sends award and revoke on an issue with GitLab payload; hooks with emoji_events off get nothing queued', async () => {
      const off = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/off`, issues_events: true, push_events: false } })).body;
      const issue = (await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'React to me' } })).body;
      await runDue();
      rx.deliveries.length = 0;
      const award = await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: dev.token, body: { name: 'thumbsup' } });
      expectStatus(award, 201);
      assert.equal(await runDue(), 0, 'a hook without emoji_events has nothing queued');
      assert.equal(rx.deliveries.length, 0);

      const on = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/emoji`, emoji_events: true, push_events: false, token: 'emoji-secret' } })).body;
      const heart = (await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: dev.token, body: { name: 'heart' } })).body;
      assert.equal(await runDue(), 1);
      const d = rx.deliveries.at(-1)!;
      assert.equal(d.path, '/emoji');
      assert.equal(d.headers['x-gitlab-event'], 'Emoji Hook');
      assert.equal(d.headers['x-gitlab-token'], 'emoji-secret');
      assert.deepEqual(Object.keys(d.body), ['object_kind', 'event_type', 'user', 'project_id', 'project', 'object_attributes', 'issue']);
      assert.equal(d.body.object_kind, 'emoji');
      assert.equal(d.body.event_type, 'award');
      assert.deepEqual(d.body.user, { id: dev.id, name: dev.username, username: dev.username, avatar_url: null, email: '[REDACTED]' });
      assert.equal(d.body.project_id, project.id);
      assert.equal(d.body.project.id, project.id);
      assert.equal(d.body.project.path_with_namespace, project.path_with_namespace);
      assert.equal(d.body.project.web_url, project.web_url);
      assert.deepEqual(d.body.object_attributes, {
        user_id: dev.id,
        created_at: NOW,
        id: heart.id,
        name: 'heart',
        awardable_type: 'Issue',
        awardable_id: issue.id,
        updated_at: NOW,
        action: 'award',
        awarded_on_url: issue.web_url,
      });
      assert.equal(d.body.issue.id, issue.id);
      assert.equal(d.body.issue.iid, issue.iid);
      assert.equal(d.body.issue.title, 'React to me');
      assert.equal(d.body.issue.url, issue.web_url);
      assert.equal(d.body.issue.state, 'opened');

      // A refused award (the same name twice) rolls back: nothing is queued.
      const twice = await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: dev.token, body: { name: 'heart' } });
      expectStatus(twice, 404);
      assert.equal(await runDue(), 0);

      // Removal: revoke, by whoever removed it (an admin here), with the reaction as it was.
      expectStatus(await f.api('DELETE', `/projects/${project.id}/issues/${issue.iid}/award_emoji/${heart.id}`), 204);
      assert.equal(await runDue(), 1);
      const revoked = rx.deliveries.at(-1)!.body;
      assert.equal(revoked.event_type, 'revoke');
      assert.equal(revoked.user.id, 1);
      assert.equal(revoked.object_attributes.action, 'revoke');
      assert.equal(revoked.object_attributes.id, heart.id);
      assert.equal(revoked.object_attributes.user_id, dev.id);

      // The switch turned off: nothing more is queued.
      expectStatus(await f.api('PUT', `/projects/${project.id}/hooks/${on.id}`, { body: { emoji_events: false } }), 200);
      await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: dev.token, body: { name: 'tada' } });
      assert.equal(await runDue(), 0);
      for (const hook of [on, off]) expectStatus(await f.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);
    });

    it('sends reactions on a comment (note and its merge request), on a snippet (project_snippet), and to group hooks', async () => {
      const hook = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/emoji`, emoji_events: true, push_events: false } })).body;
      const branch = uniq('feature-');
      await commitFiles(f, project.id, branch, { 'x.txt': 'x\n' }, { startBranch: 'main' });
      const mr = (await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: 'Review me' } })).body;
      const note = (await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: dev.token, body: { body: 'Nice' } })).body;
      await runDue();
      rx.deliveries.length = 0;
      const award = (await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes/${note.id}/award_emoji`, { body: { name: 'thumbsup' } })).body;
      assert.equal(await runDue(), 1);
      const onNote = rx.deliveries.at(-1)!.body;
      assert.deepEqual(Object.keys(onNote), ['object_kind', 'event_type', 'user', 'project_id', 'project', 'object_attributes', 'note', 'merge_request']);
      assert.equal(onNote.object_attributes.awardable_type, 'Note');
      assert.equal(onNote.object_attributes.awardable_id, note.id);
      assert.equal(onNote.object_attributes.id, award.id);
      assert.equal(onNote.object_attributes.awarded_on_url, `${mr.web_url}#note_${note.id}`);
      assert.equal(onNote.note.id, note.id);
      assert.equal(onNote.note.note, 'Nice');
      assert.equal(onNote.note.noteable_type, 'MergeRequest');
      assert.equal(onNote.note.url, `${mr.web_url}#note_${note.id}`);
      assert.equal(onNote.note.action, undefined, 'the note is its hook attributes, without an action');
      assert.equal(onNote.merge_request.iid, mr.iid);
      assert.equal(onNote.merge_request.title, 'Review me');
      assert.equal(onNote.merge_request.source_branch, branch);

      const snippet = (await f.api('POST', `/projects/${project.id}/snippets`, { body: { title: 'snip', file_name: 'a.txt', content: 'x', visibility: 'private' } })).body;
      await f.api('POST', `/projects/${project.id}/snippets/${snippet.id}/award_emoji`, { body: { name: 'eyes' } });
      assert.equal(await runDue(), 1);
      const onSnippet = rx.deliveries.at(-1)!.body;
      assert.deepEqual(Object.keys(onSnippet), ['object_kind', 'event_type', 'user', 'project_id', 'project', 'object_attributes', 'project_snippet']);
      assert.equal(onSnippet.object_attributes.awardable_type, 'Snippet');
      assert.equal(onSnippet.object_attributes.awarded_on_url, snippet.web_url);
      assert.equal(onSnippet.project_snippet.id, snippet.id);
      assert.equal(onSnippet.project_snippet.type, 'ProjectSnippet');
      expectStatus(await f.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);

      // A group hook takes its projects' reactions (Premium).
      const gh = (await f.api('POST', `/groups/${group.id}/hooks`, { body: { url: `${rx.url}/group`, emoji_events: true, push_events: false } })).body;
      await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { body: { name: 'rocket' } });
      assert.equal(await runDue(), 1);
      const viaGroup = rx.deliveries.at(-1)!;
      assert.deepEqual([viaGroup.path, viaGroup.headers['x-gitlab-event'], viaGroup.body.object_attributes.name], ['/group', 'Emoji Hook', 'rocket']);
      assert.equal(viaGroup.body.merge_request.iid, mr.iid);
      expectStatus(await f.api('DELETE', `/groups/${group.id}/hooks/${gh.id}`), 204);
    });

    it('the emoji_events test sends a thumbsup on the last note (422 without notes)', async () => {
      const bare = await createProject(f, f.rootToken, { name: uniq('bare-') });
      const bareHook = (await f.api('POST', `/projects/${bare.id}/hooks`, { body: { url: `${rx.url}/test`, emoji_events: true } })).body;
      const refused = await f.api('POST', `/projects/${bare.id}/hooks/${bareHook.id}/test/emoji_events`);
      assert.deepEqual([refused.status, refused.body], [422, { message: 'Ensure the project has notes.' }]);

      const hook = (await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/test`, emoji_events: true } })).body;
      const issue = (await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Sample' } })).body;
      const last = (await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: { body: 'the last one' } })).body;
      const test = await f.api('POST', `/projects/${project.id}/hooks/${hook.id}/test/emoji_events`);
      assert.deepEqual([test.status, test.body], [201, { message: '201 Created' }]);
      const sent = rx.deliveries.at(-1)!;
      assert.equal(sent.headers['x-gitlab-event'], 'Emoji Hook');
      assert.equal(sent.body.event_type, 'award');
      assert.deepEqual(sent.body.object_attributes, {
        user_id: 1, created_at: NOW, id: 1, name: 'thumbsup', awardable_type: 'Note', awardable_id: last.id, updated_at: NOW,
        action: 'award', awarded_on_url: `${issue.web_url}#note_${last.id}`,
      });
      assert.equal(sent.body.note.id, last.id);
      assert.equal(sent.body.issue.iid, issue.iid);
    });
  });
}
