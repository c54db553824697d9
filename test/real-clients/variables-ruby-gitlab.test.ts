/**
 * Debian's ruby-gitlab 4.17 against the served Forgelet: CI/CD variables through its CLI
 * (`ruby-gitlab … --json`: create_variable, variables, variable, update_variable,
 * remove_variable and the group_ ones, by path), then with the options the CLI cannot pass
 * (masked, protected, environment_scope, masked_and_hidden, filter) through the gem's methods and
 * its http layer in ruby_gitlab_variables.rb, instance variables included (4.17 has no method for them).
 *
 * Without the CLI or ruby the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { probeRubyGitlab, rubyGitlab, rubyStep, runRubySteps } from './ruby-gitlab-support.js';
import { AMBIGUOUS_KEY, HIDDEN_MASKED_UPDATE, HIDDEN_VALUE, INVALID_VALUE, instanceVariable, variable } from './variables-support.js';

const SCRIPT = fileURLToPath(new URL('./ruby_gitlab_variables.rb', import.meta.url));
const skip = toolSkip('ruby-gitlab', probeRubyGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: ruby-gitlab 4.17 CI/CD variables`, { skip }, () => {
    let f: ServedForgelet;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2026-03-02T10:00:00.000Z' } });
      group = (await f.api('POST', '/groups', { body: { name: 'Ruby Vars', path: 'ruby-vars' } })).body;
      project = (await f.api('POST', '/projects', { body: { name: 'app', namespace_id: group.id } })).body;
    });
    after(async () => {
      await f?.stop();
    });

    it('the CLI: project and group variables created, listed, shown, updated, removed', async () => {
      // The project's and the group's run side by side (each CLI call starts ruby).
      const cycle = async (kind: '' | 'group_', id: string) => {
        const created = await rubyGitlab(f, [`create_${kind}variable`, id, 'CLI_VAR', 'from-the-cli']);
        assert.deepEqual(created.result, variable('CLI_VAR', 'from-the-cli'));
        assert.deepEqual((await rubyGitlab(f, [`${kind}variables`, id])).result, [created.result]);
        assert.deepEqual((await rubyGitlab(f, [`${kind}variable`, id, 'CLI_VAR'])).result, created.result);
        assert.deepEqual((await rubyGitlab(f, [`update_${kind}variable`, id, 'CLI_VAR', 'updated-value'])).result, variable('CLI_VAR', 'updated-value'));
        await rubyGitlab(f, [`remove_${kind}variable`, id, 'CLI_VAR']);
        assert.deepEqual(await rubyGitlab(f, [`${kind}variables`, id]), {});
      };
      await Promise.all([cycle('', project.path_with_namespace), cycle('group_', group.full_path)]);
    });

    it('the gem: masking refused, hidden values, environment scopes with filter; instance variables through its http layer', async () => {
      const results = await runRubySteps(f, SCRIPT, { PROJECT: project.path_with_namespace, GROUP: group.full_path, HIDDEN_VALUE });
      assert.match(results.version, /^4\./);
      assert.doesNotMatch(JSON.stringify(results), new RegExp(HIDDEN_VALUE), 'the hidden value is never answered');
      for (const kind of ['project', 'group']) {
        const s = rubyStep(results, kind);
        assert.deepEqual(s.masked_short, { status: 400, message: INVALID_VALUE }, kind);
        assert.deepEqual(s.created, variable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true, description: 'deploys' }));
        assert.deepEqual(s.masked_update, { status: 400, message: INVALID_VALUE });
        const hidden = variable('HIDDEN', null, { hidden: true, masked: true });
        assert.deepEqual([s.hidden, s.hidden_shown], [hidden, hidden]);
        assert.deepEqual(s.hidden_unmask, { status: 400, message: HIDDEN_MASKED_UPDATE });
        assert.deepEqual(s.ambiguous, { status: 409, message: AMBIGUOUS_KEY });
        assert.deepEqual(s.scoped_get, variable('SCOPED', 'stage-value', { environment_scope: 'review/*' }));
        assert.deepEqual(s.scoped_update, variable('SCOPED', 'stage-2', { environment_scope: 'review/*' }), 'the form-encoded filter[environment_scope] picked the scope');
        assert.deepEqual(s.scoped_after, [['review/*', 'stage-2']]);
        assert.deepEqual(s.listed, [['DEPLOY_TOKEN', 's3cr3t-value-123'], ['HIDDEN', null], ['SCOPED', 'stage-2']]);
        assert.deepEqual(s.after, []);
      }
      const i = rubyStep(results, 'instance');
      const token = instanceVariable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true });
      assert.deepEqual(i.masked_short, { status: 400, message: INVALID_VALUE });
      assert.deepEqual([i.created, i.listed, i.shown], [token, [token], token]);
      assert.deepEqual(i.updated, { ...token, value: 's3cr3t-value-456', protected: false });
      assert.deepEqual(i.after, []);
      assert.deepEqual(i.get_deleted, { status: 404, message: '404 InstanceVariable Not Found' });
    });
  });
}
