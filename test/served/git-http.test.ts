/**
 * Git over smart HTTP through the built `forgelet serve`, with Debian's `git` client in a
 * temporary directory (no system or user configuration, no credential helper, no prompts):
 * clone of an empty and a non-empty project (protocol v2 and v0), push of branches and tags,
 * fetch, branch deletion by push, GitLab's push refusals printed by git (force push to a
 * protected branch, a Reporter's push), anonymous and outsider access, deploy tokens.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: git over smart HTTP`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    /** The project's clone URL with credentials. */
    let remote: (user: string, token: string, path?: string) => string;

    before(async () => {
      f = await startServed(dialect);
      work = await mkdtemp(join(tmpdir(), 'forgelet-git-test-'));
      const group = ok(await f.api('POST', '/groups', { body: { name: 'Team', path: 'team', visibility: 'public' } }), 201);
      const sub = ok(await f.api('POST', '/groups', { body: { name: 'Apps', path: 'apps', parent_id: group.id, visibility: 'public' } }), 201);
      project = ok(await f.api('POST', '/projects', { body: { name: 'app', namespace_id: sub.id, visibility: 'private' } }), 201);
      const host = new URL(f.url).host;
      remote = (user, token, path = 'team/apps/app.git') => `http://${encodeURIComponent(user)}:${encodeURIComponent(token)}@${host}/${path}`;
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('clones an empty project, pushes a branch and a tag, clones and fetches them (v2 and v0)', async () => {
      const dev = await f.createUser(`dev-${dialect}`, { scopes: ['write_repository'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 30 } }), 201);
      const empty = await git(work, ['clone', remote('anything', f.rootToken), 'empty']);
      assert.equal(empty.code, 0, empty.stderr);
      assert.match(empty.stderr, /You appear to have cloned an empty repository/);

      const src = join(work, 'src');
      await gitOk(work, ['init', '-q', src]);
      await writeFile(join(src, 'README.md'), '# app\n');
      await gitOk(src, ['add', 'README.md']);
      await gitOk(src, ['commit', '-q', '-m', 'First']);
      await gitOk(src, ['tag', 'v1.0.0']);
      // Any username with a token that has write_repository; the URL without .git.
      const push = await git(src, ['push', remote(dev.username, dev.token, 'team/apps/app'), 'main', 'v1.0.0']);
      assert.equal(push.code, 0, push.stderr);
      const head = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();

      const listed = await gitOk(work, ['ls-remote', remote('oauth2', f.rootToken)]);
      assert.match(listed, new RegExp(`^${head}\\trefs/heads/main$`, 'm'));
      assert.match(listed, new RegExp(`^${head}\\trefs/tags/v1.0.0$`, 'm'));

      for (const version of ['2', '0']) {
        const dir = `clone-v${version}`;
        const cloned = await git(work, ['-c', `protocol.version=${version}`, 'clone', remote('oauth2', f.rootToken), dir], { GIT_TRACE_PACKET: '0' });
        assert.equal(cloned.code, 0, cloned.stderr);
        assert.equal(await readFile(join(work, dir, 'README.md'), 'utf8'), '# app\n');
        assert.equal((await gitOk(join(work, dir), ['rev-parse', 'HEAD'])).trim(), head);
      }

      // The API sees what was pushed: the branch (the first one, so the default, protected as on
      // GitLab's first push), the tag, the commit with git's id.
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit.id, head);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/tags/v1.0.0`)).commit.id, head);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/commits/${head}`)).title, 'First');
      assert.deepEqual(ok(await f.api('GET', `/projects/${project.id}/protected_branches`)).map((b: any) => b.name), ['main']);
      // Now only Maintainers push to main.
      await writeFile(join(src, 'two.txt'), 'two\n');
      await gitOk(src, ['add', 'two.txt']);
      await gitOk(src, ['commit', '-q', '-m', 'Second']);
      const refused = await git(src, ['push', remote(dev.username, dev.token), 'main']);
      assert.match(refused.stderr, /remote: GitLab: You are not allowed to push code to protected branches on this project\./);

      // A second commit (by a Maintainer), fetched by the earlier clones (v0 and v2 negotiation with haves).
      await gitOk(src, ['push', '-q', remote('root', f.rootToken), 'main']);
      const second = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      for (const version of ['2', '0']) {
        const dir = join(work, `clone-v${version}`);
        await gitOk(dir, ['-c', `protocol.version=${version}`, 'fetch', '-q', 'origin']);
        assert.equal((await gitOk(dir, ['rev-parse', 'origin/main'])).trim(), second);
      }

      // A branch pushed, then deleted by push.
      const topic = await git(src, ['push', remote(dev.username, dev.token), 'main:topic']);
      assert.equal(topic.code, 0, topic.stderr);
      assert.match(topic.stderr, new RegExp(`remote: To create a merge request for topic, visit:\\s*\\nremote:   ${f.url}/team/apps/app/-/merge_requests/new\\?merge_request%5Bsource_branch%5D=topic`));
      assert.match(await gitOk(work, ['ls-remote', remote('x', f.rootToken)]), /refs\/heads\/topic/);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/branches/topic`)).commit.id, second);
      await gitOk(src, ['push', '-q', remote(dev.username, dev.token), ':topic']);
      assert.doesNotMatch(await gitOk(work, ['ls-remote', remote('x', f.rootToken)]), /refs\/heads\/topic/);
      assert.equal((await f.api('GET', `/projects/${project.id}/repository/branches/topic`)).status, 404);

      // Gzipped request bodies (git gzips large negotiation requests; curl sends them as is).
      const gz = await fetch(`${f.url}/team/apps/app.git/git-upload-pack`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip', Authorization: `Basic ${Buffer.from(`x:${f.rootToken}`).toString('base64')}` },
        body: (await import('node:zlib')).gzipSync(Buffer.from(`0032want ${second}\n00000009done\n`)),
      });
      assert.equal(gz.status, 200);
      assert.equal(gz.headers.get('content-type'), 'application/x-git-upload-pack-result');
      const packed = Buffer.from(await gz.arrayBuffer());
      assert.ok(packed.includes(Buffer.from('PACK')), 'a pack in the answer');
    });

    it('refuses what GitLab refuses, with its messages printed by git', async () => {
      const dev = await f.createUser(`dev2-${dialect}`, { scopes: ['api'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 40 } }), 201);
      const commits = ok(await f.api('GET', `/projects/${project.id}/repository/commits?ref_name=main`)).map((c: any) => c.title);
      assert.deepEqual(commits, ['Second', 'First']);
      const dir = join(work, 'force');
      await gitOk(work, ['clone', '-q', remote('x', dev.token), dir]);
      await gitOk(dir, ['commit', '-q', '--amend', '-m', 'Rewritten']);
      const before = await gitOk(work, ['ls-remote', remote('x', f.rootToken), 'refs/heads/main']);
      const forced = await git(dir, ['push', '--force', 'origin', 'main']);
      assert.notEqual(forced.code, 0);
      assert.match(forced.stderr, /remote: GitLab: You are not allowed to force push code to a protected branch on this project\./);
      assert.match(forced.stderr, /\[remote rejected\] main -> main \(pre-receive hook declined\)/);
      assert.equal(await gitOk(work, ['ls-remote', remote('x', f.rootToken), 'refs/heads/main']), before);
      // Deleting the default branch, and a protected one.
      const deleted = await git(dir, ['push', 'origin', ':main']);
      assert.match(deleted.stderr, /GitLab: The default branch of a project cannot be deleted\./);
      ok(await f.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'release-*', push_access_level: 40 } }), 201);
      await gitOk(dir, ['push', '-q', 'origin', 'origin/main:refs/heads/release-1']);
      const protectedDelete = await git(dir, ['push', 'origin', ':release-1']);
      assert.match(protectedDelete.stderr, /GitLab: You can only delete protected branches using the web interface\./);

      // A Developer may not push to a branch only Maintainers push to.
      const developer = await f.createUser(`dev3-${dialect}`, { scopes: ['write_repository'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: developer.id, access_level: 30 } }), 201);
      const devPush = await git(dir, ['push', remote(developer.username, developer.token), 'origin/main:refs/heads/release-2']);
      assert.match(devPush.stderr, /GitLab: You are not allowed to create protected branches on this project\./);

      // A Reporter: fetch yes, push no (403 with GitLab's text).
      const reporter = await f.createUser(`rep-${dialect}`, { scopes: ['api'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: reporter.id, access_level: 20 } }), 201);
      await gitOk(work, ['ls-remote', remote(reporter.username, reporter.token)]);
      const reporterPush = await git(dir, ['push', remote(reporter.username, reporter.token), 'origin/main:refs/heads/reporter']);
      assert.notEqual(reporterPush.code, 0);
      assert.match(reporterPush.stderr, /You are not allowed to push code to this project\./);
      assert.match(reporterPush.stderr, /403/);

      // A token with read_repository only may fetch but not push; read_api is not enough for either.
      const reader = await f.createUser(`reader-${dialect}`, { scopes: ['read_repository'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: reader.id, access_level: 30 } }), 201);
      await gitOk(work, ['ls-remote', remote(reader.username, reader.token)]);
      const readerPush = await git(dir, ['push', remote(reader.username, reader.token), 'origin/main:refs/heads/reader']);
      assert.match(readerPush.stderr, /Authentication failed|HTTP Basic: Access denied/);
    });

    it('answers anonymous callers, outsiders and deploy tokens as GitLab does', async () => {
      // Private: anonymous gets 401 with the Basic challenge, so git would ask for credentials.
      const anonymous = await fetch(`${f.url}/team/apps/app.git/info/refs?service=git-upload-pack`);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="GitLab"');
      const denied = await git(work, ['ls-remote', `${f.url}/team/apps/app.git`]);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /could not read Username|Authentication failed/);
      // A signed-in outsider: 404, the project's existence hidden.
      const outsider = await f.createUser(`out-${dialect}`, { scopes: ['api'] });
      const hidden = await git(work, ['ls-remote', remote(outsider.username, outsider.token)]);
      assert.notEqual(hidden.code, 0);
      assert.match(hidden.stderr, /not found/);
      // A bare project id is no git path (GitLab's are <namespace>/<project>).
      assert.equal((await fetch(`${f.url}/${project.id}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from(`x:${f.rootToken}`).toString('base64')}` } })).status, 404);
      // Wrong credentials: 401.
      const wrong = await fetch(`${f.url}/team/apps/app.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from('x:nope').toString('base64')}` } });
      assert.equal(wrong.status, 401);

      // Public: anyone clones; pushing still needs credentials.
      ok(await f.api('PUT', `/projects/${project.id}`, { body: { visibility: 'public' } }));
      const cloned = await git(work, ['clone', '-q', `${f.url}/team/apps/app.git`, 'anonymous']);
      assert.equal(cloned.code, 0, cloned.stderr);
      assert.equal(await readFile(join(work, 'anonymous', 'README.md'), 'utf8'), '# app\n');
      const anonymousPush = await fetch(`${f.url}/team/apps/app.git/info/refs?service=git-receive-pack`);
      assert.equal(anonymousPush.status, 401);
      ok(await f.api('PUT', `/projects/${project.id}`, { body: { visibility: 'private' } }));

      // Deploy tokens: read_repository clones; they have no scope to push with.
      const reading = ok(await f.api('POST', `/projects/${project.id}/deploy_tokens`, { body: { name: 'ci', scopes: ['read_repository'] } }), 201);
      await gitOk(work, ['clone', '-q', remote(reading.username, reading.token), 'deploy']);
      const deployPush = await git(join(work, 'deploy'), ['push', 'origin', 'HEAD:refs/heads/deployed']);
      assert.match(deployPush.stderr, /This deploy token does not have write access to this project\./);
      const packages = ok(await f.api('POST', `/projects/${project.id}/deploy_tokens`, { body: { name: 'pkg', scopes: ['read_package_registry'] } }), 201);
      assert.notEqual((await git(work, ['ls-remote', remote(packages.username, packages.token)])).code, 0);
      // A deploy token's username must match.
      const otherName = await git(work, ['ls-remote', remote('someone', reading.token)]);
      assert.notEqual(otherName.code, 0);

      // A CI job's token (gitlab-ci-token): fetches its project, never pushes.
      const ci = ok(await f.api('POST', '/projects', { body: { name: `ci-${dialect}` } }), 201);
      ok(await f.api('POST', `/projects/${ci.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: [echo hi]\n' }] },
      }), 201);
      const runner = ok(await f.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: ci.id, description: 'git' } }), 201);
      const job = ok(await f.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { name: 'git-test', version: '17.0.0' } } }), 201);
      assert.equal(job.git_info.repo_url, `${f.url.replace('://', `://gitlab-ci-token:${job.token}@`)}/${ci.path_with_namespace}.git`);
      await gitOk(work, ['ls-remote', job.git_info.repo_url]);
      const jobPush = await git(join(work, 'deploy'), ['push', job.git_info.repo_url, 'HEAD:refs/heads/from-ci']);
      assert.match(jobPush.stderr, /You are not allowed to upload code\./);
      ok(await f.api('PUT', `/jobs/${job.id}`, { token: null, body: { token: job.token, state: 'success' } }));
      // A finished job's token no longer works.
      assert.notEqual((await git(work, ['ls-remote', job.git_info.repo_url])).code, 0);

      // A username and password (GitLab allows them for git over HTTP).
      const person = ok(await f.api('POST', '/users', { body: { username: `pw-${dialect}`, name: 'Pw', email: `pw-${dialect}@example.com`, password: 'Secret-passw0rd!', skip_confirmation: true } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: person.id, access_level: 20 } }), 201);
      await gitOk(work, ['ls-remote', remote(person.username, 'Secret-passw0rd!')]);
      assert.notEqual((await git(work, ['ls-remote', remote(person.username, 'wrong-password')])).code, 0);

      // A renamed project: its old path still clones (GitLab follows the redirect route).
      ok(await f.api('PUT', `/projects/${project.id}`, { body: { path: 'renamed' } }));
      await gitOk(work, ['ls-remote', remote('x', f.rootToken, 'team/apps/renamed.git')]);
      await gitOk(work, ['ls-remote', remote('x', f.rootToken, 'team/apps/app.git')]);
    });
  });
}
