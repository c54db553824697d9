/**
 * `forgelet secret-key rotate` for people (in process, fake terminal): the progress bar on
 * stderr, the summary table, and the refusals (no key file, no database, a key file that holds
 * no key). The served binaries' suite (test/served/secret-key-rotation) covers what rotation does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secretKeyId } from '@forgelet/core';
import { readKeyFile, startForgelet } from '@forgelet/server';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { tempDir } from './cli-process.js';
import { plain, runIn } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet secret-key rotate, for people`, () => {
    const data = tempDir('forgelet-secret-key-');
    let database: { url: string; drop(): Promise<void> } | null = null;
    let storage: string[];

    before(async () => {
      database = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : null;
      storage = ['--data', data.path, ...(database ? ['--database-url', database.url] : [])];
      const running = await startForgelet({ dataDir: data.path, databaseUrl: database?.url, rootToken: 'glpat-secret-key-cli-0001' });
      for (const name of ['one', 'two']) {
        const r = await fetch(`${running.url}/api/v4/ai/agent_workflows/flow_callbacks`, {
          method: 'POST',
          headers: { 'PRIVATE-TOKEN': 'glpat-secret-key-cli-0001', 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: `https://hooks.example.com/${name}`, name, token: `t-${name}` }),
        });
        assert.equal(r.status, 201, await r.text());
      }
      await running.stop();
    });
    after(async () => {
      await database?.drop();
      data.remove();
    });

    it('draws a progress bar of the secrets on a terminal, then prints what it re-encrypted and the keys the file keeps', async () => {
      const before = readKeyFile(join(data.path, 'secret.key'));
      const r = await runIn(['secret-key', 'rotate', ...storage], {}, { ttyErr: true });
      assert.equal(r.code, 0, r.stderr);
      const after = readKeyFile(join(data.path, 'secret.key'));
      assert.match(plain(r.stderr), /Re-encrypting secrets █+ 100% 4\/4\n$/);
      assert.deepEqual(plain(r.stdout).split('\n'), [
        `Re-encrypted 4 secrets under the key ${secretKeyId(after[0]!)} (replacing ${secretKeyId(before[0]!)}), in one transaction.`,
        'SECRETS                       RE-ENCRYPTED',
        'flow callback URLs            2',
        'flow callback signing tokens  0',
        'flow callback service tokens  2',
        'migration source tokens       0',
        'pipeline schedule variables   0',
        'pipeline variables            0',
        'runner registration tokens    0',
        'CI/CD variables               0',
        'webhook URLs                  0',
        'webhook secret tokens         0',
        'webhook custom headers        0',
        'webhook URL variables         0',
        `${join(data.path, 'secret.key')} seals with ${secretKeyId(after[0]!)} and still opens with ${secretKeyId(before[0]!)} (the key it replaced: the next rotation drops it).`,
        '',
      ]);
    });

    it('with --json draws nothing on stderr', async () => {
      const r = await runIn(['secret-key', 'rotate', '--json', ...storage], {}, { ttyErr: true });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.equal(JSON.parse(r.stdout).reencrypted, 4);
    });

    it('refuses without a key file, without a database, and with a key file that holds no key', async () => {
      const empty = tempDir('forgelet-secret-key-empty-');
      try {
        const noKey = await runIn(['secret-key', 'rotate', '--data', empty.path, ...(database ? ['--database-url', database.url] : [])]);
        if (dialect === 'sqlite') {
          assert.deepEqual(noKey, { code: 1, stdout: '', stderr: `error: no database at ${join(empty.path, 'forgelet.db')}: nothing to rotate\n` });
        } else {
          assert.deepEqual(noKey, {
            code: 1,
            stdout: '',
            stderr: `error: no key file at ${join(empty.path, 'secret.key')} and FORGELET_SECRET_KEY is not set: nothing seals secrets here yet (forgelet init or serve creates the key)\n`,
          });
        }
        const keyFile = join(data.path, 'secret.key');
        const kept = readKeyFile(keyFile);
        writeFileSync(keyFile, '# nothing here\n');
        const r = await runIn(['secret-key', 'rotate', ...storage]);
        assert.deepEqual(r, { code: 1, stdout: '', stderr: `error: ${keyFile} holds no key\n` });
        writeFileSync(keyFile, kept.map((k) => k.toString('base64')).join('\n'));
        assert.equal(existsSync(keyFile), true);
      } finally {
        empty.remove();
      }
    });
  });
}
