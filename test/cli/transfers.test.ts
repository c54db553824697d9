/**
 * `forgelet artifacts download` (by job id or by ref, whole archive or one file, streamed to
 * `<file>.part` then renamed, progress bar from Content-Length) and `forgelet packages
 * push|list` (the nupkg checked locally, streamed as multipart to the NuGet feed).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createProject } from '../server/http.js';
import { commitCi, createRunner } from '../server/ci-support.js';
import { buildZip, runPipeline } from '../server/artifacts-support.js';
import { nupkg, portablePdb, snupkg } from '../server/packages-fixtures.js';
import { tempDir } from './cli-process.js';
import { plain, runIn, tableCells } from './cli-io.js';

const CI = `
build:
  script: make
  artifacts:
    paths: [dist/]
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet artifacts and packages`, () => {
    let f: TestForgelet;
    let dev: { id: number; username: string; token: string };
    let reporter: { id: number; username: string; token: string };
    let project: { id: number; path_with_namespace: string };
    let zip: Buffer;
    let jobId: number;
    let dir: { path: string; remove(): void };
    const cli = (args: string[], token = dev.token, tty = false) => runIn([...args, '--url', f.url, '--token', token], {}, { ttyErr: tty });

    before(async () => {
      dir = tempDir('forgelet-transfers-');
      f = await startTestServer(dialect);
      dev = await f.createUser('xfer-dev');
      reporter = await f.createUser('xfer-rep');
      project = await createProject(f, f.rootToken, { name: 'Xfer', path: 'xfer' });
      await addMember(f, 'projects', project.id, dev.id, 40);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await commitCi(f, project.id, CI);
      const runner = await createRunner(f, dev.token, { runner_type: 'project_type', project_id: project.id });
      zip = await buildZip([
        { path: 'dist/app.js', content: 'console.log("built")\n' },
        { path: 'dist/blob.bin', content: randomBytes(400_000), compress: false },
      ]);
      ({ jobId } = await runPipeline(f, dev.token, runner.token, project.id, 'main', zip));
    });
    after(async () => {
      await f?.stop();
      dir?.remove();
    });

    it('downloads a job archive by id to -o with a progress bar, leaving no partial file', async () => {
      const out = join(dir.path, 'by-id.zip');
      const r = await cli(['artifacts', 'download', String(project.id), String(jobId), '-o', out], dev.token, true);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Saved ${zip.length} bytes to ${out}.\n`);
      assert.ok(readFileSync(out).equals(zip));
      const bar = plain(r.stderr).split('\r').pop()!;
      assert.match(bar, /^Downloading by-id\.zip █{30} 100% \d+ KiB\/\d+ KiB\n$/);
      assert.deepEqual(readdirSync(dir.path).filter((n) => n.endsWith('.part')), []);
    });

    it('without -o, saves under the server\'s file name in the current directory', async () => {
      const cwd = process.cwd();
      const here = tempDir('forgelet-cwd-');
      try {
        process.chdir(here.path);
        const r = await cli(['artifacts', 'download', String(project.id), String(jobId)]);
        assert.deepEqual(r, { code: 0, stdout: `Saved ${zip.length} bytes to ${join(here.path, 'artifacts.zip')}.\n`, stderr: '' });
        assert.deepEqual(readdirSync(here.path), ['artifacts.zip']);
      } finally {
        process.chdir(cwd);
        here.remove();
      }
    });

    it('--json, by ref and job name, and one file with --path', async () => {
      const out = join(dir.path, 'by-ref.zip');
      const r = await cli(['artifacts', 'download', project.path_with_namespace, '--ref', 'main', '--job', 'build', '-o', out, '--json'], dev.token, true);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { file: out, size: zip.length, filename: 'artifacts.zip', content_type: 'application/octet-stream' });
      assert.equal(r.stderr, '', 'no progress bar with --json');
      assert.ok(readFileSync(out).equals(zip));
      const one = join(dir.path, 'app.js');
      const file = await cli(['artifacts', 'download', String(project.id), String(jobId), '--path', 'dist/app.js', '-o', one]);
      assert.equal(file.code, 0, file.stderr);
      assert.equal(readFileSync(one, 'utf8'), 'console.log("built")\n');
      const byRef = await cli(['artifacts', 'download', String(project.id), '--ref', 'main', '--job', 'build', '--path', 'dist/app.js', '-o', one, '--json']);
      assert.equal(byRef.code, 0, byRef.stderr);
      assert.equal(JSON.parse(byRef.stdout).size, 21);
    });

    it('errors: the server message and exit 1 (no file written); usage errors exit 2', async () => {
      const out = join(dir.path, 'missing.zip');
      const noJob = await cli(['artifacts', 'download', String(project.id), '999999', '-o', out]);
      assert.deepEqual(noJob, { code: 1, stdout: '', stderr: 'error: 404 Not found\n' });
      const noRef = await cli(['artifacts', 'download', String(project.id), '--ref', 'nope', '--job', 'build', '-o', out]);
      assert.equal(noRef.code, 1);
      assert.match(noRef.stderr, /^error: 404 /);
      const outsider = await f.createUser('xfer-out');
      assert.deepEqual(await cli(['artifacts', 'download', String(project.id), String(jobId), '-o', out], outsider.token), { code: 1, stdout: '', stderr: 'error: 404 Project Not Found\n' });
      assert.equal(existsSync(out) || existsSync(`${out}.part`), false);
      const unwritable = await cli(['artifacts', 'download', String(project.id), String(jobId), '-o', join(dir.path, 'no/such/dir/x.zip')]);
      assert.deepEqual(unwritable, { code: 1, stdout: '', stderr: `error: cannot write ${join(dir.path, 'no/such/dir/x.zip.part')}: ENOENT\n` });
      assert.deepEqual(await cli(['artifacts', 'download', String(project.id), String(jobId), '-o', dir.path]), { code: 1, stdout: '', stderr: `error: cannot write ${dir.path}: EISDIR\n` });
      assert.deepEqual(readdirSync(dir.path).filter((n) => n.endsWith('.part')), []);
      assert.deepEqual(await cli(['artifacts', 'download', String(project.id)]), { code: 2, stdout: '', stderr: 'error: give a job id, or both --ref and --job\n' });
      assert.deepEqual(await cli(['artifacts', 'download', String(project.id), '1', '--ref', 'main']), { code: 2, stdout: '', stderr: 'error: give a job id, or --ref and --job, not both\n' });
      assert.deepEqual(await cli(['artifacts', 'download', String(project.id), 'abc']), { code: 2, stdout: '', stderr: 'error: job id must be a positive integer, got "abc"\n' });
    });

    it('a download cut short is refused (no file left); an unreachable server is named', async () => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Length': '100000', 'Content-Type': 'application/zip' });
        res.write(Buffer.alloc(40_000, 1));
        setTimeout(() => res.socket?.destroy(), 20);
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = join(dir.path, 'short.zip');
      try {
        for (const args of [[String(jobId)], ['--ref', 'main', '--job', 'build']]) {
          const r = await runIn(['artifacts', 'download', String(project.id), ...args, '-o', out, '--url', url, '--token', dev.token], {});
          assert.deepEqual(r, { code: 1, stdout: '', stderr: 'error: the download ended after 40000 of 100000 bytes\n' });
          assert.equal(existsSync(out) || existsSync(`${out}.part`), false);
        }
      } finally {
        server.close();
      }
      const closed = await runIn(['artifacts', 'download', String(project.id), String(jobId), '-o', out, '--url', url, '--token', dev.token], {});
      assert.deepEqual(closed, { code: 1, stdout: '', stderr: `error: cannot reach Forgelet at ${url}: ECONNREFUSED\n` });
      const pkg = join(dir.path, 'Unreached.1.0.0.nupkg');
      writeFileSync(pkg, await nupkg({ id: 'Unreached', version: '1.0.0' }));
      const push = await runIn(['packages', 'push', String(project.id), pkg, '--url', url, '--token', dev.token], {});
      assert.deepEqual(push, { code: 1, stdout: '', stderr: `error: cannot reach Forgelet at ${url}: ECONNREFUSED\n` });
    });

    it('packages push streams the nupkg to the feed with a progress bar; list shows it', async () => {
      const file = join(dir.path, 'My.Pkg.1.0.0.nupkg');
      writeFileSync(file, await nupkg({ id: 'My.Pkg', version: '1.0.0' }, { payload: randomBytes(300_000) }));
      const pushed = await cli(['packages', 'push', String(project.id), file], dev.token, true);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.equal(pushed.stdout, `Pushed My.Pkg 1.0.0 to ${project.id} (201 Created).\n`);
      assert.match(plain(pushed.stderr).split('\r').pop()!, /^Pushing My\.Pkg\.1\.0\.0\.nupkg █{30} 100% \d+ KiB\/\d+ KiB\n$/);
      const second = join(dir.path, 'Other.2.0.0-beta.nupkg');
      writeFileSync(second, await nupkg({ id: 'Other', version: '2.0.0-beta' }));
      const json = await cli(['packages', 'push', project.path_with_namespace, second, '--json']);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), {
        project: project.path_with_namespace, name: 'Other', version: '2.0.0-beta', file: 'Other.2.0.0-beta.nupkg', size: readFileSync(second).length, symbols: false, status: 201, message: '201 Created',
      });
      const symbols = join(dir.path, 'My.Pkg.1.0.0.snupkg');
      writeFileSync(symbols, await snupkg({ id: 'My.Pkg', version: '1.0.0' }, { 'lib/net6.0/My.Pkg.pdb': portablePdb(randomBytes(16), randomBytes(4)) }));
      const sym = await cli(['packages', 'push', String(project.id), symbols]);
      assert.deepEqual(sym, { code: 0, stdout: `Pushed symbols of My.Pkg 1.0.0 to ${project.id} (201 Created).\n`, stderr: '' });

      const listed = await cli(['packages', 'list', String(project.id), '--json'], reporter.token);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(JSON.parse(listed.stdout).map((p: { name: string; version: string; package_type: string }) => [p.name, p.version, p.package_type]), [['My.Pkg', '1.0.0', 'nuget'], ['Other', '2.0.0-beta', 'nuget']]);
      const table = await cli(['packages', 'list', String(project.id), '--sort', 'desc', '--name', 'Oth']);
      const cells = tableCells(table.stdout);
      assert.deepEqual(cells[0], ['ID', 'NAME', 'VERSION', 'TYPE', 'STATUS', 'CREATED']);
      assert.deepEqual(cells.slice(1).map((r) => r.slice(1, 5)), [['Other', '2.0.0-beta', 'nuget', 'default']]);
    });

    it('push refusals: the server message (exit 1); bad files before any upload', async () => {
      const file = join(dir.path, 'Refused.1.0.0.nupkg');
      writeFileSync(file, await nupkg({ id: 'Refused', version: '1.0.0' }));
      assert.deepEqual(await cli(['packages', 'push', String(project.id), file], reporter.token), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
      assert.deepEqual(await cli(['packages', 'push', 'nobody/nothing', file]), { code: 1, stdout: '', stderr: 'error: 404 Project Not Found\n' });
      const text = join(dir.path, 'text.nupkg');
      writeFileSync(text, 'not a zip');
      assert.deepEqual(await cli(['packages', 'push', String(project.id), text]), { code: 1, stdout: '', stderr: `error: ${text} is not a NuGet package (not a zip archive)\n` });
      const noNuspec = join(dir.path, 'empty.nupkg');
      writeFileSync(noNuspec, await buildZip([{ path: 'readme.txt', content: 'hi' }]));
      assert.deepEqual(await cli(['packages', 'push', String(project.id), noNuspec]), { code: 1, stdout: '', stderr: `error: ${noNuspec} is not a NuGet package: it has no .nuspec\n` });
      const missing = join(dir.path, 'missing.nupkg');
      assert.deepEqual(await cli(['packages', 'push', String(project.id), missing]), { code: 1, stdout: '', stderr: `error: cannot read ${missing}: ENOENT\n` });
      assert.deepEqual(await cli(['packages', 'push', String(project.id), join(dir.path, 'x.zip')]), { code: 2, stdout: '', stderr: `error: the file must be a .nupkg or .snupkg, got "${join(dir.path, 'x.zip')}"\n` });
      assert.equal(JSON.parse((await cli(['packages', 'list', String(project.id), '--json', '--name', 'Refused'])).stdout).length, 0);
    });
  });
}
