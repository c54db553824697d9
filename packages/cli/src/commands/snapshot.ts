/**
 * `forgelet snapshot create|restore|delete|list` and `forgelet reset`: named snapshots of the
 * whole state of a running server in test mode, and reset to the initial state.
 */
import type { Command } from 'commander';
import type { SnapshotEntity } from '@forgelet/core';
import { writeJson, type CliIo } from '../io.js';
import { call, DEFAULT_URL, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}

function remote(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'an admin token (env FORGELET_TOKEN, else the profile\'s)')
    .option('--profile <name>', 'a login saved by `forgelet login` (env FORGELET_PROFILE; default: the default profile)')
    .option('--json', 'print JSON');
}

function describe(s: SnapshotEntity): string {
  return `${s.name} (${s.rows} rows in ${s.tables} tables, ${s.blobs} blobs, taken ${s.created_at})`;
}

export function registerSnapshotCommands(program: Command, io: CliIo): void {
  const snapshot = program.command('snapshot').description('named snapshots of the whole state of a server in --test-mode');
  remote(snapshot.command('create'))
    .description('snapshot the database and blobs under a name')
    .argument('<name>')
    .action(async (name: string, flags: Flags) => {
      const s = await call(resolveRemote(flags, io.env), (api) => api.harness.snapshot(name));
      if (flags.json) return writeJson(io.stdout, s);
      io.stdout.write(`Created snapshot ${describe(s)}.\n`);
    });
  remote(snapshot.command('restore'))
    .description('put the state back as it was at the snapshot')
    .argument('<name>')
    .action(async (name: string, flags: Flags) => {
      const s = await call(resolveRemote(flags, io.env), (api) => api.harness.restore(name));
      if (flags.json) return writeJson(io.stdout, s);
      io.stdout.write(`Restored snapshot ${describe(s)}.\n`);
    });
  remote(snapshot.command('delete'))
    .description('delete a snapshot')
    .argument('<name>')
    .action(async (name: string, flags: Flags) => {
      await call(resolveRemote(flags, io.env), (api) => api.harness.deleteSnapshot(name));
      if (flags.json) return writeJson(io.stdout, { deleted: name });
      io.stdout.write(`Deleted snapshot ${name}.\n`);
    });
  remote(snapshot.command('list'))
    .description('list snapshots')
    .action(async (flags: Flags) => {
      const list = await call(resolveRemote(flags, io.env), (api) => api.harness.snapshots());
      if (flags.json) return writeJson(io.stdout, list);
      io.stdout.write(list.length ? `${list.map(describe).join('\n')}\n` : 'No snapshots.\n');
    });
  remote(program.command('reset'))
    .description('back to the initial state of a server in --test-mode: only root, whose tokens keep working (snapshots are kept)')
    .action(async (flags: Flags) => {
      await call(resolveRemote(flags, io.env), (api) => api.harness.reset());
      if (flags.json) return writeJson(io.stdout, { reset: true });
      io.stdout.write('Reset to the initial state.\n');
    });
}
