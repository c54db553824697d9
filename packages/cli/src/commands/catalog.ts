/**
 * `forgelet catalog …`: the AI catalog on a running server, through GraphQL.
 *   list [--type flow|agent] [--search s]   the items you may read
 *   list --project <project>                  the items enabled for a project, with their consumer ids
 *   create <project> --name … --description … a flow (YAML from --definition-file) or an agent
 *   enable <item> --project <project>         enable an item (id or name) for a project
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { AiCatalogConsumerNode, AiCatalogItemNode, AiCatalogItemType, Forgelet } from '@forgelet/client';
import { idOfGid } from '@forgelet/client';
import { CliError, UsageError } from '../errors.js';
import { formatFields, writeJson, type CliIo } from '../io.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags {
  type?: string;
  search?: string;
  project?: string;
}
interface CreateFlags extends Flags {
  name: string;
  description: string;
  type?: string;
  public?: boolean;
  definition?: string;
  definitionFile?: string;
  systemPrompt?: string;
  userPrompt?: string;
  draft?: boolean;
}
interface EnableFlags extends Flags {
  project: string;
  pin?: string;
}

function itemType(value: string | undefined): AiCatalogItemType | undefined {
  if (value === undefined) return undefined;
  if (value !== 'flow' && value !== 'agent') throw new UsageError(`--type must be flow or agent, got "${value}"`);
  return value === 'flow' ? 'FLOW' : 'AGENT';
}

export function registerCatalogCommands(program: Command, io: CliIo): void {
  const catalog = program.command('catalog').description('the AI catalog: flows and agents, and the projects they are enabled for');
  remoteOptions(catalog.command('list'))
    .description('catalog items you may read, or with --project the items enabled for a project')
    .option('--type <type>', 'flow or agent')
    .option('--search <text>', 'in names and descriptions')
    .option('--project <project>', 'id or full path: list the items enabled for it instead')
    .action((flags: ListFlags) => list(flags, io));
  remoteOptions(catalog.command('create <project>'))
    .description('create a catalog item owned by a project (Maintainers); flows are released unless --draft')
    .requiredOption('--name <name>', 'the item name (3 to 255 characters)')
    .requiredOption('--description <text>', 'what it does')
    .option('--type <type>', 'flow (default) or agent', 'flow')
    .option('--public', 'visible to everyone in the catalog (default: private to the project)')
    .option('--definition <yaml>', "a flow's YAML definition")
    .option('--definition-file <path>', "a file holding a flow's YAML definition")
    .option('--system-prompt <text>', "an agent's system prompt")
    .option('--user-prompt <text>', "an agent's user prompt")
    .option('--draft', 'leave the first version a draft (flows run only released versions)')
    .action((project: string, flags: CreateFlags) => create(project, flags, io));
  remoteOptions(catalog.command('enable <item>'))
    .description('enable a catalog item (id or exact name) for a project (Maintainers)')
    .requiredOption('--project <project>', 'id or full path')
    .option('--pin <prefix>', 'pin a version: 1, 1.2 or 1.2.3')
    .action((item: string, flags: EnableFlags) => enable(item, flags, io));
}

/** A project's numeric id (GraphQL takes Global IDs; people give paths). */
export async function projectIdOf(api: Forgelet, project: string): Promise<number> {
  return /^\d+$/.test(project) ? Number(project) : (await api.projects.show(project)).id;
}

async function list(flags: ListFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  if (flags.project !== undefined) {
    const project = flags.project;
    const nodes = await call(remote, async (api) => {
      const id = await projectIdOf(api, project);
      const all: AiCatalogConsumerNode[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await api.aiCatalog.configuredItems({ projectId: id }, { first: 100, ...(after !== undefined && { after }) });
        all.push(...page.nodes);
        if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return all;
        after = page.pageInfo.endCursor;
      }
    });
    if (flags.json) return writeJson(io.stdout, nodes);
    if (nodes.length === 0) return void io.stdout.write(`No catalog items enabled for ${project}.\n`);
    const { renderTable } = await import('../ui/table.js');
    const rows = nodes.map((n) => [String(idOfGid(n.id)), n.item?.name ?? '-', n.item?.itemType.toLowerCase() ?? '-', n.enabled ? 'yes' : 'no', n.pinnedVersionPrefix ?? '-', n.project ? n.project.fullPath : `${n.group?.fullPath ?? '-'} (group)`]);
    return void io.stdout.write(renderTable(['CONSUMER', 'ITEM', 'TYPE', 'ENABLED', 'PINNED', 'WHERE'], rows, io.stdout.columns));
  }
  const type = itemType(flags.type);
  const items = await call(remote, async (api) => {
    const all: AiCatalogItemNode[] = [];
    for await (const item of api.aiCatalog.allItems({ ...(type && { itemTypes: [type] }), ...(flags.search !== undefined && { search: flags.search }) })) all.push(item);
    return all;
  });
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No catalog items.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((i) => [String(idOfGid(i.id)), i.name, i.itemType.toLowerCase(), i.public ? 'public' : 'private', i.project?.fullPath ?? '-', versionOf(i)]);
  io.stdout.write(renderTable(['ID', 'NAME', 'TYPE', 'VISIBILITY', 'PROJECT', 'VERSION'], rows, io.stdout.columns));
}

function versionOf(item: AiCatalogItemNode): string {
  const v = item.latestVersion;
  if (!v || v.versionName === null) return '-';
  return v.released ? v.versionName : `${v.versionName} (draft)`;
}

async function create(project: string, flags: CreateFlags, io: CliIo): Promise<void> {
  const type = itemType(flags.type)!;
  if (flags.definition !== undefined && flags.definitionFile !== undefined) throw new UsageError('give --definition or --definition-file, not both');
  const definition = flags.definitionFile !== undefined ? readDefinition(flags.definitionFile) : flags.definition;
  if (type === 'AGENT' && flags.systemPrompt === undefined) throw new UsageError('an agent needs --system-prompt');
  if (type === 'FLOW' && definition === undefined) throw new UsageError('a flow needs --definition or --definition-file');
  const remote = resolveRemote(flags, io.env);
  const item = await call(remote, async (api) => {
    const projectId = await projectIdOf(api, project);
    const common = { projectId, name: flags.name, description: flags.description, public: flags.public === true, release: flags.draft !== true };
    return type === 'FLOW'
      ? api.aiCatalog.createFlow({ ...common, definition: definition! })
      : api.aiCatalog.createAgent({ ...common, systemPrompt: flags.systemPrompt!, ...(flags.userPrompt !== undefined && { userPrompt: flags.userPrompt }) });
  });
  if (flags.json) return writeJson(io.stdout, item);
  io.stdout.write(
    formatFields([
      ['Item', String(idOfGid(item.id))],
      ['Name', item.name],
      ['Type', item.itemType.toLowerCase()],
      ['Visibility', item.public ? 'public' : 'private'],
      ['Project', item.project?.fullPath ?? '-'],
      ['Version', versionOf(item)],
    ]),
  );
}

function readDefinition(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** An item by numeric id, or by exact name among the items you may read (one match). */
async function findItem(api: Forgelet, ref: string): Promise<AiCatalogItemNode> {
  if (/^\d+$/.test(ref)) {
    const item = await api.aiCatalog.item(Number(ref));
    if (!item) throw new CliError(`no catalog item ${ref}`);
    return item;
  }
  const matches: AiCatalogItemNode[] = [];
  for await (const item of api.aiCatalog.allItems({ search: ref })) if (item.name === ref) matches.push(item);
  if (matches.length === 0) throw new CliError(`no catalog item named "${ref}"`);
  if (matches.length > 1) throw new CliError(`${matches.length} catalog items are named "${ref}": give the id (${matches.map((m) => idOfGid(m.id)).join(', ')})`);
  return matches[0]!;
}

async function enable(ref: string, flags: EnableFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const consumer = await call(remote, async (api) => {
    const [item, projectId] = await Promise.all([findItem(api, ref), projectIdOf(api, flags.project)]);
    return api.aiCatalog.enable(idOfGid(item.id), { projectId }, flags.pin !== undefined ? { pinnedVersionPrefix: flags.pin } : {});
  });
  if (flags.json) return writeJson(io.stdout, consumer);
  io.stdout.write(`Enabled ${consumer.item?.name ?? ref} for ${consumer.project?.fullPath ?? flags.project}: consumer ${idOfGid(consumer.id)}.\n`);
}
