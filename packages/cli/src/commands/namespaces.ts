/** `forgelet namespaces list|show|exists`: user and group namespaces on a running server. */
import type { Command } from 'commander';
import type { NamespaceDetailEntity } from '@forgelet/core';
import { formatFields, writeJson, type CliIo } from '../io.js';
import { parsePositiveInteger } from '../options.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  search?: string;
  ownedOnly?: boolean;
}
interface ExistsFlags extends Flags {
  parentId?: string;
}

export function registerNamespaceCommands(program: Command, io: CliIo): void {
  const namespaces = program.command('namespaces').description('user and group namespaces on a running server');
  pagingOptions(remoteOptions(namespaces.command('list')))
    .description('list namespaces (your user namespace and your groups; all for administrators)')
    .option('--search <text>', 'match name or path')
    .option('--owned-only', 'only namespaces you own')
    .action((flags: ListFlags) => list(flags, io));
  remoteOptions(namespaces.command('show <namespace>'))
    .description('one namespace, by id or full path (404 unless you belong to it)')
    .action((ref: string, flags: Flags) => show(ref, flags, io));
  remoteOptions(namespaces.command('exists <path>'))
    .description('whether a path is taken at the top level (or under --parent-id), with a free suggestion')
    .option('--parent-id <id>', 'id of the parent namespace (default: top-level namespaces)')
    .action((path: string, flags: ExistsFlags) => exists(path, flags, io));
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading namespaces', () =>
    call(remote, (api) =>
      fetchListing(
        api.namespaces.all({
          per_page: paging.perPage,
          ...(flags.search !== undefined && { search: flags.search }),
          ...(flags.ownedOnly && { owned_only: true }),
        }),
        paging,
      ),
    ),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No namespaces.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((n) => [String(n.id), n.full_path, n.kind, n.name, n.parent_id === null ? '-' : String(n.parent_id)]);
  io.stdout.write(renderTable(['ID', 'PATH', 'KIND', 'NAME', 'PARENT'], rows, io.stdout.columns) + footer);
}

function describeNamespace(n: NamespaceDetailEntity): string {
  const lines: [string, string][] = [
    ['ID', String(n.id)],
    ['Name', n.name],
    ['Kind', n.kind],
    ['Full path', n.full_path],
    ['Parent', n.parent_id === null ? '-' : String(n.parent_id)],
  ];
  // Shown by the server to Owners and administrators only.
  if (n.members_count_with_descendants !== undefined) lines.push(['Members', String(n.members_count_with_descendants)]);
  if (n.billable_members_count !== null) lines.push(['Billable members', String(n.billable_members_count)]);
  if (n.plan !== undefined) lines.push(['Plan', n.plan]);
  lines.push(['Web URL', n.web_url]);
  return formatFields(lines);
}

async function show(ref: string, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const namespace = await call(remote, (api) => api.namespaces.show(ref));
  if (flags.json) return writeJson(io.stdout, namespace);
  io.stdout.write(describeNamespace(namespace));
}

async function exists(path: string, flags: ExistsFlags, io: CliIo): Promise<void> {
  const parentId = flags.parentId === undefined ? undefined : parsePositiveInteger(flags.parentId, 'flag', '--parent-id');
  const remote = resolveRemote(flags, io.env);
  const answer = await call(remote, (api) => api.namespaces.exists(path, parentId === undefined ? {} : { parent_id: parentId }));
  if (flags.json) return writeJson(io.stdout, answer);
  const where = parentId === undefined ? 'at the top level' : `under namespace ${parentId}`;
  if (!answer.exists) return void io.stdout.write(`${path} is free ${where}.\n`);
  const suggestion = answer.suggests[0];
  io.stdout.write(`${path} is taken ${where}${suggestion === undefined ? '' : `; free: ${suggestion}`}.\n`);
}
