/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: releases (issue 5's "Must show";
 * REAL-CLIENTS.md §2.9, §2.17). ProjectReleases creates `release/1.0`, its tag made from
 * `ref`; ReleaseLinks adds three asset links (one a `package` with a direct asset path),
 * refuses a duplicate name, a duplicate URL and a `javascript:` URL with a 400, edits one
 * and removes one; GroupReleases lists the releases of two subgroup projects in both sort
 * orders, full and `simple`. Protected branches (wildcard `release/*`) close the file: they
 * came in the same change and have no other real-client suite.
 *
 * The server's clock is frozen, so `upcoming_release` is exact; every request gitbeaker
 * sends is recorded (recordFetch) to show the encoded tag and the followed pages.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab, GitbeakerRequestError, type ReleaseLinkSchema, type ReleaseSchema } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { recordFetch, type FetchExchange } from './support.js';

type Client = InstanceType<typeof Gitlab>;

const NOW = '2024-06-15T12:00:00.000Z';
const TAG = 'release/1.0';
/** The keys of `Entities::BasicReleaseDetails` (`simple=true`), in GitLab's order. */
const SIMPLE_KEYS = ['name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release'];
/** The keys of `Entities::Release` for a reader of the code, release without milestones. */
const FULL_KEYS = [...SIMPLE_KEYS, 'author', 'commit', 'commit_path', 'tag_path', 'assets', 'evidences', '_links'];
const SCHEMES = 'Url is blocked: Only allowed schemes are http, https, ftp';

/**
 * The releases of the group, by project: tag → released_at. Created in this order (so ids do
 * not follow released_at); `v3.0-rc` is after NOW, an upcoming release.
 */
const GROUP_RELEASES: Array<['app' | 'lib', string, string]> = [
  ['app', TAG, '2024-03-01T10:00:00.000Z'],
  ['lib', 'v0.9', '2024-01-15T08:30:00.000Z'],
  ['lib', 'v2.0', '2024-05-20T16:00:00.000Z'],
  ['app', 'v0.5', '2023-11-01T00:00:00.000Z'],
  ['lib', 'v3.0-rc', '2024-07-01T09:00:00.000Z'],
];
const ASC = ['v0.5', 'v0.9', TAG, 'v2.0', 'v3.0-rc'];

interface Failure {
  status: number;
  description: string;
}

/** Awaits a gitbeaker call that must be refused: the status and description gitbeaker surfaces. */
async function refused(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GitbeakerRequestError, `expected GitbeakerRequestError, got ${String(err)}`);
    const cause = err.cause as { description: string; response: Response };
    assert.equal(err.message, cause.description);
    return { status: cause.response.status, description: cause.description };
  }
  assert.fail('the request succeeded but was expected to fail');
}

/** A link's fields but its id (gitbeaker types some answers as camelized unions: read them as plain objects). */
function linkView(link: object): Record<string, unknown> {
  const l = link as ReleaseLinkSchema;
  return { name: l.name, url: l.url, direct_asset_url: l.direct_asset_url, external: l.external, link_type: l.link_type };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 releases`, () => {
    let f: ServedForgelet;
    let root: Client;
    let wire: ReturnType<typeof recordFetch>;
    const sent = (): FetchExchange[] => wire.exchanges.splice(0);
    let groupId: number;
    let app: { id: number; path_with_namespace: string; web_url: string };
    let lib: { id: number; path_with_namespace: string };
    let mainSha: string;
    /** The three links of release/1.0, by name, as created. */
    const links = new Map<string, ReleaseLinkSchema>();

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: NOW } });
      root = new Gitlab({ host: f.url, token: f.rootToken });
      // group → two subgroups → one project each (README commits give `main`).
      const group = await root.Groups.create('Releases', 'rel');
      groupId = group.id;
      const alpha = await root.Groups.create('Alpha', 'alpha', { parentId: groupId });
      const beta = await root.Groups.create('Beta', 'beta', { parentId: groupId });
      const a = await root.Projects.create({ name: 'App', path: 'app', namespaceId: alpha.id, initializeWithReadme: true });
      const b = await root.Projects.create({ name: 'Lib', path: 'lib', namespaceId: beta.id, initializeWithReadme: true });
      assert.equal(a.path_with_namespace, 'rel/alpha/app');
      assert.equal(b.path_with_namespace, 'rel/beta/lib');
      app = { id: a.id, path_with_namespace: a.path_with_namespace, web_url: String(a.web_url) };
      lib = { id: b.id, path_with_namespace: b.path_with_namespace };
      mainSha = (await root.Branches.show(app.id, 'main')).commit.id as string;
      wire = recordFetch();
      console.log(`[${dialect}] gitbeaker releases setup (server, groups, projects): ${Math.round(performance.now() - t0)} ms`);
    });
    // Each test asserts on the requests it sent itself.
    beforeEach(() => void sent());
    after(async () => {
      wire?.restore();
      await f?.stop();
    });

    it('ProjectReleases.create makes release/1.0 and its tag from `ref`; the tag and the release read back', async () => {
      assert.deepEqual(await root.Tags.all(app.id), [], 'no tag before the release');
      assert.deepEqual(sent(), [['GET', `/projects/${app.id}/repository/tags`, 200]]);
      const made = await root.ProjectReleases.create(app.path_with_namespace, {
        tagName: TAG,
        ref: 'main',
        name: 'First',
        description: 'The first release',
        releasedAt: GROUP_RELEASES[0]![2],
      });
      assert.deepEqual(sent(), [['POST', '/projects/rel%2Falpha%2Fapp/releases', 201]]);
      assert.equal(made.tag_name, TAG);
      assert.equal(made.name, 'First');
      assert.equal(made.description, 'The first release');
      assert.equal(made.released_at, GROUP_RELEASES[0]![2]);
      assert.equal(made.created_at, NOW);
      assert.equal(made.upcoming_release, false);
      assert.equal(made.commit.id, mainSha);
      assert.equal(made.author.username, 'root');
      assert.equal(made.tag_path, '/rel/alpha/app/-/tags/release%2F1.0');
      assert.equal((made._links as ReleaseSchema['_links']).self, `${app.web_url}/-/releases/release%2F1.0`);
      assert.deepEqual(made.assets.links, []);
      assert.equal(made.assets.count, 4, 'the four source archives');
      assert.deepEqual(Object.keys(made), FULL_KEYS);

      const tag = await root.Tags.show(app.id, TAG);
      assert.equal(tag.name, TAG);
      assert.equal(tag.commit.id, mainSha);
      assert.deepEqual(tag.release, { tag_name: TAG, description: 'The first release' });

      const shown = await root.ProjectReleases.show(app.id, TAG);
      assert.deepEqual(sent().at(-1), ['GET', `/projects/${app.id}/releases/release%2F1.0`, 200]);
      assert.deepEqual(shown, made);

      const again = await refused(root.ProjectReleases.create(app.id, { tagName: TAG, ref: 'main' }));
      assert.deepEqual(again, { status: 409, description: 'Release already exists' });
    });

    it('ReleaseLinks.create adds three links; the package one has a direct_asset_url under the release', async () => {
      const linux = await root.ReleaseLinks.create(app.id, TAG, 'linux', 'https://cdn.example.com/app-linux', {
        directAssetPath: '/bin/app-linux',
        linkType: 'package',
      });
      const docs = await root.ReleaseLinks.create(app.id, TAG, 'docs', 'https://docs.example.com/app/1.0');
      const runbook = await root.ReleaseLinks.create(app.id, TAG, 'runbook', `${app.web_url}/-/wikis/runbook`, { linkType: 'runbook' });
      assert.deepEqual(
        sent(),
        Array(3).fill(['POST', `/projects/${app.id}/releases/release%2F1.0/assets/links`, 201]),
      );
      assert.deepEqual(linkView(linux), {
        name: 'linux',
        url: 'https://cdn.example.com/app-linux',
        direct_asset_url: `${f.url}/rel/alpha/app/-/releases/release%2F1.0/downloads/bin/app-linux`,
        external: true,
        link_type: 'package',
      });
      assert.deepEqual(linkView(docs), {
        name: 'docs',
        url: 'https://docs.example.com/app/1.0',
        direct_asset_url: 'https://docs.example.com/app/1.0',
        external: true,
        link_type: 'other',
      });
      assert.deepEqual(linkView(runbook), {
        name: 'runbook',
        url: `${app.web_url}/-/wikis/runbook`,
        direct_asset_url: `${app.web_url}/-/wikis/runbook`,
        external: false,
        link_type: 'runbook',
      });
      for (const l of [linux, docs, runbook] as ReleaseLinkSchema[]) links.set(l.name, l);

      // Newest first, on the links route and in the release's assets.
      assert.deepEqual(await root.ReleaseLinks.all(app.id, TAG), [runbook, docs, linux]);
      const release = await root.ProjectReleases.show(app.id, TAG);
      assert.deepEqual(release.assets.links, [runbook, docs, linux]);
      assert.equal(release.assets.count, 7);
      assert.deepEqual(await root.ReleaseLinks.show(app.id, TAG, linux.id), linux);
    });

    it('refuses a duplicate name, a duplicate url and a javascript: url with 400 and the model message; nothing is added', async () => {
      const duplicateName = await refused(root.ReleaseLinks.create(app.id, TAG, 'linux', 'https://cdn.example.com/other'));
      assert.deepEqual(duplicateName, { status: 400, description: '["Name has already been taken"]' });
      const duplicateUrl = await refused(root.ReleaseLinks.create(app.id, TAG, 'linux-copy', 'https://cdn.example.com/app-linux'));
      assert.deepEqual(duplicateUrl, { status: 400, description: '["Url has already been taken"]' });
      const script = await refused(root.ReleaseLinks.create(app.id, TAG, 'evil', 'javascript:alert(1)'));
      assert.deepEqual(script, { status: 400, description: JSON.stringify([SCHEMES]) });
      // The same on an edit: a javascript: url is refused there too.
      const editToScript = await refused(root.ReleaseLinks.edit(app.id, TAG, links.get('docs')!.id, { url: 'javascript:alert(1)' }));
      assert.deepEqual(editToScript, { status: 400, description: JSON.stringify([SCHEMES]) });
      assert.deepEqual(
        sent().map(([m, , s]) => [m, s]),
        [
          ['POST', 400],
          ['POST', 400],
          ['POST', 400],
          ['PUT', 400],
        ],
      );
      assert.deepEqual((await root.ReleaseLinks.all(app.id, TAG)).map((l) => l.name), ['runbook', 'docs', 'linux']);
      assert.deepEqual(await root.ReleaseLinks.show(app.id, TAG, links.get('docs')!.id), links.get('docs'));
    });

    it('ReleaseLinks.edit updates one link (name, url, path, type); the others are unchanged', async () => {
      const docs = links.get('docs')!;
      const edited = await root.ReleaseLinks.edit(app.id, TAG, docs.id, {
        name: 'manual',
        url: 'https://docs.example.com/app/1.0/manual.pdf',
        directAssetPath: '/docs/manual.pdf',
        linkType: 'image',
      });
      assert.deepEqual(sent(), [['PUT', `/projects/${app.id}/releases/release%2F1.0/assets/links/${docs.id}`, 200]]);
      assert.deepEqual(edited, {
        id: docs.id,
        name: 'manual',
        url: 'https://docs.example.com/app/1.0/manual.pdf',
        direct_asset_url: `${f.url}/rel/alpha/app/-/releases/release%2F1.0/downloads/docs/manual.pdf`,
        external: true,
        link_type: 'image',
      });
      links.set('docs', edited);
      assert.deepEqual(await root.ReleaseLinks.show(app.id, TAG, docs.id), edited);
      assert.deepEqual(await root.ReleaseLinks.all(app.id, TAG), [links.get('runbook'), edited, links.get('linux')]);
    });

    it('ReleaseLinks.remove answers the deleted link; two are left', async () => {
      const runbook = links.get('runbook')!;
      const removed = await root.ReleaseLinks.remove(app.id, TAG, runbook.id, { showExpanded: true });
      assert.deepEqual(sent(), [['DELETE', `/projects/${app.id}/releases/release%2F1.0/assets/links/${runbook.id}`, 200]]);
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.data, runbook);
      const left = await root.ReleaseLinks.all(app.id, TAG);
      assert.equal(left.length, 2);
      assert.deepEqual(left, [links.get('docs'), links.get('linux')]);
      const gone = await refused(root.ReleaseLinks.show(app.id, TAG, runbook.id));
      assert.deepEqual(gone, { status: 404, description: '404 Not found' });
      assert.equal((await root.ProjectReleases.show(app.id, TAG)).assets.count, 6);
    });

    it('GroupReleases.all lists the releases of both subgroup projects by released_at, asc and desc, full and simple', async () => {
      for (const [which, tag, releasedAt] of GROUP_RELEASES.slice(1)) {
        const project = which === 'app' ? app : lib;
        const r = await root.ProjectReleases.create(project.id, { tagName: tag, ref: 'main', description: `${which} ${tag}`, releasedAt });
        assert.equal(r.released_at, releasedAt);
        assert.equal(r.upcoming_release, tag === 'v3.0-rc');
      }
      sent();

      const asc = await root.GroupReleases.all(groupId, { sort: 'asc' });
      const desc = await root.GroupReleases.all(groupId, { sort: 'desc' });
      const byDefault = await root.GroupReleases.all(groupId);
      assert.deepEqual(sent(), [
        ['GET', `/groups/${groupId}/releases?sort=asc`, 200],
        ['GET', `/groups/${groupId}/releases?sort=desc`, 200],
        ['GET', `/groups/${groupId}/releases`, 200],
      ]);
      assert.deepEqual(asc.map((r) => r.tag_name), ASC);
      assert.deepEqual(desc.map((r) => r.tag_name), [...ASC].reverse());
      assert.deepEqual(byDefault, desc, 'desc by default');
      assert.deepEqual(asc.map((r) => r.released_at), [...GROUP_RELEASES].sort((x, y) => x[2].localeCompare(y[2])).map((r) => r[2]));
      // Full entities, as on the project route: the release of each project with its own paths.
      for (const r of asc) assert.deepEqual(Object.keys(r), FULL_KEYS, String(r.tag_name));
      const first = asc.find((r) => r.tag_name === TAG)!;
      assert.deepEqual(first, await root.ProjectReleases.show(app.id, TAG));
      assert.deepEqual(sent(), [['GET', `/projects/${app.id}/releases/release%2F1.0`, 200]]);
      assert.equal(asc.find((r) => r.tag_name === 'v2.0')!.tag_path, '/rel/beta/lib/-/tags/v2.0');
      assert.deepEqual(asc.map((r) => r.upcoming_release), [false, false, false, false, true]);

      const simpleAsc = await root.GroupReleases.all(groupId, { sort: 'asc', simple: true });
      const simpleDesc = await root.GroupReleases.all(groupId, { sort: 'desc', simple: true });
      assert.deepEqual(sent(), [
        ['GET', `/groups/${groupId}/releases?sort=asc&simple=true`, 200],
        ['GET', `/groups/${groupId}/releases?sort=desc&simple=true`, 200],
      ]);
      assert.deepEqual(simpleAsc.map((r) => r.tag_name), ASC);
      assert.deepEqual(simpleDesc.map((r) => r.tag_name), [...ASC].reverse());
      for (const r of [...simpleAsc, ...simpleDesc]) assert.deepEqual(Object.keys(r), SIMPLE_KEYS, String(r.tag_name));
      // The simple entity is the full one cut down to its first six keys.
      assert.deepEqual(
        simpleAsc,
        asc.map((r) => Object.fromEntries(SIMPLE_KEYS.map((k) => [k, (r as ReleaseSchema)[k]]))),
      );
      assert.deepEqual(simpleAsc[2], {
        name: 'First',
        tag_name: TAG,
        description: 'The first release',
        created_at: NOW,
        released_at: GROUP_RELEASES[0]![2],
        upcoming_release: false,
      });
    });

    it('GroupReleases.all follows the Link pages (per_page 2) keeping the sort; a subgroup by path lists only its project', async () => {
      const paged = await root.GroupReleases.all(groupId, { sort: 'asc', perPage: 2 });
      assert.deepEqual(paged.map((r) => r.tag_name), ASC);
      const pages = sent();
      assert.equal(pages.length, 3, JSON.stringify(pages));
      for (const [method, path, status] of pages) {
        assert.equal(method, 'GET');
        assert.equal(status, 200);
        assert.match(path, /[?&]sort=asc(&|$)/, path);
      }
      const beta = await root.GroupReleases.all('rel/beta', { simple: true });
      assert.deepEqual(sent(), [['GET', '/groups/rel%2Fbeta/releases?simple=true', 200]]);
      assert.deepEqual(beta.map((r) => r.tag_name), ['v3.0-rc', 'v2.0', 'v0.9']);
    });

    it('ProtectedBranches: protect release/* (push Developers, merge Developers), show, edit, list, unprotect', async () => {
      const rule = await root.ProtectedBranches.protect(app.id, 'release/*', { pushAccessLevel: 30, allowedToMerge: [{ accessLevel: 30 }] });
      const levels = (list: unknown) => (list as Array<{ access_level: number }>).map((e) => e.access_level);
      assert.deepEqual(levels(rule.push_access_levels), [30]);
      assert.deepEqual(levels(rule.merge_access_levels), [30]);
      assert.equal((await root.ProtectedBranches.show(app.id, 'release/*')).name, 'release/*');
      const patched = await root.ProtectedBranches.edit(app.id, 'release/*', { allowForcePush: true });
      assert.equal(patched.allow_force_push, true);
      assert.deepEqual((await root.ProtectedBranches.all(app.id)).map((b) => b.name), ['main', 'release/*']);
      await root.ProtectedBranches.unprotect(app.id, 'release/*');
      assert.deepEqual((await root.ProtectedBranches.all(app.id)).map((b) => b.name), ['main']);
      assert.deepEqual(
        sent(),
        [
          // gitbeaker sends the protect parameters in the query string, not as JSON.
          ['POST', `/projects/${app.id}/protected_branches?push_access_level=30&allowed_to_merge%5B%5D%5Baccess_level%5D=30&name=release%2F%2A`, 201],
          ['GET', `/projects/${app.id}/protected_branches/release%2F*`, 200],
          ['PATCH', `/projects/${app.id}/protected_branches/release%2F*`, 200],
          ['GET', `/projects/${app.id}/protected_branches`, 200],
          ['DELETE', `/projects/${app.id}/protected_branches/release%2F*`, 204],
          ['GET', `/projects/${app.id}/protected_branches`, 200],
        ],
      );
    });
  });
}
