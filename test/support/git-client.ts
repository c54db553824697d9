/** Debian's `git` client as a user runs it, for tests of git over HTTP: no system or user configuration, no credential helper, no prompts. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

export interface GitOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `git` client as a user would, without any configuration of this machine. */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'credential.helper=', '-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C', LC_ALL: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export async function gitOk(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const r = await git(cwd, args, env);
  assert.equal(r.code, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
