/**
 * The job's sources with git, as GitLab's runner gets them (its `get_sources` stage): a fresh
 * repository in the project directory, `git fetch` of the job's refspecs from
 * `git_info.repo_url` (which carries the job token) with `--depth` from `GIT_DEPTH` (else the
 * payload's depth; 0 fetches everything), then `git checkout -f` of the job's sha. The sha is
 * fetched by itself when the branch has moved more than the depth past it.
 */
import { spawn } from 'node:child_process';
import type { JobPayload } from '@forgelet/client';
import type { JobTrace } from './trace.js';

export class GitSourcesError extends Error {
  override name = 'GitSourcesError';
}

function runGit(cwd: string, args: string[], signal?: AbortSignal): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'credential.helper=', '-c', 'advice.detachedHead=false', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A job variable's value (the last definition wins, as the runner's environment has it). */
function variable(job: JobPayload, key: string): string | undefined {
  const list = Array.isArray(job.variables) ? job.variables : [];
  let value: string | undefined;
  for (const v of list) if (v?.key === key && typeof v.value === 'string') value = v.value;
  return value;
}

/** `GIT_STRATEGY: none`: the job starts from an empty directory. */
export function gitStrategy(job: JobPayload): string {
  return (variable(job, 'GIT_STRATEGY') ?? 'fetch').trim().toLowerCase();
}

/**
 * Clones the job's sha into `dir` (an empty directory); returns the tracked files' paths.
 * Throws GitSourcesError with git's last words (the token masked by the trace).
 */
export async function fetchWithGit(job: JobPayload, dir: string, trace: JobTrace, signal?: AbortSignal): Promise<Set<string>> {
  const info = job.git_info!;
  const sha = info.sha;
  const depthText = variable(job, 'GIT_DEPTH');
  const depth = depthText !== undefined && /^\d+$/.test(depthText.trim()) ? Number(depthText.trim()) : Number(info.depth ?? 0);
  const must = async (args: string[]) => {
    const r = await runGit(dir, args, signal);
    if (r.code !== 0) throw new GitSourcesError(`git ${args[0]} failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
    return r.stdout;
  };
  trace.line(depth > 0 ? `Fetching changes with git depth set to ${depth}...` : 'Fetching changes...');
  await must(['init', '-q', '.']);
  trace.line(`Initialized empty Git repository in ${dir}/.git/`);
  trace.line('Created fresh repository.');
  await must(['remote', 'add', 'origin', info.repo_url]);
  const refspecs = Array.isArray(info.refspecs) && info.refspecs.length ? info.refspecs : [`+${sha}:refs/remotes/origin/${info.ref}`];
  const depthArgs = depth > 0 ? ['--depth', String(depth)] : [];
  await must(['fetch', '-q', '--prune', '--no-tags', ...depthArgs, 'origin', ...refspecs]);
  const present = await runGit(dir, ['cat-file', '-e', `${sha}^{commit}`], signal);
  // The branch moved on past the depth: ask for the commit itself (protocol v2 serves any reachable one).
  if (present.code !== 0) await must(['fetch', '-q', '--no-tags', ...depthArgs, 'origin', sha]);
  trace.line(`Checking out ${sha.slice(0, 8)} as detached HEAD (ref is ${info.ref})...`);
  await must(['checkout', '-f', '-q', sha]);
  trace.line('Skipping Git submodules setup');
  const listed = await must(['ls-files', '-z']);
  return new Set(listed.split('\0').filter(Boolean));
}
