/**
 * `forgelet runner` executes committed `.gitlab-ci.yml` files, and real GitLab clients read the
 * outcome (issue 6's "Must show"): @gitbeaker/rest 43.8.0 (Pipelines, Jobs, JobArtifacts) and
 * python-gitlab 3.12 (project.pipelines, pipeline.jobs, project.jobs, job.trace(),
 * job.artifacts(); the flow is python_gitlab_ci_runner.py).
 *
 * `main` holds a two-stage file (build → test) whose build job declares artifact paths
 * (`out/`, `*.log`, minus `out/tmp/**`); `broken` holds one whose build script exits 3. Each
 * client creates a pipeline on both branches; the built `bin/forgelet.js runner --once` runs
 * their jobs against `bin/forgelet.js serve` (test/support/served.ts), both started as users
 * start them, as in test/cli/runner.test.ts. The logs are readable, the declared paths are in
 * the downloaded archive (and the excluded ones are not), and the failing script fails its job
 * and the pipeline, the later stage skipped.
 *
 * Without python-gitlab its part is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Gitlab } from '@gitbeaker/rest';
import { fromBufferPromise } from 'yauzl';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { runBin, tempDir } from '../cli/cli-process.js';
import { probePythonGitlab, pythonStep, runPythonStepsWithPauses, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

type Client = InstanceType<typeof Gitlab>;

const SCRIPT = fileURLToPath(new URL('./python_gitlab_ci_runner.py', import.meta.url));
const skipPython = toolSkip('python-gitlab', probePythonGitlab());

const CI_FILE = `stages:
  - build
  - test

build-job:
  stage: build
  script:
    - sh scripts/build.sh
    - echo "built $CI_COMMIT_REF_NAME for $CI_PIPELINE_SOURCE"
  artifacts:
    paths:
      - out/
      - "*.log"
    exclude:
      - out/tmp/**

test-job:
  stage: test
  script:
    - cat out/result.txt
    - echo "tested $(cat src/input.txt)"
`;

const BUILD_SCRIPT = `set -e
mkdir -p out/nested out/tmp
echo "result of $CI_JOB_NAME" > out/result.txt
echo nested > out/nested/n.txt
echo scratch > out/tmp/scratch.txt
echo "building $CI_PROJECT_NAME" | tee build.log
echo "not declared" > stray.txt
`;

const FAILING_CI_FILE = `stages: [build, test]

build-job:
  stage: build
  script:
    - echo "about to fail"
    - exit 3
    - echo unreachable
  artifacts:
    paths: [out/]

test-job:
  stage: test
  script:
    - echo never
`;

/** The archive of the build job on main: the declared paths, without out/tmp/** and stray.txt. */
const ARCHIVE = {
  'build.log': 'building ci-e2e\n',
  'out/': '',
  'out/nested/': '',
  'out/nested/n.txt': 'nested\n',
  'out/result.txt': 'result of build-job\n',
};

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

async function unzip(data: Buffer): Promise<Record<string, string>> {
  const zip = await fromBufferPromise(data, {});
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out[entry.fileName] = Buffer.concat(chunks).toString();
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet runner, read through @gitbeaker/rest and python-gitlab`, () => {
    let f: ServedForgelet;
    let gb: Client;
    let projectId: number;
    let runnerToken: string;
    const work = tempDir('forgelet-runner-real-clients-');

    /** `forgelet runner --once`: runs every pending job, then exits; one outcome per job. */
    async function runRunner(): Promise<any[]> {
      const r = await runBin(['runner', '--url', f.url, '--token', runnerToken, '--once', '--work-dir', work.path, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    }

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect);
      gb = new Gitlab({ host: f.url, token: f.rootToken });
      const project = await gb.Projects.create({ name: 'ci-e2e', path: 'ci-e2e', initializeWithReadme: true });
      projectId = project.id;
      await commitFiles(f, projectId, 'main', { '.gitlab-ci.yml': CI_FILE, 'scripts/build.sh': BUILD_SCRIPT, 'src/input.txt': 'forty-two' });
      await commitFiles(f, projectId, 'broken', { '.gitlab-ci.yml': FAILING_CI_FILE }, { startBranch: 'main' });
      const runner = await f.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: projectId, description: 'real clients' } });
      assert.equal(runner.status, 201, runner.text);
      runnerToken = runner.body.token;
      console.log(`[${dialect}] ci runner e2e setup: ${Math.round(performance.now() - t0)} ms`);
    });
    after(async () => {
      await f?.stop();
      work.remove();
    });

    describe('@gitbeaker/rest 43.8.0', () => {
      let main: number;
      let broken: number;

      before(async () => {
        const t0 = performance.now();
        main = (await gb.Pipelines.create(projectId, 'main')).id;
        broken = (await gb.Pipelines.create(projectId, 'broken')).id;
        const outcomes = await runRunner();
        assert.deepEqual(
          outcomes.map((o) => [o.pipeline_id, o.name, o.status]).sort(),
          [
            [broken, 'build-job', 'failed'],
            [main, 'build-job', 'success'],
            [main, 'test-job', 'success'],
          ].sort(),
        );
        console.log(`[${dialect}] gitbeaker pipelines run: ${Math.round(performance.now() - t0)} ms`);
      });

      it('two stages in order: Pipelines.show success, Jobs.all lists both jobs, Jobs.showLog reads each log', async () => {
        const pipeline = await gb.Pipelines.show(projectId, main);
        assert.deepEqual([pipeline.status, pipeline.ref, pipeline.source], ['success', 'main', 'api']);
        const jobs = (await gb.Jobs.all(projectId, { pipelineId: main })).sort((a, b) => a.id - b.id);
        assert.deepEqual(jobs.map((j) => [j.name, j.stage, j.status]), [['build-job', 'build', 'success'], ['test-job', 'test', 'success']]);
        const [build, test] = jobs;
        assert.ok(Date.parse(String(build.finished_at)) <= Date.parse(String(test.started_at)), 'test started after build finished');

        const buildLog = plain(String(await gb.Jobs.showLog(projectId, build.id)));
        assert.match(buildLog, /^Running with forgelet-runner /);
        assert.match(buildLog, /\n\$ sh scripts\/build\.sh\nbuilding ci-e2e\n\$ echo "built \$CI_COMMIT_REF_NAME for \$CI_PIPELINE_SOURCE"\nbuilt main for api\n/);
        assert.match(buildLog, /\nJob succeeded\n$/);
        const testLog = plain(String(await gb.Jobs.showLog(projectId, test.id)));
        assert.match(testLog, /\n\$ cat out\/result\.txt\nresult of build-job\n\$ echo "tested \$\(cat src\/input\.txt\)"\ntested forty-two\n/);
        assert.match(testLog, /\nJob succeeded\n$/);
      });

      it('JobArtifacts.downloadArchive: the declared paths are in the archive, the excluded and undeclared ones are not', async () => {
        const [build, test] = (await gb.Jobs.all(projectId, { pipelineId: main })).sort((a, b) => a.id - b.id);
        const shown = await gb.Jobs.show(projectId, build.id);
        assert.equal((shown.artifacts_file as { filename: string } | undefined)?.filename, 'artifacts.zip');
        const blob = await gb.JobArtifacts.downloadArchive(projectId, { jobId: build.id });
        assert.ok(blob instanceof Blob, `a Blob, got ${typeof blob}`);
        assert.deepEqual(await unzip(Buffer.from(await blob.arrayBuffer())), ARCHIVE);
        // the test job declared no artifacts
        assert.equal((await gb.Jobs.show(projectId, test.id)).artifacts_file, undefined);
      });

      it('a failing script fails its job (script_failure) and the pipeline; the later stage is skipped', async () => {
        const pipeline = await gb.Pipelines.show(projectId, broken);
        assert.equal(pipeline.status, 'failed');
        const jobs = (await gb.Jobs.all(projectId, { pipelineId: broken })).sort((a, b) => a.id - b.id);
        assert.deepEqual(jobs.map((j) => [j.name, j.status, j.failure_reason ?? null]), [['build-job', 'failed', 'script_failure'], ['test-job', 'skipped', null]]);
        const log = plain(String(await gb.Jobs.showLog(projectId, jobs[0].id)));
        assert.match(log, /\n\$ echo "about to fail"\nabout to fail\n\$ exit 3\n/);
        assert.doesNotMatch(log, /unreachable/);
        assert.match(log, /\nERROR: Job failed: exit code 3\n$/);
        const failed = await gb.Jobs.all(projectId, { scope: ['failed'] } as Record<string, unknown>);
        assert.deepEqual(failed.map((j) => j.id), [jobs[0].id]);
      });
    });

    describe('python-gitlab 3.12', { skip: skipPython }, () => {
      let results: Record<string, PythonStep>;
      let runs: any[][] = [];
      const stepOf = (name: string): PythonStep => {
        const s = pythonStep(results, name);
        assert.deepEqual(s.warnings, [], `python step ${name} warned`);
        return s;
      };

      before(async () => {
        const run = await runPythonStepsWithPauses(
          SCRIPT,
          { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken, FORGELET_PROJECT_ID: String(projectId) },
          {
            run_runner: async () => {
              const outcomes = await runRunner();
              runs.push(outcomes);
              return outcomes.map((o) => [o.pipeline_id, o.name, o.status]);
            },
          },
        );
        results = run.results;
        const steps = Object.entries(results)
          .filter(([, v]) => typeof v === 'object')
          .map(([k, v]) => `${k}=${v.ms}ms`)
          .join(' ');
        console.log(`[${dialect}] python-gitlab ci runner: script ${run.ms} ms (${steps})`);
      });

      it('project.pipelines.create on both branches; the runner runs their jobs', () => {
        assert.match(String(results.version), /^3\./);
        const s = stepOf('create');
        assert.deepEqual({ ...s.main, id: 0 }, { id: 0, status: 'pending', ref: 'main', source: 'api' });
        assert.deepEqual({ ...s.broken, id: 0 }, { id: 0, status: 'pending', ref: 'broken', source: 'api' });
        assert.equal(runs.length, 1);
        assert.deepEqual(
          stepOf('run').outcomes.sort(),
          [
            [s.broken.id, 'build-job', 'failed'],
            [s.main.id, 'build-job', 'success'],
            [s.main.id, 'test-job', 'success'],
          ].sort(),
        );
      });

      it('pipeline.jobs.list, job.trace() and job.artifacts(): both stages succeeded, logs readable, declared paths archived', async () => {
        const s = stepOf('passing');
        const main = stepOf('create').main.id;
        assert.equal(s.status, 'success');
        assert.deepEqual(
          s.jobs.map((j: any) => [j.name, j.stage, j.status, j.failure_reason, j.pipeline_id]),
          [['build-job', 'build', 'success', null, main], ['test-job', 'test', 'success', null, main]],
        );
        assert.equal(s.jobs[0].artifacts_file.filename, 'artifacts.zip');
        assert.equal(s.jobs[1].artifacts_file, null);
        const buildLog = plain(s.traces['build-job']);
        assert.match(buildLog, /\n\$ sh scripts\/build\.sh\nbuilding ci-e2e\n/);
        assert.match(buildLog, /\nbuilt main for api\n/);
        assert.match(buildLog, /\nJob succeeded\n$/);
        assert.match(plain(s.traces['test-job']), /\nresult of build-job\n[\s\S]*\ntested forty-two\n[\s\S]*Job succeeded\n$/);
        assert.deepEqual(Object.keys(s.archives), ['build-job']);
        assert.deepEqual(s.archives['build-job'], ARCHIVE);
      });

      it('the failing script: job failed (script_failure), pipeline failed, test-job skipped, no archive (GitlabGetError 404)', () => {
        const s = stepOf('failing');
        const broken = stepOf('create').broken.id;
        assert.equal(s.status, 'failed');
        assert.deepEqual(
          s.jobs.map((j: any) => [j.name, j.status, j.failure_reason, j.pipeline_id]),
          [['build-job', 'failed', 'script_failure', broken], ['test-job', 'skipped', null, broken]],
        );
        const log = plain(s.trace);
        assert.match(log, /\n\$ exit 3\n/);
        assert.doesNotMatch(log, /unreachable/);
        assert.match(log, /\nERROR: Job failed: exit code 3\n$/);
        assert.deepEqual(s.no_archive, { type: 'GitlabGetError', response_code: 404 });
        // both failed build jobs (gitbeaker's and python's), newest first
        assert.equal(s.failed_in_project.length, 2);
        assert.equal(s.failed_in_project[0], s.jobs[0].id);
        assert.equal(s.failed_query, `/projects/${projectId}/jobs?scope%5B%5D=failed`);
      });
    });
  });
}
