import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const FORBIDDEN = { message: '403 Forbidden' };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const bad = (message: unknown) => ({ message });
const MULTIPLE = { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" };

/** The entity of a project or group variable with GitLab's defaults. */
const variable = (key: string, value: string | null, extra: Record<string, unknown> = {}) => ({
  variable_type: 'env_var',
  key,
  value,
  hidden: false,
  protected: false,
  masked: false,
  raw: false,
  environment_scope: '*',
  description: null,
  ...extra,
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: CI/CD variables API`, () => {
    let f: TestForgelet;
    let owner: User, maint: User, dev: User, outsider: User, admin: User;
    let group: any, sub: any, project: any;

    const pv = (rest = '') => `/projects/${project.id}/variables${rest}`;
    const gv = (rest = '') => `/groups/${group.id}/variables${rest}`;

    before(async () => {
      f = await startTestServer(dialect, { testMode: true });
      [owner, maint, dev, outsider] = await createUsers(f, ['cvowner', 'cvmaint', 'cvdev', 'cvout']);
      admin = await f.createUser('cvadmin', { admin: true });
      group = await createGroup(f, owner.token, { name: 'Vars', path: 'vars-group', visibility: 'private' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: sub.id, visibility: 'private' });
      await addMember(f, 'groups', group.id, maint.id, 40);
      await addMember(f, 'projects', project.id, dev.id, 30);
    });
    after(() => f.stop());

    it('project variables: create, get, list, update, delete with GitLab entities', async () => {
      const created = await f.api('POST', pv(), { token: maint.token, body: { key: 'DEPLOY_TOKEN', value: 'secret-value-1', protected: true, description: 'for deploys' } });
      expectStatus(created, 201);
      assert.deepEqual(created.body, variable('DEPLOY_TOKEN', 'secret-value-1', { protected: true, description: 'for deploys' }));
      assert.deepEqual(Object.keys(created.body), ['variable_type', 'key', 'value', 'hidden', 'protected', 'masked', 'raw', 'environment_scope', 'description']);

      const file = await f.api('POST', pv(), { token: maint.token, body: { key: ' CONFIG_FILE ', value: 'a: 1\nb: $X\n', variable_type: 'file', raw: true } });
      expectStatus(file, 201);
      assert.deepEqual(file.body, variable('CONFIG_FILE', 'a: 1\nb: $X\n', { variable_type: 'file', raw: true }), 'the key is stripped');

      const shown = await f.api('GET', pv('/DEPLOY_TOKEN'), { token: maint.token });
      expectStatus(shown, 200);
      assert.deepEqual(shown.body, created.body);

      const updated = await f.api('PUT', pv('/DEPLOY_TOKEN'), { token: maint.token, body: { value: 'rotated-value', protected: false, key: 'IGNORED' } });
      expectStatus(updated, 200);
      assert.deepEqual(updated.body, variable('DEPLOY_TOKEN', 'rotated-value', { description: 'for deploys' }), 'the key cannot change');

      const list = await f.api('GET', pv(), { token: maint.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((v: any) => v.key), ['DEPLOY_TOKEN', 'CONFIG_FILE']);
      assert.equal(list.headers.get('x-total'), '2');

      const removed = await f.api('DELETE', pv('/CONFIG_FILE'), { token: maint.token });
      assert.deepEqual([removed.status, removed.text], [204, '']);
      const gone = await f.api('GET', pv('/CONFIG_FILE'), { token: maint.token });
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Variable Not Found' }]);
      const again = await f.api('DELETE', pv('/CONFIG_FILE'), { token: maint.token });
      assert.deepEqual([again.status, again.body], [404, { message: '404 Variable Not Found' }]);
      const byPath = await f.api('GET', `/projects/${encodeURIComponent('vars-group/sub/app')}/variables/DEPLOY_TOKEN`, { token: maint.token });
      assert.deepEqual([byPath.status, byPath.body.value], [200, 'rotated-value']);
    });

    it('lists paginate in the database with GitLab headers', async () => {
      for (const k of ['PAGE_A', 'PAGE_B', 'PAGE_C']) expectStatus(await f.api('POST', pv(), { body: { key: k, value: 'v' } }), 201);
      const first = await f.api('GET', pv('?per_page=2'));
      expectStatus(first, 200);
      assert.deepEqual(first.body.map((v: any) => v.key), ['DEPLOY_TOKEN', 'PAGE_A']);
      assert.deepEqual([first.headers.get('x-total'), first.headers.get('x-total-pages'), first.headers.get('x-next-page')], ['4', '2', '2']);
      assert.match(first.headers.get('link') ?? '', /page=2&per_page=2>; rel="next"/);
      const second = await f.api('GET', pv('?per_page=2&page=2'));
      assert.deepEqual(second.body.map((v: any) => v.key), ['PAGE_B', 'PAGE_C']);
      const zero = await f.api('GET', pv('?per_page=0'));
      assert.deepEqual([zero.status, zero.body], [400, { error: 'per_page does not have a valid value' }]);
      for (const k of ['PAGE_A', 'PAGE_B', 'PAGE_C']) expectStatus(await f.api('DELETE', pv(`/${k}`)), 204);
    });

    it('bad input: 400 naming the field, model errors as GitLab renders them', async () => {
      const post = (body: Record<string, unknown>) => f.api('POST', pv(), { token: maint.token, body });
      assert.deepEqual((await post({ value: 'x' })).body, { error: 'key is missing' });
      assert.deepEqual((await post({ key: 'K' })).body, { error: 'value is missing' });
      const type = await post({ key: 'K', value: 'x', variable_type: 'dir' });
      assert.deepEqual([type.status, type.body], [400, { error: 'variable_type does not have a valid value' }]);
      assert.deepEqual((await post({ key: 'K', value: 'x', protected: 'maybe' })).body, { error: 'protected is invalid' });
      const key = await post({ key: 'bad-key', value: 'x' });
      assert.deepEqual([key.status, key.body], [400, bad({ key: ["can contain only letters, digits and '_'."] })]);
      assert.deepEqual((await post({ key: '', value: 'x' })).body, bad({ key: ["can't be blank", "can contain only letters, digits and '_'."] }));
      assert.deepEqual((await post({ key: 'K'.repeat(256), value: 'x' })).body, bad({ key: ['is too long (maximum is 255 characters)'] }));
      const taken = await post({ key: 'DEPLOY_TOKEN', value: 'x' });
      assert.deepEqual([taken.status, taken.body], [400, bad({ key: ['(DEPLOY_TOKEN) has already been taken'] })]);
      assert.deepEqual((await post({ key: 'K', value: 'x', description: 'd'.repeat(256) })).body, bad({ description: ['is too long (maximum is 255 characters)'] }));
      assert.deepEqual((await post({ key: 'K', value: 'x', environment_scope: 'prod!' })).body,
        bad({ environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] }));
      assert.deepEqual((await post({ key: 'K', value: 'x', environment_scope: '   ' })).body,
        bad({ environment_scope: ["can't be blank", "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] }));
      // several attributes at once, in GitLab's order
      assert.deepEqual((await post({ key: 'a b', value: 'short', masked: true, description: 'd'.repeat(300) })).body,
        bad({ key: ["can contain only letters, digits and '_'."], value: ['is invalid'], description: ['is too long (maximum is 255 characters)'] }));
      const list = await f.api('GET', pv(), { token: maint.token });
      assert.deepEqual(list.body.map((v: any) => v.key), ['DEPLOY_TOKEN'], 'nothing was written');
    });

    it("masking: GitLab's rules for expanded and raw values, on create and update", async () => {
      const post = (body: Record<string, unknown>) => f.api('POST', pv(), { token: maint.token, body });
      const invalid = bad({ value: ['is invalid'] });
      assert.deepEqual((await post({ key: 'M1', value: 'seven77', masked: true })).body, invalid, 'at least 8 characters');
      assert.deepEqual((await post({ key: 'M1', value: 'has space 123', masked: true })).body, invalid);
      assert.deepEqual((await post({ key: 'M1', value: 'ref$OTHER1', masked: true })).body, invalid, '$ only when raw');
      assert.deepEqual((await post({ key: 'M1', value: 'line1234\nline5678', masked: true, raw: true })).body, invalid, 'one line even when raw');
      const ok = await post({ key: 'M1', value: 'aB3+/=@:.~_-xyz', masked: true });
      assert.deepEqual([ok.status, ok.body.masked], [201, true]);
      const rawOk = await post({ key: 'M2', value: 'p@ss$word!#%', masked: true, raw: true });
      assert.deepEqual([rawOk.status, rawOk.body.masked, rawOk.body.raw], [201, true, true]);
      // an update is checked against the result: un-raw a value with `$` while masked
      const unraw = await f.api('PUT', pv('/M2'), { token: maint.token, body: { raw: false } });
      assert.deepEqual([unraw.status, unraw.body], [400, invalid]);
      const shorten = await f.api('PUT', pv('/M1'), { token: maint.token, body: { value: 'short' } });
      assert.deepEqual([shorten.status, shorten.body], [400, invalid]);
      const unmask = await f.api('PUT', pv('/M1'), { token: maint.token, body: { masked: false, value: 'short' } });
      assert.deepEqual([unmask.status, unmask.body.value, unmask.body.masked], [200, 'short', false]);
      const remask = await f.api('PUT', pv('/DEPLOY_TOKEN'), { token: maint.token, body: { masked: true } });
      assert.deepEqual([remask.status, remask.body.masked], [200, true], 'rotated-value is maskable');
      for (const k of ['M1', 'M2']) expectStatus(await f.api('DELETE', pv(`/${k}`)), 204);
    });

    it('masked_and_hidden: the value is never answered again and the variable stays masked', async () => {
      const created = await f.api('POST', pv(), { token: maint.token, body: { key: 'HIDDEN_KEY', value: 'very-secret-1', masked_and_hidden: true } });
      expectStatus(created, 201);
      assert.deepEqual(created.body, variable('HIDDEN_KEY', null, { hidden: true, masked: true }));
      const shortHidden = await f.api('POST', pv(), { token: maint.token, body: { key: 'HIDDEN_SHORT', value: 'short', masked_and_hidden: true } });
      assert.deepEqual([shortHidden.status, shortHidden.body], [400, bad({ value: ['is invalid'] })], 'hidden values are masked, so maskable');
      assert.equal((await f.api('GET', pv('/HIDDEN_KEY'))).body.value, null);
      assert.equal((await f.api('GET', pv())).body.find((v: any) => v.key === 'HIDDEN_KEY').value, null);
      const unmask = await f.api('PUT', pv('/HIDDEN_KEY'), { token: maint.token, body: { masked: false } });
      assert.deepEqual([unmask.status, unmask.body], [400, bad({ base: ['Updating masked attribute is not allowed on updates for hidden variables.'] })]);
      const rotate = await f.api('PUT', pv('/HIDDEN_KEY'), { token: maint.token, body: { value: 'new-secret-22', masked: true } });
      assert.deepEqual([rotate.status, rotate.body], [200, variable('HIDDEN_KEY', null, { hidden: true, masked: true })]);
      const row = await f.forge.database.db.selectFrom('ci_variables').select('value_encrypted').where('key', '=', 'HIDDEN_KEY').executeTakeFirstOrThrow();
      assert.equal(f.forge.deps.secrets.decrypt(row.value_encrypted), 'new-secret-22', 'the new value is stored');
      expectStatus(await f.api('DELETE', pv('/HIDDEN_KEY')), 204);
    });

    it('values, and only values, are encrypted at rest', async () => {
      expectStatus(await f.api('POST', pv(), { body: { key: 'AT_REST', value: 'plain-text-marker-42', description: 'visible description' } }), 201);
      const row = await f.forge.database.db.selectFrom('ci_variables').selectAll().where('key', '=', 'AT_REST').executeTakeFirstOrThrow();
      assert.ok(!row.value_encrypted.includes('plain-text-marker-42'));
      assert.ok(row.value_encrypted.startsWith(`v2.${f.forge.deps.secrets.currentKeyId()}.`));
      assert.deepEqual([row.key, row.description, row.owner], ['AT_REST', 'visible description', `project:${project.id}`]);
      expectStatus(await f.api('DELETE', pv('/AT_REST')), 204);
    });

    it('environment scopes: one key per scope, filter[environment_scope] picks, 409 when ambiguous', async () => {
      expectStatus(await f.api('POST', pv(), { body: { key: 'SCOPED', value: 'everywhere' } }), 201);
      const prod = await f.api('POST', pv(), { body: { key: 'SCOPED', value: 'production-value', environment_scope: 'production' } });
      assert.deepEqual([prod.status, prod.body.environment_scope], [201, 'production']);
      const dup = await f.api('POST', pv(), { body: { key: 'SCOPED', value: 'again', environment_scope: 'production' } });
      assert.deepEqual([dup.status, dup.body], [400, bad({ key: ['(SCOPED) has already been taken'] })]);

      const ambiguous = await f.api('GET', pv('/SCOPED'));
      assert.deepEqual([ambiguous.status, ambiguous.body], [409, MULTIPLE]);
      const picked = await f.api('GET', pv('/SCOPED?filter[environment_scope]=production'));
      assert.deepEqual([picked.status, picked.body.value], [200, 'production-value']);
      const none = await f.api('GET', pv('/SCOPED?filter%5Benvironment_scope%5D=staging'));
      assert.deepEqual([none.status, none.body], [404, { message: '404 Variable Not Found' }]);
      assert.deepEqual((await f.api('PUT', pv('/SCOPED'), { body: { value: 'x' } })).body, MULTIPLE);
      const update = await f.api('PUT', pv('/SCOPED'), { body: { value: 'prod-2', filter: { environment_scope: 'production' } } });
      assert.deepEqual([update.status, update.body.value, update.body.environment_scope], [200, 'prod-2', 'production']);
      // moving a scope onto a taken one is refused
      const clash = await f.api('PUT', pv('/SCOPED?filter[environment_scope]=production'), { body: { environment_scope: '*' } });
      assert.deepEqual([clash.status, clash.body], [400, bad({ key: ['(SCOPED) has already been taken'] })]);
      const moved = await f.api('PUT', pv('/SCOPED?filter[environment_scope]=production'), { body: { environment_scope: 'prod*' } });
      assert.deepEqual([moved.status, moved.body.environment_scope], [200, 'prod*']);
      assert.deepEqual((await f.api('DELETE', pv('/SCOPED'))).body, MULTIPLE);
      expectStatus(await f.api('DELETE', pv('/SCOPED?filter[environment_scope]=prod*')), 204);
      assert.equal((await f.api('GET', pv('/SCOPED'))).body.value, 'everywhere', 'one left: no filter needed');
      expectStatus(await f.api('DELETE', pv('/SCOPED')), 204);
    });

    it('project permissions: Maintainer; Developer 403, outsiders 404, anonymous 401', async () => {
      assert.deepEqual((await f.api('GET', pv(), { token: dev.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('POST', pv(), { token: dev.token, body: { key: 'X', value: 'y' } })).status, 403);
      assert.deepEqual((await f.api('GET', pv('/DEPLOY_TOKEN'), { token: dev.token })).status, 403);
      const hidden = await f.api('GET', pv(), { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      const anon = await f.api('GET', pv(), { token: null });
      assert.deepEqual([anon.status, anon.body], [401, UNAUTHORIZED]);
      assert.equal((await f.api('GET', pv(), { token: maint.token })).status, 200, 'a group Maintainer manages the project');
      assert.equal((await f.api('GET', pv(), { token: admin.token })).status, 200);
    });

    it('group variables: Owner only, GroupVariable errors, the hidden flag, filters', async () => {
      const created = await f.api('POST', gv(), { token: owner.token, body: { key: 'GROUP_KEY', value: 'group-value', masked: 'true', protected: 'false' } });
      expectStatus(created, 201);
      assert.deepEqual(created.body, variable('GROUP_KEY', 'group-value', { masked: true }));
      assert.deepEqual((await f.api('GET', gv(), { token: maint.token })).body, FORBIDDEN, 'Maintainers of the group may not');
      assert.equal((await f.api('GET', gv(), { token: outsider.token })).status, 404);
      assert.deepEqual((await f.api('GET', gv(), { token: null })).body, UNAUTHORIZED);
      const list = await f.api('GET', gv(), { token: owner.token });
      assert.deepEqual(list.body, [created.body]);
      const missing = await f.api('GET', gv('/NOPE'), { token: owner.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 GroupVariable Not Found' }]);
      const put = await f.api('PUT', gv('/GROUP_KEY'), { token: owner.token, body: { value: 'group-value-2', description: 'shared' } });
      assert.deepEqual([put.status, put.body.value, put.body.description], [200, 'group-value-2', 'shared']);
      assert.deepEqual((await f.api('PUT', gv('/NOPE'), { token: owner.token, body: { value: 'x' } })).body, { message: '404 GroupVariable Not Found' });
      const hidden = await f.api('POST', gv(), { token: owner.token, body: { key: 'GROUP_HIDDEN', value: 'group-hidden-1', masked_and_hidden: true } });
      assert.deepEqual(hidden.body, variable('GROUP_HIDDEN', null, { hidden: true, masked: true }));
      const subVar = await f.api('POST', `/groups/${sub.id}/variables`, { token: owner.token, body: { key: 'GROUP_KEY', value: 'sub-value' } });
      assert.deepEqual([subVar.status, subVar.body.value], [201, 'sub-value'], 'the same key in a subgroup');
      const byPath = await f.api('GET', `/groups/${encodeURIComponent('vars-group/sub')}/variables/GROUP_KEY`, { token: owner.token });
      assert.equal(byPath.body.value, 'sub-value');
      const del = await f.api('DELETE', gv('/GROUP_HIDDEN'), { token: owner.token });
      assert.deepEqual([del.status, del.text], [204, '']);
    });

    it('group environment scopes are Premium: ignored on Free, kept on Premium', async () => {
      try {
        expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } }), 200);
        const free = await f.api('POST', gv(), { token: owner.token, body: { key: 'TIERED', value: 'v', environment_scope: 'production' } });
        assert.deepEqual([free.status, free.body.environment_scope], [201, '*']);
        const dup = await f.api('POST', gv(), { token: owner.token, body: { key: 'TIERED', value: 'v', environment_scope: 'staging' } });
        assert.deepEqual([dup.status, dup.body], [400, bad({ key: ['(TIERED) has already been taken'] })], 'both land on *');
        const put = await f.api('PUT', gv('/TIERED'), { token: owner.token, body: { environment_scope: 'production' } });
        assert.deepEqual([put.status, put.body.environment_scope], [200, '*']);
        // project variables keep their scopes on every tier
        const projectScoped = await f.api('POST', pv(), { body: { key: 'TIERED', value: 'v', environment_scope: 'review/*' } });
        assert.deepEqual([projectScoped.status, projectScoped.body.environment_scope], [201, 'review/*']);

        expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'premium' } }), 200);
        const premium = await f.api('POST', gv(), { token: owner.token, body: { key: 'TIERED', value: 'p', environment_scope: 'production' } });
        assert.deepEqual([premium.status, premium.body.environment_scope], [201, 'production']);
        assert.deepEqual((await f.api('GET', gv('/TIERED'), { token: owner.token })).body, MULTIPLE);
        const picked = await f.api('GET', gv('/TIERED?filter[environment_scope]=production'), { token: owner.token });
        assert.equal(picked.body.value, 'p');
        // without a filter the group route updates the first variable with the key (GitLab keeps that for old clients)
        const first = await f.api('PUT', gv('/TIERED'), { token: owner.token, body: { value: 'first' } });
        assert.deepEqual([first.status, first.body.environment_scope, first.body.value], [200, '*', 'first']);
        expectStatus(await f.api('DELETE', gv('/TIERED?filter[environment_scope]=production'), { token: owner.token }), 204);
        expectStatus(await f.api('DELETE', gv('/TIERED'), { token: owner.token }), 204);
        expectStatus(await f.api('DELETE', pv('/TIERED')), 204);
      } finally {
        await f.api('PUT', '/forgelet/tier', { body: { tier: 'ultimate' } });
      }
    });

    it('instance variables: administrators only, no scope or hidden flag, 10,000-character values', async () => {
      const created = await f.api('POST', '/admin/ci/variables', { token: admin.token, body: { key: 'INSTANCE_KEY', value: 'instance-value', protected: true, masked_and_hidden: true, environment_scope: 'production' } });
      expectStatus(created, 201);
      assert.deepEqual(created.body, { variable_type: 'env_var', key: 'INSTANCE_KEY', value: 'instance-value', protected: true, masked: false, raw: false, description: null });
      assert.deepEqual((await f.api('GET', '/admin/ci/variables', { token: owner.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('POST', '/admin/ci/variables', { token: owner.token, body: { key: 'X', value: 'y' } })).status, 403);
      assert.deepEqual((await f.api('GET', '/admin/ci/variables', { token: null })).body, UNAUTHORIZED);
      const list = await f.api('GET', '/admin/ci/variables', { token: admin.token });
      assert.deepEqual([list.status, list.body], [200, [created.body]]);
      const long = await f.api('POST', '/admin/ci/variables', { token: admin.token, body: { key: 'LONG', value: 'x'.repeat(10_001) } });
      assert.deepEqual([long.status, long.body], [400, bad({ value: ['The value of the provided variable exceeds the 10000 character limit'] })]);
      const dup = await f.api('POST', '/admin/ci/variables', { token: admin.token, body: { key: 'INSTANCE_KEY', value: 'y' } });
      assert.deepEqual(dup.body, bad({ key: ['(INSTANCE_KEY) has already been taken'] }));
      const put = await f.api('PUT', '/admin/ci/variables/INSTANCE_KEY', { token: admin.token, body: { value: 'instance-value-2', variable_type: 'file', description: 'all jobs' } });
      assert.deepEqual(put.body, { variable_type: 'file', key: 'INSTANCE_KEY', value: 'instance-value-2', protected: true, masked: false, raw: false, description: 'all jobs' });
      assert.deepEqual((await f.api('GET', '/admin/ci/variables/INSTANCE_KEY', { token: admin.token })).body, put.body);
      const missing = await f.api('GET', '/admin/ci/variables/NOPE', { token: admin.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 InstanceVariable Not Found' }]);
      const del = await f.api('DELETE', '/admin/ci/variables/INSTANCE_KEY', { token: admin.token });
      assert.deepEqual([del.status, del.text], [204, '']);
    });

    it('deleting a project or group removes its variables', async () => {
      const doomed = await createProject(f, owner.token, { name: 'doomed', namespace_id: sub.id });
      expectStatus(await f.api('POST', `/projects/${doomed.id}/variables`, { token: owner.token, body: { key: 'GOES', value: 'away' } }), 201);
      const before = await f.forge.database.db.selectFrom('ci_variables').select('id').where('project_id', '=', doomed.id).execute();
      assert.equal(before.length, 1);
      await f.forge.database.db.deleteFrom('projects').where('id', '=', doomed.id).execute();
      const after = await f.forge.database.db.selectFrom('ci_variables').select('id').where('project_id', '=', doomed.id).execute();
      assert.equal(after.length, 0);
    });
  });
}
