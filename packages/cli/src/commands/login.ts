/**
 * `forgelet login|logout|profiles`: saved logins, so remote commands need neither --url nor
 * --token. `login` checks the token with `GET /user` before saving it (the token itself is
 * never printed); the file is `$XDG_CONFIG_HOME/forgelet/config.json`, mode 0600.
 */
import type { Command } from 'commander';
import { Forgelet } from '@forgelet/client';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { checkProfileName, configPath, DEFAULT_PROFILE, readConfig, writeConfig } from '../profiles.js';
import { call, DEFAULT_URL } from '../remote.js';
import { parseHttpUrl } from '../options.js';
import { isLive, withSpinner } from '../ui/live.js';

interface LoginFlags {
  url?: string;
  token?: string;
  profile?: string;
  json?: boolean;
}

interface LogoutFlags {
  profile?: string;
  json?: boolean;
}

export function registerLoginCommands(program: Command, io: CliIo): void {
  program
    .command('login')
    .description('check a token against a server and save both as a profile ($XDG_CONFIG_HOME/forgelet/config.json, mode 0600)')
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'a personal access token (env FORGELET_TOKEN)')
    .option('--profile <name>', 'profile name; it becomes the default', DEFAULT_PROFILE)
    .option('--json', 'print JSON')
    .action((flags: LoginFlags) => login(flags, io));
  program
    .command('logout')
    .description('forget a saved profile (the default one unless --profile)')
    .option('--profile <name>', 'profile name')
    .option('--json', 'print JSON')
    .action((flags: LogoutFlags) => logout(flags, io));
  program
    .command('profiles')
    .description('list saved profiles (never their tokens)')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => profiles(flags, io));
}

async function login(flags: LoginFlags, io: CliIo): Promise<void> {
  const name = checkProfileName(flags.profile ?? DEFAULT_PROFILE);
  const rawUrl = flags.url ?? (io.env.FORGELET_URL || DEFAULT_URL);
  const url = parseHttpUrl(rawUrl, flags.url !== undefined ? 'flag' : io.env.FORGELET_URL ? 'FORGELET_URL' : 'flag', '--url');
  const token = flags.token ?? (io.env.FORGELET_TOKEN || undefined);
  if (!token) throw new UsageError('a token is needed: pass --token or set FORGELET_TOKEN');
  if (!configPath(io.env)) throw new CliError('cannot tell where to save the login: set HOME or XDG_CONFIG_HOME');
  const remote = { url, token, api: new Forgelet({ url, token }) };
  const user = await withSpinner(io.stderr, isLive(io.stderr, flags.json), `Checking the token with ${url}`, () =>
    call(remote, (api) => api.users.current()).catch((err: unknown) => {
      if (err instanceof CliError && /^40[13]\b/.test(err.message)) throw new CliError(`${url} refused the token: ${err.message}`);
      throw err;
    }),
  );
  const config = readConfig(io.env);
  config.profiles[name] = { url, token };
  config.default = name;
  const path = writeConfig(io.env, config);
  if (flags.json) return writeJson(io.stdout, { profile: name, url, user: { id: user.id, username: user.username }, default: true, path });
  io.stdout.write(`Logged in to ${url} as ${user.username}; saved as profile "${name}" (the default) in ${path}.\n`);
}

async function logout(flags: LogoutFlags, io: CliIo): Promise<void> {
  if (flags.profile !== undefined) checkProfileName(flags.profile);
  const config = readConfig(io.env);
  const name = flags.profile ?? config.default;
  if (name === undefined || !config.profiles[name]) {
    throw new CliError(name === undefined ? 'not logged in: no default profile' : `no saved profile "${name}"`);
  }
  const { url } = config.profiles[name]!;
  delete config.profiles[name];
  if (config.default === name) delete config.default;
  writeConfig(io.env, config);
  if (flags.json) return writeJson(io.stdout, { profile: name, url, removed: true });
  io.stdout.write(`Logged out: removed profile "${name}" (${url}).\n`);
}

async function profiles(flags: { json?: boolean }, io: CliIo): Promise<void> {
  const config = readConfig(io.env);
  const rows = Object.entries(config.profiles).map(([name, p]) => ({ name, url: p.url, default: config.default === name }));
  if (flags.json) return writeJson(io.stdout, rows);
  if (rows.length === 0) return void io.stdout.write('No saved profiles: run forgelet login.\n');
  const { renderTable } = await import('../ui/table.js');
  io.stdout.write(renderTable(['NAME', 'URL', 'DEFAULT'], rows.map((r) => [r.name, r.url, r.default ? 'yes' : '']), io.stdout.columns));
}
