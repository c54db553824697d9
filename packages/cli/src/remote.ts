/**
 * Remote commands talk to a server through @forgelet/client: a URL and token from flags,
 * else the environment (FORGELET_URL / FORGELET_TOKEN), else a profile saved by `forgelet
 * login` (`--profile NAME` or FORGELET_PROFILE, else the default profile). Failures become
 * CliErrors with the server's message, or a message naming the unreachable server.
 */
import type { Command } from 'commander';
import { ApiError, CatalogMutationError, Forgelet, GraphqlFieldError } from '@forgelet/client';
import { CliError, UsageError } from './errors.js';
import { checkProfileName, readConfig, selectProfile } from './profiles.js';

export interface RemoteFlags {
  url?: string;
  token?: string;
  /** A profile saved by `forgelet login`. */
  profile?: string;
}

export interface Remote {
  url: string;
  api: Forgelet;
  /** The saved profile the URL or token came from, if any. */
  profile?: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

const trimUrl = (url: string) => url.replace(/\/+$/, '');
const set = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * Flags win over the environment, which wins over the profile. A profile's token is only sent
 * to the profile's own URL: with `--url`/FORGELET_URL pointing elsewhere it is not used.
 */
export function resolveRemote(flags: RemoteFlags, env: NodeJS.ProcessEnv): Remote {
  const profileName = flags.profile ?? set(env.FORGELET_PROFILE);
  if (profileName !== undefined) checkProfileName(profileName);
  let url = flags.url ?? set(env.FORGELET_URL);
  let token = flags.token ?? set(env.FORGELET_TOKEN);
  let profile: string | undefined;
  let mismatch: { name: string; url: string } | undefined;
  // The profile is read only when it has something to give: the URL or the token.
  if (token === undefined || url === undefined) {
    const selected = selectProfile(readConfig(env), profileName);
    if (selected) {
      const profileUrl = trimUrl(selected.profile.url);
      if (url === undefined) url = profileUrl;
      if (trimUrl(url) === profileUrl) {
        if (token === undefined) token = selected.profile.token;
        profile = selected.name;
      } else if (token === undefined) {
        mismatch = { name: selected.name, url: profileUrl };
      }
    }
  }
  url = trimUrl(url ?? DEFAULT_URL);
  if (!token) {
    if (mismatch) throw new UsageError(`profile "${mismatch.name}" is for ${mismatch.url}, not ${url}: pass --token or set FORGELET_TOKEN`);
    throw new UsageError('an admin token is needed: pass --token, set FORGELET_TOKEN or run forgelet login');
  }
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url (FORGELET_URL) must be an http:// or https:// URL, got "${url}"`);
  return { url, api: new Forgelet({ url, token }), ...(profile !== undefined && { profile }) };
}

/** `--url`, `--token`, `--profile` and `--json`, as every remote command takes them. */
export function remoteOptions(cmd: Command, tokenWhat = 'an access token'): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, else the profile's, default ${DEFAULT_URL})`)
    .option('--token <token>', `${tokenWhat} (env FORGELET_TOKEN, else the profile's)`)
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON (one document per line)');
}

/**
 * Why the server could not be reached (`ECONNREFUSED`, `UND_ERR_SOCKET`, …: the fetch failed
 * before any answer), or null when the failure is something else (an answer, an abort).
 */
export function networkFailure(err: unknown): string | null {
  if (err instanceof ApiError || err === null || typeof err !== 'object' || (err as Error).name === 'AbortError') return null;
  const own = (err as { code?: unknown }).code;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = typeof own === 'string' && (own.startsWith('E') || own.startsWith('UND_ERR')) ? own : cause?.code;
  if (code) return code;
  return err instanceof TypeError ? (cause?.message ?? err.message) : null;
}

/** The failure of a request as a CliError: the server's message, or that it cannot be reached. */
export function remoteError(remote: Pick<Remote, 'url'>, err: unknown): unknown {
  if (err instanceof CliError) return err;
  // GraphQL answers: field errors (GitLab's messages) and mutation payload errors.
  if (err instanceof GraphqlFieldError || err instanceof CatalogMutationError) return new CliError(err.message);
  if (err instanceof ApiError) {
    const text = err.message;
    return new CliError(text.startsWith(String(err.status)) ? text : `${err.status} ${text}`);
  }
  const unreachable = networkFailure(err);
  if (unreachable !== null) return new CliError(`cannot reach Forgelet at ${remote.url}: ${unreachable}`);
  return err;
}

/** Runs a client call, turning failures into messages for people. */
export async function call<T>(remote: Remote, work: (api: Forgelet) => Promise<T>): Promise<T> {
  try {
    return await work(remote.api);
  } catch (err) {
    throw remoteError(remote, err);
  }
}
