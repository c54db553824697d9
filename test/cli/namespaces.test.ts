/** `forgelet namespaces list|show|exists` against a server: tables, JSON, what Owners see, errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup } from '../server/http.js';
import { runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet namespaces`, () => {
    let f: TestForgelet;
    let alice: { id: number; username: string; token: string };
    let bob: { id: number; username: string; token: string };
    let acme: { id: number };
    let web: { id: number };
    const cli = (args: string[], token = f.rootToken) => runIn([...args, '--url', f.url, '--token', token]);

    before(async () => {
      f = await startTestServer(dialect);
      alice = await f.createUser('alice');
      bob = await f.createUser('bob');
      acme = await createGroup(f, f.rootToken, { name: 'Acme', path: 'acme' });
      web = await createGroup(f, f.rootToken, { name: 'Web', path: 'web', parent_id: acme.id });
      await addMember(f, 'groups', acme.id, alice.id, 50);
      await addMember(f, 'groups', acme.id, bob.id, 30);
    });
    after(() => f.stop());

    it('list: a table of the caller\'s namespaces, --search, --owned-only, --json', async () => {
      const aliceNs = (await f.api('GET', '/namespaces/alice', { token: alice.token })).body;
      const table = await cli(['namespaces', 'list'], alice.token);
      assert.equal(table.code, 0, table.stderr);
      assert.deepEqual(tableCells(table.stdout), [
        ['ID', 'PATH', 'KIND', 'NAME', 'PARENT'],
        [String(aliceNs.id), 'alice', 'user', 'alice', '-'],
        [String(acme.id), 'acme', 'group', 'Acme', '-'],
      ]);
      const searched = await cli(['namespaces', 'list', '--search', 'acm', '--json'], alice.token);
      assert.deepEqual(JSON.parse(searched.stdout).map((n: { full_path: string }) => n.full_path), ['acme']);
      const paths = async (args: string[]) => JSON.parse((await cli(['namespaces', 'list', ...args, '--json'], bob.token)).stdout).map((n: { full_path: string }) => n.full_path);
      assert.deepEqual(await paths([]), ['bob', 'acme']);
      assert.deepEqual(await paths(['--owned-only']), ['bob'], 'a Developer does not own the group');
      assert.equal((await cli(['namespaces', 'list', '--search', 'zzz'], alice.token)).stdout, 'No namespaces.\n');
      const all = JSON.parse((await cli(['namespaces', 'list', '--all', '--json'])).stdout).map((n: { full_path: string }) => n.full_path);
      assert.deepEqual(all, ['root', 'alice', 'bob', 'acme', 'acme/web'], 'administrators see every namespace');
    });

    it('show: by path or id; Owners see member counts and the plan, others do not', async () => {
      const body = (await f.api('GET', `/namespaces/${web.id}`, { token: alice.token })).body;
      const owner = await cli(['namespaces', 'show', 'acme/web'], alice.token);
      assert.equal(owner.code, 0, owner.stderr);
      assert.equal(
        owner.stdout,
        [
          `ID:               ${web.id}`,
          'Name:             Web',
          'Kind:             group',
          'Full path:        acme/web',
          `Parent:           ${acme.id}`,
          `Members:          ${body.members_count_with_descendants}`,
          `Billable members: ${body.billable_members_count}`,
          'Plan:             default',
          `Web URL:          ${f.url}/groups/acme/web`,
          '',
        ].join('\n'),
      );
      const developer = await cli(['namespaces', 'show', String(acme.id)], bob.token);
      assert.equal(developer.stdout, [`ID:        ${acme.id}`, 'Name:      Acme', 'Kind:      group', 'Full path: acme', 'Parent:    -', `Web URL:   ${f.url}/groups/acme`, ''].join('\n'));
      const json = await cli(['namespaces', 'show', 'acme/web', '--json'], alice.token);
      assert.deepEqual(JSON.parse(json.stdout), body);
      assert.equal(typeof body.billable_members_count, 'number');
      assert.deepEqual(await cli(['namespaces', 'show', 'root'], alice.token), { code: 1, stdout: '', stderr: 'error: 404 Namespace Not Found\n' });
    });

    it('exists: taken with a suggestion, free, under a parent, --json; bad --parent-id and tokens', async () => {
      assert.deepEqual(await cli(['namespaces', 'exists', 'acme'], bob.token), { code: 0, stdout: 'acme is taken at the top level; free: acme1.\n', stderr: '' });
      assert.deepEqual(await cli(['namespaces', 'exists', 'web', '--parent-id', String(acme.id)], bob.token), {
        code: 0, stdout: `web is taken under namespace ${acme.id}; free: web1.\n`, stderr: '',
      });
      assert.equal((await cli(['namespaces', 'exists', 'web'], bob.token)).stdout, 'web is free at the top level.\n');
      assert.deepEqual(await cli(['namespaces', 'exists', 'acme', '--json'], bob.token), { code: 0, stdout: '{"exists":true,"suggests":["acme1"]}\n', stderr: '' });
      assert.deepEqual(await cli(['namespaces', 'exists', 'web', '--parent-id', 'acme']), { code: 2, stdout: '', stderr: 'error: --parent-id must be a positive integer, got "acme"\n' });
      assert.deepEqual(await cli(['namespaces', 'exists', 'acme'], 'glpat-not-a-token'), { code: 1, stdout: '', stderr: 'error: 401 Unauthorized\n' });
    });
  });
}
