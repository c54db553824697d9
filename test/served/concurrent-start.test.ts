/**
 * Several `forgelet serve` processes started at the same moment on one new database (and one
 * data directory: its secret key is shared). First-start work (migrations, the root user and
 * its tokens, the secret key) runs under a lock and is idempotent, so every process comes up,
 * there is one root user, and every token a process was given works on every process.
 *
 * Each case starts the processes a few times over, each time on a new database, so that the
 * race happens: before the lock the second process died with
 * `duplicate key value violates unique constraint "users_username_lower"`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabaseUrl, DIALECTS, type Dialect } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const PROCESSES = 3;
const ROUNDS = 3;

/** A new data directory and database, and `PROCESSES` servers started on them at once. */
async function startTogether(dialect: Dialect, rootTokens: (string | null)[]): Promise<{ servers: ServedForgelet[]; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'forgelet-together-'));
  const db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
  const started = await Promise.allSettled(
    rootTokens.map((rootToken) => startServed(dialect, { dataDir, databaseUrl: db.url, rootToken, testMode: false })),
  );
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const cleanup = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [String((s.reason as Error).message)] : []));
  if (failed.length) {
    await cleanup();
    assert.fail(`${failed.length} of ${rootTokens.length} processes did not start:\n${failed.join('\n---\n')}`);
  }
  return { servers, cleanup };
}

/** Every token works on every server, as root; there is one root user. */
async function assertOneRoot(servers: ServedForgelet[], tokens: string[]): Promise<void> {
  for (const server of servers) {
    for (const token of tokens) {
      const me = await server.api('GET', '/user', { token });
      assert.deepEqual([me.status, me.body.username, me.body.is_admin], [200, 'root', true], `token on ${server.url}: ${me.text}`);
    }
  }
  const roots = await servers[0]!.api('GET', '/users?username=root', { token: tokens[0] });
  assert.equal(roots.body.length, 1);
  const all = await servers[0]!.api('GET', '/users?per_page=100', { token: tokens[0] });
  assert.deepEqual(all.body.map((u: any) => u.username), ['root']);
}

/** A secret sealed by one process opens in every other one: they all hold the same key. */
async function assertSharedSecretKey(servers: ServedForgelet[], token: string): Promise<void> {
  const url = 'https://hooks.example.com/forgelet?secret=1';
  const created = await servers[0]!.api('POST', '/ai/agent_workflows/flow_callbacks', { token, body: { url, name: 'shared-key' } });
  assert.equal(created.status, 201, created.text);
  for (const server of servers.slice(1)) {
    const list = await server.api('GET', '/ai/agent_workflows/flow_callbacks', { token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.map((c: any) => c.url), [url]);
  }
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: ${PROCESSES} processes started at once on a new database`, () => {
    it(`each with its own root token: all come up, one root, every token works everywhere (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { servers, cleanup } = await startTogether(dialect, Array.from({ length: PROCESSES }, (_, i) => `glpat-together-${round}-${i}-${'x'.repeat(12)}`));
        try {
          await assertOneRoot(servers, servers.map((s) => s.rootToken));
          if (round === 0) await assertSharedSecretKey(servers, servers[0]!.rootToken);
        } finally {
          await cleanup();
        }
      }
    });

    it(`all given the same root token: it is one valid token (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `glpat-same-for-all-${round}-${'y'.repeat(12)}`;
        const { servers, cleanup } = await startTogether(dialect, Array.from({ length: PROCESSES }, () => token));
        try {
          await assertOneRoot(servers, [token]);
          const tokens = await servers[0]!.api('GET', '/personal_access_tokens?per_page=100', { token });
          assert.deepEqual(tokens.body.map((t: any) => [t.name, t.active]), [['forgelet-root', true]]);
        } finally {
          await cleanup();
        }
      }
    });

    it(`none given a root token: exactly one creates root and prints its token, which works everywhere (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { servers, cleanup } = await startTogether(dialect, Array.from({ length: PROCESSES }, () => null));
        try {
          const printed = servers.map((s) => s.rootToken).filter(Boolean);
          assert.equal(printed.length, 1, `root tokens printed: ${printed.length}`);
          await assertOneRoot(servers, printed);
        } finally {
          await cleanup();
        }
      }
    });

    it('a process with another secret key refuses to start on the database, naming the keys', async () => {
      const { servers, cleanup } = await startTogether(dialect, [null]);
      const otherDir = mkdtempSync(join(tmpdir(), 'forgelet-other-key-'));
      try {
        const refused = await startServed(dialect, { dataDir: otherDir, databaseUrl: servers[0]!.databaseUrl, testMode: false }).then(
          () => assert.fail('started with another key'),
          (err: Error) => err.message,
        );
        assert.match(refused, /exited \(1\) before it was ready/);
        // (one line, no stack: the operator fixes the configuration)
        assert.match(
          refused,
          new RegExp(
            `\nstderr: error: the secrets in this database are sealed with the key [0-9a-f]{12}, which is not in ${otherDir}/secret.key ` +
              '\\(keys [0-9a-f]{12}\\): every process on one database needs the same secret key \\(after `forgelet secret-key rotate`, the new one\\)\n$',
          ),
        );
        // (and the first one goes on)
        assert.equal((await servers[0]!.api('GET', '/user')).status, 200);
      } finally {
        rmSync(otherDir, { recursive: true, force: true });
        await cleanup();
      }
    });
  });
}
