/**
 * A `git push` through the built `forgelet serve` drives what an API write drives: push and tag
 * push webhooks, a push pipeline from the pushed `.gitlab-ci.yml` (none for `[skip ci]`), and
 * `forgelet runner` runs its job on the pushed sources, fetched with git at the job's sha with
 * `GIT_DEPTH`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { gitOk } from '../support/git-client.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { runBin } from '../cli/cli-process.js';

const CI_FILE = `variables:
  GIT_DEPTH: "2"
check:
  script:
    - cat README.md
    - test "$(git rev-parse HEAD)" = "$CI_COMMIT_SHA"
    - echo "history depth $(git rev-list --count HEAD)"
`;

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: a git push drives webhooks, pipelines and the runner`, () => {
    let f: ServedForgelet;
    let rx: HookReceiver;
    let work: string;

    before(async () => {
      f = await startServed(dialect);
      rx = await hookReceiver();
      work = await mkdtemp(join(tmpdir(), 'forgelet-git-push-'));
    });
    after(async () => {
      await f?.stop();
      await rx?.close();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('push and tag push webhooks, a push pipeline, the runner on the pushed sha', async () => {
      const project = ok(await f.api('POST', '/projects', { body: { name: 'pushed' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/project`, push_events: true, tag_push_events: true } }), 201);
      const runner = ok(await f.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: project.id, description: 'git' } }), 201);
      const url = `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`;

      const src = join(work, 'src');
      await gitOk(work, ['init', '-q', src]);
      for (const [i, content] of ['one', 'two', 'three'].entries()) {
        await writeFile(join(src, 'README.md'), `${content}\n`);
        if (i === 2) await writeFile(join(src, '.gitlab-ci.yml'), CI_FILE);
        await gitOk(src, ['add', '.']);
        await gitOk(src, ['commit', '-q', '-m', `Commit ${content}`]);
      }
      const sha = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      await gitOk(src, ['push', '-q', url, 'main']);

      const pipelines = ok(await f.api('GET', `/projects/${project.id}/pipelines`));
      assert.deepEqual(pipelines.map((p: any) => [p.ref, p.sha, p.source]), [['main', sha, 'push']]);

      await f.runDue();
      await until('the push hook', async () => rx.deliveries.some((d) => d.body.object_kind === 'push'));
      const push = rx.deliveries.find((d) => d.body.object_kind === 'push')!;
      assert.equal(push.headers['x-gitlab-event'], 'Push Hook');
      assert.deepEqual([push.body.ref, push.body.before, push.body.after, push.body.user_username, push.body.total_commits_count], ['refs/heads/main', '0'.repeat(40), sha, 'root', 3]);

      await gitOk(src, ['tag', '-a', '-m', 'First release', 'v1.0.0']);
      await gitOk(src, ['push', '-q', url, 'v1.0.0']);
      await f.runDue();
      await until('the tag push hook', async () => rx.deliveries.some((d) => d.body.object_kind === 'tag_push'));
      const tag = rx.deliveries.find((d) => d.body.object_kind === 'tag_push')!;
      assert.deepEqual([tag.headers['x-gitlab-event'], tag.body.ref, tag.body.checkout_sha], ['Tag Push Hook', 'refs/tags/v1.0.0', sha]);

      // The runner fetches the job's sources with git (the job token in git_info.repo_url), at GIT_DEPTH.
      const run = await runBin(['runner', '--url', f.url, '--token', runner.token, '--once', '--work-dir', join(work, 'builds'), '--json']);
      assert.equal(run.code, 0, run.stderr);
      const jobs = ok(await f.api('GET', `/projects/${project.id}/pipelines/${pipelines[0].id}/jobs`));
      assert.equal(jobs[0].status, 'success');
      const trace = (await f.api('GET', `/projects/${project.id}/jobs/${jobs[0].id}/trace`)).text;
      assert.match(trace, /Fetching changes with git depth set to 2\.\.\./);
      assert.match(trace, new RegExp(`Checking out ${sha.slice(0, 8)} as detached HEAD \\(ref is main\\)`));
      assert.match(trace, /history depth 2/);
      assert.doesNotMatch(trace, /WARNING/);
      assert.ok(!trace.includes(jobs[0].token ?? '\0'), 'no token in the log');

      // [skip ci]: the push goes in, no pipeline.
      await writeFile(join(src, 'README.md'), 'four\n');
      await gitOk(src, ['commit', '-q', '-am', 'Docs only [skip ci]']);
      await gitOk(src, ['push', '-q', url, 'main']);
      const after = ok(await f.api('GET', `/projects/${project.id}/pipelines?ref=main`));
      assert.equal(after.filter((p: any) => p.source === 'push').length, 1);
      const head = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit.id, head);
    });
  });
}
