// `forgelet runner --once` end to end, both sides as users start them: the built
// `bin/forgelet.js runner` against `bin/forgelet.js serve` (test/support/served.ts). A two-stage
// pipeline runs in order from the committed files, the logs and the artifact archive land on the
// server, the later stage gets the earlier one's artifacts, and a failing script fails the
// pipeline. The CLI does not depend on the SQL dialect, so this runs once, on SQLite.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fromBufferPromise } from 'yauzl';
import type { CommitAction } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { runBin, tempDir } from './cli-process.js';

const CI_FILE = `stages:
  - build
  - test

build-job:
  stage: build
  script:
    - ./scripts/build.sh
    - echo "built $CI_COMMIT_REF_NAME at $CI_COMMIT_SHORT_SHA"
  artifacts:
    paths:
      - out/
      - "*.log"
    exclude:
      - out/tmp/**
    expire_in: 1 week

test-job:
  stage: test
  script:
    - cat out/result.txt
    - test -x scripts/build.sh
    - echo "tested $(cat src/input.txt)"
    - echo "launcher malloc settings:\${MALLOC_ARENA_MAX-none},\${MALLOC_MMAP_THRESHOLD_-none}"
  after_script:
    - 'echo "after test: $CI_JOB_STATUS"'
`;

const BUILD_SCRIPT = `#!/bin/sh
set -e
mkdir -p out/nested out/tmp
echo "result of $CI_JOB_NAME" > out/result.txt
echo nested > out/nested/n.txt
echo scratch > out/tmp/scratch.txt
echo "building $CI_PROJECT_NAME" | tee build.log
`;

const FAILING_CI_FILE = `stages: [build, test]

build-job:
  stage: build
  script:
    - echo "about to fail"
    - exit 3
    - echo unreachable

test-job:
  stage: test
  script:
    - echo never
`;

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('forgelet runner end to end', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  let f: ServedForgelet;
  let projectId: number;
  let runnerToken: string;
  const work = tempDir('forgelet-runner-e2e-');

  /** A commit through the API; `[skip ci]` keeps the push from starting a pipeline the test did not create. */
  async function commit(branch: string, actions: CommitAction[], startBranch?: string): Promise<string> {
    const done = await f.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch, start_branch: startBranch, commit_message: `CI on ${branch}\n\n[skip ci]`, actions },
    });
    assert.equal(done.status, 201, done.text);
    return done.body.id;
  }

  async function runOnce(): Promise<{ code: number | null; outcomes: any[]; stderr: string }> {
    const r = await runBin(['runner', '--url', f.url, '--token', runnerToken, '--once', '--work-dir', work.path, '--json']);
    const outcomes = r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    return { code: r.code, outcomes, stderr: r.stderr };
  }

  async function jobsOf(pipelineId: number): Promise<any[]> {
    const res = await f.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?per_page=100`);
    assert.equal(res.status, 200, res.text);
    return (res.body as any[]).sort((a, b) => a.id - b.id);
  }

  before(async () => {
    f = await startServed('sqlite');
    const project = await f.api('POST', '/projects', { body: { name: 'runner-demo' } });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
    await commit('main', [
      { action: 'create', file_path: '.gitlab-ci.yml', content: CI_FILE },
      { action: 'create', file_path: 'scripts/build.sh', content: BUILD_SCRIPT, execute_filemode: true },
      { action: 'create', file_path: 'src/input.txt', content: 'forty-two' },
    ]);
    const runner = await f.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: projectId, description: 'e2e' } });
    assert.equal(runner.status, 201, runner.text);
    assert.match(runner.body.token, /^glrt-/);
    runnerToken = runner.body.token;
  });

  after(async () => {
    await f?.stop();
    work.remove();
  });

  it('refuses an unknown runner token (exit 1) and exits 0 when no job is pending', async () => {
    const refused = await runBin(['runner', '--url', f.url, '--token', 'glrt-not-a-runner', '--once']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /^error: the runner token was refused \(403 /);
    const idle = await runOnce();
    assert.deepEqual(idle, { code: 0, outcomes: [], stderr: '' });
  });

  it('runs a two-stage pipeline in order, streaming logs and uploading artifacts', async () => {
    const created = await f.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.equal(created.status, 201, created.text);
    const pipelineId = created.body.id;

    const result = await runOnce();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      result.outcomes.map((o) => [o.name, o.stage, o.status, o.pipeline_id, o.project_id]),
      [
        ['build-job', 'build', 'success', pipelineId, projectId],
        ['test-job', 'test', 'success', pipelineId, projectId],
      ],
    );

    const pipeline = await f.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
    assert.equal(pipeline.body.status, 'success');
    const [build, test] = await jobsOf(pipelineId);
    assert.deepEqual([build.name, build.status, test.name, test.status], ['build-job', 'success', 'test-job', 'success']);
    assert.ok(Date.parse(build.finished_at) <= Date.parse(test.started_at), 'the test stage started after the build stage finished');

    const buildLog = await f.api('GET', `/projects/${projectId}/jobs/${build.id}/trace`);
    assert.equal(buildLog.status, 200);
    const buildText = plain(buildLog.text);
    assert.match(buildText, /^Running with forgelet-runner /);
    // the sources come with git (the job token in git_info.repo_url), at the pipeline's sha
    assert.match(buildText, /\nFetching changes with git depth set to 20\.\.\.\n/);
    assert.match(buildText, new RegExp(`\\nChecking out ${pipeline.body.sha.slice(0, 8)} as detached HEAD \\(ref is main\\)\\.\\.\\.\\n`));
    assert.match(buildText, /\n\$ \.\/scripts\/build\.sh\nbuilding runner-demo\n\$ echo "built \$CI_COMMIT_REF_NAME at \$CI_COMMIT_SHORT_SHA"\nbuilt main at [0-9a-f]{8}\n/);
    assert.match(buildText, /\nUploading artifacts as "archive" to coordinator\.\.\. 201 Created/);
    assert.match(buildText, /\nJob succeeded\n$/);
    assert.doesNotMatch(buildText, /glcbt-/);

    const archive = await fetch(`${f.url}/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
    assert.equal(archive.status, 200);
    const zip = await fromBufferPromise(Buffer.from(await archive.arrayBuffer()), {});
    const entries = new Map<string, string>();
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
      entries.set(entry.fileName, Buffer.concat(chunks).toString());
    }
    assert.deepEqual([...entries.keys()].sort(), ['build.log', 'out/', 'out/nested/', 'out/nested/n.txt', 'out/result.txt']);
    assert.equal(entries.get('out/result.txt'), 'result of build-job\n');
    assert.equal(entries.get('build.log'), 'building runner-demo\n');

    // the test job got the build job's artifacts and the repository's executable bit
    const testText = plain((await f.api('GET', `/projects/${projectId}/jobs/${test.id}/trace`)).text);
    assert.match(testText, /\n\$ cat out\/result\.txt\nresult of build-job\n\$ test -x scripts\/build\.sh\n\$ echo "tested \$\(cat src\/input\.txt\)"\ntested forty-two\n/);
    // the allocator settings of the launcher's shebang are for `serve`; jobs do not inherit them
    assert.match(testText, /\nlauncher malloc settings:none,none\n/);
    assert.match(testText, /\nafter test: success\n/);
    assert.match(testText, /\nJob succeeded\n$/);

    // job directories are removed after each job
    assert.deepEqual(existsSync(work.path) ? readdirSync(work.path) : [], []);

    // what the runner said about itself reached the server: its version, platform and architecture
    const cliVersion = (JSON.parse(readFileSync(new URL('../../packages/cli/package.json', import.meta.url), 'utf8')) as { version: string }).version;
    const arch = process.arch === 'x64' ? 'amd64' : process.arch;
    const shown = await f.api('GET', `/runners/${build.runner.id}`);
    assert.deepEqual([shown.body.version, shown.body.platform, shown.body.architecture, shown.body.status], [cliVersion, process.platform, arch, 'online']);
    assert.match(build.runner_manager.system_id, /^s_[0-9a-f]{12}$/);
    assert.deepEqual([build.runner_manager.version, build.runner_manager.ip_address], [cliVersion, '127.0.0.1']);
  });

  it('a failing script fails its job and the pipeline, and skips the later stage', async () => {
    await commit('broken', [{ action: 'update', file_path: '.gitlab-ci.yml', content: FAILING_CI_FILE }], 'main');
    const created = await f.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'broken' } });
    assert.equal(created.status, 201, created.text);
    const pipelineId = created.body.id;

    const result = await runOnce();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      result.outcomes.map((o) => [o.name, o.status, o.failure_reason, o.exit_code]),
      [['build-job', 'failed', 'script_failure', 3]],
    );

    const pipeline = await f.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
    assert.equal(pipeline.body.status, 'failed');
    const [build, test] = await jobsOf(pipelineId);
    assert.deepEqual([build.status, build.failure_reason, test.status], ['failed', 'script_failure', 'skipped']);
    const log = plain((await f.api('GET', `/projects/${projectId}/jobs/${build.id}/trace`)).text);
    assert.match(log, /\n\$ echo "about to fail"\nabout to fail\n\$ exit 3\n/);
    assert.doesNotMatch(log, /unreachable/);
    assert.match(log, /\nERROR: Job failed: exit code 3\n$/);
  });

  it('a commit the branch has moved past runs on its own files (git fetches the sha)', async () => {
    const sha = await commit('moved', [{ action: 'update', file_path: 'src/input.txt', content: 'first' }], 'main');
    const created = await f.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'moved' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.sha, sha);
    await commit('moved', [{ action: 'update', file_path: 'src/input.txt', content: 'second' }]);

    const result = await runOnce();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.outcomes.map((o) => [o.name, o.status]), [['build-job', 'success'], ['test-job', 'success']]);
    const [build, test] = await jobsOf(created.body.id);
    const buildLog = plain((await f.api('GET', `/projects/${projectId}/jobs/${build.id}/trace`)).text);
    assert.match(buildLog, new RegExp(`\\nChecking out ${sha.slice(0, 8)} as detached HEAD \\(ref is moved\\)`));
    assert.match(plain((await f.api('GET', `/projects/${projectId}/jobs/${test.id}/trace`)).text), /\ntested first\n/);
  });
});
