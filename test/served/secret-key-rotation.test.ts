/**
 * `forgelet secret-key rotate` (the built bin) against a served binary's data directory and
 * database: on the stopped server, then while it runs, then failing and crashing half-way.
 * Every kind of stored secret keeps working: a flow callback's URL, signing token (the receiver
 * verifies the Standard Webhooks signature) and service token, a migration's source token (an
 * import held half-way by a proxy in front of the source goes on after the rotation), pipeline
 * schedule variables and the runner registration token. No secret appears in plaintext in the
 * database or in what rotate prints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createSecretBox, SEALED_COLUMNS, secretKeyId, staticKeys } from '@forgelet/core';
import { readKeyFile } from '@forgelet/server';
import { createTestDatabaseUrl, DIALECTS, type Dialect } from '../support/databases.js';
import { FORGELET_BIN, startServed, until, type ServedForgelet } from '../support/served.js';
import { cliEnv, runBin } from '../cli/cli-process.js';
import { callbackReceiver } from '../support/receiver.js';

/** Now (the receiver checks the signature's timestamp against its own clock). */
const T0 = new Date().toISOString();
const CI = 'build:\n  script: echo built\n';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

/** SQL against the served database from the test (SQLite: a second connection; PostgreSQL: a client). */
interface Sql {
  all(text: string, params?: unknown[]): Promise<any[]>;
  run(text: string, params?: unknown[]): Promise<void>;
  /** Every row of every table, as text (the plaintext search). */
  everything(): Promise<string>;
  close(): Promise<void>;
}

async function openSql(dialect: Dialect, url: string): Promise<Sql> {
  if (dialect === 'sqlite') {
    const db = new Database(url, { timeout: 10_000 });
    return {
      all: async (text, params = []) => db.prepare(text.replace(/\$\d+/g, '?')).all(...params),
      run: async (text, params = []) => void db.prepare(text.replace(/\$\d+/g, '?')).run(...params),
      everything: async () => {
        db.pragma('wal_checkpoint(PASSIVE)');
        return [url, `${url}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('\n');
      },
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return {
    all: async (text, params = []) => (await client.query(text, params)).rows,
    run: async (text, params = []) => void (await client.query(text, params)),
    everything: async () => {
      const tables = (await client.query("select table_name from information_schema.tables where table_schema = 'public'")).rows.map((r) => r.table_name);
      const parts = [];
      for (const t of tables) parts.push((await client.query(`select coalesce(string_agg(t::text, E'\\n'), '') as s from "${t}" t`)).rows[0].s);
      return parts.join('\n');
    },
    close: () => client.end(),
  };
}

/** Every stored sealed value. */
async function sealedValues(sql: Sql): Promise<string[]> {
  const out: string[] = [];
  for (const c of SEALED_COLUMNS) {
    for (const r of await sql.all(`select id, ${c.column} as v from ${c.table} where ${c.column} is not null order by id`)) out.push(`${c.table}.${c.column}#${r.id}=${r.v}`);
  }
  return out;
}

/** The key ids the sealed values name. */
async function sealingKeys(sql: Sql): Promise<Set<string>> {
  return new Set((await sealedValues(sql)).map((v) => /=v2\.([0-9a-f]{12})\./.exec(v)?.[1] ?? 'v1'));
}

/** A proxy in front of the migration source that can hold every export as "not ready yet". */
function holdingProxy(target: () => string) {
  const state = { held: true, heldPolls: 0 };
  const server: Server = createServer((req, res) => {
    if (state.held && req.method === 'GET' && req.url!.includes('/export_relations/status')) {
      state.heldPolls++;
      const relation = new URL(req.url!, 'http://proxy').searchParams.get('relation');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ relation, status: 0, batched: false }]));
      return;
    }
    const to = new URL(req.url!, target());
    const up = request(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return { state, server };
}

/** The rotate command as users run it (the built bin), with the served instance's storage. */
function rotate(d: ServedForgelet, env: Record<string, string> = {}, args: string[] = ['--json']) {
  return runBin(['secret-key', 'rotate', '--data', d.dataDir, '--database-url', d.databaseUrl, ...args], env);
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet secret-key rotate with the key file`, () => {
    const SIGNING = `whsec_${randomBytes(32).toString('base64')}`;
    const SERVICE_TOKEN = `svc-${randomBytes(8).toString('hex')}`;
    const HOOK_PATH = `/hook-${randomBytes(8).toString('hex')}`;
    const VARIABLE = `schedule-secret-${randomBytes(8).toString('hex')}`;
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let source: ServedForgelet;
    let dest: ServedForgelet;
    let sql: Sql;
    const outputs: string[] = [];
    const keysSeen: Buffer[] = [];
    const receiver = callbackReceiver();
    const hits = receiver.hits;
    const proxy = holdingProxy(() => source.url);
    let hook: any;
    let project: any;
    let schedule: any;
    let runnersToken: string;
    const keyFile = () => join(dataDir, 'secret.key');
    const noteKeys = () => keysSeen.push(...readKeyFile(keyFile()));

    const start = (clock: { now: string; frozen?: boolean }) => startServed(dialect, { dataDir, databaseUrl: db.url, clock });
    /** Starts a flow whose callback the receiver must get, signed with the signing token and carrying the service token. */
    const deliversSignedCallback = async () => {
      const seen = hits.length;
      const flow = ok(await dest.api('POST', '/ai/agent_workflows/workflows', { body: { project_id: String(project.id), goal: 'g', callback_hook_id: hook.id, start_workflow: true } }), 201);
      await dest.runDue();
      const hit = await until('the callback', async () => hits.slice(seen).find((h) => JSON.parse(h.body).data.id === flow.id));
      const event = new Webhook(SIGNING).verify(hit.body, hit.headers as Record<string, string>) as any;
      assert.deepEqual([event.type, hit.headers['x-service-token']], ['flow.started', SERVICE_TOKEN]);
    };
    /** Starts a migration of the source group through the proxy; it stops at the held export status. */
    const startHeldImport = async (slug: string) => {
      proxy.state.held = true;
      const polls = proxy.state.heldPolls;
      const started = ok(
        await dest.api('POST', '/bulk_imports', {
          body: {
            configuration: { url: `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`, access_token: source.rootToken },
            entities: [{ source_type: 'group_entity', source_full_path: 'src', destination_slug: slug, destination_namespace: '', migrate_projects: false }],
          },
        }),
        201,
      );
      await dest.runDue();
      await until('the import to wait for its exports', async () => proxy.state.heldPolls > polls);
      return started;
    };
    const importFinishes = async (id: number) => {
      proxy.state.held = false;
      const done = await until(
        `import ${id} to finish`,
        async () => {
          await dest.runDue();
          const r = ok(await dest.api('GET', `/bulk_imports/${id}`));
          return ['finished', 'failed', 'timeout', 'canceled'].includes(r.status) && r;
        },
        60_000,
      );
      assert.equal(done.status, 'finished', JSON.stringify(done));
    };
    const secretsStillOpen = async () => {
      const shown = ok(await dest.api('GET', `/projects/${project.id}/pipeline_schedules/${schedule.id}`));
      assert.deepEqual(shown.variables.map((v: any) => [v.key, v.value]), [['DEPLOY_SECRET', VARIABLE]]);
      assert.equal(ok(await dest.api('GET', `/projects/${project.id}`)).runners_token, runnersToken);
      const hooks = ok(await dest.api('GET', '/ai/agent_workflows/flow_callbacks'));
      assert.equal(hooks.find((h: any) => h.id === hook.id).url, receiver.url(HOOK_PATH));
    };

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-rotate-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
      await receiver.start();
      await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
      source = await startServed(dialect, { testMode: false });
      ok(await source.api('POST', '/groups', { body: { name: 'Src', path: 'src' } }), 201);
      ok(await source.api('POST', '/groups/src/labels', { body: { name: 'bug', color: 'red' } }), 201);
      // The destination's clock stands still at first: the held import waits there for its next poll.
      dest = await start({ now: T0 });
      sql = await openSql(dialect, db.url);
      noteKeys();
      project = ok(await dest.api('POST', '/projects', { body: { name: 'app' } }), 201);
      ok(await dest.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { body: { branch: 'main', content: CI, commit_message: 'ci' } }), 201);
      hook = ok(
        await dest.api('POST', '/ai/agent_workflows/flow_callbacks', {
          body: { url: receiver.url(HOOK_PATH), name: 'recv', signing_token: SIGNING, token: SERVICE_TOKEN },
        }),
        201,
      );
      schedule = ok(await dest.api('POST', `/projects/${project.id}/pipeline_schedules`, { body: { description: 'nightly', ref: 'main', cron: '0 3 * * *' } }), 201);
      ok(await dest.api('POST', `/projects/${project.id}/pipeline_schedules/${schedule.id}/variables`, { body: { key: 'DEPLOY_SECRET', value: VARIABLE } }), 201);
      runnersToken = ok(await dest.api('GET', `/projects/${project.id}`)).runners_token;
      assert.match(runnersToken, /^GR1348941/);
      ok(await dest.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main', variables: [{ key: 'PIPELINE_SECRET', value: VARIABLE }] } }), 201);
    });
    after(async () => {
      await Promise.all([dest?.stop(), source?.stop()]);
      await sql?.close();
      await receiver.close();
      await new Promise<void>((r) => proxy.server.close(() => r()));
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('on the stopped server: every secret is re-encrypted under the new key, and all of them work after the start', async () => {
      const imported = await startHeldImport('copy-one');
      const [oldKey] = readKeyFile(keyFile());
      await dest.stop();
      const r = await rotate(dest);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      const out = JSON.parse(r.stdout);
      const keys = readKeyFile(keyFile());
      keysSeen.push(...keys);
      assert.equal(keys.length, 2);
      assert.deepEqual(keys[1], oldKey, 'the old key stays in the file, second');
      assert.equal(statSync(keyFile()).mode & 0o777, 0o600);
      assert.deepEqual(
        { ...out, columns: out.columns.map((c: any) => `${c.table}.${c.column} ${c.reencrypted}`) },
        {
          key_id: secretKeyId(keys[0]!),
          retired_key_ids: [secretKeyId(oldKey!)],
          reencrypted: 7,
          columns: [
            'ai_flow_callbacks.url_encrypted 1',
            'ai_flow_callbacks.signing_token_encrypted 1',
            'ai_flow_callbacks.token_encrypted 1',
            'bulk_imports.source_token_encrypted 1',
            'ci_pipeline_schedule_variables.value_encrypted 1',
            'ci_pipeline_variables.value_encrypted 1',
            'ci_registration_tokens.token_encrypted 1',
            'ci_variables.value_encrypted 0',
            'web_hooks.url_encrypted 0',
            'web_hooks.token_encrypted 0',
            'web_hooks.custom_headers_encrypted 0',
            'web_hooks.url_variables_encrypted 0',
          ],
          key_source: keyFile(),
          key_ids: keys.map(secretKeyId),
          dropped_key_ids: [],
          unneeded_key_ids: [],
          sealed_with_other_keys: {},
        },
      );
      assert.deepEqual(await sealingKeys(sql), new Set([secretKeyId(keys[0]!)]));
      assert.deepEqual(
        (await sql.all('select key_id, retired_at from secret_keys order by created_at, key_id')).map((k) => [k.key_id, k.retired_at === null]),
        [[secretKeyId(oldKey!), false], [secretKeyId(keys[0]!), true]],
      );

      // Started again: the held migration goes on with its (re-encrypted) source token, and so on.
      dest = await start({ now: new Date(Date.parse(T0) + 60_000).toISOString(), frozen: false });
      await importFinishes(imported.id);
      assert.deepEqual(ok(await dest.api('GET', '/groups/copy-one/labels')).map((l: any) => l.name), ['bug']);
      await deliversSignedCallback();
      await secretsStillOpen();
    });

    it('while the server runs: it follows the key file without a restart, and seals new secrets with the new key', async () => {
      const imported = await startHeldImport('copy-two');
      await deliversSignedCallback(); // (the server has read the key file before the rotation)
      const [first, second] = readKeyFile(keyFile());
      const stored = (await sealedValues(sql)).length;
      const r = await rotate(dest);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      const keys = readKeyFile(keyFile());
      keysSeen.push(...keys);
      // The key before the last one opens nothing any more: dropped. The one just replaced stays.
      assert.deepEqual(keys.slice(1), [first]);
      assert.deepEqual([out.key_id, out.retired_key_ids, out.dropped_key_ids], [secretKeyId(keys[0]!), [secretKeyId(first!)], [secretKeyId(second!)]]);
      assert.equal(out.reencrypted, stored, 'every stored secret');
      await importFinishes(imported.id);
      await deliversSignedCallback();
      await secretsStillOpen();
      const newer = ok(await dest.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: 'https://hooks.example.com/after', name: 'after', token: SERVICE_TOKEN } }), 201);
      const [row] = await sql.all('select url_encrypted, token_encrypted from ai_flow_callbacks where id = $1', [newer.id]);
      assert.ok(row.url_encrypted.startsWith(`v2.${secretKeyId(keys[0]!)}.`) && row.token_encrypted.startsWith(`v2.${secretKeyId(keys[0]!)}.`), 'sealed with the new key');
    });

    it('a failure half-way re-encrypts nothing: the old key seals again and the server goes on', async () => {
      const [current] = readKeyFile(keyFile());
      // A callback whose service token no key opens, after two columns the rotation re-encrypts first.
      const broken = ok(await dest.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: 'https://hooks.example.com/broken', name: 'broken', token: 'x' } }), 201);
      const forged = `v2.${secretKeyId(current!)}.${randomBytes(12).toString('base64url')}.${randomBytes(16).toString('base64url')}.AAAA`;
      await sql.run('update ai_flow_callbacks set token_encrypted = $1 where id = $2', [forged, broken.id]);
      const sealedBefore = await sealedValues(sql);
      const r = await rotate(dest, {}, []);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        new RegExp(`^error: the rotation failed and re-encrypted nothing \\(.+\\): ai_flow_callbacks\\.token_encrypted of id ${broken.id}: .+; ${keyFile()} seals with ${secretKeyId(current!)} again\\n$`),
      );
      assert.deepEqual(await sealedValues(sql), sealedBefore, 'nothing changed');
      const keys = readKeyFile(keyFile());
      keysSeen.push(...keys);
      assert.deepEqual(keys[0], current);
      await deliversSignedCallback();
      await secretsStillOpen();
      // Without the broken secret, the next rotation goes through and drops the key of the failed one.
      await sql.run('delete from ai_flow_callbacks where id = $1', [broken.id]);
      const again = await rotate(dest);
      outputs.push(again.stdout, again.stderr);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout).dropped_key_ids, [secretKeyId(keys[1]!)].concat(keys.slice(2).map(secretKeyId)));
      keysSeen.push(...readKeyFile(keyFile()));
      await deliversSignedCallback();
    });

    it('a crash half-way (the rotate process killed in its transaction) leaves every secret under the old key, which still opens them', async () => {
      const [current] = readKeyFile(keyFile());
      // Many secrets, so that the rotation is still running when it is killed.
      const pipeline = ok(await dest.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } }), 201);
      const box = createSecretBox(staticKeys([current!]));
      const ROWS = 30_000;
      for (let i = 0; i < ROWS; i += 1000) {
        const values = Array.from({ length: 1000 }, (_, j) => `(${pipeline.id}, 'BULK_${i + j}', '${box.encrypt(`bulk-${i + j}`)}', 'env_var')`).join(',');
        await sql.run(`insert into ci_pipeline_variables (pipeline_id, key, value_encrypted, variable_type) values ${values}`);
      }
      const fileBefore = statSync(keyFile()).mtimeMs;
      const child = spawn(FORGELET_BIN, ['secret-key', 'rotate', '--json', '--data', dest.dataDir, '--database-url', dest.databaseUrl], { env: cliEnv(), stdio: 'ignore' });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('exit', (code, signal) => res({ code, signal })));
      await until('rotate to write the new key file', async () => statSync(keyFile()).mtimeMs !== fileBefore, 30_000);
      await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGKILL');
      assert.deepEqual(await ended, { code: null, signal: 'SIGKILL' }, 'killed before it finished');
      assert.deepEqual(await sealingKeys(sql), new Set([secretKeyId(current!)]), 'nothing was re-encrypted');
      const keys = readKeyFile(keyFile());
      keysSeen.push(...keys);
      assert.ok(keys.some((k) => k.equals(current!)), 'the old key is still in the key file');
      await deliversSignedCallback();
      await secretsStillOpen();
      const r = await rotate(dest);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(JSON.parse(r.stdout).reencrypted > ROWS);
      keysSeen.push(...readKeyFile(keyFile()));
      await deliversSignedCallback();
    });

    it('no secret in plaintext in the database, no secret and no key in what rotate printed', async () => {
      const everything = await sql.everything();
      const printed = outputs.join('\n');
      for (const plain of [SIGNING, SIGNING.slice(6), SERVICE_TOKEN, HOOK_PATH, VARIABLE, source.rootToken, runnersToken]) {
        assert.ok(!everything.includes(plain), `the database holds ${plain} in plaintext`);
        assert.ok(!printed.includes(plain), `rotate printed ${plain}`);
      }
      assert.ok(keysSeen.length >= 5);
      for (const key of keysSeen) assert.ok(!printed.includes(key.toString('base64')) && !printed.includes(key.toString('hex')), 'rotate printed a key');
    });
  });

  describe(`${dialect}: forgelet secret-key rotate with FORGELET_SECRET_KEY`, () => {
    const OLD = randomBytes(32).toString('base64');
    const NEW = randomBytes(32).toString('base64');
    const URL_SECRET = `https://hooks.example.com/env-${randomBytes(6).toString('hex')}`;
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let served: ServedForgelet | null = null;
    const start = (key: string) => startServed(dialect, { dataDir, databaseUrl: db.url, testMode: false, env: { FORGELET_SECRET_KEY: key } });
    const rotateWith = (key: string, args = ['--json']) => runBin(['secret-key', 'rotate', '--data', dataDir, '--database-url', db.url, ...args], { FORGELET_SECRET_KEY: key });

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-rotate-env-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
    });
    after(async () => {
      await served?.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('rotates to the first key of <new>,<old>; a server with the old key alone then refuses to start', async () => {
      served = await start(OLD);
      ok(await served.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: URL_SECRET, name: 'env', signing_token: `whsec_${NEW}`, token: 't' } }), 201);
      await served.stop();
      served = null;
      assert.equal(existsSync(join(dataDir, 'secret.key')), false, 'no key file beside FORGELET_SECRET_KEY');

      const single = await rotateWith(OLD);
      assert.equal(single.code, 2);
      assert.match(single.stderr, /^error: FORGELET_SECRET_KEY holds one key: to rotate, put a new key first \(FORGELET_SECRET_KEY=<new>,<old>/);

      const r = await rotateWith(`${NEW},${OLD}`, []);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^Re-encrypted 3 secrets under the key ${secretKeyId(Buffer.from(NEW, 'base64'))} \\(replacing ${secretKeyId(Buffer.from(OLD, 'base64'))}\\), in one transaction\\.\\n`));
      assert.match(r.stdout, new RegExp(`\\nSet FORGELET_SECRET_KEY to its first key alone on every server: no secret needs ${secretKeyId(Buffer.from(OLD, 'base64'))} any more\\.\\n$`));
      assert.ok(!r.stdout.includes(NEW) && !r.stdout.includes(OLD) && !r.stdout.includes(URL_SECRET));

      const refused = await start(OLD).then(
        () => 'started',
        (err: Error) => err.message,
      );
      assert.match(refused, new RegExp(`stderr: error: the secrets in this database are sealed with the key ${secretKeyId(Buffer.from(NEW, 'base64'))}, which is not in FORGELET_SECRET_KEY`));
      served = await start(NEW);
      assert.deepEqual(ok(await served.api('GET', '/ai/agent_workflows/flow_callbacks')).map((c: any) => c.url), [URL_SECRET]);
    });
  });
}
