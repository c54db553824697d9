/**
 * @gitbeaker/rest 43.8.0 writes, GraphQL reads: a release with a link, a pipeline schedule with
 * a variable, and an epic with a child made through gitbeaker's REST resources read back through
 * `/api/graphql` (gitbeaker has no GraphQL call: a plain POST with the same token, as
 * catalog-gitbeaker does), field for field against what gitbeaker's own `show`/`all` answer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gql } from './catalog-support.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitbeaker 43.8 writes, GraphQL reads (releases, schedules, epics)`, () => {
    let s: ServedForgelet;
    let api: InstanceType<typeof Gitlab>;
    let token: string;
    let projectId: number;
    let groupId: number;

    before(async () => {
      s = await startServed(dialect, { tier: 'ultimate' });
      const maintainer = await s.createUser('gb-gql');
      token = maintainer.token;
      api = new Gitlab({ host: s.url, token });
      const group = await api.Groups.create('GB group', 'gb-group', { visibility: 'private' });
      groupId = group.id as number;
      const project = await api.Projects.create({ name: 'gb-app', namespaceId: groupId, initializeWithReadme: true });
      projectId = project.id as number;
    });
    after(async () => {
      await s?.stop();
    });

    it('a release and its link made by gitbeaker read the same through Project.release', async () => {
      await api.ProjectReleases.create(projectId, { tagName: 'v1.0.0', name: 'One', ref: 'main', description: 'first' });
      const link = await api.ReleaseLinks.create(projectId, 'v1.0.0', 'Binary', 'https://example.com/bin', { linkType: 'package' });
      const shown = await api.ProjectReleases.show(projectId, 'v1.0.0');
      const data = await gql(s, token, '{ project(fullPath: "gb-group/gb-app") { release(tagName: "v1.0.0") { name tagName description releasedAt assets { links { nodes { id name url linkType } } } } } }');
      assert.deepEqual(data.project.release, {
        name: shown.name,
        tagName: shown.tag_name,
        description: shown.description,
        releasedAt: shown.released_at,
        assets: { links: { nodes: [{ id: `gid://gitlab/Releases::Link/${link.id}`, name: 'Binary', url: 'https://example.com/bin', linkType: 'PACKAGE' }] } },
      });
    });

    it('a pipeline schedule with a variable made by gitbeaker reads the same through Project.pipelineSchedules', async () => {
      const schedule = await api.PipelineSchedules.create(projectId, 'nightly', 'main', '0 3 * * *');
      await api.PipelineScheduleVariables.create(projectId, schedule.id as number, 'MODE', 'full');
      const shown = (await api.PipelineSchedules.show(projectId, schedule.id as number)) as any;
      const data = await gql(s, token, '{ project(fullPath: "gb-group/gb-app") { pipelineSchedules { nodes { id description cron nextRunAt active owner { username } variables { nodes { key value } } } } } }');
      assert.deepEqual(data.project.pipelineSchedules.nodes, [{
        id: `gid://gitlab/Ci::PipelineSchedule/${shown.id}`,
        description: shown.description,
        cron: shown.cron,
        nextRunAt: shown.next_run_at,
        active: shown.active,
        owner: { username: shown.owner.username },
        variables: { nodes: shown.variables.map((v: any) => ({ key: v.key, value: v.value })) },
      }]);
    });

    it('an epic and its child made by gitbeaker read the same through Group.epic', async () => {
      const epic = await api.Epics.create(groupId, 'Checkout', { description: 'all of it' });
      const child = await api.Epics.create(groupId, 'Cart', { parentId: epic.id as number });
      const data = await gql(s, token, `{ group(fullPath: "gb-group") { epic(iid: "${epic.iid}") { id title description state children { nodes { id title parent { iid } } } } } }`);
      assert.deepEqual(data.group.epic, {
        id: `gid://gitlab/Epic/${epic.id}`,
        title: epic.title,
        description: epic.description,
        state: epic.state,
        children: { nodes: [{ id: `gid://gitlab/Epic/${child.id}`, title: 'Cart', parent: { iid: String(epic.iid) } }] },
      });
    });
  });
}
