/**
 * Branch and tag lists answer from the index, which follows git's refs. A push whose
 * post-receive indexing fails (here: the database refuses the ref row, as a failing database
 * would) leaves git ahead of the index: the pusher is told, and a queued reconcile (GitLab's
 * retried PostReceive) brings the index to git's refs once the database takes them, running
 * the push's reactions then. Lists then agree with `git ls-remote`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '@forgelet/core';
import { DIALECTS, type Dialect } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

/** Makes the database refuse index rows of refs named `poison-*` (through its own connection). */
async function poisonRefs(dialect: Dialect, url: string): Promise<() => Promise<void>> {
  const handle = openDatabase(url);
  const db = handle.db;
  if (dialect === 'sqlite') {
    await sql.raw(`create trigger forgelet_test_poison before insert on repository_refs when new.name like 'poison-%' begin select raise(abort, 'poisoned ref'); end`).execute(db);
  } else {
    await sql.raw(`create function forgelet_test_poison() returns trigger language plpgsql as $$ begin if new.name like 'poison-%' then raise exception 'poisoned ref'; end if; return new; end $$`).execute(db);
    await sql.raw('create trigger forgelet_test_poison before insert on repository_refs for each row execute function forgelet_test_poison()').execute(db);
  }
  return async () => {
    if (dialect === 'sqlite') await sql.raw('drop trigger forgelet_test_poison').execute(db);
    else {
      await sql.raw('drop trigger forgelet_test_poison on repository_refs').execute(db);
      await sql.raw('drop function forgelet_test_poison()').execute(db);
    }
    await handle.destroy();
  };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: branch and tag lists agree with git's refs`, () => {
    let f: ServedForgelet;
    let work: string;
    before(async () => {
      f = await startServed(dialect);
      work = await mkdtemp(join(tmpdir(), 'forgelet-refs-'));
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('a push the index could not take is reconciled from git by the queue', async () => {
      const project = ok(await f.api('POST', '/projects', { body: { name: 'refs', path: 'refs' } }), 201);
      const url = `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`;
      const repo = join(work, 'refs');
      await gitOk(work, ['init', '-q', repo]);
      await writeFile(join(repo, 'a.txt'), 'a\n');
      await gitOk(repo, ['add', '.']);
      await gitOk(repo, ['commit', '-q', '-m', 'A']);
      await gitOk(repo, ['push', '-q', url, 'main']);
      const names = async (kind: 'branches' | 'tags') => (ok(await f.api('GET', `/projects/${project.id}/repository/${kind}?per_page=100`)) as any[]).map((r) => `${r.name} ${r.commit.id}`).sort();
      const remote = async () => {
        const out = (await gitOk(work, ['ls-remote', url])).trim().split('\n').map((l) => l.split('\t'));
        const peeled = new Map(out.filter(([, r]) => r!.endsWith('^{}')).map(([sha, r]) => [r!.slice(0, -3), sha]));
        const pick = (prefix: string) => out.filter(([, r]) => r!.startsWith(prefix) && !r!.endsWith('^{}')).map(([sha, r]) => `${r!.slice(prefix.length)} ${peeled.get(r!) ?? sha}`).sort();
        return { branches: pick('refs/heads/'), tags: pick('refs/tags/') };
      };
      assert.deepEqual({ branches: await names('branches'), tags: await names('tags') }, await remote());

      const cure = await poisonRefs(dialect, f.databaseUrl);
      let cured = false;
      try {
        await writeFile(join(repo, 'b.txt'), 'b\n');
        await gitOk(repo, ['add', '.']);
        await gitOk(repo, ['commit', '-q', '-m', 'B']);
        await gitOk(repo, ['tag', '-a', '-m', 'Poisoned tag', 'poison-t1']);
        // main moves, two refs are new: the index takes none of it (one transaction).
        const pushed = await git(repo, ['push', url, 'main', 'HEAD:refs/heads/poison-b1', 'poison-t1']);
        assert.match(pushed.stderr, /poisoned ref/, 'the pusher is told');
        const gitRefs = await remote();
        assert.ok(gitRefs.branches.some((b) => b.startsWith('poison-b1 ')), 'git took the push');
        assert.notDeepEqual(await names('branches'), gitRefs.branches, 'the index is behind git');
        // While the database still refuses, the reconcile fails and waits for its retry.
        await f.runDue();
        assert.notDeepEqual(await names('branches'), gitRefs.branches);
        await cure();
        cured = true;
        await f.clock.advance(3600);
        assert.deepEqual({ branches: await names('branches'), tags: await names('tags') }, gitRefs);
        assert.equal(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit.title, 'B');
      } finally {
        if (!cured) await cure();
      }
    });
  });
}
