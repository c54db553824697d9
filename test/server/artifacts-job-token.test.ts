/**
 * CI job tokens on the artifact reads, end to end with two projects and real running jobs:
 * the token works in its own project (JOB-TOKEN header and `job_token` query), stops working
 * when its job finishes, and reaches another project's artifacts only while that project's
 * inbound allowlist names the job's project or a group holding it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitCi, createRunner, finishJob } from './ci-support.js';
import { buildZip, createPipeline, runPipeline, takeJob, type RunningJob } from './artifacts-support.js';

type User = { id: number; username: string; token: string };

const CI = `
build:
  script: make
  artifacts:
    paths: [out/]
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: job artifacts with CI job tokens`, () => {
    let f: TestForgelet;
    let alice: User;
    let groupA: any;
    let projectA: any;
    let projectB: any;
    let jobA: number;
    let jobB: number;
    let running: RunningJob;
    let runnerA: { id: number; token: string };

    /** The four artifact reads of a project's job, by a job token in the header or the query. */
    async function reads(project: any, jobId: number, via: 'header' | 'query'): Promise<[number, unknown][]> {
      const paths = [
        `/projects/${project.id}/jobs/${jobId}/artifacts`,
        `/projects/${project.id}/jobs/${jobId}/artifacts/tree`,
        `/projects/${project.id}/jobs/${jobId}/artifacts/out/who.txt`,
        `/projects/${project.id}/jobs/artifacts/main/raw/out/who.txt?job=build`,
      ];
      const out: [number, unknown][] = [];
      for (const path of paths) {
        const r =
          via === 'header'
            ? await f.api('GET', path, { token: null, headers: { 'JOB-TOKEN': running.token } })
            : await f.api('GET', `${path}${path.includes('?') ? '&' : '?'}job_token=${encodeURIComponent(running.token)}`, { token: null });
        out.push([r.status, r.status === 200 ? null : r.body]);
      }
      return out;
    }
    const allOk: [number, unknown][] = [[200, null], [200, null], [200, null], [200, null]];

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2024-06-15T12:00:00.000Z'), workers: false });
      [alice] = await createUsers(f, ['jtalice']);
      groupA = await createGroup(f, f.rootToken, { name: 'Source group', path: 'source-group' });
      const groupB = await createGroup(f, f.rootToken, { name: 'Target group', path: 'target-group' });
      projectA = await createProject(f, f.rootToken, { name: 'a', namespace_id: groupA.id, visibility: 'private' });
      projectB = await createProject(f, f.rootToken, { name: 'b', namespace_id: groupB.id, visibility: 'private' });
      // alice runs A's pipelines and may read B: only the job token scope stands between them
      await addMember(f, 'projects', projectA.id, alice.id, 40);
      await addMember(f, 'projects', projectB.id, alice.id, 20);
      for (const p of [projectA, projectB]) await commitCi(f, p.id, CI);
      runnerA = await createRunner(f, alice.token, { runner_type: 'project_type', project_id: projectA.id });
      const runnerB = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: projectB.id });
      ({ jobId: jobA } = await runPipeline(f, alice.token, runnerA.token, projectA.id, 'main', await buildZip([{ path: 'out/who.txt', content: 'A' }])));
      ({ jobId: jobB } = await runPipeline(f, f.rootToken, runnerB.token, projectB.id, 'main', await buildZip([{ path: 'out/who.txt', content: 'B' }])));
      // a job of A that keeps running: its token is the one under test
      await createPipeline(f, alice.token, projectA.id, 'main');
      running = await takeJob(f, runnerA.token);
    });
    after(() => f.stop());

    it('a running job reads its own project\'s artifacts with JOB-TOKEN or ?job_token=', async () => {
      assert.deepEqual(await reads(projectA, jobA, 'header'), allOk);
      assert.deepEqual(await reads(projectA, jobA, 'query'), allOk);
      const file = await f.api('GET', `/projects/${projectA.id}/jobs/${jobA}/artifacts/out/who.txt`, { token: null, headers: { 'JOB-TOKEN': running.token } });
      assert.equal(file.text, 'A');
      // keep and delete do not take job tokens
      const keep = await f.api('POST', `/projects/${projectA.id}/jobs/${jobA}/artifacts/keep`, { token: null, headers: { 'JOB-TOKEN': running.token } });
      assert.deepEqual([keep.status, keep.body], [401, { message: '401 Unauthorized' }]);
      const del = await f.api('DELETE', `/projects/${projectA.id}/jobs/${jobA}/artifacts?job_token=${running.token}`, { token: null });
      assert.equal(del.status, 401);
      const bogus = await f.api('GET', `/projects/${projectA.id}/jobs/${jobA}/artifacts/tree`, { token: null, headers: { 'JOB-TOKEN': 'glcbt-bogus' } });
      assert.deepEqual([bogus.status, bogus.body], [401, { message: '401 Unauthorized' }]);
    });

    it('another project\'s artifacts: refused, allowed by project, refused, allowed by group, refused again', async () => {
      const denied = { message: `403 Forbidden - Authentication by CI/CD job token not allowed from ${projectA.path_with_namespace} to ${projectB.path_with_namespace}.` };
      const allDenied: [number, unknown][] = [[403, denied], [403, denied], [403, denied], [403, denied]];
      assert.deepEqual(await reads(projectB, jobB, 'header'), allDenied);
      assert.deepEqual(await reads(projectB, jobB, 'query'), allDenied);
      // alice's own token reads B (she is a Reporter there)
      const own = await f.api('GET', `/projects/${projectB.id}/jobs/${jobB}/artifacts/out/who.txt`, { token: alice.token });
      assert.deepEqual([own.status, own.text], [200, 'B']);

      const scope = `/projects/${projectB.id}/job_token_scope`;
      expectStatus(await f.api('POST', `${scope}/allowlist`, { body: { target_project_id: projectA.id } }), 201);
      assert.deepEqual(await reads(projectB, jobB, 'header'), allOk);
      assert.deepEqual(await reads(projectB, jobB, 'query'), allOk);
      const file = await f.api('GET', `/projects/${projectB.id}/jobs/${jobB}/artifacts/out/who.txt`, { token: null, headers: { 'JOB-TOKEN': running.token } });
      assert.equal(file.text, 'B');

      expectStatus(await f.api('DELETE', `${scope}/allowlist/${projectA.id}`), 204);
      assert.deepEqual(await reads(projectB, jobB, 'header'), allDenied);

      expectStatus(await f.api('POST', `${scope}/groups_allowlist`, { body: { target_group_id: groupA.id } }), 201);
      assert.deepEqual(await reads(projectB, jobB, 'header'), allOk);
      assert.deepEqual(await reads(projectB, jobB, 'query'), allOk);

      expectStatus(await f.api('DELETE', `${scope}/groups_allowlist/${groupA.id}`), 204);
      assert.deepEqual(await reads(projectB, jobB, 'header'), allDenied);
      assert.deepEqual(await reads(projectB, jobB, 'query'), allDenied);
    });

    it('the token stops working when its job finishes', async () => {
      await finishJob(f, running, 'success');
      const dead: [number, unknown][] = Array.from({ length: 4 }, () => [401, { message: '401 Unauthorized' }]);
      assert.deepEqual(await reads(projectA, jobA, 'header'), dead);
      assert.deepEqual(await reads(projectA, jobA, 'query'), dead);
    });
  });
}
