/**
 * Commit dates as git keeps them and GitLab shows them: whole seconds, in the commit's own UTC
 * offset, `2012-09-20T09:06:12.000+03:00` (a Ruby Time as JSON). A commit written through the
 * API at a clock with milliseconds has git's second in the index too, and every place a commit
 * is shown (commit list and single commit read from git; the create answer, branch, tag,
 * release and merge request commits read from the index; GraphQL) agrees with git.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

const dates = (c: any) => [c.created_at, c.authored_date, c.committed_date];

for (const dialect of DIALECTS) {
  describe(`${dialect}: commit dates have git's seconds and offsets everywhere`, () => {
    let f: ServedForgelet;
    let work: string;
    before(async () => {
      f = await startServed(dialect, { clock: { now: '2024-06-15T12:00:07.891Z' } });
      work = await mkdtemp(join(tmpdir(), 'forgelet-commit-dates-'));
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('a commit written through the API: `…:07.000+00:00` in the index, in git and in every answer', async () => {
      const client = new Forgelet({ url: f.url, token: f.rootToken });
      const project = ok(await f.api('POST', '/projects', { body: { name: 'dated', path: 'dated' } }), 201);
      const made = await client.commits.create(project.id, 'main', 'Dated', [{ action: 'create', file_path: 'a.txt', content: 'a' }]);
      const want = ['2024-06-15T12:00:07.000+00:00', '2024-06-15T12:00:07.000+00:00', '2024-06-15T12:00:07.000+00:00'];
      assert.deepEqual(dates(made), want);
      ok(await f.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v1' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'topic', ref: 'main' } }), 201);
      await client.commits.create(project.id, 'topic', 'Topic', [{ action: 'create', file_path: 'b.txt', content: 'b' }]);
      const mr = ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { title: 'T', source_branch: 'topic', target_branch: 'main' } }), 201);

      const shown = {
        list: (await client.commits.all(project.id, { ref_name: 'v1' }).toArray()).map(dates),
        single: dates(await client.commits.show(project.id, made.id)),
        branch: dates(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit),
        tag: dates(ok(await f.api('GET', `/projects/${project.id}/repository/tags/v1`)).commit),
        release: dates(ok(await f.api('GET', `/projects/${project.id}/releases/v1`)).commit),
        mr: ok(await f.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/commits`)).map(dates),
      };
      assert.deepEqual(shown, { list: [want], single: want, branch: want, tag: want, release: want, mr: [want] });
      // git has the same second (the index and git agree).
      const clone = join(work, 'dated');
      await gitOk(work, ['clone', '-q', `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`, clone]);
      assert.equal((await gitOk(clone, ['log', '-1', '--format=%aI %cI', made.id])).trim(), '2024-06-15T12:00:07+00:00 2024-06-15T12:00:07+00:00');
      const gql = ok(await f.api('POST', `${f.url}/api/graphql`, { body: { query: `{ project(fullPath: "${project.path_with_namespace}") { release(tagName: "v1") { commit { authoredDate committedDate } } } }` } }));
      assert.deepEqual(gql.data?.project?.release?.commit ?? gql, { authoredDate: '2024-06-15T12:00:07+00:00', committedDate: '2024-06-15T12:00:07+00:00' });
    });

    it('a pushed commit keeps its offsets: shown in them, the same from git and from the index', async () => {
      const project = ok(await f.api('POST', '/projects', { body: { name: 'zoned', path: 'zoned' } }), 201);
      const repo = join(work, 'zoned');
      await gitOk(work, ['init', '-q', repo]);
      await writeFile(join(repo, 'z.txt'), 'z\n');
      await gitOk(repo, ['add', '.']);
      await gitOk(repo, ['commit', '-q', '-m', 'Zoned'], { GIT_AUTHOR_DATE: '1700000000 +0200', GIT_COMMITTER_DATE: '1700003600 -0530' });
      await gitOk(repo, ['tag', 'z1']);
      await gitOk(repo, ['push', '-q', `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`, 'main', 'z1']);
      const sha = (await gitOk(repo, ['rev-parse', 'HEAD'])).trim();
      // 1700000000 = 2023-11-14T22:13:20Z; 1700003600 = 23:13:20Z.
      const want = ['2023-11-14T17:43:20.000-05:30', '2023-11-15T00:13:20.000+02:00', '2023-11-14T17:43:20.000-05:30'];
      const shown = {
        single: dates(ok(await f.api('GET', `/projects/${project.id}/repository/commits/${sha}`))),
        list: ok(await f.api('GET', `/projects/${project.id}/repository/commits`)).map(dates),
        branch: dates(ok(await f.api('GET', `/projects/${project.id}/repository/branches/main`)).commit),
        tag: dates(ok(await f.api('GET', `/projects/${project.id}/repository/tags/z1`)).commit),
      };
      assert.deepEqual(shown, { single: want, list: [want], branch: want, tag: want });
    });
  });
}
