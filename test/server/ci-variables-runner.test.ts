import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitCi, createRunner, patchTrace, requestJob } from './ci-support.js';

type User = { id: number; username: string; token: string };

const CI = `
variables:
  SHARED: yaml
deploy:
  script: echo deploy
  environment:
    name: production
review:
  script: echo review
  environment:
    name: review/$CI_COMMIT_REF_SLUG
plain:
  script: echo plain
`;

/** The keys this suite sets; everything else in the payload is predefined. */
const OURS = new Set(['SHARED', 'INST_ONLY', 'INST_PROT', 'ROOT_PROT', 'SUB_HIDDEN', 'PROJ_PROT', 'FILE_VAR', 'RAW_VAR', 'ENV', 'REVIEW_URL']);

const v = (key: string, value: string, extra: Record<string, unknown> = {}) => ({ key, value, public: false, masked: false, ...extra });

for (const dialect of DIALECTS) {
  describe(`${dialect}: CI/CD variables in the runner payload`, () => {
    let f: TestForgelet;
    let owner: User;
    let project: any;
    let runner: { id: number; token: string };
    /** Payloads by pipeline id and job name. */
    const payloads = new Map<number, Map<string, any>>();

    async function drain(): Promise<void> {
      for (;;) {
        const job = await requestJob(f, runner.token);
        if (!job) return;
        const byName = payloads.get(job.job_info.pipeline_id) ?? new Map<string, any>();
        byName.set(job.job_info.name, job);
        payloads.set(job.job_info.pipeline_id, byName);
      }
    }
    async function runPipeline(ref: string): Promise<void> {
      expectStatus(await f.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref } }), 201);
      await drain();
    }
    const ours = (job: any) => job.variables.filter((x: any) => OURS.has(x.key));

    before(async () => {
      f = await startTestServer(dialect);
      [owner] = await createUsers(f, ['cvrowner']);
      const admin = await f.createUser('cvradmin', { admin: true });
      const root = await createGroup(f, owner.token, { name: 'Root', path: 'cvr-root' });
      const sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: root.id });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: sub.id });
      runner = await createRunner(f, owner.token, { runner_type: 'project_type', project_id: project.id });
      const post = async (path: string, body: Record<string, unknown>, token = owner.token) => expectStatus(await f.api('POST', path, { token, body }), 201);
      await post('/admin/ci/variables', { key: 'SHARED', value: 'instance' }, admin.token);
      await post('/admin/ci/variables', { key: 'INST_ONLY', value: 'from the instance' }, admin.token);
      await post('/admin/ci/variables', { key: 'INST_PROT', value: 'instance-protected', protected: true }, admin.token);
      await post(`/groups/${root.id}/variables`, { key: 'SHARED', value: 'root' });
      await post(`/groups/${root.id}/variables`, { key: 'ROOT_PROT', value: 'root-protected', protected: true });
      await post(`/groups/${sub.id}/variables`, { key: 'SHARED', value: 'sub' });
      await post(`/groups/${sub.id}/variables`, { key: 'SUB_HIDDEN', value: 'hidden-in-sub-1', masked_and_hidden: true });
      await post(`/projects/${project.id}/variables`, { key: 'SHARED', value: 'project' });
      await post(`/projects/${project.id}/variables`, { key: 'PROJ_PROT', value: 'project-protected', protected: true });
      await post(`/projects/${project.id}/variables`, { key: 'FILE_VAR', value: 'file-content-123', variable_type: 'file', masked: true });
      await post(`/projects/${project.id}/variables`, { key: 'RAW_VAR', value: 'keeps $DOLLARS', raw: true });
      // created out of order: the payload orders by scope specificity, not creation
      await post(`/projects/${project.id}/variables`, { key: 'ENV', value: 'exact', environment_scope: 'production' });
      await post(`/projects/${project.id}/variables`, { key: 'ENV', value: 'staging', environment_scope: 'staging' });
      await post(`/projects/${project.id}/variables`, { key: 'ENV', value: 'any', environment_scope: '*' });
      await post(`/projects/${project.id}/variables`, { key: 'ENV', value: 'glob', environment_scope: 'prod*' });
      await post(`/projects/${project.id}/variables`, { key: 'REVIEW_URL', value: 'review-app', environment_scope: 'review/*' });
      await commitCi(f, project.id, CI);
      await runPipeline('main'); // protected: the default branch
    });
    after(() => f.stop());

    const pipelineOn = (ref: string) => {
      for (const [, jobs] of payloads) if (jobs.get('plain')?.git_info.ref === ref) return jobs;
      throw new Error(`no pipeline on ${ref}`);
    };

    it('instance < root group < subgroup < project, after the CI file, protected ones on a protected branch', async () => {
      const deploy = pipelineOn('main').get('deploy');
      assert.equal(deploy.git_info.protected, true);
      assert.deepEqual(ours(deploy), [
        { key: 'SHARED', value: 'yaml', public: true, masked: false },
        v('SHARED', 'instance'),
        v('INST_ONLY', 'from the instance'),
        v('INST_PROT', 'instance-protected'),
        v('SHARED', 'root'),
        v('ROOT_PROT', 'root-protected'),
        v('SHARED', 'sub'),
        v('SUB_HIDDEN', 'hidden-in-sub-1', { masked: true }),
        v('SHARED', 'project'),
        v('PROJ_PROT', 'project-protected'),
        { key: 'FILE_VAR', value: 'file-content-123', public: false, file: true, masked: true },
        { key: 'RAW_VAR', value: 'keeps $DOLLARS', public: false, masked: false, raw: true },
        v('ENV', 'any'),
        v('ENV', 'glob'),
        v('ENV', 'exact'),
      ]);
      // the runner lets the last entry of a key win
      const last = new Map<string, string>(deploy.variables.map((x: any) => [x.key, x.value]));
      assert.deepEqual([last.get('SHARED'), last.get('ENV')], ['project', 'exact']);
    });

    it('environment scopes: a job without an environment gets `*` only; wildcards match expanded names', async () => {
      const jobs = pipelineOn('main');
      assert.deepEqual(ours(jobs.get('plain')).filter((x: any) => x.key === 'ENV' || x.key === 'REVIEW_URL'), [v('ENV', 'any')]);
      const review = jobs.get('review');
      // CI_ENVIRONMENT_* carry the expanded name, as GitLab's and as the deployment's environment
      const predefined = (key: string) => review.variables.find((x: any) => x.key === key).value;
      assert.deepEqual([predefined('CI_ENVIRONMENT_NAME'), predefined('CI_ENVIRONMENT_SLUG'), predefined('CI_ENVIRONMENT_TIER')], ['review/main', 'review-main', 'development']);
      assert.deepEqual(ours(review).filter((x: any) => x.key === 'ENV' || x.key === 'REVIEW_URL'), [v('ENV', 'any'), v('REVIEW_URL', 'review-app')]);
    });

    it('an unprotected branch gets no protected variables', async () => {
      await commitCi(f, project.id, CI, { branch: 'feature', startBranch: 'main' });
      await runPipeline('feature');
      const deploy = pipelineOn('feature').get('deploy');
      assert.equal(deploy.git_info.protected, false);
      const keys = ours(deploy).map((x: any) => x.key);
      assert.ok(!keys.includes('INST_PROT') && !keys.includes('ROOT_PROT') && !keys.includes('PROJ_PROT'), keys.join(','));
      assert.ok(keys.includes('INST_ONLY') && keys.includes('FILE_VAR'));
    });

    it("pipeline variables come last and win over the project's", async () => {
      const created = await f.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'main', variables: [{ key: 'SHARED', value: 'pipeline' }] } });
      expectStatus(created, 201);
      await drain();
      const plain = payloads.get(created.body.id)!.get('plain');
      const shared = ours(plain).filter((x: any) => x.key === 'SHARED').map((x: any) => x.value);
      assert.deepEqual(shared, ['yaml', 'instance', 'root', 'sub', 'project', 'pipeline']);
    });

    it('masked values show as [MASKED] in the job log, even from a runner that did not mask them', async () => {
      const plain = pipelineOn('main').get('plain');
      const text = 'token=file-content-123 hidden=hidden-in-sub-1 plain=from the instance\n';
      expectStatus(await patchTrace(f, plain, 0, text), 202);
      const trace = await f.api('GET', `/projects/${project.id}/jobs/${plain.id}/trace`, { token: owner.token });
      expectStatus(trace, 200);
      assert.equal(trace.text, 'token=[MASKED] hidden=[MASKED] plain=from the instance\n');
    });
  });
}
