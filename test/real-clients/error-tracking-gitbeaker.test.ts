/**
 * gitbeaker 43.8 ErrorTrackingSettings and ErrorTrackingClientKeys (REAL-CLIENTS §2.12),
 * including its broken `remove`, which sends the key id in the body of `DELETE …/client_keys`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure } from './support.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitbeaker error tracking settings and client keys`, () => {
    let f: ServedForgelet;
    let api: InstanceType<typeof Gitlab>;
    let projectId: number;

    before(async () => {
      f = await startServed(dialect);
      api = new Gitlab({ host: f.url, token: f.rootToken });
      projectId = (await f.api('POST', '/projects', { body: { name: 'gb-app' } })).body.id;
    });
    after(() => f.stop());

    it('settings: show 404 first; create (PUT, query string) and edit (PATCH) answer the setting', async () => {
      const missing = await gitbeakerFailure(api.ErrorTrackingSettings.show(projectId));
      assert.deepEqual(missing, { status: 404, message: '404 Error Tracking Setting Not Found' });
      const created = (await api.ErrorTrackingSettings.create(projectId, true, true)) as Record<string, unknown>;
      assert.deepEqual({ ...created, gitlab_dsn: typeof created.gitlab_dsn }, { active: true, project_name: null, sentry_external_url: null, api_url: null, integrated: true, gitlab_dsn: 'string' });
      const edited = (await api.ErrorTrackingSettings.edit(projectId, false)) as Record<string, unknown>;
      assert.deepEqual([edited.active, edited.integrated], [false, true]);
    });

    it('client keys: all, create, remove (the key id travels in the body)', async () => {
      const created = (await api.ErrorTrackingClientKeys.create(projectId)) as Record<string, any>;
      assert.match(created.public_key, /^glet_[0-9a-f]{32}$/);
      const all = (await api.ErrorTrackingClientKeys.all(projectId)) as Record<string, any>[];
      assert.deepEqual(all.map((k) => k.id).slice(-1), [created.id]);
      await api.ErrorTrackingClientKeys.remove(projectId, { keyId: created.id } as never);
      const left = (await api.ErrorTrackingClientKeys.all(projectId)) as Record<string, any>[];
      assert.ok(!left.some((k) => k.id === created.id));
    });
  });
}
