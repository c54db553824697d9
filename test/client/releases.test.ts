import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
// Imported from the sources: the Forgelet class also exposes them as api.releases etc.
import { GroupReleases } from '../../packages/client/src/resources/group-releases.js';
import { ProtectedBranches } from '../../packages/client/src/resources/protected-branches.js';
import { ReleaseLinks } from '../../packages/client/src/resources/release-links.js';
import { Releases } from '../../packages/client/src/resources/releases.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client releases, release links, group releases, protected branches`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let releases: Releases;
    let links: ReleaseLinks;
    let groupReleases: GroupReleases;
    let protectedBranches: ProtectedBranches;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      releases = new Releases(api.requester);
      links = new ReleaseLinks(api.requester);
      groupReleases = new GroupReleases(api.requester);
      protectedBranches = new ProtectedBranches(api.requester);
      group = await api.groups.create({ name: 'Ship', path: 'ship' });
      const sub = await api.groups.create({ name: 'Crew', path: 'crew', parent_id: group.id });
      project = await api.projects.create({ name: 'Deck', namespace_id: sub.id });
      await commitFiles(f, project.id, 'main', { 'README.md': 'deck' });
    });
    after(() => f.stop());

    it('releases: create (tag from ref, links, slash tag), show, all, edit, showLatest, remove', async () => {
      const made = await releases.create(project.path_with_namespace, 'release/1.0', {
        ref: 'main',
        name: 'One',
        released_at: new Date('2024-06-01T00:00:00Z'),
        assets: { links: [{ name: 'bin', url: 'https://ex.com/bin', direct_asset_path: '/bin/deck', link_type: 'package' }] },
      });
      assert.equal(made.tag_name, 'release/1.0');
      assert.equal(made.released_at, '2024-06-01T00:00:00.000Z');
      assert.equal(made.assets.links[0]!.direct_asset_url, `${f.url}/ship/crew/deck/-/releases/release%2F1.0/downloads/bin/deck`);
      assert.deepEqual(await releases.show(project.id, 'release/1.0'), made);
      await releases.create(project.id, 'v2', { ref: 'main' });
      assert.deepEqual((await releases.all(project.id).toArray()).map((r) => r.tag_name), ['v2', 'release/1.0']);
      assert.deepEqual((await releases.all(project.id, { sort: 'asc', updated_before: new Date('2030-01-01T00:00:00Z') }).toArray()).map((r) => r.tag_name), ['release/1.0', 'v2']);
      const edited = await releases.edit(project.id, 'release/1.0', { description: 'notes' });
      assert.equal(edited.description, 'notes');
      const html = await releases.show(project.id, 'release/1.0', { include_html_description: true });
      assert.equal(html.description_html, '<p>notes</p>');
      assert.equal((await releases.showLatest(project.id)).tag_name, 'v2', 'the client follows the redirect');
      const err = await apiError(releases.create(project.id, 'v3'));
      assert.deepEqual([err.status, err.body], [422, { message: 'Ref is not specified' }]);
      const removed = await releases.remove(project.id, 'v2');
      assert.equal(removed.tag_name, 'v2');
      assert.deepEqual((await releases.all(project.id).toArray()).map((r) => r.tag_name), ['release/1.0']);
    });

    it('release links: create, all, show, edit, remove; the wire requests match gitbeaker/python-gitlab', async () => {
      const { fetch, sent } = recordingFetch();
      const traced = new ReleaseLinks(clientFor(f, { fetch }).requester);
      const a = await traced.create(project.id, 'release/1.0', 'docs', 'https://ex.com/docs', { link_type: 'runbook' });
      assert.equal(sent[0]!.url, `${f.url}/api/v4/projects/${project.id}/releases/release%2F1.0/assets/links`);
      assert.deepEqual(JSON.parse(sent[0]!.body!), { name: 'docs', url: 'https://ex.com/docs', link_type: 'runbook' });
      assert.equal(a.link_type, 'runbook');
      const all = await links.all(project.id, 'release/1.0').toArray();
      assert.deepEqual(all.map((l) => l.name), ['docs', 'bin']);
      assert.deepEqual(await links.show(project.id, 'release/1.0', a.id), a);
      const edited = await traced.edit(project.id, 'release/1.0', a.id, { name: 'docs2' });
      assert.equal(sent[1]!.method, 'PUT');
      assert.deepEqual(JSON.parse(sent[1]!.body!), { name: 'docs2' });
      assert.deepEqual(edited, { ...a, name: 'docs2' });
      const err = await apiError(links.create(project.id, 'release/1.0', 'bad', 'javascript:alert(1)'));
      assert.deepEqual([err.status, err.body], [400, { message: ['Url is blocked: Only allowed schemes are http, https, ftp'] }]);
      assert.deepEqual(await links.remove(project.id, 'release/1.0', a.id), edited);
    });

    it('group releases: subgroups included, simple fields', async () => {
      const full = await groupReleases.all(group.full_path).toArray();
      assert.deepEqual(full.map((r) => r.tag_name), ['release/1.0']);
      const simple = await groupReleases.all(group.id, { simple: true, sort: 'asc' }).toArray();
      assert.deepEqual(Object.keys(simple[0]!), ['name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release']);
    });

    it('protected branches: all, show, protect, edit (PATCH), unprotect', async () => {
      assert.deepEqual((await protectedBranches.all(project.id).toArray()).map((b) => b.name), ['main']);
      const rule = await protectedBranches.protect(project.id, 'release/*', { push_access_level: 30, allowed_to_merge: [{ access_level: 30 }, { access_level: 40 }] });
      assert.deepEqual(rule.merge_access_levels.map((e) => e.access_level_description), ['Developers + Maintainers', 'Maintainers']);
      assert.deepEqual(await protectedBranches.show(project.id, 'release/*'), rule);
      const edited = await protectedBranches.edit(project.id, 'release/*', {
        allow_force_push: true,
        allowed_to_merge: [{ id: rule.merge_access_levels[0]!.id, _destroy: true }],
      });
      assert.equal(edited.allow_force_push, true);
      assert.deepEqual(edited.merge_access_levels, [rule.merge_access_levels[1]]);
      assert.deepEqual((await protectedBranches.all(project.id, { search: 'rel' }).toArray()).map((b) => b.name), ['release/*']);
      const err = await apiError(protectedBranches.protect(project.id, 'release/*'));
      assert.deepEqual([err.status, err.body], [409, { message: "Protected branch 'release/*' already exists" }]);
      await protectedBranches.unprotect(project.id, 'release/*');
      assert.deepEqual((await protectedBranches.all(project.id).toArray()).map((b) => b.name), ['main']);
      assert.ok(api.protectedBranches instanceof ProtectedBranches && api.releases instanceof Releases);
    });
  });
}
