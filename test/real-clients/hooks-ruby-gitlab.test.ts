/**
 * Debian's ruby-gitlab 4.17 against the served Forgelet: its CLI (`ruby-gitlab … --json`, as
 * users run it) for the hook commands it has: add_project_hook (options as YAML), project_hooks,
 * project_hook, edit_project_hook, delete_project_hook, add_hook, hooks, hook, delete_hook; a local
 * receiver gets the issue event of the hook it added (GitLab's headers, token, payload). What the
 * gem has no method for (group hooks, a system hook's edit, test triggers, custom headers, URL
 * variables, recent deliveries, resend) goes through the gem's http layer in ruby_gitlab_hooks.rb.
 *
 * Without the CLI or ruby the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { assertGitlabDelivery, T0 } from './hooks-support.js';
import { probeRubyGitlab, rubyGitlab, rubyGitlabFailure, rubyStep, runRubySteps } from './ruby-gitlab-support.js';

const SCRIPT = fileURLToPath(new URL('./ruby_gitlab_hooks.rb', import.meta.url));
const skip = toolSkip('ruby-gitlab', probeRubyGitlab());

const KEYS = {
  with_keys: { custom_headers: [{ key: 'X-Rb' }], url_variables: [{ key: 'spare' }] },
  after: { custom_headers: [], url_variables: [] },
  unset_missing: { status: 404, message: '404 Custom header Not Found' },
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: ruby-gitlab 4.17 hooks`, { skip }, () => {
    let f: ServedForgelet;
    let rx: HookReceiver;
    let version: string;
    let group: { id: number };
    let project: { id: number; path_with_namespace: string };
    const at = (path: string) => rx.deliveries.filter((d) => d.path === path);

    before(async () => {
      f = await startServed(dialect, { clock: { now: T0 } });
      rx = await hookReceiver();
      version = (await f.api<{ version: string }>('GET', '/version')).body.version;
      group = (await f.api('POST', '/groups', { body: { name: 'Rubies', path: 'rubies' } })).body;
      project = (await f.api('POST', '/projects', { body: { name: 'rubybot', namespace_id: group.id } })).body;
    });
    after(async () => {
      await f?.stop();
      await rx?.close();
    });

    it('the CLI: project and system hooks added, listed, shown, edited, an issue event delivered; the rest through the gem, then deleted', async () => {
      // Each CLI call starts ruby: the project hook's commands, the system hook's and a refusal run side by side.
      const projectHookCli = async () => {
        const added = await rubyGitlab(f, ['add_project_hook', project.path_with_namespace, `${rx.url}/ruby`, '{issues_events: true, push_events: false, token: rb}']);
        assert.equal(added.cmd, `Gitlab.add_project_hook ${project.path_with_namespace}, ${rx.url}/ruby, {:issues_events=>true, :push_events=>false, :token=>"rb"}`);
        const hook = added.result;
        assert.deepEqual([hook.url, hook.issues_events, hook.push_events, hook.project_id, hook.token], [`${rx.url}/ruby`, true, false, project.id, undefined]);
        assert.deepEqual((await rubyGitlab(f, ['project_hooks', project.path_with_namespace])).result.map((h: { id: number }) => h.id), [hook.id]);
        assert.deepEqual((await rubyGitlab(f, ['project_hook', String(project.id), String(hook.id)])).result, hook);
        const edited = (await rubyGitlab(f, ['edit_project_hook', String(project.id), String(hook.id), `${rx.url}/ruby`, '{note_events: true}'])).result;
        assert.deepEqual([edited.note_events, edited.issues_events], [true, true]);
        return hook;
      };
      const systemHookCli = async () => {
        const sys = (await rubyGitlab(f, ['add_hook', `${rx.url}/ruby-system`, '{merge_requests_events: true, push_events: false, token: rbsys}'])).result;
        assert.deepEqual([sys.merge_requests_events, sys.push_events], [true, false]);
        assert.deepEqual((await rubyGitlab(f, ['hooks'])).result.map((h: { id: number }) => h.id), [sys.id]);
        assert.deepEqual((await rubyGitlab(f, ['hook', String(sys.id)])).result, sys);
        return sys;
      };
      const [hook, sys, refused] = await Promise.all([
        projectHookCli(),
        systemHookCli(),
        rubyGitlabFailure(f, ['add_project_hook', String(project.id), 'ftp://example.com/x']),
      ]);
      assert.equal(refused.code, 1);
      assert.match(refused.stdout, /Server responded with code 422, message: Invalid url given\./);

      const issue = (await rubyGitlab(f, ['create_issue', String(project.id), 'from ruby'])).result;
      const got = await until('the issue event', async () => {
        await f.runDue();
        return at('/ruby')[0];
      });
      assertGitlabDelivery(got, { event: 'Issue Hook', token: 'rb', instance: f.url, version });
      assert.deepEqual([got.body.object_kind, got.body.project.id, got.body.object_attributes.iid, got.body.object_attributes.title], ['issue', project.id, issue.iid, 'from ruby']);

      const results = await runRubySteps(f, SCRIPT, {
        RECEIVER_URL: rx.url,
        PROJECT_ID: String(project.id),
        PROJECT_HOOK_ID: String(hook.id),
        GROUP_ID: String(group.id),
        SYSTEM_HOOK_ID: String(sys.id),
      });
      assert.match(results.version, /^4\./);
      const p = rubyStep(results, 'project_hook');
      assert.deepEqual(p.keys, KEYS);
      assert.deepEqual(p.tested, { message: '201 Created' });
      assert.deepEqual(p.events, [['issue_hooks', '200'], ['issue_hooks', '200']]);
      assert.deepEqual(p.resent, { response_status: 200 });
      assert.equal(p.after_resend, 3);
      const [event, test, resend] = at('/ruby');
      assert.equal(test!.body.object_attributes.iid, issue.iid);
      assert.equal(resend!.headers['idempotency-key'], event!.headers['idempotency-key']);

      const g = rubyStep(results, 'group_hooks');
      assert.deepEqual([g.created.group_id, g.created.issues_events, g.created.push_events], [group.id, true, false]);
      assert.deepEqual(g.listed, [g.created.id]);
      assert.deepEqual(g.shown, g.created);
      assert.equal(g.updated.subgroup_events, true);
      assert.deepEqual(g.tested, { message: '201 Created' });
      assert.equal(g.events, 1);
      assert.deepEqual(g.resent, { response_status: 200 });
      assert.deepEqual(g.keys, KEYS);
      assert.deepEqual(g.after, []);
      assert.deepEqual(g.get_deleted, { status: 404, message: '404 Not found' });
      assert.equal(at('/ruby-group').length, 2);
      for (const d of at('/ruby-group')) assertGitlabDelivery(d, { event: 'Issue Hook', token: 'rb-group', instance: f.url, version });

      const s = rubyStep(results, 'system_hook');
      assert.deepEqual([s.updated.tag_push_events, s.updated.name], [true, 'rb system']);
      assert.equal(s.tested.event_name, 'project_create');
      assert.deepEqual(s.keys, KEYS);
      assertGitlabDelivery(at('/ruby-system')[0]!, { event: 'System Hook', token: 'rbsys', instance: f.url, version });

      await Promise.all([
        rubyGitlab(f, ['delete_project_hook', String(project.id), String(hook.id)]),
        rubyGitlab(f, ['delete_hook', String(sys.id)]),
      ]);
      assert.deepEqual(await Promise.all([rubyGitlab(f, ['project_hooks', String(project.id)]), rubyGitlab(f, ['hooks'])]), [{}, {}]);
    });
  });
}
