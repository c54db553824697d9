/**
 * Job artifacts, reading: archives uploaded through the runner API, then the tree (paginated,
 * recursive, by path), single files by job and by ref with GitLab's content types, the archive
 * of the latest successful pipeline of a ref (failed ones skipped, recent ones searched,
 * parents before children), refs and paths with slashes both ways, refused paths, refused
 * uploads, and who may read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fixedClock, nextIid, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest } from './http.js';
import { commitCi, createRunner, finishJob } from './ci-support.js';
import { buildZip, bytesOf, createPipeline, runPipeline, takeJob, uploadArchive } from './artifacts-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';

const CI = `
"build job":
  script: make
  artifacts:
    paths: [dist/]
    expire_in: 2 days
`;

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

/** Every file under a directory (the blob store), recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out.sort();
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: job artifacts (reads)`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let maintainer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let project: any;
    let runner: { id: number; token: string };
    let zipA: Buffer;
    let jobA: number;

    const base = () => `/projects/${project.id}`;

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock, workers: false });
      [maintainer, reporter, guest, outsider] = await createUsers(f, ['artmaint', 'artrep', 'artguest', 'artout']);
      const group = await createGroup(f, f.rootToken, { name: 'Artifacts', path: 'artifacts-group' });
      project = await createProject(f, f.rootToken, { name: 'app', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'projects', project.id, maintainer.id, 40);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await addMember(f, 'projects', project.id, guest.id, 10);
      await commitCi(f, project.id, CI);
      await commitCi(f, project.id, CI, { branch: 'feature/x', startBranch: 'main' });
      runner = await createRunner(f, maintainer.token, { runner_type: 'project_type', project_id: project.id });
      zipA = await buildZip([
        { path: 'dist/', dir: true },
        { path: 'dist/app.js', content: 'console.log("built")\n' },
        { path: 'dist/readme.txt', content: 'hello\n', compress: false },
        { path: 'dist/sub/deep.json', content: '{"a":1}\n' },
        { path: 'dist/page.html', content: '<!DOCTYPE html><html><script>alert(1)</script></html>\n' },
        { path: 'dist/logo.png', content: PNG },
        { path: 'bin/run.sh', content: '#!/bin/sh\necho run\n', mode: 0o100755 },
        { path: 'empty/', dir: true },
        { path: 'raw/notes.txt', content: 'notes under raw/\n' },
        { path: 'top.txt', content: 'top\n' },
      ]);
      ({ jobId: jobA } = await runPipeline(f, maintainer.token, runner.token, project.id, 'main', zipA));
    });
    after(() => f.stop());

    it('the tree: a directory (directories first), recursively by path, by path, paginated', async () => {
      const root = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree`, { token: reporter.token });
      expectStatus(root, 200);
      assert.deepEqual(root.body, [
        { name: 'bin', path: 'bin/', type: 'directory', mode: '040755' },
        { name: 'dist', path: 'dist/', type: 'directory', mode: '040775' },
        { name: 'empty', path: 'empty/', type: 'directory', mode: '040775' },
        { name: 'raw', path: 'raw/', type: 'directory', mode: '040755' },
        { name: 'top.txt', path: 'top.txt', type: 'file', size: 4, mode: '100664' },
      ]);
      assert.equal(root.headers.get('x-total'), '5');

      const all = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?recursive=true&per_page=100`, { token: reporter.token });
      expectStatus(all, 200);
      assert.deepEqual(all.body.map((e: any) => e.path), [
        'bin/', 'bin/run.sh', 'dist/', 'dist/app.js', 'dist/logo.png', 'dist/page.html', 'dist/readme.txt', 'dist/sub/', 'dist/sub/deep.json',
        'empty/', 'raw/', 'raw/notes.txt', 'top.txt',
      ]);
      assert.deepEqual(all.body[1], { name: 'run.sh', path: 'bin/run.sh', type: 'file', size: 19, mode: '100755' });

      const dist = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?path=dist`, { token: reporter.token });
      assert.deepEqual(dist.body.map((e: any) => [e.path, e.type, e.size]), [
        ['dist/sub/', 'directory', undefined],
        ['dist/app.js', 'file', 21],
        ['dist/logo.png', 'file', PNG.length],
        ['dist/page.html', 'file', 54],
        ['dist/readme.txt', 'file', 6],
      ]);
      const page = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?path=dist/&recursive=True&per_page=2&page=2`, { token: reporter.token });
      expectStatus(page, 200);
      assert.deepEqual(page.body.map((e: any) => e.path), ['dist/page.html', 'dist/readme.txt']);
      assert.deepEqual(
        ['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page'].map((h) => page.headers.get(h)),
        ['6', '3', '2', '3', '1'],
      );
      assert.match(page.headers.get('link') ?? '', /artifacts\/tree\?page=3&path=dist%2F&per_page=2&recursive=True>; rel="next"/);
      const sub = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?path=dist/sub`, { token: reporter.token });
      assert.deepEqual(sub.body, [{ name: 'deep.json', path: 'dist/sub/deep.json', type: 'file', size: 8, mode: '100664' }]);

      for (const path of ['nope', 'top.txt', '../dist', '/']) {
        const missing = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?path=${encodeURIComponent(path)}`, { token: reporter.token });
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Path Not Found' }], path);
      }
      const bad = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/tree?recursive=maybe`, { token: reporter.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'recursive is invalid' }]);
    });

    it('one file by job: streamed, typed by its extension, attachment; encoded slashes; 404 and 400', async () => {
      const cases: [string, string, Buffer | string][] = [
        ['dist/readme.txt', 'text/plain; charset=utf-8', 'hello\n'],
        ['dist%2Fsub%2Fdeep.json', 'application/json', '{"a":1}\n'],
        ['dist/page.html', 'text/html; charset=utf-8', '<!DOCTYPE html><html><script>alert(1)</script></html>\n'],
        ['dist/logo.png', 'image/png', PNG],
        ['bin/run.sh', 'application/octet-stream', '#!/bin/sh\necho run\n'],
        ['raw/notes.txt', 'text/plain; charset=utf-8', 'notes under raw/\n'],
      ];
      for (const [path, type, content] of cases) {
        const r = await bytesOf(f, `${base()}/jobs/${jobA}/artifacts/${path}`, { 'PRIVATE-TOKEN': reporter.token });
        assert.equal(r.status, 200, path);
        assert.deepEqual(r.bytes, Buffer.from(content), path);
        assert.equal(r.headers.get('content-type'), type, path);
        assert.equal(r.headers.get('content-length'), String(Buffer.from(content).length), path);
        assert.equal(r.headers.get('content-disposition'), `attachment; filename="${decodeURIComponent(path).split('/').pop()}"`, path);
      }
      for (const path of ['dist/missing.txt', 'dist', 'dist/', 'empty']) {
        const r = await f.api('GET', `${base()}/jobs/${jobA}/artifacts/${path}`, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }], path);
      }
      // `..` reaches the server only from clients that do not normalise the URL
      for (const path of ['dist/../top.txt', 'dist/%2E%2E/top.txt', '..%2Ftop.txt', './top.txt']) {
        const r = await rawRequest(f.url, 'GET', `/api/v4${base()}/jobs/${jobA}/artifacts/${path}`, { headers: { 'PRIVATE-TOKEN': reporter.token } });
        assert.deepEqual([r.status, r.body], [400, { message: '400 Bad request' }], path);
      }
      // a NUL byte never reaches the artifact lookup: string params refuse it, naming the param
      const nul = await rawRequest(f.url, 'GET', `/api/v4${base()}/jobs/${jobA}/artifacts/dist/%00x`, { headers: { 'PRIVATE-TOKEN': reporter.token } });
      assert.deepEqual([nul.status, nul.body], [400, { error: 'artifact_path is invalid' }]);
      const head = await fetch(`${f.url}/api/v4${base()}/jobs/${jobA}/artifacts/top.txt`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': reporter.token } });
      assert.deepEqual([head.status, head.headers.get('content-length'), await head.text()], [200, '4', '']);
    });

    it('the archive: application/octet-stream, attachment artifacts.zip, byte for byte', async () => {
      const r = await bytesOf(f, `${base()}/jobs/${jobA}/artifacts`, { 'PRIVATE-TOKEN': reporter.token });
      assert.equal(r.status, 200);
      assert.deepEqual(r.bytes, zipA);
      assert.equal(r.headers.get('content-type'), 'application/octet-stream');
      assert.equal(r.headers.get('content-length'), String(zipA.length));
      assert.equal(r.headers.get('content-disposition'), `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`);
    });

    it('by ref: the latest successful pipeline (a newer failed one is skipped); files typed by content; slashes both ways', async () => {
      // a newer pipeline on main fails after uploading its own archive
      const zipFailed = await buildZip([{ path: 'top.txt', content: 'from the failed pipeline\n' }]);
      await runPipeline(f, maintainer.token, runner.token, project.id, 'main', zipFailed, 'failed');
      const dl = await bytesOf(f, `${base()}/jobs/artifacts/main/download?job=build+job`, { 'PRIVATE-TOKEN': reporter.token });
      assert.equal(dl.status, 200);
      assert.deepEqual(dl.bytes, zipA);
      assert.equal(dl.headers.get('content-type'), 'application/octet-stream');
      assert.equal(dl.headers.get('content-disposition'), `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`);

      const raw: [string, string, string | Buffer][] = [
        ['main/raw/top.txt', 'text/plain; charset=utf-8', 'top\n'],
        // detected from the content: HTML and JSON are served as plain text, a PNG as a PNG
        ['main/raw/dist/page.html', 'text/plain; charset=utf-8', '<!DOCTYPE html><html><script>alert(1)</script></html>\n'],
        ['main/raw/dist%2Fsub%2Fdeep.json', 'text/plain; charset=utf-8', '{"a":1}\n'],
        ['main/raw/dist/logo.png', 'image/png', PNG],
        ['main/raw/bin/run.sh', 'text/plain; charset=utf-8', '#!/bin/sh\necho run\n'],
        // `raw` inside the path: the greedy reading (ref main/raw) has no pipelines, so ref main
        ['main/raw/raw/notes.txt', 'text/plain; charset=utf-8', 'notes under raw/\n'],
      ];
      for (const [path, type, content] of raw) {
        const r = await bytesOf(f, `${base()}/jobs/artifacts/${path}?job=build%20job`, { 'PRIVATE-TOKEN': reporter.token });
        assert.equal(r.status, 200, path);
        assert.deepEqual(r.bytes, Buffer.from(content), path);
        assert.equal(r.headers.get('content-type'), type, path);
        assert.equal(r.headers.get('content-disposition'), `attachment; filename="${decodeURIComponent(path).split('/').pop()}"`, path);
      }

      // a ref with a slash: raw (python-gitlab) and %2F-encoded (gitbeaker)
      const zipF = await buildZip([{ path: 'dir/file.txt', content: 'feature file\n' }]);
      await runPipeline(f, maintainer.token, runner.token, project.id, 'feature/x', zipF);
      const urls = [
        'feature/x/raw/dir/file.txt?job=build+job',
        'feature%2Fx/raw/dir%2Ffile.txt?job=build%20job&search_recent_successful_pipelines=true',
        'feature%2Fx/raw/dir/file.txt?job=build%20job',
      ];
      for (const url of urls) {
        const r = await f.api('GET', `${base()}/jobs/artifacts/${url}`, { token: reporter.token });
        assert.deepEqual([r.status, r.text], [200, 'feature file\n'], url);
      }
      for (const url of ['feature/x/download?job=build+job', 'feature%2Fx/download?job=build+job']) {
        const r = await bytesOf(f, `${base()}/jobs/artifacts/${url}`, { 'PRIVATE-TOKEN': reporter.token });
        assert.deepEqual([r.status, r.bytes], [200, zipF], url);
      }

      const refusals: [string, number, unknown][] = [
        ['main/download', 400, { error: 'job is missing' }],
        ['main/download?job=nope', 404, { message: '404 Not found' }],
        ['nope/download?job=build+job', 404, { message: '404 Not found' }],
        ['nope/download?job=build+job&search_recent_successful_pipelines=true', 404, { message: '404 Job Not Found' }],
        ['main/raw/missing.txt?job=build+job', 404, { message: '404 Not Found' }],
        ['main/raw/dist?job=build+job', 404, { message: '404 Not Found' }],
        // neither `<ref>/download` nor `<ref>/raw/<path>`: no such route
        ['main?job=build+job', 404, { error: '404 Not Found' }],
      ];
      for (const [url, status, body] of refusals) {
        const r = await f.api('GET', `${base()}/jobs/artifacts/${url}`, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [status, body], url);
      }
      const traversal = await rawRequest(f.url, 'GET', `/api/v4${base()}/jobs/artifacts/main/raw/dist/../top.txt?job=build+job`, { headers: { 'PRIVATE-TOKEN': reporter.token } });
      assert.deepEqual([traversal.status, traversal.body], [400, { message: '400 Bad request' }]);
    });

    it('by ref: only the latest successful pipeline, unless search_recent_successful_pipelines searches up to 100', async () => {
      // the newest successful pipeline of main has no artifacts
      await runPipeline(f, maintainer.token, runner.token, project.id, 'main', null);
      const latest = await f.api('GET', `${base()}/jobs/artifacts/main/download?job=build+job`, { token: reporter.token });
      assert.deepEqual([latest.status, latest.body], [404, { message: '404 Not found' }]);
      const file = await f.api('GET', `${base()}/jobs/artifacts/main/raw/top.txt?job=build+job`, { token: reporter.token });
      assert.equal(file.status, 404);
      const recent = await bytesOf(f, `${base()}/jobs/artifacts/main/download?job=build+job&search_recent_successful_pipelines=true`, { 'PRIVATE-TOKEN': reporter.token });
      assert.deepEqual([recent.status, recent.bytes], [200, zipA]);
      const recentFile = await f.api('GET', `${base()}/jobs/artifacts/main/raw/top.txt?job=build+job&search_recent_successful_pipelines=True`, { token: reporter.token });
      assert.deepEqual([recentFile.status, recentFile.text], [200, 'top\n']);
    });

    it('by ref with child pipelines: the parent is searched first; a job only the child has comes from the child', async () => {
      const zipRoot = await buildZip([{ path: 'who.txt', content: 'root\n' }]);
      const { pipelineId: rootId, jobId: rootJob } = await runPipeline(f, maintainer.token, runner.token, project.id, 'main', zipRoot);
      // a child pipeline (Forgelet has no trigger jobs yet: written as GitLab records one) with two jobs
      const db = f.forge.deps.db;
      const parent = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', rootId).executeTakeFirstOrThrow();
      const template = await db.selectFrom('ci_jobs').selectAll().where('id', '=', rootJob).executeTakeFirstOrThrow();
      const now = clock.now().toISOString();
      const { id: _pid, ...pipelineRest } = parent;
      const child = await db
        .insertInto('ci_pipelines')
        .values({ ...pipelineRest, iid: await nextIid(db, 'ci_pipelines', `project:${project.id}`), status: 'pending', source: 'parent_pipeline', parent_pipeline_id: rootId, started_at: null, finished_at: null, duration: null, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const { id: _jid, ...jobRest } = template;
      for (const name of ['build job', 'child job']) {
        await db
          .insertInto('ci_jobs')
          .values({ ...jobRest, name, pipeline_id: child.id, status: 'pending', runner_id: null, token_digest: null, queued_at: now, started_at: null, finished_at: null, created_at: now, updated_at: now })
          .execute();
      }
      for (let i = 0; i < 2; i++) {
        const job = await takeJob(f, runner.token);
        assert.equal(job.pipelineId, child.id);
        expectStatus(await uploadArchive(f, job, await buildZip([{ path: 'who.txt', content: `child ${job.name}\n` }])), 201);
        await finishJob(f, job, 'success');
      }
      const status = await f.api('GET', `${base()}/pipelines/${child.id}`);
      assert.equal(status.body.status, 'success');
      const parentFirst = await f.api('GET', `${base()}/jobs/artifacts/main/raw/who.txt?job=build+job`, { token: reporter.token });
      assert.deepEqual([parentFirst.status, parentFirst.text], [200, 'root\n']);
      const fromChild = await f.api('GET', `${base()}/jobs/artifacts/main/raw/who.txt?job=child+job`, { token: reporter.token });
      assert.deepEqual([fromChild.status, fromChild.text], [200, 'child child job\n']);
    });

    it('who may read: Reporter and up (Guest 403, outsiders and anonymous 404); public projects: anyone', async () => {
      const paths = [`/jobs/${jobA}/artifacts`, `/jobs/${jobA}/artifacts/tree`, `/jobs/${jobA}/artifacts/top.txt`, '/jobs/artifacts/feature/x/download?job=build+job'];
      for (const path of paths) {
        assert.deepEqual(await f.api('GET', `${base()}${path}`, { token: guest.token }).then((r) => [r.status, r.body]), [403, { message: '403 Forbidden' }], path);
        assert.deepEqual(await f.api('GET', `${base()}${path}`, { token: outsider.token }).then((r) => [r.status, r.body]), [404, { message: '404 Project Not Found' }], path);
        assert.deepEqual(await f.api('GET', `${base()}${path}`, { token: null }).then((r) => [r.status, r.body]), [404, { message: '404 Project Not Found' }], path);
        assert.equal((await f.api('GET', `${base()}${path}`, { token: 'glpat-wrong' })).status, 401, path);
      }
      const missingJob = await f.api('GET', `${base()}/jobs/999999/artifacts/tree`, { token: reporter.token });
      assert.deepEqual([missingJob.status, missingJob.body], [404, { message: '404 Not found' }]);

      const pub = await createProject(f, f.rootToken, { name: 'public app', path: 'public-app', visibility: 'public' });
      await commitCi(f, pub.id, CI);
      const pubRunner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: pub.id });
      const zip = await buildZip([{ path: 'public.txt', content: 'for everyone\n' }]);
      const { jobId } = await runPipeline(f, f.rootToken, pubRunner.token, pub.id, 'main', zip);
      const tree = await f.api('GET', `/projects/${pub.id}/jobs/${jobId}/artifacts/tree`, { token: null });
      assert.deepEqual([tree.status, tree.body], [200, [{ name: 'public.txt', path: 'public.txt', type: 'file', size: 13, mode: '100664' }]]);
      const one = await f.api('GET', `/projects/${pub.id}/jobs/${jobId}/artifacts/public.txt`, { token: outsider.token });
      assert.deepEqual([one.status, one.text], [200, 'for everyone\n']);
      const byRef = await bytesOf(f, `/projects/${pub.id}/jobs/artifacts/main/download?job=build+job`);
      assert.deepEqual([byRef.status, byRef.bytes], [200, zip]);
      // CI/CD disabled: 403 even for the owner
      expectStatus(await f.api('PUT', `/projects/${pub.id}`, { body: { jobs_enabled: false } }), 200);
      assert.equal((await f.api('GET', `/projects/${pub.id}/jobs/${jobId}/artifacts/tree`)).status, 403);
    });

    it('uploads of corrupt, truncated or unsafe zips are refused with the reason, and nothing is stored', async () => {
      const pipelineId = await createPipeline(f, maintainer.token, project.id, 'main');
      const job = await takeJob(f, runner.token);
      assert.equal(job.pipelineId, pipelineId);
      const blobRoot = f.forge.deps.blobs.root!;
      const blobsBefore = filesUnder(blobRoot);
      const good = await buildZip([{ path: 'ok/file.txt', content: 'fine\n' }]);
      const swap = (zip: Buffer, from: string, to: string) => {
        assert.equal(from.length, to.length);
        let out = Buffer.from(zip);
        let at = out.indexOf(from);
        assert.ok(at >= 0);
        while (at >= 0) {
          out.write(to, at, 'latin1');
          at = out.indexOf(from, at + 1);
        }
        return out;
      };
      const cases: [string, Buffer, RegExp | string][] = [
        ['corrupt', Buffer.from('this is not a zip archive at all'), /^400 Bad request - invalid zip archive: End of central directory record signature not found\. Either not a zip file, or file is truncated\.$/],
        ['truncated', good.subarray(0, good.length - 30), /^400 Bad request - invalid zip archive: /],
        ['cut in the data', Buffer.concat([good.subarray(0, 40), good.subarray(60)]), /^400 Bad request - invalid zip archive: /],
        ['traversal', swap(await buildZip([{ path: 'aa/evil.txt', content: 'x' }]), 'aa/evil.txt', '../evil.txt'), '400 Bad request - invalid zip entry "../evil.txt": paths outside the archive are not allowed'],
        ['absolute', swap(await buildZip([{ path: 'xetc/passwd', content: 'x' }]), 'xetc/passwd', '/etc/passwd'), '400 Bad request - invalid zip entry "/etc/passwd": absolute paths are not allowed'],
        ['symlink', await buildZip([{ path: 'link', content: '/etc/passwd', mode: 0o120777 }]), '400 Bad request - invalid zip entry "link": symbolic links are not allowed'],
      ];
      for (const [label, zip, expected] of cases) {
        const r = await uploadArchive(f, job, zip);
        assert.equal(r.status, 400, `${label}: ${r.text}`);
        if (typeof expected === 'string') assert.equal(r.body.message, expected, label);
        else assert.match(r.body.message, expected, label);
        const rows = await f.forge.deps.db.selectFrom('ci_job_artifacts').select('id').where('job_id', '=', job.id).execute();
        assert.deepEqual(rows, [], `${label}: no artifact row`);
        assert.deepEqual(filesUnder(blobRoot), blobsBefore, `${label}: no blob left behind`);
      }
      // the job can still upload a good archive afterwards
      expectStatus(await uploadArchive(f, job, good), 201);
      await finishJob(f, job, 'success');
      const tree = await f.api('GET', `${base()}/jobs/${job.id}/artifacts/tree?recursive=true`, { token: reporter.token });
      assert.deepEqual(tree.body.map((e: any) => e.path), ['ok/', 'ok/file.txt']);
    });

    it('names beyond ASCII: the tree, the file by its encoded path, Content-Disposition as UTF-8 bytes', async () => {
      const zip = await buildZip([{ path: 'intl/naïve 日本.txt', content: 'unicode\n' }, { path: 'intl/empty.txt', content: '' }]);
      const { jobId } = await runPipeline(f, maintainer.token, runner.token, project.id, 'feature/x', zip);
      const tree = await f.api('GET', `${base()}/jobs/${jobId}/artifacts/tree?path=intl`, { token: reporter.token });
      assert.deepEqual(tree.body.map((e: any) => [e.name, e.path]), [['empty.txt', 'intl/empty.txt'], ['naïve 日本.txt', 'intl/naïve 日本.txt']]);
      const r = await bytesOf(f, `${base()}/jobs/${jobId}/artifacts/intl/${encodeURIComponent('naïve 日本.txt')}`, { 'PRIVATE-TOKEN': reporter.token });
      assert.deepEqual([r.status, r.bytes.toString()], [200, 'unicode\n']);
      assert.equal(Buffer.from(r.headers.get('content-disposition')!, 'latin1').toString('utf8'), 'attachment; filename="naïve 日本.txt"');
      const empty = await bytesOf(f, `${base()}/jobs/artifacts/feature%2Fx/raw/intl/empty.txt?job=build+job`, { 'PRIVATE-TOKEN': reporter.token });
      assert.deepEqual([empty.status, empty.bytes.length, empty.headers.get('content-type'), empty.headers.get('content-length')], [200, 0, 'text/plain; charset=utf-8', '0']);
    });

    it('search_recent_successful_pipelines looks at 100 pipelines, no more', async () => {
      const zip = await buildZip([{ path: 'deep.txt', content: 'found\n' }]);
      const { pipelineId } = await runPipeline(f, maintainer.token, runner.token, project.id, 'feature/x', zip);
      const db = f.forge.deps.db;
      const { id: _id, ...template } = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirstOrThrow();
      // newer successful pipelines of the ref without the job (written directly: only their number matters)
      const addNewer = async (n: number) => {
        for (let i = 0; i < n; i++) {
          clock.advance(1000);
          const now = clock.now().toISOString();
          await db.insertInto('ci_pipelines').values({ ...template, iid: await nextIid(db, 'ci_pipelines', `project:${project.id}`), created_at: now, updated_at: now }).execute();
        }
      };
      const url = `${base()}/jobs/artifacts/feature%2Fx/raw/deep.txt?job=build+job&search_recent_successful_pipelines=true`;
      await addNewer(99);
      const hundredth = await f.api('GET', url, { token: reporter.token });
      assert.deepEqual([hundredth.status, hundredth.text], [200, 'found\n']);
      await addNewer(1);
      const beyond = await f.api('GET', url, { token: reporter.token });
      assert.deepEqual([beyond.status, beyond.body], [404, { message: '404 Job Not Found' }]);
    });

    it('a job without an archive: 404 for the archive, the tree and files', async () => {
      const { jobId } = await runPipeline(f, maintainer.token, runner.token, project.id, 'main', null);
      const cases: [string, unknown][] = [
        [`/jobs/${jobId}/artifacts`, { message: '404 Not Found' }],
        [`/jobs/${jobId}/artifacts/tree`, { message: '404 Artifacts Not Found' }],
        [`/jobs/${jobId}/artifacts/top.txt`, { message: '404 Not Found' }],
      ];
      for (const [path, body] of cases) {
        const r = await f.api('GET', `${base()}${path}`, { token: reporter.token });
        assert.deepEqual([r.status, r.body], [404, body], path);
      }
    });
  });
}
