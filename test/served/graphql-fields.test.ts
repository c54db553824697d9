/**
 * GraphQL fields added to existing types, on the served binary: `userPermissions` on Project,
 * Issue and MergeRequest (each answer matches what REST then lets the caller do), `notes` and
 * `awardEmoji` on Issue and MergeRequest, MergeRequest `approvalState`, `pipelines` and
 * `headPipeline`, Group `descendantGroups`; each against the REST answer for the same records.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const CI_YAML = 'build:\n  script: make\n';
const FULL = 'fields/app';

for (const dialect of DIALECTS) {
  describe(`${dialect}: GraphQL userPermissions, notes, award emoji, approval state, MR pipelines, descendant groups`, () => {
    let s: ServedForgelet;
    let dev: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    let projectId: number;
    let groupId: number;

    const ok = async (method: string, p: string, body?: unknown, token?: string | null) => {
      const r = await s.api(method, p, { body, ...(token !== undefined && { token }) });
      assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
      return r.body as any;
    };
    const gql = async (query: string, variables?: unknown, token?: string | null) => {
      const r = await s.api('POST', `${s.url}/api/graphql`, { body: { query, variables }, ...(token !== undefined && { token }) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
      return r.body.data as any;
    };

    before(async () => {
      s = await startServed(dialect, { tier: 'ultimate' });
      dev = await s.createUser('gqlf-dev');
      stranger = await s.createUser('gqlf-stranger');
      const group = await ok('POST', '/groups', { name: 'Fields', path: 'fields', visibility: 'public' });
      groupId = group.id;
      const sub = await ok('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'public' });
      await ok('POST', '/groups', { name: 'Deep', path: 'deep', parent_id: sub.id, visibility: 'public' });
      await ok('POST', '/groups', { name: 'Other', path: 'other', parent_id: group.id, visibility: 'public' });
      const project = await ok('POST', '/projects', { name: 'app', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
      projectId = project.id;
      await ok('POST', `/projects/${projectId}/members`, { user_id: dev.id, access_level: 30 });
      await ok('POST', `/projects/${projectId}/members`, { user_id: stranger.id, access_level: 10 });
      await ok('POST', `/projects/${projectId}/approval_rules`, { name: 'Team', approvals_required: 1, user_ids: [dev.id] });
      await ok('POST', `/projects/${projectId}/repository/branches`, { branch: 'feature', ref: 'main' });
      await ok('POST', `/projects/${projectId}/repository/commits`, { branch: 'feature', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI_YAML }] });
      await ok('POST', `/projects/${projectId}/repository/commits`, { branch: 'feature', commit_message: 'more', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] });
      await ok('POST', `/projects/${projectId}/merge_requests`, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
      await ok('POST', `/projects/${projectId}/merge_requests/1/approve`, {}, dev.token);
      await ok('POST', `/projects/${projectId}/issues`, { title: 'By a stranger' }, stranger.token);
      for (const body of ['first', 'second', 'third']) await ok('POST', `/projects/${projectId}/issues/1/notes`, { body });
      await ok('PUT', `/projects/${projectId}/issues/1`, { state_event: 'close' });
      await ok('POST', `/projects/${projectId}/merge_requests/1/notes`, { body: 'looks good' }, dev.token);
      await ok('POST', `/projects/${projectId}/issues/1/award_emoji`, { name: 'thumbsup' });
      await ok('POST', `/projects/${projectId}/issues/1/award_emoji`, { name: 'tada' }, dev.token);
      await ok('POST', `/projects/${projectId}/merge_requests/1/award_emoji`, { name: 'rocket' }, dev.token);
    });
    after(async () => {
      await s?.stop();
    });

    it('Project, Issue and MergeRequest userPermissions say what REST then allows', async () => {
      const Q = `{ project(fullPath: "${FULL}") { userPermissions { readProject downloadCode pushCode createIssue adminProject removeProject createPipeline readMergeRequest }
        issue(iid: "1") { userPermissions { readIssue adminIssue updateIssue reopenIssue createNote } }
        mergeRequest(iid: "1") { userPermissions { readMergeRequest adminMergeRequest updateMergeRequest createNote canMerge canApprove } } } }`;
      const asDev = (await gql(Q, undefined, dev.token)).project;
      assert.deepEqual(asDev.userPermissions, { readProject: true, downloadCode: true, pushCode: true, createIssue: true, adminProject: false, removeProject: false, createPipeline: true, readMergeRequest: true });
      assert.deepEqual(asDev.issue.userPermissions, { readIssue: true, adminIssue: true, updateIssue: true, reopenIssue: true, createNote: true });
      const mrRest = await ok('GET', `/projects/${projectId}/merge_requests/1`, undefined, dev.token);
      const approvalsRest = await ok('GET', `/projects/${projectId}/merge_requests/1/approvals`, undefined, dev.token);
      assert.deepEqual(asDev.mergeRequest.userPermissions, { readMergeRequest: true, adminMergeRequest: true, updateMergeRequest: true, createNote: true, canMerge: mrRest.user.can_merge, canApprove: approvalsRest.user_can_approve });
      assert.equal(asDev.mergeRequest.userPermissions.canMerge, true);
      // The stranger (a Guest) wrote issue 1: may update it, not administer it; REST agrees.
      const asStranger = (await gql(Q, undefined, stranger.token)).project;
      assert.deepEqual(asStranger.userPermissions, { readProject: true, downloadCode: true, pushCode: false, createIssue: true, adminProject: false, removeProject: false, createPipeline: false, readMergeRequest: true });
      assert.deepEqual(asStranger.issue.userPermissions, { readIssue: true, adminIssue: false, updateIssue: true, reopenIssue: true, createNote: true });
      assert.deepEqual(asStranger.mergeRequest.userPermissions, { readMergeRequest: true, adminMergeRequest: false, updateMergeRequest: false, createNote: true, canMerge: false, canApprove: false });
      assert.equal((await s.api('PUT', `/projects/${projectId}/issues/1`, { token: stranger.token, body: { title: 'By a stranger (edited)' } })).status, 200);
      assert.equal((await s.api('PUT', `/projects/${projectId}/merge_requests/1`, { token: stranger.token, body: { title: 'x' } })).status, 403);
      assert.equal((await s.api('PUT', `/projects/${projectId}`, { token: dev.token, body: { description: 'x' } })).status, 403);
      // An issue the stranger did not write: no update (REST 403).
      await ok('POST', `/projects/${projectId}/issues`, { title: 'By root' });
      const other = (await gql(`{ project(fullPath: "${FULL}") { issue(iid: "2") { userPermissions { updateIssue adminIssue } } } }`, undefined, stranger.token)).project.issue;
      assert.deepEqual(other.userPermissions, { updateIssue: false, adminIssue: false });
      assert.equal((await s.api('PUT', `/projects/${projectId}/issues/2`, { token: stranger.token, body: { title: 'mine now' } })).status, 403);
      const anon = (await gql(`{ project(fullPath: "${FULL}") { userPermissions { readProject createIssue pushCode } } }`, undefined, null)).project;
      assert.deepEqual(anon.userPermissions, { readProject: true, createIssue: false, pushCode: false });
    });

    it('notes and awardEmoji on Issue and MergeRequest equal the REST lists (oldest first); filters and pagination', async () => {
      const restNotes = (await ok('GET', `/projects/${projectId}/issues/1/notes?sort=asc`)) as any[];
      const data = await gql(`{ project(fullPath: "${FULL}") { issue(iid: "1") {
        notes { count nodes { id body system internal confidential resolvable createdAt updatedAt author { username } } }
        comments: notes(filter: ONLY_COMMENTS) { nodes { body } } activity: notes(filter: ONLY_ACTIVITY) { nodes { system } }
        awardEmoji { nodes { name emoji description unicode user { username } } } }
        mergeRequest(iid: "1") { notes(filter: ONLY_COMMENTS) { nodes { body author { username } } } awardEmoji { nodes { name user { username } } } } } }`);
      const issue = data.project.issue;
      assert.equal(issue.notes.count, restNotes.length);
      assert.deepEqual(issue.notes.nodes, restNotes.map((n) => ({
        id: `gid://gitlab/Note/${n.id}`, body: n.body, system: n.system, internal: n.internal, confidential: n.confidential, resolvable: n.resolvable,
        createdAt: n.created_at, updatedAt: n.updated_at, author: { username: n.author.username },
      })));
      assert.deepEqual(issue.comments.nodes.map((n: any) => n.body), ['first', 'second', 'third']);
      const restActivity = await ok('GET', `/projects/${projectId}/issues/1/notes?sort=asc&activity_filter=only_activity`);
      assert.deepEqual(issue.activity.nodes, restActivity.map((n: any) => ({ system: n.system })));
      const restAwards = await ok('GET', `/projects/${projectId}/issues/1/award_emoji`);
      assert.deepEqual(issue.awardEmoji.nodes.map((a: any) => [a.name, a.user.username]), restAwards.map((a: any) => [a.name, a.user.username]));
      assert.deepEqual(issue.awardEmoji.nodes.find((a: any) => a.name === 'thumbsup'), { name: 'thumbsup', emoji: '👍', description: 'thumbs up', unicode: '1f44d', user: { username: 'root' } });
      const mr = data.project.mergeRequest;
      assert.deepEqual(mr.notes.nodes, [{ body: 'looks good', author: { username: dev.username } }]);
      assert.deepEqual(mr.awardEmoji.nodes, (await ok('GET', `/projects/${projectId}/merge_requests/1/award_emoji`)).map((a: any) => ({ name: a.name, user: { username: a.user.username } })));
      // Two comments per page, forwards then back.
      const p1 = await gql(`{ project(fullPath: "${FULL}") { issue(iid: "1") { notes(filter: ONLY_COMMENTS, first: 2) { nodes { body } pageInfo { hasNextPage endCursor } } } } }`);
      const p2 = await gql(`query($c: String) { project(fullPath: "${FULL}") { issue(iid: "1") { notes(filter: ONLY_COMMENTS, first: 2, after: $c) { nodes { body } pageInfo { hasNextPage hasPreviousPage startCursor } } } } }`, { c: p1.project.issue.notes.pageInfo.endCursor });
      assert.deepEqual(p1.project.issue.notes.nodes.map((n: any) => n.body), ['first', 'second']);
      assert.deepEqual(p2.project.issue.notes.nodes.map((n: any) => n.body), ['third']);
      assert.deepEqual([p1.project.issue.notes.pageInfo.hasNextPage, p2.project.issue.notes.pageInfo.hasNextPage, p2.project.issue.notes.pageInfo.hasPreviousPage], [true, false, true]);
      const back = await gql(`query($c: String) { project(fullPath: "${FULL}") { issue(iid: "1") { notes(filter: ONLY_COMMENTS, last: 1, before: $c) { nodes { body } } } } }`, { c: p2.project.issue.notes.pageInfo.startCursor });
      assert.deepEqual(back.project.issue.notes.nodes.map((n: any) => n.body), ['second']);
    });

    it('MergeRequest approvalState rules, pipelines and headPipeline equal the REST answers', async () => {
      const state = await ok('GET', `/projects/${projectId}/merge_requests/1/approval_state`);
      const mrRest = await ok('GET', `/projects/${projectId}/merge_requests/1`);
      const branchPipelines = await ok('GET', `/projects/${projectId}/pipelines?ref=feature`);
      assert.equal(branchPipelines.length, 2, 'the CI file and the next commit made pipelines on the branch');
      // The merge request's own (GitLab's PipelinesForMergeRequestFinder): the branch's at its diff heads only.
      const pipelines = await ok('GET', `/projects/${projectId}/merge_requests/1/pipelines`);
      assert.deepEqual(pipelines.map((p: any) => p.sha), [mrRest.sha]);
      const data = await gql(`{ project(fullPath: "${FULL}") { mergeRequest(iid: "1") {
        approvalState { approvalRulesOverwritten rules { id name type approvalsRequired approved overridden containsHiddenGroups approvedBy { nodes { username } } eligibleApprovers { username } users { nodes { username } } } }
        pipelines { count nodes { id sha } } headPipeline { id sha } } } }`);
      const mr = data.project.mergeRequest;
      assert.deepEqual(mr.approvalState, {
        approvalRulesOverwritten: state.approval_rules_overwritten,
        rules: state.rules.map((r: any) => ({
          id: `gid://gitlab/${state.approval_rules_overwritten ? 'ApprovalMergeRequestRule' : 'ApprovalProjectRule'}/${r.id}`,
          name: r.name,
          type: r.rule_type.toUpperCase(),
          approvalsRequired: r.approvals_required,
          approved: r.approved,
          overridden: r.overridden,
          containsHiddenGroups: r.contains_hidden_groups,
          approvedBy: { nodes: r.approved_by.map((u: any) => ({ username: u.username })) },
          eligibleApprovers: r.eligible_approvers.map((u: any) => ({ username: u.username })),
          users: { nodes: r.users.map((u: any) => ({ username: u.username })) },
        })),
      });
      assert.deepEqual(mr.approvalState.rules.map((r: any) => [r.name, r.approved]), [['Team', true]]);
      assert.deepEqual(mr.pipelines, { count: pipelines.length, nodes: pipelines.map((p: any) => ({ id: `gid://gitlab/Ci::Pipeline/${p.id}`, sha: p.sha })) });
      const head = pipelines.find((p: any) => p.sha === mrRest.sha);
      assert.deepEqual(mr.headPipeline, { id: `gid://gitlab/Ci::Pipeline/${head.id}`, sha: mrRest.sha });
      // A push to the source makes a new version: both heads' pipelines, newest first (REST, the client and GraphQL).
      const next = await ok('POST', `/projects/${projectId}/repository/commits`, { branch: 'feature', commit_message: 'again', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] });
      const client = new Forgelet({ url: s.url, token: s.rootToken });
      const listed = await client.mergeRequests.pipelines(projectId, 1).toArray();
      assert.deepEqual(listed.map((p) => p.sha), [next.id, mrRest.sha]);
      const again = await gql(`{ project(fullPath: "${FULL}") { mergeRequest(iid: "1") { pipelines(first: 1) { count nodes { sha } } } } }`);
      assert.deepEqual(again.project.mergeRequest.pipelines, { count: 2, nodes: [{ sha: next.id }] });
      const bad = await s.api('GET', `/projects/${projectId}/merge_requests/abc/pipelines`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'merge_request_iid is invalid' }]);
      // Without read_pipeline (CI off for the project): none, as GitLab.
      await ok('PUT', `/projects/${projectId}`, { jobs_enabled: false });
      assert.deepEqual(await ok('GET', `/projects/${projectId}/merge_requests/1/pipelines`), []);
      await ok('PUT', `/projects/${projectId}`, { jobs_enabled: true });
    });

    it('Group.descendantGroups equals GET /groups/:id/descendant_groups (and subgroups without parent descendants); pagination', async () => {
      const restAll = (await ok('GET', `/groups/${groupId}/descendant_groups`)).map((g: any) => g.full_path);
      const restChildren = (await ok('GET', `/groups/${groupId}/subgroups`)).map((g: any) => g.full_path);
      assert.equal(restAll.length, 3);
      const data = await gql('{ group(fullPath: "fields") { all: descendantGroups { count nodes { fullPath } } children: descendantGroups(includeParentDescendants: false) { nodes { fullPath } } found: descendantGroups(search: "deep") { nodes { fullPath } } } }');
      assert.deepEqual(data.group.all.nodes.map((g: any) => g.fullPath), restAll);
      assert.equal(data.group.all.count, 3);
      assert.deepEqual(data.group.children.nodes.map((g: any) => g.fullPath), restChildren);
      assert.deepEqual(data.group.found.nodes.map((g: any) => g.fullPath), ['fields/sub/deep']);
      const p1 = await gql('{ group(fullPath: "fields") { descendantGroups(first: 2) { nodes { fullPath } pageInfo { endCursor hasNextPage } } } }');
      const p2 = await gql('query($c: String) { group(fullPath: "fields") { descendantGroups(first: 2, after: $c) { nodes { fullPath } pageInfo { hasNextPage } } } }', { c: p1.group.descendantGroups.pageInfo.endCursor });
      assert.deepEqual([...p1.group.descendantGroups.nodes, ...p2.group.descendantGroups.nodes].map((g: any) => g.fullPath), restAll);
      assert.deepEqual([p1.group.descendantGroups.pageInfo.hasNextPage, p2.group.descendantGroups.pageInfo.hasNextPage], [true, false]);
    });
  });
}
