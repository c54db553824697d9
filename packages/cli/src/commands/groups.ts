/** `forgelet groups list|show|create`: groups on a running server. */
import type { Command } from 'commander';
import type { GroupEntity } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { formatFields, writeJson, type CliIo } from '../io.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  search?: string;
  topLevel?: boolean;
  allAvailable?: boolean;
}
interface CreateFlags extends Flags {
  name: string;
  path?: string;
  parent?: string;
  visibility?: string;
  description?: string;
}

const VISIBILITIES = ['private', 'internal', 'public'] as const;

export function registerGroupCommands(program: Command, io: CliIo): void {
  const groups = program.command('groups').description('groups on a running server');
  pagingOptions(remoteOptions(groups.command('list')))
    .description('list groups (yours; every group for administrators)')
    .option('--search <text>', 'match name or path')
    .option('--top-level', 'only top-level groups')
    .option('--all-available', 'every group you can see, not only your own')
    .action((flags: ListFlags) => list(flags, io));
  remoteOptions(groups.command('show <group>'))
    .description('one group, by id or full path')
    .action((group: string, flags: Flags) => show(group, flags, io));
  remoteOptions(groups.command('create'))
    .description('create a group (or a subgroup with --parent)')
    .requiredOption('--name <name>', 'group name')
    .option('--path <path>', 'URL path (default: from the name)')
    .option('--parent <group>', 'parent group id or full path')
    .option('--visibility <level>', VISIBILITIES.join(', '))
    .option('--description <text>', 'description')
    .action((flags: CreateFlags) => create(flags, io));
}

function visibilityCell(g: GroupEntity) {
  return { text: g.visibility, color: g.visibility === 'public' ? 'green' : g.visibility === 'internal' ? 'yellow' : undefined };
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading groups', () =>
    call(remote, (api) =>
      fetchListing(
        api.groups.all({
          per_page: paging.perPage,
          ...(flags.search !== undefined && { search: flags.search }),
          ...(flags.topLevel && { top_level_only: true }),
          ...(flags.allAvailable && { all_available: true }),
        }),
        paging,
      ),
    ),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No groups.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((g) => [String(g.id), g.full_path, g.name, visibilityCell(g), g.created_at.slice(0, 10)]);
  io.stdout.write(renderTable(['ID', 'PATH', 'NAME', 'VISIBILITY', 'CREATED'], rows, io.stdout.columns) + footer);
}

async function show(ref: string, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const group = await call(remote, (api) => api.groups.show(ref));
  if (flags.json) return writeJson(io.stdout, group);
  const lines: [string, string][] = [
    ['ID', String(group.id)],
    ['Name', group.name],
    ['Full path', group.full_path],
    ['Visibility', group.visibility],
    ['Parent', group.parent_id === null ? '-' : String(group.parent_id)],
    ['Description', group.description || '-'],
    ['Created', group.created_at],
    ['Web URL', group.web_url],
  ];
  io.stdout.write(formatFields(lines));
}

function pathFromName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

async function create(flags: CreateFlags, io: CliIo): Promise<void> {
  if (flags.visibility !== undefined && !(VISIBILITIES as readonly string[]).includes(flags.visibility)) {
    throw new UsageError(`--visibility must be one of ${VISIBILITIES.join(', ')}, got "${flags.visibility}"`);
  }
  const path = flags.path ?? pathFromName(flags.name);
  if (!path) throw new UsageError(`cannot make a path from the name "${flags.name}": pass --path`);
  const remote = resolveRemote(flags, io.env);
  const group = await call(remote, async (api) => {
    const parent = flags.parent === undefined ? undefined : await api.groups.show(flags.parent);
    return api.groups.create({
      name: flags.name,
      path,
      ...(parent && { parent_id: parent.id }),
      ...(flags.visibility !== undefined && { visibility: flags.visibility as (typeof VISIBILITIES)[number] }),
      ...(flags.description !== undefined && { description: flags.description }),
    });
  });
  if (flags.json) return writeJson(io.stdout, group);
  io.stdout.write(`Created group ${group.full_path} (id ${group.id}).\n`);
}
