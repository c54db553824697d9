/** `forgelet init`: data directory, migrations and the root user, without serving. */
import type { Command } from 'commander';
import { dataDirLayout, describeDatabase, ensureDataDir, secretKeySource } from '../data-dir.js';
import { writeJson, type CliIo } from '../io.js';
import { configError } from '../errors.js';
import { resolveStorage, STORAGE_OPTIONS, type StorageFlags } from '../options.js';

export interface InitFlags extends StorageFlags {
  json?: boolean;
}

export function registerInitCommand(program: Command, io: CliIo): void {
  const cmd = program.command('init').description('create the data directory, migrate the database and create the root user, without serving');
  for (const [flags, description] of STORAGE_OPTIONS) cmd.option(flags, description);
  cmd
    .option('--json', 'print one JSON line {"data_dir","database","root_created","root_token"}')
    .action((flags: InitFlags) => init(flags, io));
}

async function init(flags: InitFlags, io: CliIo): Promise<void> {
  const settings = resolveStorage(flags, io.env);
  const { createForge, FsBlobStore } = await import('@forgelet/core');
  const layout = dataDirLayout(settings.dataDir);
  ensureDataDir(layout);
  const databaseUrl = settings.databaseUrl ?? layout.database;
  // The same first-start work as `serve`, under the same lock.
  let forge;
  try {
    forge = await createForge({
      databaseUrl,
      blobs: new FsBlobStore(layout.blobs),
      secretKeys: secretKeySource(settings, layout),
      root: { token: settings.rootToken },
    });
  } catch (err) {
    throw configError(err) ?? err;
  }
  const boot = forge.root!;
  await forge.close();
  const database = describeDatabase(databaseUrl);
  if (flags.json) {
    writeJson(io.stdout, { data_dir: layout.dir, database, root_created: boot.createdUser, root_token: boot.token });
    return;
  }
  io.stdout.write(`Initialized ${layout.dir} (database: ${database})\n`);
  if (boot.createdUser && !settings.rootToken) io.stdout.write(`Root user created. Root token (shown only now): ${boot.token}\n`);
  else if (boot.createdUser) io.stdout.write('Root user created with the given root token.\n');
  else if (settings.rootToken) io.stdout.write('Root user already exists; the given root token is valid.\n');
  else io.stdout.write('Root user already exists; its token is not shown again (pass --root-token to make a known token valid).\n');
}
