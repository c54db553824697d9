/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet: the substrate stock tools call (issue 27). The flow lives in
 * python_gitlab_substrate.py, which prints one JSON object with each step's results and the
 * HTTP exchanges it made; the tests below assert on it.
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

const SCRIPT = fileURLToPath(new URL('./python_gitlab_substrate.py', import.meta.url));
const skip = toolSkip('python-gitlab', probePythonGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 namespaces and tokens`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let alice: { id: number; username: string; token: string };
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      f = await startServed(dialect, { tier: 'premium' });
      alice = await f.createUser('alice');
      const run = await runPythonSteps(SCRIPT, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken, ALICE_TOKEN: alice.token });
      results = run.results;
      console.log(`[${dialect}] python-gitlab substrate: script ${run.ms} ms`);
    });
    after(() => f?.stop());

    it('namespaces: list, search, get by full path and id, exists (http_get), 404 for others', () => {
      const s = stepOf('namespaces');
      assert.deepEqual(s.listed, [['user', 'alice'], ['group', 'platform'], ['group', 'platform/tools']]);
      assert.deepEqual(s.searched, ['platform/tools']);
      assert.deepEqual(s.by_path, {
        id: s.sub_id,
        name: 'Tools',
        path: 'tools',
        kind: 'group',
        full_path: 'platform/tools',
        parent_id: s.group_id,
        avatar_url: null,
        web_url: `${f.url}/groups/platform/tools`,
        members_count_with_descendants: 1,
        billable_members_count: 1,
        plan: 'default',
        trial_ends_on: null,
        trial: false,
      });
      assert.deepEqual(s.by_id, s.by_path);
      assert.deepEqual(s.exists, { exists: true, suggests: ['platform1'] });
      assert.deepEqual(s.exists_under_parent, { exists: true, suggests: ['tools1'] });
      assert.deepEqual(s.hidden, { type: 'GitlabGetError', response_code: 404, message: '404 Namespace Not Found' });
      assert.ok(s.exchanges.some((e: unknown[]) => e[0] === 'GET' && e[1] === '/namespaces/platform%2Ftools'), 'the full path goes encoded');
    });

    it('label priority: create with it, save() changes it (PUT …/labels with name), None removes it', () => {
      const s = stepOf('label_priority');
      assert.deepEqual(
        { created: s.created, after_save: s.after_save, after_clear: s.after_clear, listed: s.listed },
        { created: 2, after_save: 5, after_clear: null, listed: [['bug', null]] },
      );
    });

    it('approvals_before_merge: in the project entity (Premium), set by save(), the approval settings agree', () => {
      const s = stepOf('approvals_before_merge');
      assert.deepEqual({ before: s.before, after: s.after, settings: s.settings }, { before: 0, after: 2, settings: 2 });
    });

    it('impersonation tokens: create (token once), get, list by state, delete; they authenticate as the user', () => {
      const s = stepOf('impersonation_tokens');
      assert.equal(s.token_prefix, 'glpat-');
      assert.equal(s.authenticated_as, 'alice');
      assert.deepEqual([s.created.impersonation, s.created.name, s.created.scopes, s.created.expires_at], [true, 'support', ['api', 'read_user'], '2099-01-01']);
      assert.equal(s.got.impersonation, true);
      assert.equal('token' in s.got, false);
      assert.deepEqual([s.active, s.inactive, s.all], [['support'], ['second'], ['support', 'second']]);
    });

    it('deploy tokens: project and group create/get/list/delete, the instance list', () => {
      const s = stepOf('deploy_tokens');
      assert.equal(s.token_prefix, 'gldt-');
      assert.deepEqual(s.created, {
        id: s.created.id,
        name: 'ci',
        username: `gitlab+deploy-token-${s.created.id}`,
        expires_at: '2099-01-01T00:00:00.000Z',
        scopes: ['read_package_registry', 'write_package_registry'],
        revoked: false,
        expired: false,
      });
      assert.deepEqual(s.got, s.created);
      assert.deepEqual([s.listed, s.group_listed, s.instance, s.after_delete], [['ci'], ['grp-bot'], ['ci', 'grp'], []]);
      assert.deepEqual(s.missing, { type: 'GitlabGetError', response_code: 404, message: '404 Deploy Token Not Found' });
    });

    it('rotation: a personal token by an admin and a project access token by its Owner (http_post)', () => {
      const s = stepOf('rotation');
      assert.deepEqual(s.rotated, { name: 'rotating', expires_at: '2099-02-01', prefix: 'glpat-', new_id: true });
      assert.deepEqual(s.bot, { name: 'bot', expires_at: '2099-03-01', resource_type: 'project' });
      assert.deepEqual(s.again, { type: 'GitlabHttpError', response_code: 400, message: '400 Bad request - Token already revoked' });
    });
  });
}
