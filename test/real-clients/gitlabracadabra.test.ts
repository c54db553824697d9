/**
 * Debian's gitlabracadabra 1.12 (/usr/bin/gitlabracadabra, python-gitlab 3.12 underneath)
 * against the served Forgelet: test/fixtures/gitlabracadabra/substrate.yml (a group, a subgroup,
 * a project with approvals_before_merge, prioritized labels, CI/CD variables and a webhook,
 * group variables; gitlabracadabra 1.12 has no `environment_scope` for group variables) applied
 * twice. The first run looks the parents up with GET /namespaces/:id and creates everything; the second must change
 * nothing: it logs no change and sends no write.
 *
 * Without gitlabracadabra the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { toolSkip } from '../support/tools.js';

// Looked up on PATH (Debian puts it in /usr/bin), so that the tool guard can hide it.
const TOOL = process.env.TEST_GITLABRACADABRA || 'gitlabracadabra';
const ACTIONS = fileURLToPath(new URL('../fixtures/gitlabracadabra/substrate.yml', import.meta.url));

function probe(): string | null {
  const r = spawnSync(TOOL, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) return `${TOOL} cannot run (apt-get install -y gitlabracadabra): ${r.error.message}`;
  if (r.status !== 0) return `${TOOL} --version failed: ${r.stderr.trim()}`;
  return null;
}
const skip = toolSkip('gitlabracadabra', probe());

/** One run: its log lines (stderr, `-v`) and the requests the server logged meanwhile. */
function apply(config: string): Promise<{ log: string[]; code: number }> {
  return new Promise((resolve) => {
    execFile(TOOL, ['-c', config, '-v', ACTIONS], { timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ log: `${stdout}${stderr}`.split('\n').filter(Boolean), code: typeof code === 'number' ? code : 1 });
    });
  });
}

/** `METHOD path status` of the access-log lines from `from` on. */
function requests(f: ServedForgelet, from: number): string[] {
  return f
    .stdoutLines()
    .slice(from)
    .map((l) => l.split(' '))
    .filter((w) => /^[A-Z]+$/.test(w[1] ?? '') && (w[2] ?? '').startsWith('/api/v4/'))
    .map((w) => `${w[1]} ${w[2]!.slice('/api/v4'.length)} ${w[3]}`);
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitlabracadabra applies a configuration twice`, { skip }, () => {
    let f: ServedForgelet;
    let dir: string;
    let first: { log: string[]; code: number; requests: string[] };
    let second: { log: string[]; code: number; requests: string[] };

    before(async () => {
      // The hook's URL is a loopback one: allowed as GitLab's allow_local_requests_from_web_hooks_and_services does.
      f = await startServed(dialect, { tier: 'premium', args: ['--allow-local-egress'] });
      dir = mkdtempSync(join(tmpdir(), 'forgelet-gitlabracadabra-'));
      const config = join(dir, 'python-gitlab.cfg');
      writeFileSync(config, `[global]\ndefault = forgelet\n\n[forgelet]\nurl = ${f.url}\nprivate_token = ${f.rootToken}\n`);
      let mark = f.stdoutLines().length;
      const one = await apply(config);
      first = { ...one, requests: requests(f, mark) };
      mark = f.stdoutLines().length;
      const two = await apply(config);
      second = { ...two, requests: requests(f, mark) };
    });
    after(async () => {
      await f?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('the first run looks parents up by namespace and creates the group, subgroup, project and labels', () => {
      assert.equal(first.code, 0, first.log.join('\n'));
      assert.ok(first.requests.includes('GET /namespaces/platform 200'), first.requests.join('\n'));
      assert.ok(first.requests.includes('GET /namespaces/platform%2Ftools 200'), first.requests.join('\n'));
      const changes = first.log.filter((l) => /Creating|Changing|Adding/.test(l)).map((l) => l.replace(/^\S+\s+/, ''));
      assert.ok(changes.includes('[platform/tools/app] Creating project'), changes.join('\n'));
      assert.ok(changes.includes('[platform/tools/app] Changing param approvals_before_merge: 0 -> 2'), changes.join('\n'));
      assert.equal(changes.filter((l) => l.includes('Adding label')).length, 3);
      assert.ok(changes.some((l) => l.startsWith('[platform] Adding variable GROUP_TOKEN')), changes.join('\n'));
      assert.equal(changes.filter((l) => l.startsWith('[platform/tools/app] Adding variable')).length, 2, changes.join('\n'));
      assert.ok(changes.some((l) => l.startsWith('[platform/tools/app] Adding webhook http://127.0.0.1:9/forgelet-hook')), changes.join('\n'));
    });

    it('the server holds what the file says', async () => {
      const project = await f.api('GET', '/projects/platform%2Ftools%2Fapp');
      assert.deepEqual([project.body.description, project.body.approvals_before_merge], ['The app', 2]);
      const labels = await f.api('GET', `/projects/${project.body.id}/labels`);
      assert.deepEqual(labels.body.map((l: any) => [l.name, l.color, l.priority]), [['bug', '#d9534f', 1], ['critical', '#FF0000', 0], ['docs', '#428BCA', null]]);
      const variables = await f.api('GET', `/projects/${project.body.id}/variables`);
      assert.deepEqual(
        variables.body.map((v: any) => [v.key, v.value, v.variable_type, v.protected, v.masked, v.environment_scope]).sort(),
        [['CONFIG_FILE', 'config line', 'file', false, false, '*'], ['DEPLOY_ENV', 'staging', 'env_var', true, false, 'production']],
      );
      const groupVariables = await f.api('GET', '/groups/platform/variables');
      assert.deepEqual(groupVariables.body.map((v: any) => [v.key, v.value, v.masked, v.protected, v.environment_scope]), [['GROUP_TOKEN', 'group-secret-value-1', true, false, '*']]);
      const hooks = await f.api('GET', `/projects/${project.body.id}/hooks`);
      assert.deepEqual(hooks.body.map((h: any) => [h.url, h.push_events, h.issues_events, h.note_events, h.enable_ssl_verification]), [['http://127.0.0.1:9/forgelet-hook', false, true, true, true]]);
      const sub = await f.api('GET', '/namespaces/platform%2Ftools');
      assert.deepEqual([sub.body.kind, sub.body.name], ['group', 'Tools']);
    });

    it('the second run changes nothing: no change logged, no write sent', () => {
      assert.equal(second.code, 0, second.log.join('\n'));
      assert.deepEqual(second.log.filter((l) => /Creating|Changing|Adding|Deleting|Removing/.test(l)), []);
      assert.deepEqual(second.requests.filter((r) => !r.startsWith('GET ')), []);
      assert.ok(second.requests.length >= 4, second.requests.join('\n'));
    });
  });
}
