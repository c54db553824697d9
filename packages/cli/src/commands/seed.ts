/**
 * `forgelet seed <file>`: creates users (with known tokens), groups, projects and their
 * labels, milestones, issues, merge requests and pipeline schedules on a running server in
 * test mode, from a YAML or JSON file (format: README, "Testing against Forgelet"). All or
 * nothing: a failing entry is named and nothing is created.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface SeedFlags extends RemoteFlags {
  json?: boolean;
}

export function registerSeedCommand(program: Command, io: CliIo): void {
  program
    .command('seed')
    .description('create a world (users with known tokens, groups, projects, issues …) from a YAML or JSON file; needs a server in --test-mode')
    .argument('<file>', 'seed file (YAML or JSON; - for standard input)')
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an admin token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print what was created as JSON (ids by name)')
    .action((file: string, flags: SeedFlags) => seed(file, flags, io));
}

async function readSeed(file: string): Promise<string> {
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    }
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function seed(file: string, flags: SeedFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const text = await readSeed(file);
  // Parsed here so a broken file is reported with its own name, before any request.
  const { parseSeedText } = await import('@forgelet/core');
  let world: unknown;
  try {
    world = parseSeedText(text);
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message.replace(/^400 Bad request - seed: /, '')}`);
  }
  if (world === null || typeof world !== 'object' || Array.isArray(world)) throw new CliError(`${file}: the document must be a mapping with users, groups and projects`);
  const created = await call(remote, (api) => api.harness.seed(world as object));
  if (flags.json) return writeJson(io.stdout, created);
  const count = (o: Record<string, unknown>) => Object.keys(o).length;
  const nested = (o: Record<string, Record<string, unknown> | unknown[]>) =>
    Object.values(o).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : Object.keys(v).length), 0);
  const parts = [
    `${count(created.users)} users`,
    `${count(created.groups)} groups`,
    `${count(created.projects)} projects`,
    `${nested(created.labels)} labels`,
    `${nested(created.milestones)} milestones`,
    `${nested(created.issues)} issues`,
    `${nested(created.merge_requests)} merge requests`,
    `${nested(created.pipeline_schedules)} pipeline schedules`,
  ];
  io.stdout.write(`Seeded ${parts.join(', ')}.\n`);
}
