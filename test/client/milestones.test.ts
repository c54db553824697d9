import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { GroupMilestones } from '../../packages/client/src/resources/group-milestones.js';
import { ProjectMilestones } from '../../packages/client/src/resources/project-milestones.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client milestones`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let groupMilestones: GroupMilestones;
    let projectMilestones: ProjectMilestones;
    let group: { id: number; full_path: string };
    let sub: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      groupMilestones = new GroupMilestones(api.requester);
      projectMilestones = new ProjectMilestones(api.requester);
      group = await api.groups.create({ name: 'Plan', path: 'plan' });
      sub = await api.groups.create({ name: 'Team', path: 'team', parent_id: group.id });
      project = await api.projects.create({ name: 'Web', namespace_id: sub.id });
    });
    after(() => f.stop());

    it('group milestones: create, show, edit (close, activate), all with filters, remove', async () => {
      const a = await groupMilestones.create(group.full_path, 'Sprint alpha', { description: 'first', start_date: '2024-06-01', due_date: '2024-06-14' });
      assert.deepEqual(a, {
        id: a.id,
        iid: 1,
        group_id: group.id,
        title: 'Sprint alpha',
        description: 'first',
        state: 'active',
        created_at: NOW,
        updated_at: NOW,
        due_date: '2024-06-14',
        start_date: '2024-06-01',
        expired: true,
        web_url: `${f.url}/groups/plan/-/milestones/1`,
      });
      const b = await groupMilestones.create(group.id, 'Sprint beta', { start_date: '2024-06-15', due_date: '2024-06-28' });
      assert.deepEqual(await groupMilestones.show(group.full_path, a.id), a);
      const closed = await groupMilestones.edit(group.id, b.id, { state_event: 'close', description: 'done' });
      assert.deepEqual([closed.state, closed.description], ['closed', 'done']);
      assert.equal((await groupMilestones.edit(group.id, b.id, { state_event: 'activate' })).state, 'active');

      assert.deepEqual((await groupMilestones.all(group.id).toArray()).map((m) => m.title), ['Sprint alpha', 'Sprint beta']);
      assert.deepEqual((await groupMilestones.all(group.id, { containing_date: '2024-06-20' }).toArray()).map((m) => m.title), ['Sprint beta']);
      assert.deepEqual((await groupMilestones.all(group.id, { search_title: 'sprint beta' }).toArray()).map((m) => m.title), ['Sprint beta']);
      assert.deepEqual((await groupMilestones.all(group.id, { iids: [1] }).toArray()).map((m) => m.title), ['Sprint alpha']);
      assert.deepEqual((await groupMilestones.all(group.id, { updated_after: new Date('2024-01-01T00:00:00Z') }).toArray()).length, 2);
      const kid = await groupMilestones.create(sub.full_path, 'Kid');
      assert.deepEqual((await groupMilestones.all(sub.id, { include_ancestors: true }).toArray()).map((m) => m.title), ['Sprint alpha', 'Sprint beta', 'Kid']);
      assert.deepEqual((await groupMilestones.all(group.id, { include_descendants: true, state: 'active' }).toArray()).map((m) => m.title), [
        'Sprint alpha', 'Sprint beta', 'Kid',
      ]);

      const err = await apiError(groupMilestones.create(group.id, 'sprint ALPHA'));
      assert.equal(err.status, 400);
      assert.deepEqual(err.body, { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' });
      await groupMilestones.remove(sub.id, kid.id);
      const gone = await apiError(groupMilestones.show(sub.id, kid.id));
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Not found' }]);
    });

    it('list requests carry brackets for iids and every filter (as gitbeaker sends them)', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = new GroupMilestones(clientFor(f, { fetch }).requester);
      await recorded.all(group.id, { iids: [1, 2], state: 'active', include_ancestors: true, search_title: 'a b', containing_date: '2024-01-01' }).toArray();
      assert.equal(
        sent[0]!.url,
        `${f.url}/api/v4/groups/${group.id}/milestones?iids%5B%5D=1&iids%5B%5D=2&state=active&include_ancestors=true&search_title=a%20b&containing_date=2024-01-01`,
      );
    });

    it('project milestones, issues and merge requests of a milestone, burndown events', async () => {
      const m = await projectMilestones.create(project.path_with_namespace, 'Web 1.0', { start_date: '2024-06-01', due_date: '2024-06-30' });
      assert.deepEqual([m.project_id, m.group_id, m.web_url], [project.id, undefined, `${f.url}/plan/team/web/-/milestones/1`]);
      assert.deepEqual(await projectMilestones.show(project.id, m.id), m);
      assert.equal((await projectMilestones.edit(project.id, m.id, { title: 'Web 1.0.0' })).title, 'Web 1.0.0');
      assert.deepEqual((await projectMilestones.all(project.id, { include_ancestors: true }).toArray()).map((x) => x.title), [
        'Sprint alpha', 'Sprint beta', 'Web 1.0.0',
      ]);

      const issue = await api.requester.post<{ iid: number; milestone: { id: number } | null }>(`projects/${project.id}/issues`, { title: 'Ship', milestone_id: m.id, weight: 2 });
      assert.equal(issue.milestone?.id, m.id);
      const mr = await api.requester.post<{ iid: number; milestone: { id: number } | null }>(`projects/${project.id}/merge_requests`, {
        title: 'Ship it', source_branch: 'ship', target_branch: 'main', milestone_id: m.id,
      });
      assert.equal(mr.milestone?.id, m.id);
      assert.deepEqual((await projectMilestones.allAssignedIssues(project.path_with_namespace, m.id).toArray()).map((i) => i.iid), [issue.iid]);
      assert.deepEqual((await projectMilestones.allAssignedMergeRequests(project.id, m.id).toArray()).map((x) => x.iid), [mr.iid]);
      assert.deepEqual(await projectMilestones.allBurndownChartEvents(project.id, m.id), [{ created_at: NOW, weight: 2, action: 'created' }]);

      const [alpha] = await groupMilestones.all(group.id, { title: 'Sprint alpha' }).toArray();
      assert.deepEqual(await groupMilestones.allAssignedIssues(group.id, alpha!.id).toArray(), []);
      assert.deepEqual(await groupMilestones.allAssignedMergeRequests(group.id, alpha!.id).toArray(), []);
      assert.deepEqual(await groupMilestones.allBurndownChartEvents(group.id, alpha!.id), []);

      await projectMilestones.remove(project.id, m.id);
      const err = await apiError(projectMilestones.show(project.id, m.id));
      assert.equal(err.status, 404);
    });
  });
}
