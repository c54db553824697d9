/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): job artifacts (issue 7's "Must show").
 * The flow lives in python_gitlab_artifacts.py: archives uploaded through the runner API (spoken
 * with requests), then the tree (recursively and by path), one file by job and by ref, the archive
 * by ref (the latest successful pipeline, a newer failed one skipped; refs with raw slashes), a CI
 * job token, keep, delete and delete-all through python-gitlab.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { commitCi, createRunner } from '../server/ci-support.js';
import { createProject } from '../server/http.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_artifacts.py', import.meta.url));
const CI = '"build job":\n  script: make\n  artifacts:\n    paths: [dist/]\n';

const skip = toolSkip('python-gitlab', probePythonGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 job artifacts`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let projectId: number;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };
    const requests = (s: PythonStep, method = 'GET') => s.exchanges.filter(([m]: string[]) => m === method).map(([, path, status]: [string, string, number]) => [path, status]);

    before(async () => {
      f = await startServed(dialect);
      const project = await createProject(f, f.rootToken, { name: 'Py Artifacts', path: 'py-artifacts' });
      projectId = project.id;
      await commitCi(f, projectId, CI);
      await commitCi(f, projectId, CI, { branch: 'feature/x', startBranch: 'main' });
      const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: projectId });
      const run = await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken, PROJECT_ID: String(projectId), RUNNER_TOKEN: runner.token });
      results = run.results;
      console.log(`[${dialect}] python-gitlab artifacts script ${run.ms} ms`);
    });
    after(() => f?.stop());

    it('pipelines through python-gitlab, jobs run and archives uploaded through the runner API', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('pipelines');
      assert.deepEqual(s.statuses, ['success', 'failed', 'success']);
      assert.deepEqual([s.ok.upload, s.failed.upload, s.feature.upload], [201, 201, 201]);
    });

    it('the tree: recursively (paginated, following Link) and by path (directories first); a missing path is a 404', () => {
      const s = stepOf('tree');
      assert.deepEqual(s.recursive.map((e: any) => [e.path, e.type, e.size ?? null]), [
        ['dist/', 'directory', null],
        ['dist/app.txt', 'file', 7],
        ['dist/sub/', 'directory', null],
        ['dist/sub/file.txt', 'file', 7],
        ['top.txt', 'file', 4],
      ]);
      assert.deepEqual(s.recursive[1], { name: 'app.txt', path: 'dist/app.txt', type: 'file', size: 7, mode: '100600' });
      assert.deepEqual(s.dist.map((e: any) => e.path), ['dist/sub/', 'dist/app.txt']);
      assert.deepEqual(s.missing, { type: 'GitlabHttpError', response_code: 404, message: '404 Path Not Found' });
      const pages = requests(s).filter(([path]: [string]) => path.includes('recursive'));
      assert.equal(pages.length, 3, 'three pages of two, by the Link header');
    });

    it('job.artifact(path) and job.artifacts(): one file and the whole archive; a missing file is GitlabGetError 404', () => {
      const s = stepOf('files');
      const setup = stepOf('pipelines');
      assert.equal(s.nested, 'nested\n');
      assert.equal(s.archive_sha, setup.ok.sha);
      assert.deepEqual(s.missing, { type: 'GitlabGetError', response_code: 404, message: '404 Not Found' });
      assert.deepEqual(requests(s)[0], [`/projects/${projectId}/jobs/${setup.ok.job}/artifacts/dist/sub/file.txt`, 200]);
    });

    it('project.artifacts.download / raw by ref: the latest successful pipeline (the newer failed one skipped); raw slashes in the ref', () => {
      const s = stepOf('by_ref');
      const setup = stepOf('pipelines');
      assert.equal(s.main_sha, setup.ok.sha);
      assert.equal(s.main_file, 'app v1\n');
      assert.equal(s.feature_sha, setup.feature.sha);
      assert.equal(s.feature_file, 'feature file\n');
      assert.deepEqual(s.unknown, { type: 'GitlabGetError', response_code: 404, message: '404 Not found' });
      assert.deepEqual(requests(s), [
        [`/projects/${projectId}/jobs/artifacts/main/download?job=build+job`, 200],
        [`/projects/${projectId}/jobs/artifacts/main/raw/dist/app.txt?job=build+job`, 200],
        [`/projects/${projectId}/jobs/artifacts/feature/x/download?job=build+job`, 200],
        [`/projects/${projectId}/jobs/artifacts/feature/x/raw/dir/file.txt?job=build+job`, 200],
        [`/projects/${projectId}/jobs/artifacts/main/download?job=no+such+job`, 404],
      ]);
    });

    it('a CI job token (JOB-TOKEN header and job_token=) reads while its job runs, and is refused (401) once it finished', () => {
      const s = stepOf('job_token');
      assert.equal(s.read, 'top\n');
      assert.equal(s.by_query, 'feature file\n');
      assert.deepEqual(s.after_finish, { type: 'GitlabAuthenticationError', response_code: 401, message: '401 Unauthorized' });
    });

    it('job.keep_artifacts(): expiry cleared; job.delete_artifacts(): gone (404), the job stays; project.artifacts.delete(): 202, the latest of a ref stays', () => {
      const keep = stepOf('keep');
      const setup = stepOf('pipelines');
      assert.deepEqual([keep.artifacts_expire_at, keep.artifacts], [null, ['archive']]);
      assert.deepEqual(requests(keep, 'POST'), [[`/projects/${projectId}/jobs/${setup.ok.job}/artifacts/keep`, 200]]);
      const del = stepOf('delete');
      assert.deepEqual(del.after, { type: 'GitlabGetError', response_code: 404, message: '404 Not Found' });
      assert.equal(del.status, 'success');
      assert.deepEqual(requests(del, 'DELETE'), [[`/projects/${projectId}/jobs/${setup.ok.job}/artifacts`, 204]]);
      const all = stepOf('delete_all');
      assert.deepEqual(requests(all, 'DELETE'), [[`/projects/${projectId}/artifacts`, 202]]);
      assert.equal(all.feature_file, 'feature file\n');
    });
  });
}
