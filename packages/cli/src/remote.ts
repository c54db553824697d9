/**
 * Remote commands talk to a server through @forgelet/client: one URL and admin token from
 * flags or env, and the server's error message (or an unreachable server) as a CliError.
 */
import { ApiError, Forgelet } from '@forgelet/client';
import { CliError, UsageError } from './errors.js';

export interface RemoteFlags {
  url?: string;
  token?: string;
}

export interface Remote {
  url: string;
  api: Forgelet;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export function resolveRemote(flags: RemoteFlags, env: NodeJS.ProcessEnv): Remote {
  const url = (flags.url ?? (env.FORGELET_URL || DEFAULT_URL)).replace(/\/+$/, '');
  const token = flags.token ?? env.FORGELET_TOKEN;
  if (!token) throw new UsageError('an admin token is needed: pass --token or set FORGELET_TOKEN');
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url (FORGELET_URL) must be an http:// or https:// URL, got "${url}"`);
  return { url, api: new Forgelet({ url, token }) };
}

/** Runs a client call, turning failures into messages for people. */
export async function call<T>(remote: Remote, work: (api: Forgelet) => Promise<T>): Promise<T> {
  try {
    return await work(remote.api);
  } catch (err) {
    if (err instanceof ApiError) {
      const text = err.message;
      throw new CliError(text.startsWith(String(err.status)) ? text : `${err.status} ${text}`);
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (err instanceof TypeError || cause?.code) {
      throw new CliError(`cannot reach Forgelet at ${remote.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    throw err;
  }
}
