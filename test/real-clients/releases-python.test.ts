/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): releases (issue 5's "Must show";
 * REAL-CLIENTS.md §2.9, §2.17). The flow lives in python_gitlab_releases.py, which prints one JSON
 * object with each step's results and the HTTP exchanges it made (request and response bodies);
 * the tests below assert on it. project.releases creates `release/1.0` with its tag from `ref`;
 * release.links adds three links, refuses a duplicate name, a duplicate url and a `javascript:`
 * url (GitlabCreateError 400), updates one (save()) and deletes one; the group list goes through
 * gl.http_list (python-gitlab has no group releases class). Protected branches (`release/*`) close
 * it.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_releases.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

const NOW = '2024-06-15T12:00:00.000Z';
const TAG = 'release/1.0';
const SIMPLE_KEYS = ['name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release'];
const FULL_KEYS = [...SIMPLE_KEYS, 'author', 'commit', 'commit_path', 'tag_path', 'assets', 'evidences', '_links'];
const SCHEMES = 'Url is blocked: Only allowed schemes are http, https, ftp';
/** released_at order of the five releases of the group (the script creates them in another order). */
const ASC = ['v0.5', 'v0.9', TAG, 'v2.0', 'v3.0-rc'];
const LINKS_PATH = (projectId: number) => `/projects/${projectId}/releases/release%2F1.0/assets/links`;

type Link = { id: number; name: string; url: string; direct_asset_url: string; external: boolean; link_type: string };

/** What error_of() reports for a refused create or update. */
function refusal(type: string, code: number, messages: string[]) {
  return { type, response_code: code, error_message: messages, str: `${code}: ${JSON.stringify(messages).replace(/"/g, "'")}` };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 releases`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let setup: PythonStep;
    let links: PythonStep;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: NOW } });
      const serverMs = Math.round(performance.now() - t0);
      const run = await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken });
      results = run.results;
      const steps = Object.entries(results)
        .filter(([, v]) => typeof v === 'object')
        .map(([k, v]) => `${k}=${v.ms}ms`)
        .join(' ');
      console.log(`[${dialect}] python-gitlab releases: server ${serverMs} ms; script ${run.ms} ms (${steps})`);
      setup = pythonStep(results, 'setup');
      links = pythonStep(results, 'add_links');
    });
    after(() => f?.stop());

    it('setup: python-gitlab 3.x creates a group, two subgroups and one project in each', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('setup');
      assert.equal(s.group.full_path, 'rel');
      assert.deepEqual(s.subgroups, ['rel/alpha', 'rel/beta']);
      assert.equal(s.app.path_with_namespace, 'rel/alpha/app');
      assert.equal(s.lib.path_with_namespace, 'rel/beta/lib');
      assert.match(s.main_sha, /^[0-9a-f]{40}$/);
    });

    it('releases.create makes release/1.0 and its tag from `ref`; tags.get and releases.get read them back', () => {
      const s = stepOf('create_release');
      assert.deepEqual(s.tags_before, []);
      assert.deepEqual(s.create_exchange, [
        'POST',
        `/projects/${setup.app.id}/releases`,
        201,
        { tag_name: TAG, ref: 'main', name: 'First', description: 'The first release', released_at: '2024-03-01T10:00:00Z' },
      ]);
      const r = s.created;
      assert.deepEqual(Object.keys(r), FULL_KEYS);
      assert.deepEqual(
        [r.tag_name, r.name, r.description, r.released_at, r.created_at, r.upcoming_release, r.commit.id, r.author.username],
        [TAG, 'First', 'The first release', '2024-03-01T10:00:00.000Z', NOW, false, setup.main_sha, 'root'],
      );
      assert.equal(r.tag_path, '/rel/alpha/app/-/tags/release%2F1.0');
      assert.equal(r._links.self, `${setup.app.web_url}/-/releases/release%2F1.0`);
      assert.deepEqual([r.assets.count, r.assets.links], [4, []]);
      assert.deepEqual(s.tag, { name: TAG, commit_id: setup.main_sha, release: { tag_name: TAG, description: 'The first release' } });
      assert.equal(s.get_path, `/projects/${setup.app.id}/releases/release%2F1.0`);
      assert.deepEqual(s.shown, r);
      assert.deepEqual(s.again, { type: 'GitlabCreateError', response_code: 409, error_message: 'Release already exists', str: '409: Release already exists' });
    });

    it('release.links.create adds three links (the package one with a direct_asset_url); list and get read them back', () => {
      const s = stepOf('add_links');
      assert.deepEqual(s.sent, [
        ['POST', LINKS_PATH(setup.app.id), 201, { name: 'linux', url: 'https://cdn.example.com/app-linux', direct_asset_path: '/bin/app-linux', link_type: 'package' }],
        ['POST', LINKS_PATH(setup.app.id), 201, { name: 'docs', url: 'https://docs.example.com/app/1.0' }],
        ['POST', LINKS_PATH(setup.app.id), 201, { name: 'runbook', url: `${setup.app.web_url}/-/wikis/runbook`, link_type: 'runbook' }],
      ]);
      assert.deepEqual(s.linux, {
        id: s.linux.id,
        name: 'linux',
        url: 'https://cdn.example.com/app-linux',
        direct_asset_url: `${f.url}/rel/alpha/app/-/releases/release%2F1.0/downloads/bin/app-linux`,
        external: true,
        link_type: 'package',
      });
      assert.deepEqual(s.docs, {
        id: s.docs.id,
        name: 'docs',
        url: 'https://docs.example.com/app/1.0',
        direct_asset_url: 'https://docs.example.com/app/1.0',
        external: true,
        link_type: 'other',
      });
      assert.deepEqual(s.runbook, {
        id: s.runbook.id,
        name: 'runbook',
        url: `${setup.app.web_url}/-/wikis/runbook`,
        direct_asset_url: `${setup.app.web_url}/-/wikis/runbook`,
        external: false,
        link_type: 'runbook',
      });
      assert.deepEqual(s.list, [s.runbook, s.docs, s.linux], 'newest first');
      assert.deepEqual(s.release_assets.links, [s.runbook, s.docs, s.linux]);
      assert.equal(s.release_assets.count, 7);
      assert.deepEqual(s.get_linux, s.linux);
    });

    it('refuses a duplicate name, a duplicate url and a javascript: url: GitlabCreateError 400 with the model messages; nothing changes', () => {
      const s = stepOf('refusals');
      assert.deepEqual(s.duplicate_name, refusal('GitlabCreateError', 400, ['Name has already been taken']));
      assert.deepEqual(s.duplicate_url, refusal('GitlabCreateError', 400, ['Url has already been taken']));
      assert.deepEqual(s.javascript_url, refusal('GitlabCreateError', 400, [SCHEMES]));
      assert.equal(s.javascript_url.str, "400: ['Url is blocked: Only allowed schemes are http, https, ftp']");
      assert.deepEqual(s.edit_to_javascript, refusal('GitlabUpdateError', 400, [SCHEMES]));
      assert.deepEqual(s.sent, [
        ['POST', LINKS_PATH(setup.app.id), 400],
        ['POST', LINKS_PATH(setup.app.id), 400],
        ['POST', LINKS_PATH(setup.app.id), 400],
        ['PUT', `${LINKS_PATH(setup.app.id)}/${links.docs.id}`, 400],
      ]);
      assert.deepEqual(s.names_after, ['runbook', 'docs', 'linux']);
      assert.deepEqual(s.docs_after, links.docs);
    });

    it('link.save() updates one link (name, url, path, type); get and list show it', () => {
      const s = stepOf('update_link');
      assert.deepEqual(s.put, [
        'PUT',
        `${LINKS_PATH(setup.app.id)}/${links.docs.id}`,
        200,
        { name: 'manual', url: 'https://docs.example.com/app/1.0/manual.pdf', direct_asset_path: '/docs/manual.pdf', link_type: 'image' },
      ]);
      const expected: Link = {
        id: links.docs.id,
        name: 'manual',
        url: 'https://docs.example.com/app/1.0/manual.pdf',
        direct_asset_url: `${f.url}/rel/alpha/app/-/releases/release%2F1.0/downloads/docs/manual.pdf`,
        external: true,
        link_type: 'image',
      };
      assert.deepEqual(s.answer, expected);
      assert.deepEqual(s.saved, expected, 'save() took the answer');
      assert.deepEqual(s.get, expected);
      assert.deepEqual(s.names, ['runbook', 'manual', 'linux']);
    });

    it('links.delete() is answered with the deleted link (200); two links are left', () => {
      const s = stepOf('delete_link');
      assert.equal(s.returned, null, 'python-gitlab returns nothing from delete()');
      assert.deepEqual(s.delete, ['DELETE', `${LINKS_PATH(setup.app.id)}/${links.runbook.id}`, 200, null]);
      assert.deepEqual(s.answer, links.runbook);
      assert.deepEqual(s.before_runbook, links.runbook);
      assert.equal(s.left.length, 2);
      assert.deepEqual(s.left, [pythonStep(results, 'update_link').get, links.linux]);
      assert.deepEqual(s.get_deleted, { type: 'GitlabGetError', response_code: 404, error_message: '404 Not found', str: '404: 404 Not found' });
      assert.equal(s.assets_count, 6);
    });

    it('gl.http_list lists the group releases of both subgroup projects by released_at, asc and desc, full and simple=True', () => {
      const s = stepOf('group_releases');
      assert.deepEqual(s.created, [
        ['v0.9', '2024-01-15T08:30:00.000Z', false],
        ['v2.0', '2024-05-20T16:00:00.000Z', false],
        ['v0.5', '2023-11-01T00:00:00.000Z', false],
        ['v3.0-rc', '2024-07-01T09:00:00.000Z', true],
      ]);
      const path = `/groups/${setup.group.id}/releases`;
      assert.deepEqual(s.sent, [
        ['GET', `${path}?sort=asc`, 200],
        ['GET', `${path}?sort=desc`, 200],
        ['GET', path, 200],
        ['GET', `${path}?sort=asc&simple=True`, 200],
        ['GET', `${path}?sort=desc&simple=True`, 200],
      ]);
      const tags = (list: Array<{ tag_name: string }>) => list.map((r) => r.tag_name);
      assert.deepEqual(tags(s.asc), ASC);
      assert.deepEqual(tags(s.desc), [...ASC].reverse());
      assert.deepEqual(s.by_default, s.desc, 'desc by default');
      assert.deepEqual(
        s.asc.map((r: { released_at: string }) => r.released_at),
        ['2023-11-01T00:00:00.000Z', '2024-01-15T08:30:00.000Z', '2024-03-01T10:00:00.000Z', '2024-05-20T16:00:00.000Z', '2024-07-01T09:00:00.000Z'],
      );
      for (const r of s.asc) assert.deepEqual(Object.keys(r), FULL_KEYS, r.tag_name);
      assert.deepEqual(s.asc[2], s.project_release, 'the group list shows the same entity as the project route');
      assert.equal(s.asc[3].tag_path, '/rel/beta/lib/-/tags/v2.0');
      assert.deepEqual(s.asc.map((r: { upcoming_release: boolean }) => r.upcoming_release), [false, false, false, false, true]);

      assert.deepEqual(tags(s.simple_asc), ASC);
      assert.deepEqual(tags(s.simple_desc), [...ASC].reverse());
      for (const r of [...s.simple_asc, ...s.simple_desc]) assert.deepEqual(Object.keys(r), SIMPLE_KEYS, r.tag_name);
      assert.deepEqual(
        s.simple_asc,
        s.asc.map((r: Record<string, unknown>) => Object.fromEntries(SIMPLE_KEYS.map((k) => [k, r[k]]))),
      );
      assert.deepEqual(s.simple_asc[2], {
        name: 'First',
        tag_name: TAG,
        description: 'The first release',
        created_at: NOW,
        released_at: '2024-03-01T10:00:00.000Z',
        upcoming_release: false,
      });
    });

    it('http_list(get_all=True) follows the Link pages (per_page 2) with the sort kept; a subgroup by path lists only its project', () => {
      const s = stepOf('group_releases');
      const path = `/groups/${setup.group.id}/releases`;
      assert.deepEqual(s.paged, ASC);
      assert.deepEqual(s.paged_sent, [
        ['GET', `${path}?sort=asc&per_page=2`, 200],
        ['GET', `${path}?page=2&per_page=2&sort=asc`, 200],
        ['GET', `${path}?page=3&per_page=2&sort=asc`, 200],
      ]);
      assert.deepEqual(s.beta, ['v3.0-rc', 'v2.0', 'v0.9']);
    });

    it('protectedbranches: create release/* (push Developers, merge Maintainers), get, list, delete', () => {
      const s = stepOf('protected_branches');
      assert.deepEqual(s.created, ['release/*', 'Developers + Maintainers', 'Maintainers']);
      assert.equal(s.get, 'release/*');
      assert.deepEqual(s.list, ['main', 'release/*']);
      assert.deepEqual(s.delete, ['DELETE', `/projects/${setup.app.id}/protected_branches/release%2F%2A`, 204]);
      assert.deepEqual(s.after, ['main']);
    });
  });
}
