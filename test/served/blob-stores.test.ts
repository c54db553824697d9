/**
 * The built server with its blobs elsewhere than its data directory: `--blob-url s3://…`
 * (a local s3rver, credentials from the AWS environment variables) and `--blob-url postgres`
 * (the database's tables). A job artifact archive goes up as a runner sends it and comes back
 * (whole and one file of it), a NuGet package is pushed and downloaded; two processes with
 * separate data directories on one PostgreSQL database serve each other's uploads. Each start
 * loads the server from the code-cached bundle (startServed checks), so the AWS SDK is required
 * from there. Snapshots refuse the S3 store and work with the PostgreSQL one; the PostgreSQL
 * store is refused on SQLite, and bad URLs are usage errors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DIALECTS, createTestDatabaseUrl } from '../support/databases.js';
import { FORGELET_BIN, REPO_ROOT, startServed, type ServedForgelet } from '../support/served.js';
import { S3RVER_CREDENTIALS, startLocalS3, type LocalS3 } from '../support/s3.js';
import { commitCi, createRunner, finishJob } from '../server/ci-support.js';
import { buildZip, createPipeline, takeJob, uploadArchive } from '../server/artifacts-support.js';
import { basic, multipart, nupkg } from '../server/packages-fixtures.js';

const CI = `
build:
  script: make
  artifacts:
    paths: [dist/]
`;

/** Files under a directory, recursively (the data dir's own blob folder must stay empty). */
function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    out = e.isDirectory() ? out.concat(filesUnder(p)) : out.concat(p);
  }
  return out;
}

async function bytes(f: ServedForgelet, path: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(`${f.url}/api/v4${path}`, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

interface World {
  projectId: number;
  runner: { id: number; token: string };
}

async function setUp(f: ServedForgelet, name: string): Promise<World> {
  const project = await f.api('POST', '/projects', { body: { name, visibility: 'private' } });
  assert.equal(project.status, 201, project.text);
  await commitCi(f, project.body.id, CI);
  const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: project.body.id });
  return { projectId: project.body.id, runner };
}

/** A pipeline's job uploads `zip` through `up`; returns the job id. */
async function uploadArtifact(up: ServedForgelet, world: World, zip: Buffer): Promise<number> {
  await createPipeline(up, up.rootToken, world.projectId, 'main');
  const job = await takeJob(up, world.runner.token);
  const r = await uploadArchive(up, job, zip);
  assert.equal(r.status, 201, r.text);
  await finishJob(up, job, 'success');
  return job.id;
}

async function pushPackage(f: ServedForgelet, projectId: number, pkg: Buffer, version: string) {
  const body = multipart(pkg);
  const r = await f.api('PUT', `/projects/${projectId}/packages/nuget`, { token: null, raw: body.body, headers: { 'Content-Type': body.contentType, Authorization: basic('root', f.rootToken) } });
  assert.equal(r.status, 201, `push ${version}: ${r.text}`);
}

/** Upload through `up`, download through `down` (the same process, or another on the same database). */
async function roundTrip(up: ServedForgelet, down: ServedForgelet, world: World, tag: string) {
  const payload = Buffer.alloc(3 * 1024 * 1024 + 123, tag); // stored: several chunks / a multipart upload
  const zip = await buildZip([{ path: 'dist/app.bin', content: payload, compress: false }, { path: 'dist/readme.txt', content: `built ${tag}` }]);
  const jobId = await uploadArtifact(up, world, zip);
  const auth = { 'PRIVATE-TOKEN': down.rootToken };
  const whole = await bytes(down, `/projects/${world.projectId}/jobs/${jobId}/artifacts`, auth);
  assert.equal(whole.status, 200);
  assert.ok(whole.body.equals(zip), 'the archive comes back byte for byte');
  const one = await bytes(down, `/projects/${world.projectId}/jobs/${jobId}/artifacts/dist/readme.txt`, auth);
  assert.equal(one.status, 200);
  assert.equal(one.body.toString(), `built ${tag}`);
  const big = await bytes(down, `/projects/${world.projectId}/jobs/${jobId}/artifacts/dist/app.bin`, auth);
  assert.ok(big.body.equals(payload), 'a file read from a range of the archive');

  const version = `1.0.${Date.now() % 100000}`;
  const pkg = await nupkg({ id: `Blob.${tag}`, version, authors: 'me', description: 'd' }, { payload: Buffer.alloc(2 * 1024 * 1024, 7) });
  await pushPackage(up, world.projectId, pkg, version);
  const got = await bytes(down, `/projects/${world.projectId}/packages/nuget/download/Blob.${tag}/${version}/blob.${tag.toLowerCase()}.${version}.nupkg`, { Authorization: basic('root', down.rootToken) });
  assert.equal(got.status, 200);
  assert.ok(got.body.equals(pkg), 'the package comes back byte for byte');
}

let s3: LocalS3;
before(async () => (s3 = await startLocalS3('forgelet-served')));
after(async () => s3.stop());

for (const dialect of DIALECTS) {
  describe(`${dialect}: served with --blob-url s3://…`, () => {
    let f: ServedForgelet;
    before(async () => {
      f = await startServed(dialect, { args: ['--blob-url', s3.blobUrl(`${dialect}-one`)], env: S3RVER_CREDENTIALS });
    });
    after(async () => f?.stop());

    it('keeps artifacts and packages in the bucket, and serves them back', async () => {
      const before = s3.requests.length;
      await roundTrip(f, f, await setUp(f, 's3-app'), 'S3');
      const mine = s3.requests.slice(before);
      assert.ok(mine.some((r) => r.method === 'PUT' && r.url.startsWith(`/forgelet-served/${dialect}-one/`)), 'objects were written under the prefix');
      assert.ok(mine.some((r) => r.method === 'GET' && r.url.startsWith(`/forgelet-served/${dialect}-one/`)), 'and read back from it');
      assert.deepEqual(filesUnder(join(f.dataDir, 'blobs')), [], 'nothing in the data directory\'s blob folder');
    });

    it('says where the blobs are without the credentials, and refuses snapshots with a reason', async () => {
      assert.match(f.blobs, new RegExp(`^s3://forgelet-served/${dialect}-one/\\?endpoint=http://127\\.0\\.0\\.1:\\d+&region=us-east-1$`));
      const r = await f.api('POST', '/forgelet/snapshots', { body: { name: 'before' } });
      assert.equal(r.status, 422);
      assert.match(r.body.message, /^Snapshots need the blobs on the filesystem or in the PostgreSQL database .*this server keeps them in s3:\/\/forgelet-served\//);
    });
  });

  describe(`${dialect}: credentials in the blob URL`, () => {
    it('are used, and shown nowhere (ready line, log)', async () => {
      const url = s3.blobUrl(`${dialect}-userinfo`).replace('s3://', 's3://S3RVER:S3RVER@');
      const f = await startServed(dialect, { env: { FORGELET_BLOB_URL: url } });
      try {
        const world = await setUp(f, 'userinfo');
        const zip = await buildZip([{ path: 'dist/a.txt', content: 'a' }]);
        const jobId = await uploadArtifact(f, world, zip);
        assert.equal((await bytes(f, `/projects/${world.projectId}/jobs/${jobId}/artifacts`, { 'PRIVATE-TOKEN': f.rootToken })).status, 200);
        assert.ok(!JSON.stringify(f.blobs).includes('S3RVER') && !f.stdoutLines().join('\n').includes('S3RVER') && !f.stderr().includes('S3RVER'));
      } finally {
        await f.stop();
      }
    });
  });
}

describe('bad blob URLs are usage errors', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'forgelet-bloburl-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const serve = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(FORGELET_BIN, ['serve', '--port', '0', '--data', dataDir, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8', timeout: 30_000 });

  it('names the flag or variable and what is wrong, exit 2, no stack, no secret', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--blob-url', 'ftp://host/x'], {}, /^error: --blob-url: the blob URL must be file:\/\/\/<absolute dir>, postgres or s3:\/\/<bucket>\?endpoint=…, got a ftp: URL\n$/],
      [[], { FORGELET_BLOB_URL: 's3://KEY:TOPSECRET@bucket?endpint=http://x' }, /^error: FORGELET_BLOB_URL: s3 blob URL: unknown parameter "endpint" \(known: endpoint, region, force_path_style\)\n$/],
      [['--blob-url', 's3://KEY:TOPSECRET@bucket?endpoint=ftp://x'], {}, /^error: --blob-url: s3 blob URL: endpoint must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/x"\n$/],
      [['--blob-url', 'postgres://user:TOPSECRET@db/x'], {}, /^error: --blob-url: --blob-url postgres keeps the blobs in the Forgelet database \(--database-url\); a separate blob database is not supported\n$/],
      [['--blob-url', 'postgres'], {}, /^error: --blob-url postgres keeps the blobs in the database, which needs PostgreSQL \(--database-url postgres:\/\/…\); on SQLite they stay in the data directory\n$/],
    ];
    for (const [args, env, message] of cases) {
      const r = serve(args, env);
      assert.equal(r.status, 2, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.ok(!r.stderr.includes('TOPSECRET') && !r.stdout.includes('TOPSECRET'));
    }
  });
});

if (DIALECTS.includes('postgres')) {
  describe('postgres: served with --blob-url postgres', () => {
    let f: ServedForgelet;
    before(async () => (f = await startServed('postgres', { args: ['--blob-url', 'postgres'] })));
    after(async () => f?.stop());

    it('keeps artifacts and packages in the database, and serves them back', async () => {
      await roundTrip(f, f, await setUp(f, 'pg-app'), 'Pg');
      const client = new pg.Client({ connectionString: f.databaseUrl });
      await client.connect();
      const r = await client.query<{ objects: number; chunks: number }>('select (select count(*)::int from blob_objects) as objects, (select count(*)::int from blob_chunks) as chunks');
      await client.end();
      assert.ok(r.rows[0]!.objects >= 2 && r.rows[0]!.chunks >= 5, JSON.stringify(r.rows[0]));
      assert.deepEqual(filesUnder(join(f.dataDir, 'blobs')), []);
      assert.match(f.blobs, /^postgres \(the Forgelet database/);
    });

    it('snapshots hold the blobs: a package deleted after a snapshot downloads again after the restore', async () => {
      const world = await setUp(f, 'pg-snap');
      const pkg = await nupkg({ id: 'Snap.Pkg', version: '1.0.0', authors: 'me', description: 'd' });
      await pushPackage(f, world.projectId, pkg, '1.0.0');
      assert.equal((await f.api('POST', '/forgelet/snapshots', { body: { name: 'with-pkg' } })).status, 201);
      const list = await f.api('GET', `/projects/${world.projectId}/packages`);
      assert.equal((await f.api('DELETE', `/projects/${world.projectId}/packages/${list.body.find((p: any) => p.name === 'Snap.Pkg').id}`)).status, 204);
      const path = `/projects/${world.projectId}/packages/nuget/download/Snap.Pkg/1.0.0/snap.pkg.1.0.0.nupkg`;
      const auth = { Authorization: basic('root', f.rootToken) };
      assert.equal((await bytes(f, path, auth)).status, 404);
      assert.equal((await f.api('POST', '/forgelet/snapshots/with-pkg/restore')).status, 200);
      const back = await bytes(f, path, auth);
      assert.equal(back.status, 200);
      assert.ok(back.body.equals(pkg));
    });
  });

  for (const store of ['postgres', 's3'] as const) {
    describe(`postgres: two processes, separate data directories, one database, --blob-url ${store}`, () => {
      let a: ServedForgelet;
      let b: ServedForgelet;
      let drop: () => Promise<void>;
      before(async () => {
        const database = await createTestDatabaseUrl('postgres');
        drop = database.drop;
        const args = ['--blob-url', store === 'postgres' ? 'postgres' : s3.blobUrl('shared')];
        // Machines that share the database share its secret key too.
        const env = { FORGELET_SECRET_KEY: randomBytes(32).toString('base64'), ...(store === 's3' ? S3RVER_CREDENTIALS : {}) };
        a = await startServed('postgres', { databaseUrl: database.url, args, env });
        b = await startServed('postgres', { databaseUrl: database.url, args, env, rootToken: a.rootToken });
        assert.notEqual(a.dataDir, b.dataDir);
      });
      after(async () => {
        await a?.stop();
        await b?.stop();
        await drop?.();
      });

      it('an upload through one process downloads through the other, both ways', async () => {
        const world = await setUp(a, `two-${store}`);
        await roundTrip(a, b, world, 'AtoB');
        await roundTrip(b, a, world, 'BtoA');
      });
    });
  }
}
