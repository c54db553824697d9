/**
 * `forgelet secret-key rotate`: every stored secret re-encrypted under a new key, in one
 * transaction, on a stopped or a running server.
 *
 * The key lives in `<data>/secret.key` (the key file: the first line seals, every line opens)
 * unless FORGELET_SECRET_KEY gives it. With the key file, rotate makes the new key, writes it
 * first in the file (the old one stays, so running processes open everything throughout; they
 * notice the file changed and seal with the new key), re-encrypts, and then drops from the file
 * the keys nothing needs any more (always keeping the key it replaced, for what a process sealed
 * while the rotation ran). With FORGELET_SECRET_KEY, processes cannot learn a new key by
 * themselves: the operator gives every process `<new>,<old>` first, then rotate re-encrypts
 * under the first key, and the old one can go.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { dataDirLayout, describeDatabase, readKeyFile, writeKeyFile, type DataDirLayout } from '../data-dir.js';
import { CliError, configError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { resolveStorage, STORAGE_OPTIONS, type StorageSettings } from '../options.js';
import { isLive, ProgressLine } from '../ui/live.js';

interface RotateFlags {
  data?: string;
  databaseUrl?: string;
  json?: boolean;
}

const HELP = `
The key comes from <data>/secret.key, or from FORGELET_SECRET_KEY when it is set.

With <data>/secret.key: a new key is made and written first in the file (the old one stays in
it), every secret is re-encrypted under it in one transaction, and servers on this data
directory follow the file without a restart. If the rotation fails, nothing is re-encrypted and
the old key seals again.

With FORGELET_SECRET_KEY: give every server and this command FORGELET_SECRET_KEY=<new>,<old>
(new key: openssl rand -base64 32), run rotate, then set FORGELET_SECRET_KEY=<new> alone.`;

export function registerSecretKeyCommands(program: Command, io: CliIo): void {
  const group = program
    .command('secret-key')
    .description('the instance key that encrypts secrets at rest (callback URLs and tokens, migration source tokens, CI variables)');
  const rotate = group.command('rotate').description('re-encrypt every stored secret under a new key, in one transaction (the server may keep running)');
  // --data and --database-url, as serve takes them (not --root-token)
  for (const [flags, description] of STORAGE_OPTIONS.filter(([f]) => !f.startsWith('--root-token'))) rotate.option(flags, description);
  rotate
    .option('--json', 'print one JSON line: the new key id, the secrets re-encrypted, the keys the key file keeps')
    .addHelpText('after', HELP)
    .action((flags: RotateFlags) => rotateSecretKey(flags, io));
}

interface Plan {
  /** The keys before the rotation, the sealing one first. */
  before: Buffer[];
  /** The keys during the rotation: the first one is the new key. */
  ring: Buffer[];
  from: string;
  keyFile: string | null;
}

function plan(settings: StorageSettings, layout: DataDirLayout): Plan {
  if (settings.secretKeys) {
    const { keys, from } = settings.secretKeys;
    if (keys.length === 1) {
      throw new UsageError(
        'FORGELET_SECRET_KEY holds one key: to rotate, put a new key first (FORGELET_SECRET_KEY=<new>,<old>; new key: openssl rand -base64 32) ' +
          'for this command and every server, then run it again',
      );
    }
    return { before: keys, ring: keys, from, keyFile: null };
  }
  if (!existsSync(layout.secretKey)) {
    throw new CliError(`no key file at ${layout.secretKey} and FORGELET_SECRET_KEY is not set: nothing seals secrets here yet (forgelet init or serve creates the key)`);
  }
  let before: Buffer[];
  try {
    before = readKeyFile(layout.secretKey);
  } catch (err) {
    throw configError(err) ?? err;
  }
  return { before, ring: [randomBytes(32), ...before], from: layout.secretKey, keyFile: layout.secretKey };
}

async function rotateSecretKey(flags: RotateFlags, io: CliIo): Promise<void> {
  const settings = resolveStorage(flags, io.env);
  const layout = dataDirLayout(settings.dataDir);
  const databaseUrl = settings.databaseUrl ?? layout.database;
  const core = await import('@forgelet/core');
  if (core.dialectOf(databaseUrl) === 'sqlite' && !existsSync(databaseUrl)) throw new CliError(`no database at ${databaseUrl}: nothing to rotate`);
  const { before, ring, from, keyFile } = plan(settings, layout);
  const id = core.secretKeyId;
  const now = () => new Date().toISOString();
  const database = core.openDatabase(databaseUrl);
  try {
    // The database's schema as the server has it, and its secrets sealed with a key we hold.
    await core
      .withStartupLock(database, async () => {
        await core.migrateToLatest(database.db);
        await core.checkSecretKey(database.db, core.createSecretBox(core.staticKeys(before, from)), now());
      })
      .catch((err: unknown) => {
        throw configError(err) ?? err;
      });
    if (keyFile) writeKeyFile(keyFile, ring);
    const box = core.createSecretBox(core.staticKeys(ring, from));
    const progress = await ProgressLine.open(io.stderr, isLive(io.stderr, flags.json), 'Re-encrypting secrets', null, 100, 'items');
    let report: Awaited<ReturnType<typeof core.rotateSecrets>>;
    try {
      report = await core.rotateSecrets(database, box, { now: now(), onProgress: (done, total) => progress.update(done, total) });
    } catch (err) {
      progress.abort();
      // The old key seals again; the new one stays to open what a server sealed with it meanwhile.
      if (keyFile) writeKeyFile(keyFile, [before[0]!, ring[0]!, ...before.slice(1)]);
      const again = keyFile ? `; ${keyFile} seals with ${id(before[0]!)} again` : '';
      throw new CliError(`the rotation failed and re-encrypted nothing (${describeDatabase(databaseUrl)}): ${(err as Error).message}${again}`);
    }
    progress.finish(report.reencrypted);

    // Keys still needed: the new one, the one it replaced (a process may have sealed with it
    // while the rotation ran), and any a stored secret names (or all, while a secret without a key id is left).
    const inUse = await core.sealedKeyIds(database.db);
    // (With FORGELET_SECRET_KEY the operator drops the old key when every server has the new one.)
    const sealing = (key: Buffer, i: number) => i === 0 || inUse.has(id(key)) || inUse.has('v1');
    const needed = (key: Buffer, i: number) => sealing(key, i) || (keyFile !== null && report.retired_key_ids.includes(id(key)));
    const unneeded = ring.filter((k, i) => !needed(k, i)).map(id);
    if (keyFile && unneeded.length) writeKeyFile(keyFile, ring.filter(needed));
    const otherKeys = Object.fromEntries([...inUse].filter(([kid]) => kid !== report.key_id));
    const left = Object.values(otherKeys).reduce((a, b) => a + b, 0);
    const result = {
      key_id: report.key_id,
      retired_key_ids: report.retired_key_ids,
      reencrypted: report.reencrypted,
      columns: report.columns,
      key_source: from,
      key_ids: (keyFile ? ring.filter(needed) : ring).map(id),
      dropped_key_ids: keyFile ? unneeded : [],
      unneeded_key_ids: keyFile ? [] : unneeded,
      sealed_with_other_keys: otherKeys,
    };
    if (flags.json) {
      writeJson(io.stdout, result);
      return;
    }
    const { renderTable } = await import('../ui/table.js');
    const replaced = report.retired_key_ids.length ? ` (replacing ${report.retired_key_ids.join(', ')})` : '';
    io.stdout.write(`Re-encrypted ${report.reencrypted} secrets under the key ${report.key_id}${replaced}, in one transaction.\n`);
    io.stdout.write(renderTable(['SECRETS', 'RE-ENCRYPTED'], report.columns.map((c) => [c.holds, String(c.reencrypted)]), io.stdout.columns));
    if (keyFile) {
      const kept = result.key_ids.slice(1);
      io.stdout.write(`${keyFile} seals with ${report.key_id}${kept.length ? ` and still opens with ${kept.join(', ')} (the key it replaced: the next rotation drops it)` : ''}.\n`);
    } else {
      io.stdout.write(`Set FORGELET_SECRET_KEY to its first key alone on every server${unneeded.length ? `: no secret needs ${unneeded.join(', ')} any more` : ''}.\n`);
    }
    if (left) {
      io.stderr.write(`warning: ${left} secrets are sealed with other keys (${Object.keys(otherKeys).join(', ')}): a server sealed them during the rotation without the new key; give every server the new key and rotate again\n`);
    }
  } finally {
    await database.destroy();
  }
}
