/** `forgelet imports start|list|show|watch|cancel` against two servers. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { seedSourceGroup } from '../support/bulk-imports.js';

function fakeIo(env: NodeJS.ProcessEnv = {}, isTTY = false): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s), columns: 120, isTTY }, stderr: { write: (s: string) => (err += s) }, env },
    stdout: () => out,
    stderr: () => err,
  };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet imports`, () => {
    let src: TestForgelet;
    let dst: TestForgelet;
    const cli = async (args: string[], env: NodeJS.ProcessEnv = {}, isTTY = false) => {
      const io = fakeIo(env, isTTY);
      const code = await run(['imports', ...args, '--url', dst.url, '--token', dst.rootToken], io.io);
      return { code, stdout: io.stdout(), stderr: io.stderr() };
    };

    before(async () => {
      [src, dst] = await Promise.all([startTestServer(dialect), startTestServer(dialect)]);
      await seedSourceGroup(src);
      assert.equal((await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } })).status, 201);
    });
    after(async () => {
      await Promise.all([src?.stop(), dst?.stop()]);
    });

    it('start, watch (progress bars), list, show and cancel', async () => {
      const started = await cli(['start', '--source-url', src.url, '--group', 'src-grp', '--to', 'into', '--slug', 'copy'], { FORGELET_SOURCE_TOKEN: src.rootToken });
      assert.equal(started.code, 0, started.stderr);
      const id = Number(/^Started migration (\d+) from http:\/\/127\.0\.0\.1:\d+ \(created\)\.$/m.exec(started.stdout)![1]);
      const watched = await cli(['watch', String(id), '--interval', '50'], {}, true);
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(watched.stdout, new RegExp(`Migration ${id} from .*: finished`));
      assert.match(watched.stdout, /group src-grp → into\/copy: finished/);
      assert.match(watched.stdout, /project src-grp\/proj → into\/copy\/proj: finished/);
      assert.match(watched.stdout, /issues +█{20} 1\/1 \(fetched 1\)/);
      assert.match(watched.stdout, /labels +█{20} 1\/1 \(fetched 1\)/);
      const listed = await cli(['list', '--status', 'finished']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^ID +STATUS +FAILURES +SOURCE +CREATED\\n${id} +finished +no +http`));
      const shown = await cli(['show', String(id), '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const doc = JSON.parse(shown.stdout);
      assert.equal(doc.status, 'finished');
      assert.equal(doc.entities.length, 3);
      const canceled = await cli(['cancel', String(id)]);
      assert.equal(canceled.code, 0, canceled.stderr);
      assert.equal(canceled.stdout, `Migration ${id} is canceled.\n`);
    });

    it('reports refusals and usage errors', async () => {
      const noToken = await cli(['start', '--source-url', src.url, '--group', 'src-grp', '--to', 'into']);
      assert.notEqual(noToken.code, 0);
      assert.match(noToken.stderr, /source token is needed/);
      const refused = await cli(['start', '--source-url', src.url, '--group', 'nope', '--to', 'into', '--source-token', src.rootToken]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /422 Import failed\. 'nope' not found\./);
      const bad = await cli(['show', 'abc']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /migration id must be a positive integer/);
    });
  });
}
