/**
 * The fields GitLab computes, read through the typed client (issues 30, 22): a project's
 * open_issues_count and readme_url; a merge request's task_completion_status, changes_count,
 * diff_refs, head_pipeline and first_deployed_to_production_at.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet, ProjectEntity } from '@forgelet/client';
import { MergeRequests } from '../../packages/client/src/resources/merge-requests.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client reads the fields GitLab computes`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let mergeRequests: MergeRequests;
    let project: ProjectEntity;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      mergeRequests = new MergeRequests(api.requester);
      const group = await api.groups.create({ name: 'Computed', path: 'computed' });
      project = await api.projects.create({ name: 'Site', namespace_id: group.id });
    });
    after(() => f.stop());

    it('projects.show: open_issues_count and readme_url', async () => {
      assert.deepEqual([project.open_issues_count, project.readme_url], [0, null]);
      await commitFiles(f, project.id, 'main', { 'README.md': '# Site\n', '.gitlab-ci.yml': 'build:\n  script: echo ok\n' });
      await api.issues.create(project.id, { title: 'one' });
      await api.issues.create(project.id, { title: 'two' });
      await api.issues.create(project.id, { title: 'secret', confidential: true });
      const shown = await api.projects.show('computed/site');
      assert.equal(shown.open_issues_count, 2);
      assert.equal(shown.readme_url, `${shown.web_url}/-/blob/main/README.md`);
      const listed = await api.projects.all({ search: 'Site' }).toArray();
      assert.deepEqual(listed.map((p) => [p.open_issues_count, p.readme_url]), [[2, shown.readme_url]]);
    });

    it('mergeRequests.show: task_completion_status, changes_count, diff_refs, head_pipeline, first_deployed_to_production_at', async () => {
      const head = await commitFiles(f, project.id, 'feature', { 'page.html': '<p>hi</p>\n' }, { startBranch: 'main' });
      const mr = await mergeRequests.create(project.id, { source_branch: 'feature', target_branch: 'main', title: 'Page', description: '- [x] draft\n- [ ] review\n' });
      const pipeline = await api.pipelines.create(project.id, 'feature');
      const shown = await mergeRequests.show(project.id, mr.iid);
      assert.deepEqual(shown.task_completion_status, { count: 2, completed_count: 1 });
      assert.equal(shown.changes_count, '1');
      assert.equal(shown.diff_refs.head_sha, head);
      assert.equal(shown.head_pipeline?.id, pipeline.id);
      assert.equal(shown.head_pipeline?.sha, head);
      const merged = await mergeRequests.merge(project.id, mr.iid);
      await api.deployments.create(project.id, { environment: 'production', ref: 'main', sha: merged.merge_commit_sha!, tag: false, status: 'success' });
      const deployed = await mergeRequests.show(project.id, mr.iid);
      assert.match(deployed.first_deployed_to_production_at ?? '', /^\d{4}-\d\d-\d\dT/);
    });
  });
}
