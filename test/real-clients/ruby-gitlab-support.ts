/**
 * Debian's ruby-gitlab 4.17 (the gitlab gem; its CLI `gitlab` is installed as /usr/bin/ruby-gitlab
 * on Debian 12), configured as users do with GITLAB_API_ENDPOINT and GITLAB_API_PRIVATE_TOKEN.
 * Both the CLI and `ruby` are looked up on PATH, so tool-guard.test.ts hides them with the rest.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import type { ServedForgelet } from '../support/served.js';

export const RUBY_GITLAB = 'ruby-gitlab';

/** Null when the CLI runs and `ruby` can load the gem, else why not. */
export function probeRubyGitlab(): string | null {
  const cli = spawnSync(RUBY_GITLAB, ['-v'], { encoding: 'utf8', timeout: 30_000 });
  if (cli.error) return `${RUBY_GITLAB} cannot run (apt-get install -y ruby-gitlab): ${cli.error.message}`;
  if (cli.status !== 0 || !/Gitlab Ruby Gem 4\./.test(cli.stdout)) return `${RUBY_GITLAB} -v: ${cli.stdout.trim()} ${cli.stderr.trim()}`;
  const gem = spawnSync('ruby', ['-rgitlab', '-e', 'print Gitlab::VERSION'], { encoding: 'utf8', timeout: 30_000 });
  if (gem.error || gem.status !== 0) return `ruby cannot load the gitlab gem: ${gem.error?.message ?? gem.stderr.trim()}`;
  return null;
}

function env(f: ServedForgelet, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, GITLAB_API_ENDPOINT: `${f.url}/api/v4`, GITLAB_API_PRIVATE_TOKEN: f.rootToken, ...extra };
}

/**
 * `ruby-gitlab <command> <args…> --json`, answering its "Are you sure?" with y; the parsed
 * output (`{cmd, result}`, or `{}` for an empty answer). The CLI reports a refused request on
 * stdout and exits 1: that rejects with what it printed.
 */
export function rubyGitlab(f: ServedForgelet, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = execFile(RUBY_GITLAB, [...args, '--json'], { env: env(f), timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`ruby-gitlab ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
      // A confirmation prompt comes before the JSON.
      const json = stdout.slice(stdout.search(/^[{[]/m));
      try {
        resolve(JSON.parse(json));
      } catch {
        reject(new Error(`ruby-gitlab ${args.join(' ')} printed no JSON:\n${stdout}\n${stderr}`));
      }
    });
    child.stdin!.end('y\n');
  });
}

/** What `ruby-gitlab` prints and its exit status, for a command that must fail. */
export function rubyGitlabFailure(f: ServedForgelet, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(RUBY_GITLAB, args, { env: env(f), timeout: 60_000 }, (err, stdout) => resolve({ code: err ? (err.code as number) : 0, stdout: stdout.trim() }));
    child.stdin!.end('y\n');
  });
}

/** Runs a ruby script (the gem loaded by it) that prints one JSON object, one key per step; a step that raised fails the test. */
export function runRubySteps(f: ServedForgelet, script: string, extra: Record<string, string>): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile('ruby', [script], { env: env(f, extra), timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`ruby ${script}: ${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`ruby ${script} printed no JSON:\n${stdout}\n${stderr}`));
      }
    });
  });
}

export function rubyStep(results: Record<string, any>, name: string): any {
  const s = results[name];
  assert.ok(s, `ruby step ${name} did not run`);
  if (s.error) assert.fail(`ruby step ${name} raised ${s.error.type}: ${s.error.message}\n${(s.error.trace ?? []).join('\n')}`);
  return s;
}
