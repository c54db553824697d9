/**
 * Saved logins (`forgelet login`): `$XDG_CONFIG_HOME/forgelet/config.json` (else
 * `~/.config/forgelet/config.json`) holding `{profiles: {NAME: {url, token}}, default: NAME}`.
 * The directory is 0700 and the file 0600, written atomically (a temporary file in the same
 * directory, then a rename), so a crash never leaves half a file and the token is never
 * readable by other users, not even for a moment.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { CliError, UsageError } from './errors.js';

export interface Profile {
  url: string;
  token: string;
}

export interface ProfileConfig {
  profiles: Record<string, Profile>;
  default?: string;
}

export const DEFAULT_PROFILE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Where the config lives for this environment: `$XDG_CONFIG_HOME` (absolute paths only, as
 * the XDG spec says), else `$HOME/.config`. Without either there is no config (tests pass
 * an environment without them to stay hermetic).
 */
export function configPath(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'forgelet', 'config.json');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.config', 'forgelet', 'config.json');
  return null;
}

export function checkProfileName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`--profile must be 1-64 letters, digits, ".", "_" or "-" (starting with a letter or digit), got "${name}"`);
  return name;
}

/** The saved profiles; an empty config when the file does not exist. */
export function readConfig(env: NodeJS.ProcessEnv): ProfileConfig {
  const path = configPath(env);
  if (!path) return { profiles: {} };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON; fix it or remove it and run forgelet login again`);
  }
  const doc = parsed as Partial<ProfileConfig> | null;
  if (!doc || typeof doc !== 'object' || (doc.profiles !== undefined && (typeof doc.profiles !== 'object' || doc.profiles === null))) {
    throw new CliError(`${path} is not a forgelet config ({"profiles": {...}, "default": "..."})`);
  }
  const profiles: Record<string, Profile> = {};
  for (const [name, p] of Object.entries(doc.profiles ?? {})) {
    if (p && typeof p.url === 'string' && typeof p.token === 'string') profiles[name] = { url: p.url, token: p.token };
  }
  return { profiles, ...(typeof doc.default === 'string' ? { default: doc.default } : {}) };
}

/** Writes the config atomically with mode 0600 in a 0700 directory. */
export function writeConfig(env: NodeJS.ProcessEnv, config: ProfileConfig): string {
  const path = configPath(env);
  if (!path) throw new CliError('cannot tell where to save the login: set HOME or XDG_CONFIG_HOME');
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The forgelet directory is ours: tighten it even when it existed already.
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const temp = join(dir, `.config.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    // The umask cannot widen 0600, but be explicit in case the file system ignores open's mode.
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return path;
}

/** The profile named by `--profile`/FORGELET_PROFILE, else the default one; null when none. */
export function selectProfile(config: ProfileConfig, name: string | undefined): { name: string; profile: Profile } | null {
  if (name !== undefined) {
    const profile = config.profiles[name];
    if (!profile) {
      const known = Object.keys(config.profiles);
      throw new UsageError(`no saved profile "${name}"${known.length ? ` (saved: ${known.join(', ')})` : ''}: run forgelet login --profile ${name}`);
    }
    return { name, profile };
  }
  const fallback = config.default;
  if (fallback === undefined || !config.profiles[fallback]) return null;
  return { name: fallback, profile: config.profiles[fallback]! };
}
