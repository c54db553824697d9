/** `forgelet users|groups|schedules …` against a server: JSON and tables, paging, errors and exit codes. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { addMember, createProject } from '../server/http.js';
import { plain, runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet users, groups and schedules`, () => {
    let f: TestForgelet;
    let dev: { id: number; username: string; token: string };
    let project: { id: number; path_with_namespace: string };
    const cli = (args: string[], token = f.rootToken, tty = false) => runIn([...args, '--url', f.url, '--token', token], {}, { tty, ttyErr: tty });

    before(async () => {
      f = await startTestServer(dialect);
      dev = await f.createUser('cli-dev');
      for (const name of ['cli-u1', 'cli-u2', 'cli-u3']) await f.createUser(name);
      project = await createProject(f, f.rootToken, { name: 'Sched', path: 'sched' });
      await addMember(f, 'projects', project.id, dev.id, 40);
      await commitFiles(f, project.id, 'main', { '.gitlab-ci.yml': 'build:\n  script: make\n' });
    });
    after(() => f.stop());

    it('users list: JSON pages, search, the table with a footer, and --all', async () => {
      const page = await cli(['users', 'list', '--per-page', '2', '--json']);
      assert.equal(page.code, 0, page.stderr);
      assert.deepEqual(JSON.parse(page.stdout).map((u: { username: string }) => u.username), ['cli-u3', 'cli-u2']);
      const second = await cli(['users', 'list', '--per-page', '2', '--page', '2', '--json']);
      assert.deepEqual(JSON.parse(second.stdout).map((u: { username: string }) => u.username), ['cli-u1', 'cli-dev']);
      const all = await cli(['users', 'list', '--per-page', '2', '--all', '--json']);
      assert.deepEqual(JSON.parse(all.stdout).map((u: { username: string }) => u.username), ['cli-u3', 'cli-u2', 'cli-u1', 'cli-dev', 'root']);
      const search = await cli(['users', 'list', '--search', 'cli-u', '--json']);
      assert.equal(JSON.parse(search.stdout).length, 3);

      const table = await cli(['users', 'list', '--per-page', '2']);
      assert.equal(table.code, 0, table.stderr);
      const ids = JSON.parse(page.stdout).map((u: { id: number }) => String(u.id));
      assert.deepEqual(tableCells(table.stdout), [
        ['ID', 'USERNAME', 'NAME', 'STATE', 'EMAIL', 'ADMIN'],
        [ids[0], 'cli-u3', 'cli-u3', 'active', 'cli-u3@example.com'],
        [ids[1], 'cli-u2', 'cli-u2', 'active', 'cli-u2@example.com'],
        ['Page 1 of 3 (5 in all); next: --page 2.'],
      ]);
      // A terminal gets a spinner on stderr while loading; it is erased afterwards.
      const tty = await cli(['users', 'list', '--search', 'nobody'], f.rootToken, true);
      assert.equal(tty.stdout, 'No users.\n');
      assert.match(plain(tty.stderr), /Loading users/);
      assert.ok(tty.stderr.endsWith('\r\x1b[2K'));
    });

    it('users show by id or username, and create (administrators)', async () => {
      const byName = await cli(['users', 'show', 'cli-dev', '--json']);
      assert.equal(byName.code, 0, byName.stderr);
      assert.equal(JSON.parse(byName.stdout).id, dev.id);
      const byId = await cli(['users', 'show', String(dev.id)]);
      assert.equal(byId.code, 0, byId.stderr);
      assert.match(byId.stdout, new RegExp(`^ID: +${dev.id}\\nUsername: +cli-dev\\nName: +cli-dev\\nState: +active\\nEmail: +cli-dev@example.com\\n`));
      assert.deepEqual(await cli(['users', 'show', 'ghost']), { code: 1, stdout: '', stderr: `error: no user named "ghost" on ${f.url}\n` });
      assert.deepEqual(await cli(['users', 'show', '999999']), { code: 1, stdout: '', stderr: 'error: 404 User Not Found\n' });

      const created = await cli(['users', 'create', '--username', 'newbie', '--email', 'newbie@example.com', '--name', 'New Bie', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const user = JSON.parse(created.stdout);
      assert.deepEqual([user.username, user.email, user.name], ['newbie', 'newbie@example.com', 'New Bie']);
      const human = await cli(['users', 'create', '--username', 'newbie2', '--email', 'newbie2@example.com', '--name', 'N2', '--admin']);
      assert.match(human.stdout, /^Created user newbie2 \(id \d+\)\.\n$/);
      assert.equal((await f.api('GET', '/users?username=newbie2')).body[0].is_admin, true);
      const taken = await cli(['users', 'create', '--username', 'newbie', '--email', 'other@example.com', '--name', 'x']);
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /^error: .*(has already been taken|already exists)/);
      const forbidden = await cli(['users', 'create', '--username', 'x1', '--email', 'x1@example.com', '--name', 'x'], dev.token);
      assert.deepEqual(forbidden, { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
      const missing = await cli(['users', 'create', '--username', 'x2']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^error: required option '--email <email>' not specified/);
      const badPage = await cli(['users', 'list', '--per-page', '500']);
      assert.deepEqual(badPage, { code: 2, stdout: '', stderr: 'error: --per-page must be at most 100, got "500"\n' });
    });

    it('groups create (with a parent), show and list', async () => {
      const top = await cli(['groups', 'create', '--name', 'Platform Team', '--visibility', 'internal', '--json']);
      assert.equal(top.code, 0, top.stderr);
      const group = JSON.parse(top.stdout);
      assert.deepEqual([group.path, group.visibility], ['platform-team', 'internal']);
      const sub = await cli(['groups', 'create', '--name', 'Tools', '--path', 'tools', '--parent', 'platform-team']);
      assert.match(sub.stdout, /^Created group platform-team\/tools \(id \d+\)\.\n$/);
      const shown = await cli(['groups', 'show', 'platform-team/tools']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`^ID: +\\d+\\nName: +Tools\\nFull path: +platform-team/tools\\nVisibility: +private\\nParent: +${group.id}\\n`));
      assert.equal(JSON.parse((await cli(['groups', 'show', String(group.id), '--json'])).stdout).full_path, 'platform-team');
      const table = await cli(['groups', 'list', '--top-level']);
      assert.deepEqual(tableCells(table.stdout).map((r) => r.slice(0, 4)), [['ID', 'PATH', 'NAME', 'VISIBILITY'], [String(group.id), 'platform-team', 'Platform Team', 'internal']]);
      assert.equal(JSON.parse((await cli(['groups', 'list', '--json'])).stdout).length, 2);
      assert.equal((await cli(['groups', 'list', '--json'], dev.token)).stdout, '[]\n');
      assert.equal((await cli(['groups', 'list'], dev.token)).stdout, 'No groups.\n');
      assert.deepEqual(await cli(['groups', 'show', 'nope']), { code: 1, stdout: '', stderr: 'error: 404 Group Not Found\n' });
      const taken = await cli(['groups', 'create', '--name', 'Platform Team']);
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /^error: .*has already been taken/);
      assert.deepEqual(await cli(['groups', 'create', '--name', 'x', '--visibility', 'secret']), {
        code: 2, stdout: '', stderr: 'error: --visibility must be one of private, internal, public, got "secret"\n',
      });
    });

    it('schedules list and play', async () => {
      const created = await f.api('POST', `/projects/${project.id}/pipeline_schedules`, { token: dev.token, body: { description: 'Nightly', ref: 'main', cron: '0 1 * * *' } });
      assert.equal(created.status, 201, created.text);
      const schedule = created.body;
      const list = await cli(['schedules', 'list', project.path_with_namespace, '--json']);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(JSON.parse(list.stdout).map((s: { id: number }) => s.id), [schedule.id]);
      const table = await cli(['schedules', 'list', String(project.id)]);
      assert.deepEqual(tableCells(table.stdout), [
        ['ID', 'STATE', 'REF', 'CRON', 'NEXT RUN', 'OWNER', 'DESCRIPTION'],
        [String(schedule.id), 'active', 'main', '0 1 * * * UTC', schedule.next_run_at, 'cli-dev', 'Nightly'],
      ]);
      assert.equal((await cli(['schedules', 'list', String(project.id), '--scope', 'inactive'])).stdout, 'No pipeline schedules.\n');

      const played = await cli(['schedules', 'play', String(project.id), String(schedule.id)], dev.token);
      assert.deepEqual(played, { code: 0, stdout: `Schedule ${schedule.id} queued to run now (201 Created).\n`, stderr: '' });
      const json = await cli(['schedules', 'play', String(project.id), String(schedule.id), '--json']);
      assert.deepEqual(JSON.parse(json.stdout), { id: schedule.id, message: '201 Created' });
      let pipelines: { source: string }[] = [];
      for (let i = 0; i < 100 && pipelines.length < 2; i++) {
        pipelines = (await f.api('GET', `/projects/${project.id}/pipelines?source=schedule`)).body;
        if (pipelines.length < 2) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(pipelines.length, 2, 'both plays created a pipeline');

      const outsider = await f.createUser('cli-outsider');
      assert.deepEqual(await cli(['schedules', 'play', String(project.id), String(schedule.id)], outsider.token), { code: 1, stdout: '', stderr: 'error: 404 Project Not Found\n' });
      assert.deepEqual(await cli(['schedules', 'play', String(project.id), '999999']), { code: 1, stdout: '', stderr: 'error: 404 Pipeline Schedule Not Found\n' });
      assert.deepEqual(await cli(['schedules', 'play', String(project.id), 'x']), { code: 2, stdout: '', stderr: 'error: schedule id must be a positive integer, got "x"\n' });
      assert.deepEqual(await cli(['schedules', 'list', String(project.id), '--scope', 'all']), { code: 2, stdout: '', stderr: 'error: --scope must be one of active, inactive, got "all"\n' });
    });
  });
}
