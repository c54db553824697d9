/**
 * GraphQL issues, merge requests (with approval state), labels and milestones on the served
 * binary: every exposed field equals the REST answer for the same record, filters reach the
 * use cases, and private records stay hidden from anonymous callers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const path = (url: string) => new URL(url).pathname;

for (const dialect of DIALECTS) {
  describe(`${dialect}: GraphQL issues, merge requests, labels, milestones`, () => {
    let s: ServedForgelet;
    let bob: { id: number; username: string; token: string };
    let project: any;
    let group: any;

    const ok = async (method: string, p: string, body?: unknown, token?: string) => {
      const r = await s.api(method, p, { body, token });
      assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
      return r.body as any;
    };
    const gql = async (query: string, token?: string | null) => {
      const r = await s.api('POST', `${s.url}/api/graphql`, { token, body: { query } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
      return r.body.data;
    };

    before(async () => {
      s = await startServed(dialect);
      bob = await s.createUser('gql-bob');
      group = await ok('POST', '/groups', { name: 'Work', path: 'work', visibility: 'public' });
      project = await ok('POST', '/projects', { name: 'app', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
      await ok('POST', `/projects/${project.id}/members`, { user_id: bob.id, access_level: 30 });
      await ok('POST', `/projects/${project.id}/labels`, { name: 'bug', color: '#ff0000', description: 'Broken' });
      await ok('POST', `/groups/${group.id}/labels`, { name: 'team', color: '#00ff00' });
      const ms = await ok('POST', `/projects/${project.id}/milestones`, { title: 'v1', start_date: '2030-01-01', due_date: '2030-02-01', description: 'first' });
      await ok('POST', `/groups/${group.id}/milestones`, { title: 'G1' });
      await ok('POST', `/projects/${project.id}/issues`, { title: 'First', description: '- [x] a\n- [ ] b', labels: 'bug,team', milestone_id: ms.id, assignee_ids: [bob.id], weight: 3, due_date: '2030-01-15' });
      await ok('POST', `/projects/${project.id}/issues`, { title: 'Second', confidential: true });
      await ok('POST', `/projects/${project.id}/issues`, { title: 'Third' });
      await ok('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' });
      await ok('POST', `/projects/${project.id}/merge_requests`, { title: 'Add feature', source_branch: 'feature', target_branch: 'main', labels: 'bug', reviewer_ids: [bob.id], milestone_id: ms.id, description: 'Does it' });
      await ok('POST', `/projects/${project.id}/merge_requests/1/approve`, {}, bob.token);
    });
    after(async () => {
      await s?.stop();
    });

    it('Project.issues and issue: fields equal GET /projects/:id/issues/:iid; filters; confidential hidden from anonymous', async () => {
      const rest = await ok('GET', `/projects/${project.id}/issues/1`);
      const data = await gql(`{ project(fullPath: "work/app") { issue(iid: "1") {
        id iid title description state type confidential discussionLocked createdAt updatedAt closedAt dueDate webUrl webPath
        reference full: reference(full: true) projectId author { id username } assignees { nodes { username } } labels { nodes { title } }
        milestone { id title } userNotesCount mergeRequestsCount upvotes downvotes weight severity subscribed
        timeEstimate totalTimeSpent humanTimeEstimate humanTotalTimeSpent taskCompletionStatus { count completedCount } } } }`);
      assert.deepEqual(data.project.issue, {
        id: `gid://gitlab/Issue/${rest.id}`,
        iid: String(rest.iid),
        title: rest.title,
        description: rest.description,
        state: rest.state,
        type: rest.type,
        confidential: rest.confidential,
        discussionLocked: rest.discussion_locked,
        createdAt: rest.created_at,
        updatedAt: rest.updated_at,
        closedAt: rest.closed_at,
        dueDate: rest.due_date,
        webUrl: rest.web_url,
        webPath: path(rest.web_url),
        reference: rest.references.short,
        full: rest.references.full,
        projectId: rest.project_id,
        author: { id: `gid://gitlab/User/${rest.author.id}`, username: rest.author.username },
        assignees: { nodes: rest.assignees.map((a: any) => ({ username: a.username })) },
        labels: { nodes: rest.labels.map((t: string) => ({ title: t })) },
        milestone: { id: `gid://gitlab/Milestone/${rest.milestone.id}`, title: rest.milestone.title },
        userNotesCount: rest.user_notes_count,
        mergeRequestsCount: rest.merge_requests_count,
        upvotes: rest.upvotes,
        downvotes: rest.downvotes,
        weight: rest.weight,
        severity: rest.severity,
        subscribed: rest.subscribed,
        timeEstimate: rest.time_stats.time_estimate,
        totalTimeSpent: rest.time_stats.total_time_spent,
        humanTimeEstimate: rest.time_stats.human_time_estimate,
        humanTotalTimeSpent: rest.time_stats.human_total_time_spent,
        taskCompletionStatus: { count: rest.task_completion_status.count, completedCount: rest.task_completion_status.completed_count },
      });
      const restList = await ok('GET', `/projects/${project.id}/issues`);
      const all = await gql('{ project(fullPath: "work/app") { issues { count nodes { iid } } } }');
      assert.deepEqual(all.project.issues.nodes.map((n: any) => Number(n.iid)), restList.map((i: any) => i.iid));
      assert.equal(all.project.issues.count, 3);
      const anon = await gql('{ project(fullPath: "work/app") { issues { nodes { title } } } }', null);
      assert.deepEqual(anon.project.issues.nodes.map((n: any) => n.title).sort(), ['First', 'Third']);
      const filtered = await gql('{ project(fullPath: "work/app") { byLabel: issues(labelName: ["bug"]) { nodes { iid } } bySearch: issues(search: "Third") { nodes { iid } } byIid: issues(iid: "2") { nodes { title } } } }');
      assert.deepEqual(filtered.project, { byLabel: { nodes: [{ iid: '1' }] }, bySearch: { nodes: [{ iid: '3' }] }, byIid: { nodes: [{ title: 'Second' }] } });
      const groupIssues = await gql('{ group(fullPath: "work") { issues(first: 2) { nodes { iid } pageInfo { hasNextPage } } } }');
      assert.deepEqual(groupIssues.group.issues, { nodes: restList.slice(0, 2).map((i: any) => ({ iid: String(i.iid) })), pageInfo: { hasNextPage: true } });
      assert.equal((await gql('{ project(fullPath: "work/app") { issue(iid: "99") { id } } }')).project.issue, null);
    });

    it('Project.mergeRequest: fields and approval state equal the REST answers', async () => {
      // Mergeability first settles (a read makes it `checking` and queues the check, which the
      // served process may run at any moment): both answers are read after it has run.
      await ok('GET', `/projects/${project.id}/merge_requests/1`);
      await s.runDue();
      const rest = await ok('GET', `/projects/${project.id}/merge_requests/1`);
      assert.notEqual(rest.detailed_merge_status, 'checking');
      const approvals = await ok('GET', `/projects/${project.id}/merge_requests/1/approvals`);
      const data = await gql(`{ project(fullPath: "work/app") { mergeRequest(iid: "1") {
        id iid title description state draft createdAt updatedAt mergedAt closedAt sourceBranch targetBranch sourceProjectId targetProjectId projectId
        webUrl webPath reference full: reference(full: true) author { username } mergeUser { username } assignees { nodes { username } } reviewers { nodes { username } }
        labels { nodes { title color } } milestone { title } userNotesCount upvotes downvotes diffHeadSha mergeCommitSha squashCommitSha squash squashOnMerge
        shouldRemoveSourceBranch forceRemoveSourceBranch discussionLocked conflicts mergeWhenPipelineSucceeds mergeStatusEnum detailedMergeStatus
        timeEstimate totalTimeSpent taskCompletionStatus { count completedCount }
        approved approvalsRequired approvalsLeft approvedBy { nodes { username } } } } }`);
      const bug = (await ok('GET', `/projects/${project.id}/labels/bug`)) as any;
      assert.deepEqual(data.project.mergeRequest, {
        id: `gid://gitlab/MergeRequest/${rest.id}`,
        iid: String(rest.iid),
        title: rest.title,
        description: rest.description,
        state: rest.state,
        draft: rest.draft,
        createdAt: rest.created_at,
        updatedAt: rest.updated_at,
        mergedAt: rest.merged_at,
        closedAt: rest.closed_at,
        sourceBranch: rest.source_branch,
        targetBranch: rest.target_branch,
        sourceProjectId: rest.source_project_id,
        targetProjectId: rest.target_project_id,
        projectId: rest.project_id,
        webUrl: rest.web_url,
        webPath: path(rest.web_url),
        reference: rest.references.short,
        full: rest.references.full,
        author: { username: rest.author.username },
        mergeUser: rest.merge_user,
        assignees: { nodes: rest.assignees.map((a: any) => ({ username: a.username })) },
        reviewers: { nodes: rest.reviewers.map((a: any) => ({ username: a.username })) },
        labels: { nodes: [{ title: 'bug', color: bug.color }] },
        milestone: { title: rest.milestone.title },
        userNotesCount: rest.user_notes_count,
        upvotes: rest.upvotes,
        downvotes: rest.downvotes,
        diffHeadSha: rest.sha,
        mergeCommitSha: rest.merge_commit_sha,
        squashCommitSha: rest.squash_commit_sha,
        squash: rest.squash,
        squashOnMerge: rest.squash_on_merge,
        shouldRemoveSourceBranch: rest.should_remove_source_branch,
        forceRemoveSourceBranch: rest.force_remove_source_branch,
        discussionLocked: rest.discussion_locked,
        conflicts: rest.has_conflicts,
        mergeWhenPipelineSucceeds: rest.merge_when_pipeline_succeeds,
        mergeStatusEnum: rest.merge_status.toUpperCase(),
        detailedMergeStatus: rest.detailed_merge_status.toUpperCase(),
        timeEstimate: rest.time_stats.time_estimate,
        totalTimeSpent: rest.time_stats.total_time_spent,
        taskCompletionStatus: { count: rest.task_completion_status.count, completedCount: rest.task_completion_status.completed_count },
        approved: approvals.approved,
        approvalsRequired: approvals.approvals_required,
        approvalsLeft: approvals.approvals_left,
        approvedBy: { nodes: approvals.approved_by.map((a: any) => ({ username: a.user.username })) },
      });
      assert.deepEqual(data.project.mergeRequest.approvedBy.nodes, [{ username: 'gql-bob' }]);
      const list = await gql('{ project(fullPath: "work/app") { mergeRequests(state: opened) { nodes { iid } } none: mergeRequests(labels: ["nope"]) { nodes { iid } } } group(fullPath: "work") { mergeRequests { nodes { title } } } }');
      assert.deepEqual(list, { project: { mergeRequests: { nodes: [{ iid: '1' }] }, none: { nodes: [] } }, group: { mergeRequests: { nodes: [{ title: 'Add feature' }] } } });
    });

    it('labels and milestones of projects and groups equal the REST lists', async () => {
      const restLabels = await ok('GET', `/projects/${project.id}/labels?include_ancestor_groups=true`);
      const data = await gql(`{ project(fullPath: "work/app") {
        labels(includeAncestorGroups: true) { nodes { id title description descriptionHtml color textColor archived } }
        label(title: "bug") { title } milestones { nodes { id iid title description state createdAt updatedAt dueDate startDate expired webPath projectMilestone groupMilestone } } }
        group(fullPath: "work") { labels { nodes { title } } label(title: "team") { id } milestones { nodes { title groupMilestone } } } }`);
      assert.deepEqual(
        data.project.labels.nodes,
        restLabels.map((l: any) => ({
          id: `gid://gitlab/${l.is_project_label ? 'ProjectLabel' : 'GroupLabel'}/${l.id}`,
          title: l.name,
          description: l.description,
          descriptionHtml: l.description_html,
          color: l.color,
          textColor: l.text_color,
          archived: l.archived,
        })),
      );
      assert.deepEqual(data.project.label, { title: 'bug' });
      const restMs = await ok('GET', `/projects/${project.id}/milestones`);
      assert.deepEqual(
        data.project.milestones.nodes,
        restMs.map((m: any) => ({
          id: `gid://gitlab/Milestone/${m.id}`,
          iid: String(m.iid),
          title: m.title,
          description: m.description,
          state: m.state,
          createdAt: m.created_at,
          updatedAt: m.updated_at,
          dueDate: m.due_date,
          startDate: m.start_date,
          expired: m.expired,
          webPath: path(m.web_url),
          projectMilestone: true,
          groupMilestone: false,
        })),
      );
      const restGroupLabel = await ok('GET', `/groups/${group.id}/labels/team`);
      assert.deepEqual(data.group, { labels: { nodes: [{ title: 'team' }] }, label: { id: `gid://gitlab/GroupLabel/${restGroupLabel.id}` }, milestones: { nodes: [{ title: 'G1', groupMilestone: true }] } });
    });
  });
}
