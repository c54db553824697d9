/**
 * Flag and environment values shared by `serve` and `init`. A flag wins over its environment
 * variable; an empty variable counts as unset. Bad values are usage errors (exit 2).
 */
import { UsageError } from './errors.js';

/** The flag's value, else the environment variable's, else undefined. */
export function pick(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): { value: string; from: string } | undefined {
  if (flag !== undefined) return { value: flag, from: 'flag' };
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : { value: raw, from: name };
}

const origin = (from: string, flag: string) => (from === 'flag' ? flag : from);

export function parsePort(value: string, from: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${origin(from, '--port')} must be a port number from 0 to 65535 (0: any free port), got "${value}"`);
  }
  return Number(value);
}

export function parseChoice<T extends string>(value: string, from: string, flag: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${origin(from, flag)} must be one of ${choices.join(', ')}, got "${value}"`);
  }
  return value as T;
}

export function parseHttpUrl(value: string, from: string, flag: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${origin(from, flag)} must be an http:// or https:// URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

export function parsePositiveInteger(value: string, from: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${origin(from, flag)} must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

/** A whole number of 0 or more (0 usually meaning "none" or "no limit"). */
export function parseCount(value: string, from: string, flag: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${origin(from, flag)} must be a whole number (0 or more), got "${value}"`);
  }
  return Number(value);
}

/** A comma-separated flag value (`--scopes api,read_user`) as its non-empty items. */
export function splitList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Seconds (decimals allowed) as milliseconds; 0 only when `zero` says what it means. */
export function parseSeconds(value: string, from: string, flag: string, options: { zero?: boolean } = {}): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || (n === 0 && !options.zero) || n * 1000 > 2 ** 31 - 1) {
    throw new UsageError(`${origin(from, flag)} must be a number of seconds${options.zero ? ' (0: none)' : ' above 0'}, got "${value}"`);
  }
  return Math.round(n * 1000);
}

/** A boolean switch: true when the flag is given, else from `1/true/yes/on` or `0/false/no/off`. */
export function pickSwitch(flag: boolean | undefined, env: NodeJS.ProcessEnv, name: string): boolean {
  if (flag) return true;
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || ['0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new UsageError(`${name} must be 1 or 0, got "${env[name]}"`);
}

/**
 * FORGELET_SECRET_KEY: 32 bytes, base64; or several, comma-separated, while a rotation is under
 * way (`<new>,<old>`): the first seals new secrets, every one opens them.
 */
export function secretKeysFromEnv(env: NodeJS.ProcessEnv): { keys: Buffer[]; from: string } | undefined {
  const raw = env.FORGELET_SECRET_KEY?.trim();
  if (!raw) return undefined;
  const keys = raw.split(',').map((part) => {
    const text = part.trim();
    const key = Buffer.from(text, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.length !== 32) {
      throw new UsageError('FORGELET_SECRET_KEY must be 32 bytes encoded as base64 (e.g. `openssl rand -base64 32`), or several separated by commas');
    }
    return key;
  });
  return { keys, from: 'FORGELET_SECRET_KEY' };
}

/** Settings for a data directory and its database, as `serve` and `init` take them. */
export interface StorageFlags {
  data?: string;
  databaseUrl?: string;
  rootToken?: string;
}

export interface StorageSettings {
  dataDir: string;
  databaseUrl: string | undefined;
  rootToken: string | undefined;
  secretKeys: { keys: Buffer[]; from: string } | undefined;
}

export const DEFAULT_DATA_DIR = './data';

/** Whether a database URL names PostgreSQL (anything else is a SQLite file). */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

export function resolveStorage(flags: StorageFlags, env: NodeJS.ProcessEnv): StorageSettings {
  return {
    dataDir: pick(flags.data, env, 'FORGELET_DATA_DIR')?.value ?? DEFAULT_DATA_DIR,
    databaseUrl: pick(flags.databaseUrl, env, 'FORGELET_DATABASE_URL')?.value,
    rootToken: pick(flags.rootToken, env, 'FORGELET_ROOT_TOKEN')?.value,
    secretKeys: secretKeysFromEnv(env),
  };
}

/** The options `serve` and `init` share, with their environment variables in the help. */
export const STORAGE_OPTIONS = [
  ['-d, --data <dir>', `data directory: SQLite database, blobs, secret.key (env FORGELET_DATA_DIR, default ${DEFAULT_DATA_DIR})`],
  ['--database-url <url>', 'postgres://… or a SQLite file instead of <data>/forgelet.db (env FORGELET_DATABASE_URL)'],
  ['--root-token <token>', 'make this token a valid root token (env FORGELET_ROOT_TOKEN)'],
] as const;
