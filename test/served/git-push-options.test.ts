/**
 * What GitLab reads around a `git push` beyond the refs, through the built `forgelet serve`
 * and the real `git` client:
 * - push options: `-o merge_request.create` (with target, title, label, draft, description)
 *   opens the merge request and git prints its link; `-o ci.skip` runs no pipeline;
 *   `-o ci.variable="K=v"` (several) reach the push pipeline's variables; an option that
 *   cannot apply comes back as GitLab's warning and the push stands;
 * - protected tags (REST `…/protected_tags`): creating, updating or deleting one by push is
 *   refused with GitLab's message, and the API's tag create is refused too;
 * - a renamed project's old path still clones and pushes, and the push prints GitLab's
 *   "Project '<old>' was moved to '<new>'" notice.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';

const CI_FILE = `check:
  script:
    - echo "$DEPLOY_TARGET $MODE"
`;

/** git's stderr without the blanks it pads `remote:` lines with (to overwrite progress). */
const printed = (stderr: string) => stderr.replace(/[ \t]+$/gm, '');

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: push options, protected tags and moved projects over git`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    let src: string;
    let url: (path: string) => string;

    before(async () => {
      f = await startServed(dialect);
      work = await mkdtemp(join(tmpdir(), 'forgelet-git-options-'));
      project = ok(await f.api('POST', '/projects', { body: { name: 'options' } }), 201);
      url = (path) => `${f.url.replace('://', `://root:${f.rootToken}@`)}/${path}.git`;
      src = join(work, 'src');
      await gitOk(work, ['init', '-q', src]);
      await writeFile(join(src, 'README.md'), 'one\n');
      await writeFile(join(src, '.gitlab-ci.yml'), CI_FILE);
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', 'First']);
      await gitOk(src, ['push', '-q', url(project.path_with_namespace), 'main']);
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('ci.skip runs no pipeline; ci.variable reaches the pipeline', async () => {
      const before = ok(await f.api('GET', `/projects/${project.id}/pipelines`)).length;
      await writeFile(join(src, 'README.md'), 'two\n');
      await gitOk(src, ['commit', '-q', '-am', 'Second']);
      await gitOk(src, ['push', '-q', '-o', 'ci.skip', url(project.path_with_namespace), 'main']);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/pipelines`)).length, before, 'ci.skip: no pipeline');
      const head = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit.id, head, 'the push went in');

      await writeFile(join(src, 'README.md'), 'three\n');
      await gitOk(src, ['commit', '-q', '-am', 'Third']);
      await gitOk(src, ['push', '-q', '-o', 'ci.variable=DEPLOY_TARGET=staging', '-o', 'ci.variable=MODE=fast run', url(project.path_with_namespace), 'main']);
      const pipelines = ok(await f.api('GET', `/projects/${project.id}/pipelines`));
      assert.equal(pipelines.length, before + 1);
      const variables = ok(await f.api('GET', `/projects/${project.id}/pipelines/${pipelines[0].id}/variables`));
      assert.deepEqual(
        variables.map((v: any) => [v.key, v.value]).sort(),
        [['DEPLOY_TARGET', 'staging'], ['MODE', 'fast run']],
      );
    });

    it('merge_request.create opens a merge request with the options and prints its link', async () => {
      ok(await f.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'develop', ref: 'main' } }), 201);
      await gitOk(src, ['checkout', '-q', '-b', 'feature-x']);
      await writeFile(join(src, 'feature.txt'), 'x\n');
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', 'Feature X']);
      const pushed = await git(src, [
        'push', '-o', 'merge_request.create', '-o', 'merge_request.target=develop', '-o', 'merge_request.title=Add feature X',
        '-o', 'merge_request.label=feature', '-o', 'merge_request.label=backend', '-o', 'merge_request.draft',
        '-o', 'merge_request.description=First line\\nSecond line', '-o', 'merge_request.remove_source_branch', '-o', 'ci.skip',
        url(project.path_with_namespace), 'feature-x',
      ]);
      assert.equal(pushed.code, 0, pushed.stderr);
      const mrs = ok(await f.api('GET', `/projects/${project.id}/merge_requests?source_branch=feature-x`));
      assert.equal(mrs.length, 1);
      const mr = mrs[0];
      assert.deepEqual(
        [mr.title, mr.target_branch, mr.draft, [...mr.labels].sort(), mr.description, mr.force_remove_source_branch ?? mr.should_remove_source_branch, mr.assignees.map((a: any) => a.username), mr.sha],
        ['Draft: Add feature X', 'develop', true, ['backend', 'feature'], 'First line\nSecond line', true, ['root'], (await gitOk(src, ['rev-parse', 'HEAD'])).trim()],
      );
      assert.match(printed(pushed.stderr), new RegExp(`remote: View merge request for feature-x:\\s+remote:\\s+${f.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`));

      // An update with options changes the open merge request; a wrong target is GitLab's warning and the push stands.
      await writeFile(join(src, 'feature.txt'), 'y\n');
      await gitOk(src, ['commit', '-q', '-am', 'Feature X, again']);
      const updated = await git(src, ['push', '-o', 'mr.unlabel=backend', '-o', 'merge_request.title=Feature X ready', url(project.path_with_namespace), 'feature-x']);
      assert.equal(updated.code, 0, updated.stderr);
      const after = ok(await f.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`));
      assert.deepEqual([after.title, after.labels, after.sha], ['Feature X ready', ['feature'], (await gitOk(src, ['rev-parse', 'HEAD'])).trim()]);

      await gitOk(src, ['checkout', '-q', '-b', 'feature-y']);
      const warned = await git(src, ['push', '-o', 'merge_request.create', '-o', 'merge_request.target=nowhere', url(project.path_with_namespace), 'feature-y']);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(printed(warned.stderr), /remote: WARNINGS:\nremote: Error encountered with push options 'merge_request\.create' 'merge_request\.target=nowhere': Target branch [^\n]*:nowhere does not exist/);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/merge_requests?source_branch=feature-y`)).length, 0);
      await gitOk(src, ['checkout', '-q', 'main']);
    });

    it('protected tags: creating, moving and deleting them by push is refused with GitLab\'s messages', async () => {
      const dev = await f.createUser('tagdev');
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 30 } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/protected_tags`, { body: { name: 'v*' } }), 201);
      const devUrl = `${f.url.replace('://', `://tagdev:${dev.token}@`)}/${project.path_with_namespace}.git`;

      await gitOk(src, ['tag', 'v1.0.0']);
      const refused = await git(src, ['push', devUrl, 'v1.0.0']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /remote: GitLab: You are not allowed to create this tag as it is protected\./);
      assert.match(refused.stderr, /\[remote rejected\] v1\.0\.0 -> v1\.0\.0 \(pre-receive hook declined\)/);
      assert.equal((await f.api('GET', `/projects/${project.id}/repository/tags/v1.0.0`)).status, 404);
      await gitOk(src, ['push', '-q', devUrl, 'main']); // an unprotected ref still goes in
      await gitOk(src, ['tag', 'other-1']);
      await gitOk(src, ['push', '-q', devUrl, 'other-1']);

      // A Maintainer (root) creates it; nobody moves or deletes it by push.
      await gitOk(src, ['push', '-q', url(project.path_with_namespace), 'v1.0.0']);
      await writeFile(join(src, 'README.md'), 'retagged\n');
      await gitOk(src, ['commit', '-q', '-am', 'Retag']);
      await gitOk(src, ['tag', '-f', 'v1.0.0']);
      const moved = await git(src, ['push', '-f', url(project.path_with_namespace), 'v1.0.0']);
      assert.notEqual(moved.code, 0);
      assert.match(moved.stderr, /remote: GitLab: Protected tags cannot be updated\./);
      const deleted = await git(src, ['push', url(project.path_with_namespace), ':refs/tags/v1.0.0']);
      assert.notEqual(deleted.code, 0);
      assert.match(deleted.stderr, /remote: GitLab: You can only delete protected tags using the web interface\./);
      const devDelete = await git(src, ['push', devUrl, ':refs/tags/v1.0.0']);
      assert.match(devDelete.stderr, /remote: GitLab: You are not allowed to delete protected tags from this project\. Only a project maintainer or owner can delete a protected tag\./);
      assert.ok(ok(await f.api('GET', `/projects/${project.id}/repository/tags/v1.0.0`)).commit.id);
      await gitOk(src, ['tag', '-d', 'v1.0.0']);
      await gitOk(src, ['fetch', '-q', url(project.path_with_namespace), 'main']);
      await gitOk(src, ['reset', '-q', '--hard', 'FETCH_HEAD']);
    });

    it('a renamed project answers at its old path and the push prints the moved notice', async () => {
      const moved = ok(await f.api('POST', '/projects', { body: { name: 'before-rename' } }), 201);
      const oldPath = moved.path_with_namespace;
      await gitOk(src, ['push', '-q', url(oldPath), 'main']);
      const renamed = ok(await f.api('PUT', `/projects/${moved.id}`, { body: { path: 'after-rename', name: 'after-rename' } }));
      assert.notEqual(renamed.path_with_namespace, oldPath);

      const clone = join(work, 'moved-clone');
      await gitOk(work, ['clone', '-q', url(oldPath), clone]);
      assert.equal((await gitOk(clone, ['rev-parse', 'HEAD'])).trim(), (await gitOk(src, ['rev-parse', 'main'])).trim());

      await writeFile(join(clone, 'README.md'), 'moved\n');
      await gitOk(clone, ['commit', '-q', '-am', 'After the move']);
      const pushed = await git(clone, ['push', 'origin', 'main']);
      assert.equal(pushed.code, 0, pushed.stderr);
      const notice = [
        `remote: Project '${oldPath}' was moved to '${renamed.path_with_namespace}'.`,
        'remote:',
        'remote: Please update your Git remote:',
        'remote:',
        `remote:   git remote set-url origin ${f.url}/${renamed.path_with_namespace}.git`,
      ].join('\n');
      assert.ok(printed(pushed.stderr).includes(notice), pushed.stderr);
      assert.equal(ok(await f.api('GET', `/projects/${moved.id}/repository/branches/main`)).commit.id, (await gitOk(clone, ['rev-parse', 'HEAD'])).trim());
      // At the current path: no notice.
      await writeFile(join(clone, 'README.md'), 'moved twice\n');
      await gitOk(clone, ['commit', '-q', '-am', 'At the new path']);
      const current = await git(clone, ['push', url(renamed.path_with_namespace), 'main']);
      assert.equal(current.code, 0, current.stderr);
      assert.doesNotMatch(current.stderr, /was moved to/);
    });
  });
}
