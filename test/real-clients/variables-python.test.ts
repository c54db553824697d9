/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet: CI/CD variables of a project, a group and the instance through its managers
 * (project.variables, group.variables, gl.variables): create, list (one page, every page), get,
 * save, update, delete; masked values refused with GitLab's message, raw masked values, file
 * variables, a masked_and_hidden value never answered again, environment scopes picked with
 * filter[environment_scope] (GET, PUT and DELETE), 409 without it. The flow lives in
 * python_gitlab_variables.py.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { AMBIGUOUS_KEY, HIDDEN_MASKED_UPDATE, HIDDEN_VALUE, INVALID_VALUE, instanceVariable, variable } from './variables-support.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_variables.py', import.meta.url));
const skip = toolSkip('python-gitlab', probePythonGitlab());

const SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";

const refused = (type: string, code: number, message: unknown) => ({ type, response_code: code, error_message: message });

/** What crud() in the script reports, for a project (notFound 'Variable') or a group ('GroupVariable'). */
function assertScopedCrud(s: PythonStep, notFound: string): void {
  const token = variable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true, description: 'deploys' });
  assert.deepEqual(s.created, token);
  assert.deepEqual(s.listed, { 'DEPLOY_TOKEN@*': token, 'CONFIG@*': variable('CONFIG', 'a: $HOME', { variable_type: 'file', raw: true }) });
  assert.deepEqual(s.shown, token);
  assert.deepEqual(s.saved, { ...token, value: 's3cr3t-value-456', protected: false });
  assert.deepEqual(s.updated, variable('CONFIG', 'b: $HOME', { variable_type: 'file' }));
  assert.deepEqual(s.masked_short, refused('GitlabCreateError', 400, INVALID_VALUE));
  assert.deepEqual(s.masked_spaces, refused('GitlabCreateError', 400, INVALID_VALUE));
  assert.deepEqual(s.masked_update, refused('GitlabUpdateError', 400, INVALID_VALUE));
  assert.deepEqual(s.masked_raw, variable('RAW_MASKED', '$not{expanded}!', { masked: true, raw: true }));
  assert.deepEqual(s.bad_key, refused('GitlabCreateError', 400, { key: ["can contain only letters, digits and '_'."] }));
  assert.deepEqual(s.taken, refused('GitlabCreateError', 400, { key: ['(DEPLOY_TOKEN) has already been taken'] }));
  assert.deepEqual(s.missing, refused('GitlabGetError', 404, `404 ${notFound} Not Found`));

  const hidden = variable('HIDDEN', null, { hidden: true, masked: true });
  assert.deepEqual(s.hidden_created, hidden);
  assert.deepEqual(s.hidden_shown, hidden);
  assert.deepEqual(s.hidden_updated, { ...hidden, description: 'rotated' });
  assert.deepEqual(s.hidden_listed, [{ ...hidden, description: 'rotated' }]);
  assert.deepEqual(s.hidden_unmask, refused('GitlabUpdateError', 400, HIDDEN_MASKED_UPDATE));
  assert.doesNotMatch(JSON.stringify(s), new RegExp(HIDDEN_VALUE), 'the hidden value is never answered');

  assert.deepEqual(s.scoped_ambiguous, refused('GitlabGetError', 409, AMBIGUOUS_KEY));
  assert.deepEqual(s.scoped_get, variable('SCOPED', 'stage-value', { environment_scope: 'review/*' }));
  assert.deepEqual(s.scoped_update, variable('SCOPED', 'stage-2', { environment_scope: 'review/*' }));
  assert.deepEqual(s.scoped_other, variable('SCOPED', 'prod-value', { environment_scope: 'production' }), 'the update changed only the filtered scope');
  assert.deepEqual(s.scoped_after_delete, [['review/*', 'stage-2']], 'the delete removed only the filtered scope');
  assert.deepEqual(s.scoped_unfiltered, variable('SCOPED', 'stage-2', { environment_scope: 'review/*' }));
  assert.deepEqual(s.bad_scope, refused('GitlabCreateError', 400, { environment_scope: [SCOPE_MESSAGE] }));

  assert.deepEqual(s.after_delete, ['HIDDEN', 'RAW_MASKED', 'SCOPED']);
  assert.deepEqual(s.get_deleted, refused('GitlabGetError', 404, `404 ${notFound} Not Found`));
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 CI/CD variables`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2026-03-02T10:00:00.000Z' } });
      results = (await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken })).results;
    });
    after(async () => {
      await f?.stop();
    });

    it('project variables: project.variables, masking, hidden values, environment scopes with filter', () => {
      stepOf('setup');
      assertScopedCrud(stepOf('project_variables'), 'Variable');
    });

    it('group variables: group.variables, the same rules (environment scopes on Premium and up)', () => {
      assertScopedCrud(stepOf('group_variables'), 'GroupVariable');
    });

    it('instance variables: gl.variables, masking, the 10,000-character limit', () => {
      const s = stepOf('instance_variables');
      const token = instanceVariable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true, description: 'deploys' });
      assert.deepEqual(s.created, token);
      assert.deepEqual(s.listed, { 'DEPLOY_TOKEN@-': token, 'CONFIG@-': instanceVariable('CONFIG', 'a: $HOME', { variable_type: 'file', raw: true }) });
      assert.deepEqual(s.shown, token);
      assert.deepEqual(s.saved, { ...token, value: 's3cr3t-value-456', protected: false });
      assert.deepEqual(s.updated, instanceVariable('CONFIG', 'b: $HOME', { variable_type: 'file' }));
      assert.deepEqual(s.masked_short, refused('GitlabCreateError', 400, INVALID_VALUE));
      assert.deepEqual(s.masked_spaces, refused('GitlabCreateError', 400, INVALID_VALUE));
      assert.deepEqual(s.masked_update, refused('GitlabUpdateError', 400, INVALID_VALUE));
      assert.deepEqual(s.masked_raw, instanceVariable('RAW_MASKED', '$not{expanded}!', { masked: true, raw: true }));
      assert.deepEqual(s.taken, refused('GitlabCreateError', 400, { key: ['(DEPLOY_TOKEN) has already been taken'] }));
      assert.deepEqual(s.missing, refused('GitlabGetError', 404, '404 InstanceVariable Not Found'));
      assert.deepEqual(s.too_long, refused('GitlabCreateError', 400, { value: ['The value of the provided variable exceeds the 10000 character limit'] }));
      assert.deepEqual(s.after_delete, ['RAW_MASKED']);
      assert.deepEqual(s.get_deleted, refused('GitlabGetError', 404, '404 InstanceVariable Not Found'));
    });

    it('lists page by page: one page of 20, get_all follows the Link header to all 26', () => {
      const s = stepOf('pagination');
      assert.deepEqual([s.first_page, s.all], [20, 26]);
      assert.deepEqual(s.keys, Array.from({ length: 23 }, (_, i) => `BULK_${String(i).padStart(2, '0')}`));
    });
  });
}
