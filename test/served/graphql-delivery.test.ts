/**
 * GraphQL releases, pipelines and jobs, pipeline schedules, environments and deployments, epics
 * and error tracking on the served binary: each field equals the REST answer for the same
 * record (Global IDs, dates, statuses), the new connections paginate forwards and backwards,
 * a non-member sees null or no nodes, the error status mutation round-trips to REST, and a CI
 * job token queries (within its job's scope) but cannot mutate.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { exceptionEvent, store } from '../server/error-tracking.helpers.js';
import type { TestForgelet } from '../support/server.js';

const NOW = '2030-03-10T10:00:00.000Z';
const CI_YAML = `
stages: [build, test, deploy]
compile:
  stage: build
  script: make
  artifacts:
    paths: [out.txt]
unit:
  stage: test
  script: make test
ship:
  stage: deploy
  script: echo ship
  environment:
    name: production
later:
  stage: deploy
  script: echo later
  when: manual
`;
const path = (url: string) => new URL(url).pathname;
const upper = (s: string) => s.toUpperCase();
const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

for (const dialect of DIALECTS) {
  describe(`${dialect}: GraphQL releases, CI, schedules, environments, epics, error tracking`, () => {
    let s: ServedForgelet;
    let dev: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };
    const w = {} as { groupId: number; projectId: number; pipelineId: number; compile: { id: number; token: string }; runner: string; scheduleId: number; errorId: number; epicIid: number; childIid: number };
    const FULL = 'rel-group/shop';

    const ok = async (method: string, p: string, body?: unknown, token?: string | null) => {
      const r = await s.api(method, p, { body, ...(token !== undefined && { token }) });
      assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
      return r.body as any;
    };
    const raw = async (query: string, variables?: unknown, token?: string | null, headers?: Record<string, string>) => {
      const r = await s.api('POST', `${s.url}/api/graphql`, { body: { query, variables }, ...(token !== undefined && { token }), ...(headers && { headers }) });
      assert.equal(r.status, 200, r.text);
      return r.body as any;
    };
    const gql = async (query: string, variables?: unknown, token?: string | null) => {
      const body = await raw(query, variables, token);
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      return body.data;
    };

    before(async () => {
      s = await startServed(dialect, { tier: 'ultimate', clock: { now: NOW, frozen: true } });
      dev = await s.createUser('gqld-dev');
      outsider = await s.createUser('gqld-out');
      const group = await ok('POST', '/groups', { name: 'Rel group', path: 'rel-group', visibility: 'public' });
      w.groupId = group.id;
      const project = await ok('POST', '/projects', { name: 'shop', namespace_id: group.id, visibility: 'private', initialize_with_readme: true });
      w.projectId = project.id;
      await ok('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 });
      const runner = await ok('POST', '/user/runners', { runner_type: 'project_type', project_id: project.id, description: 'gql runner' });
      w.runner = runner.token;
      await ok('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI_YAML }] });
      const requested = await s.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { name: 'gql-runner', version: '17.0.0' } } });
      assert.equal(requested.status, 201, requested.text);
      w.compile = { id: requested.body.id, token: requested.body.token };
      w.pipelineId = (await ok('GET', `/projects/${project.id}/jobs/${w.compile.id}`)).pipeline.id;
      // compile succeeds, unit fails (allowed? no: the pipeline goes on to no deploy), so run unit and ship as success.
      await ok('PUT', `/jobs/${w.compile.id}`, { token: w.compile.token, state: 'success' }, null);
      for (let i = 0; i < 2; i++) {
        const next = await s.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { name: 'gql-runner', version: '17.0.0' } } });
        assert.equal(next.status, 201, next.text);
        await ok('PUT', `/jobs/${next.body.id}`, { token: next.body.token, state: 'success' }, null);
      }
      await s.runDue();
      // A second, manual pipeline on a branch (for filters and pagination).
      await ok('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' });
      await ok('POST', `/projects/${project.id}/pipeline`, { ref: 'feature' });
      await ok('POST', `/projects/${project.id}/pipeline`, { ref: 'main' });

      await ok('POST', `/projects/${project.id}/milestones`, { title: 'M1' });
      await ok('POST', `/projects/${project.id}/releases`, { tag_name: 'v1.0.0', name: 'First', ref: 'main', description: 'One', milestones: ['M1'], released_at: '2030-03-01T00:00:00Z', assets: { links: [{ name: 'Bin', url: 'https://example.com/bin', link_type: 'package', direct_asset_path: '/bin/app' }] } });
      await ok('POST', `/projects/${project.id}/releases`, { tag_name: 'v1.1.0', name: 'Second', ref: 'main', description: 'Two', released_at: '2030-03-05T00:00:00Z' });
      await ok('POST', `/projects/${project.id}/releases`, { tag_name: 'v2.0.0', name: 'Third', ref: 'main', description: 'Three', released_at: '2030-03-09T00:00:00Z' });

      const schedule = await ok('POST', `/projects/${project.id}/pipeline_schedules`, { description: 'nightly', ref: 'main', cron: '0 3 * * *' });
      w.scheduleId = schedule.id;
      await ok('POST', `/projects/${project.id}/pipeline_schedules/${schedule.id}/variables`, { key: 'MODE', value: 'full' });
      await ok('POST', `/projects/${project.id}/pipeline_schedules`, { description: 'weekly', ref: 'main', cron: '0 4 * * 1', active: false });
      await ok('POST', `/projects/${project.id}/environments`, { name: 'staging', external_url: 'https://staging.example.com', tier: 'staging' });

      const epic = await ok('POST', `/groups/${group.id}/epics`, { title: 'Checkout', description: 'all of it', start_date: '2030-03-01', start_date_is_fixed: true });
      w.epicIid = epic.iid;
      const child = await ok('POST', `/groups/${group.id}/epics/${epic.iid}/epics`, { title: 'Cart' });
      w.childIid = child.iid;
      await ok('POST', `/groups/${group.id}/epics`, { title: 'Secret plan', confidential: true });
      const issue = await ok('POST', `/projects/${project.id}/issues`, { title: 'Cart is slow' });
      await ok('POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`);

      const settings = await ok('PUT', `/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
      const key = new URL(settings.gitlab_dsn).username;
      const frames = [{ filename: 'app/cart.js', function: 'total', lineno: 12, colno: 3, in_app: true, pre_context: ['a'], context_line: 'b', post_context: ['c'] }];
      const stored = await store({ url: s.url } as TestForgelet, project.id, key, exceptionEvent({ type: 'TypeError', value: 'cart is empty', timestamp: NOW, frames }));
      assert.equal(stored.status, 200, stored.text);
      await s.runDue();
      const errors = await until('the error grouped', async () => {
        const list = await ok('GET', `/forgelet/projects/${project.id}/error_tracking/errors`);
        return list.length ? list : undefined;
      });
      w.errorId = errors[0].id;
    });
    after(async () => {
      await s?.stop();
    });

    it('Project.releases/release and Group.releases equal GET …/releases; sort; pagination; an outsider sees none', async () => {
      const rest = await ok('GET', `/projects/${w.projectId}/releases/v1.0.0`);
      const data = await gql(`{ project(fullPath: "${FULL}") { release(tagName: "v1.0.0") {
        id name tagName tagPath description createdAt releasedAt upcomingRelease author { username } commit { sha shortId title webUrl }
        assets { count links { nodes { id name url linkType external directAssetUrl directAssetPath } } sources { nodes { format url } } }
        links { selfUrl openedIssuesUrl closedIssuesUrl openedMergeRequestsUrl mergedMergeRequestsUrl closedMergeRequestsUrl editUrl }
        evidences { nodes { sha } } milestones { nodes { title } } } } }`);
      const r = data.project.release;
      assert.match(r.id, /^gid:\/\/gitlab\/Release\/\d+$/);
      assert.deepEqual({ ...r, id: undefined }, {
        id: undefined,
        name: rest.name,
        tagName: rest.tag_name,
        tagPath: rest.tag_path,
        description: rest.description,
        createdAt: rest.created_at,
        releasedAt: rest.released_at,
        upcomingRelease: rest.upcoming_release,
        author: { username: rest.author.username },
        commit: { sha: rest.commit.id, shortId: rest.commit.short_id, title: rest.commit.title, webUrl: rest.commit.web_url },
        assets: {
          count: rest.assets.count,
          links: { nodes: rest.assets.links.map((l: any) => ({ id: `gid://gitlab/Releases::Link/${l.id}`, name: l.name, url: l.url, linkType: upper(l.link_type), external: l.external, directAssetUrl: l.direct_asset_url, directAssetPath: '/bin/app' })) },
          sources: { nodes: rest.assets.sources.map((x: any) => ({ format: x.format, url: x.url })) },
        },
        links: {
          selfUrl: rest._links.self,
          openedIssuesUrl: rest._links.opened_issues_url,
          closedIssuesUrl: rest._links.closed_issues_url,
          openedMergeRequestsUrl: rest._links.opened_merge_requests_url,
          mergedMergeRequestsUrl: rest._links.merged_merge_requests_url,
          closedMergeRequestsUrl: rest._links.closed_merge_requests_url,
          editUrl: rest._links.edit_url,
        },
        evidences: { nodes: [] },
        milestones: { nodes: [{ title: 'M1' }] },
      });
      // Default order (released_at desc) is REST's; forwards and backwards windows.
      const restList = (await ok('GET', `/projects/${w.projectId}/releases`)).map((x: any) => x.tag_name);
      const first = await gql(`{ project(fullPath: "${FULL}") { releases(first: 2) { nodes { tagName } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`);
      assert.deepEqual(first.project.releases.nodes.map((n: any) => n.tagName), restList.slice(0, 2));
      assert.equal(first.project.releases.pageInfo.hasNextPage, true);
      const next = await gql(`query($c: String) { project(fullPath: "${FULL}") { releases(first: 2, after: $c) { nodes { tagName } pageInfo { hasNextPage hasPreviousPage startCursor } } } }`, { c: first.project.releases.pageInfo.endCursor });
      assert.deepEqual(next.project.releases.nodes.map((n: any) => n.tagName), restList.slice(2));
      assert.deepEqual([next.project.releases.pageInfo.hasNextPage, next.project.releases.pageInfo.hasPreviousPage], [false, true]);
      const back = await gql(`query($c: String) { project(fullPath: "${FULL}") { releases(last: 1, before: $c) { nodes { tagName } } } }`, { c: next.project.releases.pageInfo.startCursor });
      assert.deepEqual(back.project.releases.nodes.map((n: any) => n.tagName), [restList[1]]);
      const asc = await gql(`{ project(fullPath: "${FULL}") { releases(sort: RELEASED_AT_ASC) { count nodes { tagName } } } }`);
      assert.deepEqual(asc.project.releases.nodes.map((n: any) => n.tagName), [...restList].reverse());
      assert.equal(asc.project.releases.count, 3);
      const groupRest = (await ok('GET', `/groups/${w.groupId}/releases`)).map((x: any) => x.tag_name);
      const group = await gql('{ group(fullPath: "rel-group") { releases { nodes { tagName } } } }');
      assert.deepEqual(group.group.releases.nodes.map((n: any) => n.tagName), groupRest);
      // The private project is hidden from an outsider: the project is null, the group's releases have no nodes.
      const hidden = await gql(`{ project(fullPath: "${FULL}") { releases { nodes { tagName } } } group(fullPath: "rel-group") { releases { nodes { tagName } } } }`, undefined, outsider.token);
      assert.deepEqual(hidden, { project: null, group: { releases: { nodes: [] } } });
    });

    it('Project.pipelines/pipeline, Pipeline.stages/jobs/job and CiJob equal the REST answers; filters; pagination', async () => {
      const rest = await ok('GET', `/projects/${w.projectId}/pipelines/${w.pipelineId}`);
      const data = await gql(`query($id: CiPipelineID) { project(fullPath: "${FULL}") {
        byIid: pipeline(iid: "${rest.iid}") { id }
        pipeline(id: $id) { id iid sha ref status source createdAt updatedAt startedAt finishedAt committedAt duration queuedDuration coverage beforeSha tag path
          yamlErrors user { username } detailedStatus { id group icon text label tooltip hasDetails detailsPath favicon } active cancelable complete
          stages { nodes { name status detailedStatus { group } } }
          jobs { count nodes { id name status stage { name } allowFailure duration createdAt startedAt finishedAt refName webPath shortSha tags
            detailedStatus { group detailsPath } artifacts { nodes { fileType name size downloadPath } } pipeline { id } } } } } }`, { id: `gid://gitlab/Ci::Pipeline/${w.pipelineId}` });
      const p = data.project.pipeline;
      assert.deepEqual(data.project.byIid, { id: `gid://gitlab/Ci::Pipeline/${rest.id}` });
      assert.deepEqual({ ...p, stages: undefined, jobs: undefined }, {
        id: `gid://gitlab/Ci::Pipeline/${rest.id}`,
        iid: String(rest.iid),
        sha: rest.sha,
        ref: rest.ref,
        status: upper(rest.status),
        source: rest.source,
        createdAt: rest.created_at,
        updatedAt: rest.updated_at,
        startedAt: rest.started_at,
        finishedAt: rest.finished_at,
        committedAt: rest.committed_at,
        duration: rest.duration,
        queuedDuration: rest.queued_duration,
        coverage: rest.coverage,
        beforeSha: rest.before_sha,
        tag: rest.tag,
        path: path(rest.web_url),
        yamlErrors: false,
        user: { username: rest.user.username },
        detailedStatus: {
          id: `${rest.detailed_status.group}-${rest.id}`,
          group: rest.detailed_status.group,
          icon: rest.detailed_status.icon,
          text: rest.detailed_status.text,
          label: rest.detailed_status.label,
          tooltip: rest.detailed_status.tooltip,
          hasDetails: rest.detailed_status.has_details,
          detailsPath: rest.detailed_status.details_path,
          favicon: rest.detailed_status.favicon,
        },
        active: false,
        cancelable: false,
        complete: true,
        stages: undefined,
        jobs: undefined,
      });
      assert.equal(p.status, 'SUCCESS');
      assert.deepEqual(p.stages.nodes, ['build', 'test', 'deploy'].map((name) => ({ name, status: 'success', detailedStatus: { group: 'success' } })));
      const restJobs = await ok('GET', `/projects/${w.projectId}/pipelines/${w.pipelineId}/jobs`);
      assert.equal(p.jobs.count, restJobs.length);
      assert.deepEqual(
        p.jobs.nodes,
        restJobs.map((j: any) => ({
          id: `gid://gitlab/Ci::Build/${j.id}`,
          name: j.name,
          status: upper(j.status),
          stage: { name: j.stage },
          allowFailure: j.allow_failure,
          duration: j.duration === null ? null : Math.round(j.duration),
          createdAt: j.created_at,
          startedAt: j.started_at,
          finishedAt: j.finished_at,
          refName: j.ref,
          webPath: path(j.web_url),
          shortSha: j.commit.short_id,
          tags: j.tag_list,
          detailedStatus: { group: j.status, detailsPath: path(j.web_url) },
          artifacts: { nodes: j.artifacts.map((a: any) => ({ fileType: upper(a.file_type), name: a.filename, size: String(a.size), downloadPath: `${path(j.web_url)}/artifacts/download?file_type=${a.file_type}` })) },
          pipeline: { id: `gid://gitlab/Ci::Pipeline/${w.pipelineId}` },
        })),
      );
      const one = await gql(`query($id: JobID) { project(fullPath: "${FULL}") { pipeline(iid: "${rest.iid}") { job(id: $id) { name } } } }`, { id: `gid://gitlab/Ci::Build/${w.compile.id}` });
      assert.deepEqual(one.project.pipeline.job, { name: 'compile' });

      // Filters reach GET /projects/:id/pipelines; pages forwards and backwards.
      const restAll = (await ok('GET', `/projects/${w.projectId}/pipelines`)).map((x: any) => `gid://gitlab/Ci::Pipeline/${x.id}`);
      const restFeature = (await ok('GET', `/projects/${w.projectId}/pipelines?ref=feature`)).map((x: any) => `gid://gitlab/Ci::Pipeline/${x.id}`);
      const restSuccess = (await ok('GET', `/projects/${w.projectId}/pipelines?status=success&source=push`)).map((x: any) => `gid://gitlab/Ci::Pipeline/${x.id}`);
      const lists = await gql(`{ project(fullPath: "${FULL}") {
        all: pipelines { nodes { id } } feature: pipelines(ref: "feature") { nodes { id } } ok: pipelines(status: SUCCESS, source: "push") { nodes { id } }
        sha: pipelines(sha: "${rest.sha}") { nodes { id } }
        page: pipelines(first: 2) { nodes { id } pageInfo { endCursor hasNextPage } } } }`);
      assert.deepEqual(lists.project.all.nodes.map((n: any) => n.id), restAll);
      assert.deepEqual(lists.project.feature.nodes.map((n: any) => n.id), restFeature);
      assert.deepEqual(lists.project.ok.nodes.map((n: any) => n.id), restSuccess);
      assert.ok(lists.project.sha.nodes.some((n: any) => n.id === `gid://gitlab/Ci::Pipeline/${w.pipelineId}`));
      assert.deepEqual(lists.project.page.nodes.map((n: any) => n.id), restAll.slice(0, 2));
      const rest2 = await gql(`query($c: String) { project(fullPath: "${FULL}") { pipelines(first: 2, after: $c) { nodes { id } pageInfo { hasPreviousPage startCursor } } } }`, { c: lists.project.page.pageInfo.endCursor });
      assert.deepEqual(rest2.project.pipelines.nodes.map((n: any) => n.id), restAll.slice(2, 4));
      const back = await gql(`query($c: String) { project(fullPath: "${FULL}") { pipelines(last: 2, before: $c) { nodes { id } } } }`, { c: rest2.project.pipelines.pageInfo.startCursor });
      assert.deepEqual(back.project.pipelines.nodes.map((n: any) => n.id), restAll.slice(0, 2));
      const jobsPage = await gql(`{ project(fullPath: "${FULL}") { pipeline(iid: "${rest.iid}") { jobs(first: 1, statuses: [SUCCESS]) { nodes { name } pageInfo { hasNextPage } } } } }`);
      assert.deepEqual(jobsPage.project.pipeline.jobs, { nodes: [{ name: restJobs.find((j: any) => j.status === 'success').name }], pageInfo: { hasNextPage: true } });
      const restProject = await ok('GET', `/projects/${w.projectId}`);
      const repo = await gql(`{ project(fullPath: "${FULL}") { repository { rootRef empty exists } } }`);
      assert.deepEqual(repo.project.repository, { rootRef: restProject.default_branch, empty: restProject.empty_repo, exists: true });
      // An outsider: the private project is null.
      assert.deepEqual(await gql(`{ project(fullPath: "${FULL}") { pipelines { nodes { id } } } }`, undefined, outsider.token), { project: null });
    });

    it('new connections count for complexity as GitLab counts them', async () => {
      // pipelines(first: 100) { nodes { jobs(first: 100) { nodes { name } } } }: name 1, nodes 2, jobs 3 + 3% x 100 = 6,
      // nodes 7, pipelines 8 + 8 = 16; twenty of them and the project: 321, over the administrator's 300.
      const wide = (n: number) => Array.from({ length: 20 }, (_, i) => `p${i}: pipelines(first: ${n}) { nodes { jobs(first: ${n}) { nodes { name } } } }`).join(' ');
      const over = await raw(`{ project(fullPath: "${FULL}") { ${wide(100)} } }`);
      assert.deepEqual(over, { errors: [{ message: 'Query has complexity of 321, which exceeds max complexity of 300' }] });
      const under = await raw(`{ project(fullPath: "${FULL}") { ${wide(1)} } }`);
      assert.equal(under.errors, undefined, JSON.stringify(under.errors));
    });

    it('Project.pipelineSchedules equals GET …/pipeline_schedules[/:id]; variables for its owner, none for a Developer', async () => {
      const rest = await ok('GET', `/projects/${w.projectId}/pipeline_schedules/${w.scheduleId}`);
      const q = `{ project(fullPath: "${FULL}") { pipelineSchedules(status: ACTIVE) { nodes { id description active cron cronTimezone nextRunAt ref refForDisplay forTag
        createdAt updatedAt owner { username } lastPipeline { id } variables { nodes { key value variableType raw } } } } } }`;
      const data = await gql(q);
      assert.deepEqual(data.project.pipelineSchedules.nodes, [{
        id: `gid://gitlab/Ci::PipelineSchedule/${rest.id}`,
        description: rest.description,
        active: rest.active,
        cron: rest.cron,
        cronTimezone: rest.cron_timezone,
        nextRunAt: rest.next_run_at,
        ref: rest.ref,
        refForDisplay: 'main',
        forTag: false,
        createdAt: rest.created_at,
        updatedAt: rest.updated_at,
        owner: { username: rest.owner.username },
        lastPipeline: rest.last_pipeline,
        variables: { nodes: rest.variables.map((v: any) => ({ key: v.key, value: v.value, variableType: upper(v.variable_type), raw: v.raw })) },
      }]);
      const restAll = (await ok('GET', `/projects/${w.projectId}/pipeline_schedules`)).map((x: any) => `gid://gitlab/Ci::PipelineSchedule/${x.id}`);
      const page1 = await gql(`{ project(fullPath: "${FULL}") { pipelineSchedules(first: 1) { count nodes { id } pageInfo { endCursor hasNextPage } } } }`);
      assert.equal(page1.project.pipelineSchedules.count, 2);
      const page2 = await gql(`query($c: String) { project(fullPath: "${FULL}") { pipelineSchedules(first: 1, after: $c) { nodes { id } pageInfo { hasNextPage } } } }`, { c: page1.project.pipelineSchedules.pageInfo.endCursor });
      assert.deepEqual([...page1.project.pipelineSchedules.nodes, ...page2.project.pipelineSchedules.nodes].map((n: any) => n.id), restAll);
      assert.equal(page2.project.pipelineSchedules.pageInfo.hasNextPage, false);
      // A Developer who does not own the schedule sees it without its variables, as GET …/:id shows it.
      const devRest = await ok('GET', `/projects/${w.projectId}/pipeline_schedules/${w.scheduleId}`, undefined, dev.token);
      assert.equal(devRest.variables, undefined);
      const devView = await gql(`{ project(fullPath: "${FULL}") { pipelineSchedules(ids: ["${w.scheduleId}"]) { nodes { description variables { nodes { key value } } } } } }`, undefined, dev.token);
      assert.deepEqual(devView.project.pipelineSchedules.nodes, [{ description: 'nightly', variables: { nodes: [] } }]);
    });

    it('Project.environments/environment, lastDeployment and deployments equal GET …/environments and …/deployments', async () => {
      const restEnvs = await ok('GET', `/projects/${w.projectId}/environments`);
      const prod = restEnvs.find((e: any) => e.name === 'production');
      const restDeps = await ok('GET', `/projects/${w.projectId}/deployments?environment=production&status=success`);
      assert.equal(restDeps.length, 1);
      const d = restDeps[0];
      const allDeps = await ok('GET', `/projects/${w.projectId}/deployments?environment=production`);
      assert.ok(allDeps.length > 1, 'the other pipelines created deployments too');
      const data = await gql(`{ project(fullPath: "${FULL}") {
        environments { nodes { id name slug externalUrl state tier createdAt updatedAt path } }
        environment(name: "production") { id name lastDeployment(status: SUCCESS) { id iid ref sha status createdAt updatedAt triggerer { username } job { id name } }
          failed: lastDeployment(status: FAILED) { id }
          deployments(statuses: [SUCCESS]) { count nodes { id } } all: deployments(first: 2) { count nodes { id } pageInfo { hasNextPage endCursor } } } } }`);
      assert.deepEqual(data.project.environments.nodes, restEnvs.map((e: any) => ({
        id: `gid://gitlab/Environment/${e.id}`,
        name: e.name,
        slug: e.slug,
        externalUrl: e.external_url,
        state: e.state,
        tier: upper(e.tier),
        createdAt: e.created_at,
        updatedAt: e.updated_at,
        path: `/${FULL}/-/environments/${e.id}`,
      })));
      assert.deepEqual(data.project.environment, {
        id: `gid://gitlab/Environment/${prod.id}`,
        name: 'production',
        lastDeployment: {
          id: `gid://gitlab/Deployment/${d.id}`,
          iid: String(d.iid),
          ref: d.ref,
          sha: d.sha,
          status: upper(d.status),
          createdAt: d.created_at,
          updatedAt: d.updated_at,
          triggerer: { username: d.user.username },
          job: { id: `gid://gitlab/Ci::Build/${d.deployable.id}`, name: d.deployable.name },
        },
        failed: null,
        deployments: { count: 1, nodes: [{ id: `gid://gitlab/Deployment/${d.id}` }] },
        all: data.project.environment.all,
      });
      // Deployments by creation, oldest first (GitLab's default), two per page.
      const allIds = allDeps.map((x: any) => `gid://gitlab/Deployment/${x.id}`);
      assert.equal(data.project.environment.all.count, allDeps.length);
      assert.deepEqual(data.project.environment.all.nodes.map((n: any) => n.id), allIds.slice(0, 2));
      const more = await gql(`query($c: String) { project(fullPath: "${FULL}") { environment(name: "production") { deployments(first: 2, after: $c) { nodes { id } } } } }`, { c: data.project.environment.all.pageInfo.endCursor });
      assert.deepEqual(more.project.environment.deployments.nodes.map((n: any) => n.id), allIds.slice(2, 4));
      // The group's protection of the production tier (REST's group protected environments) shows on the environment.
      await ok('POST', `/groups/${w.groupId}/protected_environments`, { name: 'production', deploy_access_levels: [{ access_level: 40 }, { group_id: w.groupId }], required_approval_count: 1, approval_rules: [{ group_id: w.groupId, required_approvals: 1 }] });
      const restProtection = await ok('GET', `/groups/${w.groupId}/protected_environments/production`);
      const prot = await gql(`{ project(fullPath: "${FULL}") { production: environment(name: "production") { protectedEnvironments { nodes { name project { id } group { fullPath }
        deployAccessLevels { nodes { accessLevel { integerValue stringValue humanAccess } user { username } group { fullPath } } }
        approvalRules { nodes { requiredApprovals group { fullPath } user { username } } } requiredApprovalCount } } }
        staging: environment(name: "staging") { protectedEnvironments { nodes { name } } } } }`);
      assert.deepEqual(prot.project.production.protectedEnvironments.nodes, [{
        name: restProtection.name,
        project: null,
        group: { fullPath: 'rel-group' },
        deployAccessLevels: { nodes: restProtection.deploy_access_levels.map((l: any) => ({
          accessLevel: l.access_level === null ? null : { integerValue: l.access_level, stringValue: 'MAINTAINER', humanAccess: 'Maintainer' },
          user: null,
          group: l.group_id === null ? null : { fullPath: 'rel-group' },
        })) },
        approvalRules: { nodes: restProtection.approval_rules.map((r: any) => ({ requiredApprovals: r.required_approvals, group: { fullPath: 'rel-group' }, user: null })) },
        requiredApprovalCount: restProtection.required_approval_count,
      }]);
      assert.equal(restProtection.deploy_access_levels.length, 2);
      assert.deepEqual(prot.project.staging.protectedEnvironments.nodes, []);
      await ok('DELETE', `/groups/${w.groupId}/protected_environments/production`);
      const page = await gql(`{ project(fullPath: "${FULL}") { environments(first: 1) { nodes { name } pageInfo { hasNextPage endCursor } } } }`);
      const page2 = await gql(`query($c: String) { project(fullPath: "${FULL}") { environments(first: 1, after: $c) { nodes { name } pageInfo { hasNextPage } } } }`, { c: page.project.environments.pageInfo.endCursor });
      assert.deepEqual([...page.project.environments.nodes, ...page2.project.environments.nodes].map((n: any) => n.name), restEnvs.map((e: any) => e.name));
      assert.equal(page2.project.environments.pageInfo.hasNextPage, false);
    });

    it('Group.epics/epic with children, parent and issues equal GET /groups/:id/epics…; a confidential epic is hidden from an outsider', async () => {
      const rest = await ok('GET', `/groups/${w.groupId}/epics/${w.epicIid}`);
      const restChild = await ok('GET', `/groups/${w.groupId}/epics/${w.childIid}`);
      const restIssues = await ok('GET', `/groups/${w.groupId}/epics/${w.epicIid}/issues`);
      const data = await gql(`{ group(fullPath: "rel-group") { epic(iid: "${w.epicIid}") {
        id iid title description state confidential color createdAt updatedAt closedAt startDate startDateIsFixed dueDate upvotes downvotes webUrl webPath
        reference full: reference(full: true) author { username } group { fullPath } hasChildren hasIssues
        children { nodes { id iid title parent { iid } } } issues { nodes { id iid title epicIssueId } } } } }`);
      assert.deepEqual(data.group.epic, {
        id: `gid://gitlab/Epic/${rest.id}`,
        iid: String(rest.iid),
        title: rest.title,
        description: rest.description,
        state: rest.state,
        confidential: rest.confidential,
        color: rest.color,
        createdAt: rest.created_at,
        updatedAt: rest.updated_at,
        closedAt: rest.closed_at,
        startDate: rest.start_date,
        startDateIsFixed: rest.start_date_is_fixed,
        dueDate: rest.due_date,
        upvotes: rest.upvotes,
        downvotes: rest.downvotes,
        webUrl: rest.web_url,
        webPath: path(rest.web_url),
        reference: rest.references.short,
        full: rest.references.full,
        author: { username: rest.author.username },
        group: { fullPath: 'rel-group' },
        hasChildren: true,
        hasIssues: true,
        children: { nodes: [{ id: `gid://gitlab/Epic/${restChild.id}`, iid: String(restChild.iid), title: restChild.title, parent: { iid: String(rest.iid) } }] },
        issues: { nodes: restIssues.map((i: any) => ({ id: `gid://gitlab/Issue/${i.id}`, iid: String(i.iid), title: i.title, epicIssueId: `gid://gitlab/EpicIssue/${i.epic_issue_id}` })) },
      });
      const restList = (await ok('GET', `/groups/${w.groupId}/epics`)).map((e: any) => e.title);
      const list = await gql('{ group(fullPath: "rel-group") { epics { count nodes { title } } opened: epics(state: opened, search: "cart") { nodes { title } } } }');
      assert.deepEqual(list.group.epics.nodes.map((n: any) => n.title), restList);
      assert.deepEqual(list.group.opened.nodes.map((n: any) => n.title), ['Cart']);
      const p1 = await gql('{ group(fullPath: "rel-group") { epics(last: 1) { nodes { title } pageInfo { hasPreviousPage startCursor } } } }');
      assert.deepEqual(p1.group.epics.nodes.map((n: any) => n.title), restList.slice(-1));
      const p0 = await gql('query($c: String) { group(fullPath: "rel-group") { epics(last: 5, before: $c) { nodes { title } } } }', { c: p1.group.epics.pageInfo.startCursor });
      assert.deepEqual(p0.group.epics.nodes.map((n: any) => n.title), restList.slice(0, -1));
      // Issue.epic: the issue's epic, as GET …/epics/:iid/issues links them; none for the others.
      const onIssue = await gql(`{ project(fullPath: "${FULL}") { linked: issue(iid: "${restIssues[0].iid}") { hasEpic epic { id iid } } other: issues(search: "nothing matches this") { nodes { id } } } }`);
      assert.deepEqual(onIssue.project.linked, { hasEpic: true, epic: { id: `gid://gitlab/Epic/${rest.id}`, iid: String(rest.iid) } });
      const lone = await ok('POST', `/projects/${w.projectId}/issues`, { title: 'Not in an epic' });
      assert.deepEqual((await gql(`{ project(fullPath: "${FULL}") { issue(iid: "${lone.iid}") { hasEpic epic { id } } } }`)).project.issue, { hasEpic: false, epic: null });
      const outside = await gql('{ group(fullPath: "rel-group") { epics { nodes { title } } } }', undefined, outsider.token);
      assert.deepEqual(outside.group.epics.nodes.map((n: any) => n.title).sort(), restList.filter((t: string) => t !== 'Secret plan').sort());
    });

    it('Project.sentryErrors: errors, detailedError, errorStackTrace equal the REST extension; the status mutation round-trips', async () => {
      const rest = await ok('GET', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}`);
      const events = await ok('GET', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}/events`);
      const gid = `gid://gitlab/Gitlab::ErrorTracking::DetailedError/${w.errorId}`;
      const data = await gql(`query($id: GitlabErrorTrackingDetailedErrorID!) { project(fullPath: "${FULL}") { sentryErrors {
        errors { count nodes { id sentryId title type message culprit count userCount firstSeen lastSeen status } }
        detailedError(id: $id) { id title count userCount firstSeen lastSeen status frequency { time count } sentryProjectId externalUrl gitlabIssuePath firstReleaseVersion }
        errorStackTrace(id: $id) { issueId dateReceived stackTraceEntries { function fileName line col traceContext { line code } } } } } }`, { id: gid });
      const c = data.project.sentryErrors;
      assert.deepEqual(c.errors, { count: 1, nodes: [{
        id: `gid://gitlab/Gitlab::ErrorTracking::Error/${rest.id}`, sentryId: String(rest.id), title: rest.title, type: rest.type, message: rest.message,
        culprit: rest.culprit ?? '', count: rest.count, userCount: rest.user_count, firstSeen: rest.first_seen, lastSeen: rest.last_seen, status: upper(rest.status),
      }] });
      assert.deepEqual(c.detailedError, {
        id: gid, title: rest.title, count: rest.count, userCount: rest.user_count, firstSeen: rest.first_seen, lastSeen: rest.last_seen, status: 'UNRESOLVED',
        frequency: rest.frequency.map(([time, count]: [string, number]) => ({ time, count })),
        sentryProjectId: `gid://gitlab/Project/${w.projectId}`,
        externalUrl: `${s.url}/${FULL}/-/error_tracking/${rest.id}/details`,
        gitlabIssuePath: null, firstReleaseVersion: rest.first_release,
      });
      assert.ok(c.detailedError.frequency.some((f: any) => f.count > 0));
      assert.deepEqual(c.errorStackTrace, {
        issueId: String(rest.id),
        dateReceived: events[0].received_at,
        stackTraceEntries: events[0].stack_trace.map((f: any) => ({
          function: f.function, fileName: f.filename, line: String(f.lineno), col: String(f.colno),
          traceContext: f.context.map(([line, code]: [number, string]) => ({ line, code })),
        })),
      });
      assert.equal(c.errorStackTrace.stackTraceEntries[0].function, 'total');

      const MUTATION = 'mutation($id: GitlabErrorTrackingDetailedErrorID!, $s: SentryErrorStatus!) { forgeletSentryErrorStatusUpdate(input: { id: $id, status: $s, clientMutationId: "m" }) { clientMutationId errors error { id status } } }';
      const resolved = await gql(MUTATION, { id: gid, s: 'RESOLVED' });
      assert.deepEqual(resolved.forgeletSentryErrorStatusUpdate, { clientMutationId: 'm', errors: [], error: { id: gid, status: 'RESOLVED' } });
      assert.equal((await ok('GET', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}`)).status, 'resolved');
      await ok('PUT', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}`, { status: 'ignored' });
      const after = await gql(`query($id: GitlabErrorTrackingDetailedErrorID!) { project(fullPath: "${FULL}") { sentryErrors { detailedError(id: $id) { status } } } }`, { id: gid });
      assert.equal(after.project.sentryErrors.detailedError.status, 'IGNORED');
      // Forgelet has no "resolved in next release": refused in `errors`, without REST's status line.
      const refused = await gql(MUTATION, { id: gid, s: 'RESOLVED_IN_NEXT_RELEASE' });
      assert.equal(refused.forgeletSentryErrorStatusUpdate.error, null);
      assert.ok(refused.forgeletSentryErrorStatusUpdate.errors.length > 0);
      assert.ok(refused.forgeletSentryErrorStatusUpdate.errors.every((m: string) => !/^\d{3} |Bad request/.test(m)), JSON.stringify(refused));
      // A Developer (Reporter and up) triages as through REST; a Guest and an outsider are refused and see nothing.
      const devAnswer = await gql(MUTATION, { id: gid, s: 'IGNORED' }, dev.token);
      assert.deepEqual(devAnswer.forgeletSentryErrorStatusUpdate.error, { id: gid, status: 'IGNORED' });
      const guest = await s.createUser('gqld-guest');
      await ok('POST', `/projects/${w.projectId}/members`, { user_id: guest.id, access_level: 10 });
      for (const token of [guest.token, outsider.token]) {
        const refusedTo = await raw(MUTATION, { id: gid, s: 'UNRESOLVED' }, token);
        assert.deepEqual(refusedTo.errors.map((e: any) => [e.message, e.path]), [[NOT_AVAILABLE, ['forgeletSentryErrorStatusUpdate']]]);
      }
      assert.equal((await ok('GET', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}`)).status, 'ignored');
      assert.equal((await gql(`{ project(fullPath: "${FULL}") { sentryErrors { errors { nodes { id } } } } }`, undefined, dev.token)).project.sentryErrors.errors.nodes.length, 1);
      assert.deepEqual(await gql(`{ project(fullPath: "${FULL}") { name sentryErrors { externalUrl } } }`, undefined, guest.token), { project: { name: 'shop', sentryErrors: null } });
    });

    it("a CI job token queries as its job's user within the job token scope, and cannot mutate", async () => {
      // A pipeline the Developer runs: its job token acts as the Developer.
      const next = await ok('POST', `/projects/${w.projectId}/pipeline`, { ref: 'feature' }, dev.token);
      let job: any;
      for (let i = 0; i < 10 && !job; i++) {
        const r = await s.api('POST', '/jobs/request', { token: null, body: { token: w.runner, info: { name: 'gql-runner', version: '17.0.0' } } });
        assert.equal(r.status, 201, r.text);
        if (r.body.pipeline_id === next.id || (await ok('GET', `/projects/${w.projectId}/jobs/${r.body.id}`)).pipeline.id === next.id) job = r.body;
        else await ok('PUT', `/jobs/${r.body.id}`, { token: r.body.token, state: 'success' }, null);
      }
      assert.ok(job, 'a job of the Developer\'s pipeline');
      const headers = { 'JOB-TOKEN': job.token };
      const read = await raw(`{ currentUser { username } project(fullPath: "${FULL}") { pipeline(iid: "${next.iid}") { status user { username } jobs { nodes { name status } } } releases { count } } }`, undefined, null, headers);
      assert.equal(read.errors, undefined, JSON.stringify(read.errors));
      assert.equal(read.data.currentUser.username, dev.username);
      assert.equal(read.data.project.pipeline.status, 'RUNNING');
      assert.equal(read.data.project.pipeline.user.username, dev.username);
      assert.ok(read.data.project.pipeline.jobs.nodes.some((j: any) => j.status === 'RUNNING'));
      assert.equal(read.data.project.releases.count, 3);
      const write = await raw('mutation($id: GitlabErrorTrackingDetailedErrorID!) { forgeletSentryErrorStatusUpdate(input: { id: $id, status: RESOLVED }) { errors } }', { id: `gid://gitlab/Gitlab::ErrorTracking::Error/${w.errorId}` }, null, headers);
      assert.deepEqual(write.errors.map((e: any) => e.message), [NOT_AVAILABLE]);
      assert.equal((await ok('GET', `/forgelet/projects/${w.projectId}/error_tracking/errors/${w.errorId}`)).status, 'ignored');
      // A private project the Developer belongs to, whose inbound scope does not let this project's jobs in: null to the job token.
      const other = await ok('POST', '/projects', { name: 'vault', visibility: 'private' });
      await ok('POST', `/projects/${other.id}/members`, { user_id: dev.id, access_level: 30 });
      await ok('PATCH', `/projects/${other.id}/job_token_scope`, { enabled: true });
      assert.equal((await gql(`{ project(fullPath: "${other.path_with_namespace}") { name } }`, undefined, dev.token)).project.name, 'vault');
      const denied = await raw(`{ project(fullPath: "${other.path_with_namespace}") { name } }`, undefined, null, headers);
      assert.deepEqual(denied.data, { project: null });
      await ok('POST', `/projects/${other.id}/job_token_scope/allowlist`, { target_project_id: w.projectId });
      const allowed = await raw(`{ project(fullPath: "${other.path_with_namespace}") { name } }`, undefined, null, headers);
      assert.deepEqual(allowed.data, { project: { name: 'vault' } });
      // A finished job's token no longer authenticates.
      await ok('PUT', `/jobs/${job.id}`, { token: job.token, state: 'success' }, null);
      const gone = await s.api('POST', `${s.url}/api/graphql`, { token: null, headers, body: { query: '{ currentUser { username } }' } });
      assert.equal(gone.status, 401, gone.text);
    });

    it('release mutations (releaseCreate/Update/Delete) and pipeline and job mutations act as the REST endpoints do', async () => {
      const CREATE = `mutation($input: ReleaseCreateInput!) { releaseCreate(input: $input) { errors release { id tagName name description releasedAt milestones { nodes { title } } assets { links { nodes { name url linkType directAssetPath } } } } } }`;
      const created = await gql(CREATE, { input: { projectPath: FULL, tagName: 'v3.0.0', ref: 'main', name: 'Three', description: 'notes', releasedAt: '2030-03-09T12:00:00Z', milestones: ['M1'], assets: { links: [{ name: 'Pkg', url: 'https://example.com/pkg', linkType: 'PACKAGE', directAssetPath: '/pkg' }] } } });
      const rest = await ok('GET', `/projects/${w.projectId}/releases/v3.0.0`);
      assert.deepEqual(created.releaseCreate.errors, []);
      assert.deepEqual({ ...created.releaseCreate.release, id: undefined }, {
        id: undefined, tagName: 'v3.0.0', name: rest.name, description: rest.description, releasedAt: rest.released_at,
        milestones: { nodes: [{ title: 'M1' }] }, assets: { links: { nodes: [{ name: 'Pkg', url: 'https://example.com/pkg', linkType: 'PACKAGE', directAssetPath: '/pkg' }] } },
      });
      assert.equal(rest.name, 'Three');
      // A second release of the tag: refused in the payload, with REST's message and no status line.
      const again = await gql(CREATE, { input: { projectPath: FULL, tagName: 'v3.0.0', ref: 'main' } });
      assert.equal(again.releaseCreate.release, null);
      assert.deepEqual(again.releaseCreate.errors, ['Release already exists']);
      const updated = await gql(`mutation { releaseUpdate(input: { projectPath: "${FULL}", tagName: "v3.0.0", name: "Three (final)", milestones: [] }) { errors release { name milestones { nodes { title } } } } }`);
      assert.deepEqual(updated.releaseUpdate, { errors: [], release: { name: 'Three (final)', milestones: { nodes: [] } } });
      assert.equal((await ok('GET', `/projects/${w.projectId}/releases/v3.0.0`)).name, 'Three (final)');
      const refused = await raw(`mutation { releaseDelete(input: { projectPath: "${FULL}", tagName: "v3.0.0" }) { errors } }`, undefined, outsider.token);
      assert.deepEqual(refused.errors.map((e: any) => e.message), [NOT_AVAILABLE]);
      const deleted = await gql(`mutation { releaseDelete(input: { projectPath: "${FULL}", tagName: "v3.0.0" }) { errors release { tagName } } }`);
      assert.deepEqual(deleted.releaseDelete, { errors: [], release: { tagName: 'v3.0.0' } });
      assert.equal((await s.api('GET', `/projects/${w.projectId}/releases/v3.0.0`)).status, 404);

      const pipeline = await ok('POST', `/projects/${w.projectId}/pipeline`, { ref: 'main' });
      const gid = `gid://gitlab/Ci::Pipeline/${pipeline.id}`;
      const jobs = await ok('GET', `/projects/${w.projectId}/pipelines/${pipeline.id}/jobs`);
      const pending = jobs.find((j: any) => j.status === 'pending');
      const cancelJob = await gql(`mutation { jobCancel(input: { id: "gid://gitlab/Ci::Build/${pending.id}" }) { errors job { id status } } }`);
      assert.deepEqual(cancelJob.jobCancel, { errors: [], job: { id: `gid://gitlab/Ci::Build/${pending.id}`, status: 'CANCELED' } });
      assert.equal((await ok('GET', `/projects/${w.projectId}/jobs/${pending.id}`)).status, 'canceled');
      const retried = await gql(`mutation { jobRetry(input: { id: "gid://gitlab/Ci::Build/${pending.id}" }) { errors job { id name status } } }`);
      assert.equal(retried.jobRetry.job.name, pending.name);
      assert.notEqual(retried.jobRetry.job.id, `gid://gitlab/Ci::Build/${pending.id}`);
      const cancel = await gql(`mutation { pipelineCancel(input: { id: "${gid}" }) { errors } }`);
      assert.deepEqual(cancel.pipelineCancel, { errors: [] });
      assert.equal((await ok('GET', `/projects/${w.projectId}/pipelines/${pipeline.id}`)).status, 'canceled');
      const retry = await gql(`mutation { pipelineRetry(input: { id: "${gid}" }) { errors pipeline { id status } } }`);
      assert.deepEqual(retry.pipelineRetry.errors, []);
      assert.equal(retry.pipelineRetry.pipeline.id, gid);
      assert.equal(retry.pipelineRetry.pipeline.status, upper((await ok('GET', `/projects/${w.projectId}/pipelines/${pipeline.id}`)).status));
      const notTheirs = await raw(`mutation { pipelineDestroy(input: { id: "${gid}" }) { errors } }`, undefined, dev.token);
      assert.deepEqual(notTheirs.errors.map((e: any) => e.message), [NOT_AVAILABLE]);
      assert.deepEqual((await gql(`mutation { pipelineDestroy(input: { id: "${gid}" }) { errors } }`)).pipelineDestroy, { errors: [] });
      assert.equal((await s.api('GET', `/projects/${w.projectId}/pipelines/${pipeline.id}`)).status, 404);
      // The manual job of the first pipeline: jobPlay starts it, as POST …/jobs/:id/play does.
      const manual = (await ok('GET', `/projects/${w.projectId}/pipelines/${w.pipelineId}/jobs`)).find((j: any) => j.name === 'later');
      assert.equal(manual.status, 'manual');
      const played = await gql(`mutation { jobPlay(input: { id: "gid://gitlab/Ci::Build/${manual.id}" }) { errors job { name status } } }`);
      assert.deepEqual(played.jobPlay, { errors: [], job: { name: 'later', status: upper((await ok('GET', `/projects/${w.projectId}/jobs/${manual.id}`)).status) } });
      assert.equal(played.jobPlay.job.status, 'PENDING');
      const wrong = await raw('mutation { pipelineCancel(input: { id: "gid://gitlab/Project/1" }) { errors } }');
      assert.match(wrong.errors[0].message, /is not a valid ID for Ci::Pipeline/);
    });
  });
}
