/**
 * `forgelet runner` building blocks: artifact path safety and globs, zip writing and safe
 * extraction, log masking, the shell script.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPromise } from 'yauzl';
import { ZipFile } from 'yazl';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { collectArtifacts, globToRegExp, relativePattern } from '../../packages/cli/src/runner/paths.js';
import { extractZip, writeZip } from '../../packages/cli/src/runner/archive.js';
import { JobTrace, Masker, crc32 } from '../../packages/cli/src/runner/trace.js';
import { buildScript, detectShell, runScript } from '../../packages/cli/src/runner/shell.js';
import { expand } from '../../packages/cli/src/runner/variables.js';
import { traceLength } from '@forgelet/client';

const base = mkdtempSync(join(tmpdir(), 'forgelet-runner-unit-'));
const root = join(base, 'project');
const outside = join(base, 'outside');

function write(rel: string, content: string, mode = 0o644): void {
  const file = join(root, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

async function zipEntries(file: string): Promise<Map<string, { mode: number; content: string }>> {
  const zip = await openPromise(file, {});
  const out = new Map<string, { mode: number; content: string }>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out.set(entry.fileName, { mode: (entry.externalFileAttributes >>> 16) & 0xffff, content: Buffer.concat(chunks).toString() });
  }
  return out;
}

describe('runner: artifact paths', () => {
  before(() => {
    mkdirSync(root, { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    write('build/app.bin', 'binary', 0o755);
    write('build/lib/util.o', 'object');
    write('build/lib/util.c', 'source');
    write('build/.hidden', 'dot');
    write('report.txt', 'report');
    write('notes.log', 'log');
    write('docs/a.txt', 'a');
    write('docs/deep/b.txt', 'b');
    mkdirSync(join(root, 'empty'));
    symlinkSync(outside, join(root, 'escape')); // a directory link leading outside
    symlinkSync('report.txt', join(root, 'report-link'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('refuses patterns that leave the project directory', () => {
    for (const p of ['../x', '../../etc/passwd', 'a/../../x', '/etc/passwd', `${outside}/secret.txt`, '..']) {
      assert.throws(() => relativePattern(root, p), /artifact path is not a subpath of project directory/, p);
    }
    assert.equal(relativePattern(root, './build/'), 'build');
    assert.equal(relativePattern(root, `${root}/build/app.bin`), 'build/app.bin');
    assert.equal(relativePattern(root, 'a/../b'), 'b');
    assert.equal(relativePattern(root, '.'), '');
    assert.equal(relativePattern(root, '..foo'), '..foo');
  });

  it('globs: * stays in one segment, ** spans any number of directories', () => {
    const m = (pattern: string, path: string) => globToRegExp(pattern).test(path);
    assert.equal(m('*.txt', 'report.txt'), true);
    assert.equal(m('*.txt', 'docs/a.txt'), false);
    assert.equal(m('**/*.txt', 'report.txt'), true);
    assert.equal(m('**/*.txt', 'docs/deep/b.txt'), true);
    assert.equal(m('docs/**/b.txt', 'docs/b.txt'), true);
    assert.equal(m('docs/**/b.txt', 'docs/deep/b.txt'), true);
    assert.equal(m('docs/**/b.txt', 'docsx/b.txt'), false);
    assert.equal(m('docs/**', 'docs/deep/b.txt'), true);
    assert.equal(m('docs/**', 'other/b.txt'), false);
    assert.equal(m('file?.txt', 'file1.txt'), true);
    assert.equal(m('file?.txt', 'file12.txt'), false);
    assert.equal(m('[ab].c', 'a.c'), true);
    assert.equal(m('[!ab].c', 'a.c'), false);
    assert.equal(m('*.{log,txt}', 'notes.log'), true);
    assert.equal(m('*.{log,txt}', 'notes.md'), false);
    assert.equal(m('a.b', 'axb'), false);
  });

  it('collects files, directories recursively, globs and excludes', async () => {
    const r = await collectArtifacts(root, { paths: ['build/', '*.txt', 'docs/**/b.txt'], exclude: ['build/**/*.o'] });
    assert.deepEqual(
      r.entries.map((e) => `${e.kind}:${e.rel}`),
      ['dir:build', 'file:build/.hidden', 'file:build/app.bin', 'dir:build/lib', 'file:build/lib/util.c', 'file:report.txt', 'file:docs/deep/b.txt'],
    );
    assert.deepEqual(r.messages, [
      'build/: found 6 matching artifact files and directories',
      '*.txt: found 1 matching artifact files and directories',
      'docs/**/b.txt: found 1 matching artifact files and directories',
      'build/**/*.o: excluded 1 matching artifact files and directories',
    ]);
  });

  it('warns for no matches and escaping paths, and never reads through a link leading outside', async () => {
    const r = await collectArtifacts(root, { paths: ['missing/', '../outside/secret.txt', 'escape/secret.txt', 'escape/*', '**/secret.txt', 'report-link', 'escape'] });
    assert.deepEqual(
      r.entries.map((e) => `${e.kind}:${e.rel}${e.target ? `->${e.target}` : ''}`),
      ['symlink:report-link->report.txt', `symlink:escape->${outside}`],
    );
    assert.equal(r.messages.length, 7);
    assert.match(r.messages[0]!, /^WARNING: missing\/: no matching files\. Ensure that the artifact path is relative to the working directory/);
    assert.match(r.messages[1]!, /^WARNING: \.\.\/outside\/secret\.txt: artifact path is not a subpath of project directory/);
    assert.match(r.messages[2]!, /^WARNING: escape\/secret\.txt: artifact path is not a subpath of project directory/);
    assert.match(r.messages[3]!, /^WARNING: escape\/\*: no matching files/);
    assert.match(r.messages[4]!, /^WARNING: \*\*\/secret\.txt: no matching files/);
  });

  it('untracked: files not fetched from the repository', async () => {
    const tracked = new Set(['build/app.bin', 'build/lib/util.o', 'build/lib/util.c', 'build/.hidden', 'docs/a.txt', 'docs/deep/b.txt', 'notes.log']);
    const r = await collectArtifacts(root, { untracked: true, tracked });
    assert.deepEqual(r.entries.map((e) => e.rel), ['escape', 'report-link', 'report.txt']);
  });

  it('writes a zip with modes, directories and links, and extracts it safely', async () => {
    const r = await collectArtifacts(root, { paths: ['build', 'empty', 'report-link', 'report.txt'] });
    const file = join(base, 'artifacts.zip');
    const size = await writeZip(r.entries, file);
    assert.equal(size, statSync(file).size);
    const entries = await zipEntries(file);
    assert.deepEqual([...entries.keys()], ['build/', 'build/.hidden', 'build/app.bin', 'build/lib/', 'build/lib/util.c', 'build/lib/util.o', 'empty/', 'report-link', 'report.txt']);
    assert.equal(entries.get('build/app.bin')!.content, 'binary');
    assert.equal(entries.get('build/app.bin')!.mode, 0o100755);
    assert.equal(entries.get('report.txt')!.mode, 0o100644);
    assert.equal(entries.get('build/')!.mode & 0o170000, 0o040000);
    assert.equal(entries.get('report-link')!.mode & 0o170000, 0o120000);
    assert.equal(entries.get('report-link')!.content, 'report.txt');

    const dest = join(base, 'extracted');
    mkdirSync(dest);
    const result = await extractZip(file, dest);
    assert.deepEqual(result, { files: 6, skipped: [] });
    assert.equal(readFileSync(join(dest, 'build/lib/util.c'), 'utf8'), 'source');
    assert.equal(statSync(join(dest, 'build/app.bin')).mode & 0o777, 0o755);
    assert.equal(readlinkSync(join(dest, 'report-link')), 'report.txt');
    assert.equal(lstatSync(join(dest, 'empty')).isDirectory(), true);
  });

  it('extraction refuses archives with escaping names and skips entries going through a link', async () => {
    // yazl refuses `..` names: write `xx/…` and patch the bytes (same length) afterwards
    const evil = new ZipFile();
    evil.addBuffer(Buffer.from('evil'), 'xx/evil.txt');
    evil.end();
    const raw = join(base, 'evil.zip');
    await pipeline(evil.outputStream, createWriteStream(raw));
    writeFileSync(raw, Buffer.from(readFileSync(raw).toString('latin1').split('xx/evil.txt').join('../evil.txt'), 'latin1'));
    const evilDest = join(base, 'evil-dest');
    mkdirSync(evilDest);
    await assert.rejects(extractZip(raw, evilDest), /invalid relative path: \.\.\/evil\.txt/);
    assert.equal(existsSync(join(base, 'evil.txt')), false);

    const zip = new ZipFile();
    zip.addBuffer(Buffer.from(outside), 'lnk', { mode: 0o120777 });
    zip.addBuffer(Buffer.from('through'), 'lnk/planted.txt');
    zip.addBuffer(Buffer.from('fine'), 'ok.txt');
    zip.end();
    const linked = join(base, 'linked.zip');
    await pipeline(zip.outputStream, createWriteStream(linked));
    const dest = join(base, 'linked-dest');
    mkdirSync(dest);
    const result = await extractZip(linked, dest);
    assert.deepEqual(result, { files: 2, skipped: ['lnk/planted.txt'] });
    assert.equal(readlinkSync(join(dest, 'lnk')), outside);
    assert.equal(existsSync(join(outside, 'planted.txt')), false);
    assert.equal(readFileSync(join(dest, 'ok.txt'), 'utf8'), 'fine');
  });
});

describe('runner: log and script', () => {
  it('masks values split across chunks', () => {
    const m = new Masker(['s3cr3t-value', 'short-one']);
    const out = m.push('abc s3cr') + m.push('3t-val') + m.push('ue def short-one!') + m.flush();
    assert.equal(out, 'abc [MASKED] def [MASKED]!');
    const trace = new JobTrace(['hunter2-password']);
    trace.output('stdout', Buffer.from('pw=hunter2-pass'));
    trace.output('stdout', Buffer.from('word done\n'));
    trace.settle();
    assert.equal(trace.bytes().toString(), 'pw=[MASKED] done\n');
  });

  it('decodes UTF-8 split across chunks and stops collecting at the limit', () => {
    const trace = new JobTrace([], 16);
    const e = Buffer.from('é');
    trace.output('stdout', e.subarray(0, 1));
    trace.output('stdout', e.subarray(1));
    trace.output('stdout', Buffer.from('0123456789abcdefghij'));
    trace.output('stdout', Buffer.from('DROPPED'));
    trace.settle();
    const text = trace.bytes().toString();
    assert.ok(text.startsWith('é0123456789abcd\n'), text);
    assert.match(text, /Job's log exceeded limit of 16 bytes\./);
    assert.doesNotMatch(text, /DROPPED/);
  });

  it('crc32 matches the IEEE check value', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  });

  it('parses Range headers (the trace length of a PATCH answer)', () => {
    assert.equal(traceLength('0-42'), 42);
    assert.equal(traceLength('bytes=0-7'), 7);
    assert.equal(traceLength('bytes 0-7'), 7);
    assert.equal(traceLength(' 13 '), 13);
    assert.equal(traceLength(undefined), null);
    assert.equal(traceLength(null), null);
    assert.equal(traceLength('junk'), null);
  });

  it('expands $VAR, ${VAR} and $$', () => {
    const vars: Record<string, string> = { A: 'one', B_2: 'two' };
    assert.equal(expand('$A/${B_2}/$MISSING/$$A', (k) => vars[k]), 'one/two//$A');
  });

  it('runs lines in one shell, echoing each, stopping at the first failure', async () => {
    const shell = await detectShell();
    assert.match(buildScript(["echo 'hi'"], 'bash'), /printf '\\033\[32;1m%s\\033\[0;m\\n' '\$ echo '\\''hi'\\'''\necho 'hi'\n$/);
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-runner-sh-'));
    try {
      let out = '';
      const result = await runScript({
        shell,
        lines: ['cd sub 2>/dev/null || mkdir sub && cd sub', 'export GREETING="hello $NAME"', 'echo "$GREETING in $(basename "$PWD")"', 'echo oops >&2', 'if true; then\n  echo multi\nfi', 'exit 3', 'echo never'],
        scriptFile: join(dir, 'script.sh'),
        cwd: dir,
        env: { ...process.env, NAME: 'ci' },
        timeoutMs: 10_000,
        onOutput: (_s, chunk) => (out += chunk.toString()),
      });
      assert.deepEqual(result, { exitCode: 3, signal: null, timedOut: false, canceled: false });
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      assert.equal(
        plain,
        [
          '$ cd sub 2>/dev/null || mkdir sub && cd sub',
          '$ export GREETING="hello $NAME"',
          '$ echo "$GREETING in $(basename "$PWD")"',
          'hello ci in sub',
          '$ echo oops >&2',
          'oops',
          '$ if true; then # collapsed multi-line command',
          'multi',
          '$ exit 3',
          '',
        ].join('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kills the whole process group on timeout and on cancel', async () => {
    const shell = await detectShell();
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-runner-sh-'));
    try {
      const started = Date.now();
      const timed = await runScript({
        shell, lines: ['sleep 30 & sleep 30'], scriptFile: join(dir, 'a.sh'), cwd: dir, env: process.env, timeoutMs: 300, onOutput: () => undefined, killGraceMs: 500,
      });
      assert.equal(timed.timedOut, true);
      assert.equal(timed.exitCode, null);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const canceled = await runScript({
        shell, lines: ['echo started', 'sleep 30'], scriptFile: join(dir, 'b.sh'), cwd: dir, env: process.env, timeoutMs: 10_000, onOutput: () => undefined, signal: controller.signal,
      });
      assert.equal(canceled.canceled, true);
      assert.ok(Date.now() - started < 5000, 'both scripts were killed promptly');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
