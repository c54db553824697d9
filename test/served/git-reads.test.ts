/**
 * Every repository read answers from git, through the built `forgelet serve`: commits written
 * by the API and by `git push`, then files, raw, blobs and tree at an older sha; commits with
 * path/since/until/with_stats; compare and commit diffs checked against `git diff` on a clone;
 * blame; archives unpacked and compared with a checkout; merge base against `git merge-base`;
 * contributors; and bad input (option-like refs, unknown shas, bad formats) as 4xx.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitOk } from '../support/git-client.js';

const run = promisify(execFile);

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

/** `git diff` per file, the header dropped up to the first hunk: what GitLab's `diff` field holds. */
function bodiesOf(patch: string): string[] {
  return patch
    .split(/^diff --git .*\n/m)
    .slice(1)
    .map((part) => {
      const at = part.search(/^(@@|Binary files )/m);
      return at === -1 ? '' : part.slice(at);
    });
}

const dateEnv = (iso: string) => ({ GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso });

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository reads come from git`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    let src: string;
    let url: string;
    /** API commit (c1), pushed commits (c2 on 2024-01-10, c3 on 2024-02-10 by another author), a side branch (s1). */
    const sha: Record<string, string> = {};

    before(async () => {
      f = await startServed(dialect);
      work = await mkdtemp(join(tmpdir(), 'forgelet-git-reads-'));
      project = ok(await f.api('POST', '/projects', { body: { name: 'reads' } }), 201);
      const c1 = ok(
        await f.api('POST', `/projects/${project.id}/repository/commits`, {
          body: {
            branch: 'main',
            commit_message: 'First via the API',
            actions: [
              { action: 'create', file_path: 'README.md', content: 'one\ntwo\nthree\n' },
              { action: 'create', file_path: 'src/app.js', content: 'console.log(1);\n' },
              { action: 'create', file_path: 'bin/run.sh', content: '#!/bin/sh\necho run\n', execute_filemode: true },
            ],
          },
        }),
        201,
      );
      sha.c1 = c1.id;
      url = `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`;
      src = join(work, 'src');
      await gitOk(work, ['clone', '-q', url, src]);
      await writeFile(join(src, 'README.md'), 'one\n2\nthree\nfour\n');
      await writeFile(join(src, 'notes.txt'), 'pushed notes\n');
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', 'Second, pushed'], dateEnv('2024-01-10T12:00:00Z'));
      await gitOk(src, ['rm', '-q', 'src/app.js']);
      await writeFile(join(src, 'README.md'), 'one\n2\nthree\nfour\nfive\n');
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['-c', 'user.name=Other Author', '-c', 'user.email=other@example.com', 'commit', '-q', '-m', 'Third, pushed'], dateEnv('2024-02-10T12:00:00Z'));
      await gitOk(src, ['push', '-q', url, 'main']);
      sha.c2 = (await gitOk(src, ['rev-parse', 'HEAD~1'])).trim();
      sha.c3 = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      await gitOk(src, ['checkout', '-q', '-b', 'side', sha.c2]);
      await writeFile(join(src, 'side.txt'), 'side\n');
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', 'Side work'], dateEnv('2024-03-01T12:00:00Z'));
      sha.s1 = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      await gitOk(src, ['push', '-q', url, 'side']);
      await gitOk(src, ['checkout', '-q', 'main']);
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    const base = () => `/projects/${project.id}/repository`;

    it('files, raw, blobs and tree at an older sha', async () => {
      const file = ok(await f.api('GET', `${base()}/files/README.md?ref=${sha.c1}`));
      assert.equal(Buffer.from(file.content, 'base64').toString(), 'one\ntwo\nthree\n');
      const blobId = (await gitOk(src, ['rev-parse', `${sha.c1}:README.md`])).trim();
      assert.deepEqual(
        [file.blob_id, file.commit_id, file.last_commit_id, file.size, file.encoding, file.ref, file.execute_filemode],
        [blobId, sha.c1, sha.c1, 14, 'base64', sha.c1, false],
      );
      assert.equal(file.content_sha256, createHash('sha256').update('one\ntwo\nthree\n').digest('hex'));
      // At the branch head, the last commit that touched the file; HEAD sends the same metadata as headers.
      const head = ok(await f.api('GET', `${base()}/files/src%2Fapp.js?ref=${sha.c2}`));
      assert.equal(head.last_commit_id, sha.c1);
      assert.equal(head.commit_id, sha.c2);
      const headers = await f.api('HEAD', `${base()}/files/README.md?ref=${sha.c2}`);
      assert.equal(headers.status, 200);
      assert.equal(headers.headers.get('x-gitlab-last-commit-id'), sha.c2);
      assert.equal(headers.headers.get('x-gitlab-content-sha256'), ok(await f.api('GET', `${base()}/files/README.md?ref=${sha.c2}`)).content_sha256);
      const script = ok(await f.api('GET', `${base()}/files/bin%2Frun.sh?ref=main`));
      assert.equal(script.execute_filemode, true);

      const raw = await f.api('GET', `${base()}/files/README.md/raw?ref=${sha.c1}`);
      assert.equal(raw.status, 200);
      assert.equal(raw.text, 'one\ntwo\nthree\n');
      assert.equal(raw.headers.get('x-gitlab-blob-id'), blobId);
      assert.equal(raw.headers.get('content-length'), '14');
      // Deleted later: still readable at the sha that had it; 404 File at main.
      assert.equal((await f.api('GET', `${base()}/files/src%2Fapp.js/raw?ref=${sha.c1}`)).text, 'console.log(1);\n');
      assert.deepEqual(ok(await f.api('GET', `${base()}/files/src%2Fapp.js?ref=main`), 404), { message: '404 File Not Found' });

      const blob = ok(await f.api('GET', `${base()}/blobs/${blobId}`));
      assert.deepEqual(blob, { size: 14, encoding: 'base64', content: Buffer.from('one\ntwo\nthree\n').toString('base64'), sha: blobId });
      assert.equal((await f.api('GET', `${base()}/blobs/${blobId}/raw`)).text, 'one\ntwo\nthree\n');
      assert.deepEqual(ok(await f.api('GET', `${base()}/blobs/${sha.c1}`), 404), { message: '404 Blob Not Found' }, 'a commit id is not a blob');

      const tree = ok(await f.api('GET', `${base()}/tree?ref=${sha.c1}`));
      const lsTree = (await gitOk(src, ['ls-tree', sha.c1]))
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/));
      assert.deepEqual(
        tree.map((e: any) => [e.mode, e.type, e.id, e.path]),
        [...lsTree.filter((e) => e[1] === 'tree'), ...lsTree.filter((e) => e[1] !== 'tree')],
      );
      const recursive = ok(await f.api('GET', `${base()}/tree?ref=${sha.c1}&recursive=true`));
      assert.deepEqual(recursive.map((e: any) => e.path), ['bin', 'src', 'README.md', 'bin/run.sh', 'src/app.js']);
      const sub = await f.api('GET', `${base()}/tree?ref=${sha.c3}&path=bin&per_page=20`);
      assert.deepEqual(sub.body.map((e: any) => [e.name, e.path, e.mode]), [['run.sh', 'bin/run.sh', '100755']]);
      assert.equal(sub.headers.get('x-total'), '1');
      // Keyset pages: a full page links to the next with the last entry's id.
      const first = await f.api('GET', `${base()}/tree?ref=${sha.c1}&recursive=true&pagination=keyset&per_page=2`);
      assert.deepEqual(first.body.map((e: any) => e.path), ['bin', 'src']);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
      assert.match(next, new RegExp(`page_token=${first.body[1].id}`));
      assert.deepEqual((await f.api('GET', next)).body.map((e: any) => e.path), ['README.md', 'bin/run.sh']);
      assert.deepEqual(ok(await f.api('GET', `${base()}/tree?ref=${sha.c1}&path=nope`), 404), { message: '404 invalid revision or path Not Found' });
    });

    it('commits with path, since, until, with_stats, all, and a commit with stats and refs', async () => {
      const list = ok(await f.api('GET', `${base()}/commits?ref_name=main`));
      assert.deepEqual(list.map((c: any) => c.id), [sha.c3, sha.c2, sha.c1]);
      const paged = await f.api('GET', `${base()}/commits?ref_name=main&per_page=1&page=2`);
      assert.deepEqual(paged.body.map((c: any) => c.id), [sha.c2]);
      assert.equal(paged.headers.get('x-next-page'), '3');
      assert.deepEqual(ok(await f.api('GET', `${base()}/commits?ref_name=main&path=src%2Fapp.js`)).map((c: any) => c.id), [sha.c3, sha.c1]);
      assert.deepEqual(ok(await f.api('GET', `${base()}/commits?ref_name=main&since=2024-01-01T00:00:00Z&until=2024-01-31T00:00:00Z`)).map((c: any) => c.id), [sha.c2]);
      assert.deepEqual(ok(await f.api('GET', `${base()}/commits?all=true&until=2024-12-31T00:00:00Z`)).map((c: any) => c.id), [sha.s1, sha.c3, sha.c2]);
      const stats = ok(await f.api('GET', `${base()}/commits?ref_name=${sha.c3}&with_stats=true&per_page=1`));
      const numstat = (await gitOk(src, ['diff', '--numstat', sha.c2, sha.c3])).trim().split('\n').map((l) => l.split('\t').map(Number));
      const additions = numstat.reduce((n, [a]) => n + a!, 0);
      const deletions = numstat.reduce((n, [, d]) => n + d!, 0);
      assert.deepEqual(stats[0].stats, { additions, deletions, total: additions + deletions });
      const one = ok(await f.api('GET', `${base()}/commits/${sha.c3}`));
      assert.deepEqual([one.id, one.author_name, one.author_email, one.parent_ids, one.stats], [sha.c3, 'Other Author', 'other@example.com', [sha.c2], { additions, deletions, total: additions + deletions }]);
      assert.deepEqual(ok(await f.api('GET', `${base()}/commits/${sha.c2}/refs`)), [
        { type: 'branch', name: 'main' },
        { type: 'branch', name: 'side' },
      ]);
      assert.deepEqual(ok(await f.api('GET', `${base()}/commits/${sha.c3}/refs?type=tag`)), []);
    });

    it('commit diffs and compare match git diff on a clone', async () => {
      const diff = await f.api('GET', `${base()}/commits/${sha.c3}/diff`);
      assert.equal(diff.status, 200, diff.text);
      assert.deepEqual(diff.body.map((d: any) => d.diff), bodiesOf(await gitOk(src, ['diff', sha.c2, sha.c3])));
      assert.deepEqual(diff.body.map((d: any) => [d.old_path, d.deleted_file, d.b_mode]).sort(), [['README.md', false, '100644'], ['src/app.js', true, '0']]);
      assert.equal(diff.headers.get('x-total'), '2');
      const paged = ok(await f.api('GET', `${base()}/commits/${sha.c3}/diff?per_page=1&page=2&unidiff=true`));
      assert.equal(paged.length, 1);
      assert.match(paged[0].diff, /^--- a\/\S+\n\+\+\+ (b\/\S+|\/dev\/null)\n@@/);

      const cmp = ok(await f.api('GET', `${base()}/compare?from=${sha.c1}&to=${sha.c3}`));
      assert.deepEqual(cmp.commits.map((c: any) => c.id), [sha.c2, sha.c3], 'oldest first');
      assert.equal(cmp.commit.id, sha.c3);
      assert.deepEqual(cmp.diffs.map((d: any) => d.diff), bodiesOf(await gitOk(src, ['diff', sha.c1, sha.c3])));
      assert.deepEqual([cmp.compare_timeout, cmp.compare_same_ref], [false, false]);
      assert.match(cmp.web_url, new RegExp(`/${project.path_with_namespace}/-/compare/${sha.c1}\\.\\.\\.${sha.c3}$`));
      // Branch names; not straight: from the merge base (main...side is only side's change).
      const threeDot = ok(await f.api('GET', `${base()}/compare?from=main&to=side`));
      assert.deepEqual(threeDot.diffs.map((d: any) => d.diff), bodiesOf(await gitOk(src, ['diff', 'main...side'])));
      assert.deepEqual(threeDot.commits.map((c: any) => c.id), [sha.s1]);
      const straight = ok(await f.api('GET', `${base()}/compare?from=main&to=side&straight=true`));
      assert.deepEqual(straight.diffs.map((d: any) => d.diff), bodiesOf(await gitOk(src, ['diff', 'main', 'side'])));
      const same = ok(await f.api('GET', `${base()}/compare?from=main&to=${sha.c3}`));
      assert.deepEqual([same.compare_same_ref, same.commits, same.diffs, same.commit], [true, [], [], null]);
    });

    it('blame, merge base, contributors', async () => {
      const blame = ok(await f.api('GET', `${base()}/files/README.md/blame?ref=main`));
      assert.deepEqual(
        blame.map((g: any) => [g.commit.id, g.lines]),
        [
          [sha.c1, ['one']],
          [sha.c2, ['2']],
          [sha.c1, ['three']],
          [sha.c2, ['four']],
          [sha.c3, ['five']],
        ],
      );
      const ranged = ok(await f.api('GET', `${base()}/files/README.md/blame?ref=main&range[start]=2&range[end]=3`));
      assert.deepEqual(ranged.map((g: any) => g.lines), [['2'], ['three']]);

      const mb = ok(await f.api('GET', `${base()}/merge_base?refs[]=main&refs[]=side`));
      assert.equal(mb.id, (await gitOk(src, ['merge-base', 'main', 'side'])).trim());
      assert.equal(mb.id, sha.c2);
      assert.deepEqual(ok(await f.api('GET', `${base()}/merge_base?refs[]=main`), 400), { message: 'Provide at least 2 refs' });
      assert.deepEqual(ok(await f.api('GET', `${base()}/merge_base?refs[]=main&refs[]=nope&refs[]=--all`), 400), { message: 'Could not find refs: nope, --all' });

      const contributors = ok(await f.api('GET', `${base()}/contributors?ref=side&order_by=commits&sort=desc`));
      const shortlog = (await gitOk(src, ['shortlog', '-sne', 'side']))
        .trim()
        .split('\n')
        .map((l) => /^\s*(\d+)\t.* <(.*)>$/.exec(l)!)
        .map((m) => [m[2], Number(m[1]), 0, 0]);
      assert.equal(shortlog[0]![0], 'tester@example.com');
      assert.deepEqual(contributors.map((c: any) => [c.email, c.commits, c.additions, c.deletions]), shortlog);
      const byName = ok(await f.api('GET', `${base()}/contributors?order_by=name`));
      assert.deepEqual(byName.map((c: any) => c.name), [...byName.map((c: any) => c.name)].sort());
    });

    it('archives (tar.gz, zip, tar.bz2, a path) hold what a checkout holds', async () => {
      const checkout = join(work, 'checkout');
      await gitOk(src, ['worktree', 'add', '-q', '--detach', checkout, sha.c2]);
      for (const format of ['tar.gz', 'zip', 'tar.bz2']) {
        const res = await fetch(`${f.url}/api/v4${base()}/archive.${format}?sha=${sha.c2}`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
        assert.equal(res.status, 200, format);
        const prefix = `${project.path}-${sha.c2}-${sha.c2}`;
        assert.equal(res.headers.get('content-disposition'), `attachment; filename="${prefix}.${format}"`);
        const file = join(work, `a.${format}`);
        await writeFile(file, Buffer.from(await res.arrayBuffer()));
        const out = join(work, `out-${format}`);
        await mkdir(out);
        if (format === 'zip') await run('unzip', ['-q', file, '-d', out]);
        else await run('tar', [format === 'tar.gz' ? '-xzf' : '-xjf', file, '-C', out]);
        await run('diff', ['-r', '-x', '.git', checkout, join(out, prefix)]);
        assert.equal((await stat(join(out, prefix, 'bin/run.sh'))).mode & 0o100, 0o100, `${format}: run.sh stays executable`);
      }
      // A branch name with the default format, limited to a path.
      const res = await fetch(`${f.url}/api/v4${base()}/archive?sha=main&path=bin`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
      assert.equal(res.status, 200);
      const prefix = `${project.path}-main-${sha.c3}-bin`;
      assert.equal(res.headers.get('content-disposition'), `attachment; filename="${prefix}.tar.gz"`);
      await writeFile(join(work, 'bin.tar.gz'), Buffer.from(await res.arrayBuffer()));
      const listing = (await run('tar', ['-tzf', join(work, 'bin.tar.gz')])).stdout.trim().split('\n');
      assert.deepEqual(listing.filter((l) => !l.endsWith('/')), [`${prefix}/bin/run.sh`]);
      assert.equal(await readFile(join(checkout, 'bin/run.sh'), 'utf8'), '#!/bin/sh\necho run\n');
    });

    it('bad input: option-like refs, unknown shas, bad formats are 4xx, never 500', async () => {
      const cases: Array<[string, number, unknown]> = [
        [`/files/README.md?ref=--output=%2Ftmp%2Fx`, 400, { error: 'ref is invalid' }],
        [`/files/README.md?ref=${'0'.repeat(40)}`, 404, { message: '404 Commit Not Found' }],
        [`/files/README.md/raw?ref=-h`, 400, { error: 'ref is invalid' }],
        [`/tree?ref=--all`, 400, { error: 'ref is invalid' }],
        [`/tree?ref=nope`, 404, { message: '404 Tree Not Found' }],
        [`/tree?pagination=none`, 400, { error: 'pagination cannot be "none" unless "recursive" is true' }],
        [`/commits/--stat`, 400, { error: 'sha is invalid' }],
        [`/commits/${'1'.repeat(40)}`, 404, { message: '404 Commit Not Found' }],
        [`/commits/deadbeef/diff`, 404, { message: '404 Commit Not Found' }],
        [`/commits/main..side/refs`, 400, { error: 'sha is invalid' }],
        [`/commits?ref_name=--all`, 400, { error: 'ref_name is invalid' }],
        [`/compare?from=--output=x&to=main`, 404, { message: '404 Ref Not Found' }],
        [`/compare?from=main&to=nope`, 404, { message: '404 Ref Not Found' }],
        [`/compare?from=main&to=side&from_project_id=999`, 400, { message: 'Target project id:999 is not a fork of project id:' + project.id }],
        [`/files/README.md/blame?ref=main&range[start]=3&range[end]=1`, 400, { message: '400 Bad request - range[start] must be less than or equal to range[end]' }],
        [`/files/README.md/blame?ref=main&range[start]=1`, 400, { error: 'range[end] is missing' }],
        [`/files/nope.txt/blame?ref=main`, 404, { message: '404 File Not Found' }],
        [`/blobs/--batch`, 404, { message: '404 Blob Not Found' }],
        [`/archive.rar`, 400, { error: 'format does not have a valid value' }],
        [`/archive?sha=-o`, 400, { error: 'sha is invalid' }],
        [`/archive?sha=nope`, 404, { message: '404 File Not Found' }],
        [`/contributors?ref=nope`, 404, { message: '404 Not Found' }],
      ];
      for (const [path, status, body] of cases) {
        const res = await f.api('GET', `${base()}${path}`);
        assert.equal(res.status, status, `${path}: ${res.text}`);
        assert.deepEqual(res.body, body, path);
      }
    });
  });
}
