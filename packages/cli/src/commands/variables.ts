/**
 * `forgelet variables list|get|set|delete`: CI/CD variables of a project (`--project`), a group
 * (`--group`) or the instance (`--instance`) on a running server. Tables never print values;
 * `get` and `--json` do (hidden variables have none to print).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CiInstanceVariableEntity, CiVariableEntity } from '@forgelet/core';
import { ApiError, type Forgelet } from '@forgelet/client';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { ownerOf, ownerOptions, type Owner, type OwnerFlags } from '../owner.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';

interface ScopeFlags extends RemoteFlags, OwnerFlags {
  json?: boolean;
}
interface KeyFlags extends ScopeFlags {
  environmentScope?: string;
}
interface SetFlags extends KeyFlags {
  valueFile?: string;
  protected?: boolean;
  masked?: boolean;
  hidden?: boolean;
  raw?: boolean;
  file?: boolean;
  description?: string;
}

type Variable = CiVariableEntity | CiInstanceVariableEntity;

function scopeOptions(cmd: Command): Command {
  return ownerOptions(remoteOptions(cmd));
}

function keyOptions(cmd: Command): Command {
  return scopeOptions(cmd).option('--environment-scope <scope>', 'pick the variable of this environment scope (projects and groups)');
}

export function registerVariableCommands(program: Command, io: CliIo): void {
  const variables = program.command('variables').description('CI/CD variables of a project, a group or the instance on a running server');
  pagingOptions(scopeOptions(variables.command('list')))
    .description('list variables (values only with --json)')
    .action((flags: ScopeFlags & PagingFlags) => list(flags, io));
  keyOptions(variables.command('get <key>'))
    .description("print a variable's value (--json: the whole variable)")
    .action((key: string, flags: KeyFlags) => get(key, flags, io));
  keyOptions(variables.command('set <key> [value]'))
    .description('create the variable, or update it when the key exists in that environment scope')
    .option('--value-file <path>', 'read the value from a file (keeps it out of the process list)')
    .option('--protected', 'only for pipelines on protected branches')
    .option('--masked', 'masked in job logs (GitLab masking rules apply)')
    .option('--hidden', 'masked and never shown again (create only; projects and groups)')
    .option('--raw', 'not expanded ($OTHER stays as written)')
    .option('--file', 'a file variable: the job gets a path to a file holding the value')
    .option('--description <text>', 'at most 255 characters')
    .action((key: string, value: string | undefined, flags: SetFlags) => set(key, value, flags, io));
  keyOptions(variables.command('delete <key>'))
    .description('delete a variable')
    .action((key: string, flags: KeyFlags) => remove(key, flags, io));
}

function filterOf(owner: Owner, flags: KeyFlags) {
  if (flags.environmentScope === undefined) return {};
  if (owner.kind === 'instance') throw new UsageError('instance variables have no environment scope');
  return { filter: { environment_scope: flags.environmentScope } };
}

function show(api: Forgelet, owner: Owner, key: string, filter: ReturnType<typeof filterOf>): Promise<Variable> {
  if (owner.kind === 'instance') return api.instanceVariables.show(key);
  const resource = owner.kind === 'project' ? api.projectVariables : api.groupVariables;
  return resource.show(owner.id, key, filter);
}

async function list(flags: ScopeFlags & PagingFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags);
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await call(remote, (api) => {
    const query = { per_page: paging.perPage };
    if (owner.kind === 'instance') return fetchListing<Variable>(api.instanceVariables.all(query), paging);
    return fetchListing<Variable>((owner.kind === 'project' ? api.projectVariables : api.groupVariables).all(owner.id, query), paging);
  });
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No variables.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((v) => [
    v.key,
    v.variable_type,
    'environment_scope' in v ? v.environment_scope : '*',
    flagsOf(v).join(',') || '-',
    v.description ?? '',
  ]);
  io.stdout.write(renderTable(['KEY', 'TYPE', 'ENVIRONMENTS', 'FLAGS', 'DESCRIPTION'], rows, io.stdout.columns) + footer);
}

function flagsOf(v: Variable): string[] {
  const out: string[] = [];
  if (v.protected) out.push('protected');
  if ('hidden' in v && v.hidden) out.push('hidden');
  else if (v.masked) out.push('masked');
  if (v.raw) out.push('raw');
  return out;
}

async function get(key: string, flags: KeyFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags);
  const filter = filterOf(owner, flags);
  const remote = resolveRemote(flags, io.env);
  const variable = await call(remote, (api) => show(api, owner, key, filter));
  if (flags.json) return writeJson(io.stdout, variable);
  if (variable.value === null) throw new UsageError(`${key} is hidden: its value cannot be read back`);
  io.stdout.write(`${variable.value}\n`);
}

async function set(key: string, value: string | undefined, flags: SetFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags);
  if ((value === undefined) === (flags.valueFile === undefined)) throw new UsageError('give either the value or --value-file');
  if (flags.hidden && owner.kind === 'instance') throw new UsageError('instance variables cannot be hidden');
  const content = value ?? (await readFile(flags.valueFile!, 'utf8'));
  const filter = filterOf(owner, flags);
  const attributes = {
    ...(flags.protected && { protected: true }),
    ...(flags.masked && { masked: true }),
    ...(flags.raw && { raw: true }),
    ...(flags.file && { variable_type: 'file' as const }),
    ...(flags.description !== undefined && { description: flags.description }),
  };
  const remote = resolveRemote(flags, io.env);
  const { variable, created } = await call(remote, async (api) => {
    let exists = true;
    try {
      await show(api, owner, key, filter);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      exists = false;
    }
    if (exists) {
      if (flags.hidden) throw new UsageError(`${key} exists: only a new variable can be hidden`);
      if (owner.kind === 'instance') return { variable: await api.instanceVariables.edit(key, { value: content, ...attributes }), created: false };
      const resource = owner.kind === 'project' ? api.projectVariables : api.groupVariables;
      return { variable: await resource.edit(owner.id, key, { value: content, ...attributes, ...filter }), created: false };
    }
    if (owner.kind === 'instance') return { variable: await api.instanceVariables.create(key, content, attributes), created: true };
    const resource = owner.kind === 'project' ? api.projectVariables : api.groupVariables;
    const scoped = { ...attributes, ...(flags.hidden && { masked_and_hidden: true }), ...(flags.environmentScope !== undefined && { environment_scope: flags.environmentScope }) };
    return { variable: await resource.create(owner.id, key, content, scoped), created: true };
  });
  if (flags.json) return writeJson(io.stdout, variable);
  io.stdout.write(`${created ? 'Created' : 'Updated'} ${key}${'environment_scope' in variable ? ` (environments: ${variable.environment_scope})` : ''}.\n`);
}

async function remove(key: string, flags: KeyFlags, io: CliIo): Promise<void> {
  const owner = ownerOf(flags);
  const filter = filterOf(owner, flags);
  const remote = resolveRemote(flags, io.env);
  await call(remote, (api) => {
    if (owner.kind === 'instance') return api.instanceVariables.remove(key);
    return (owner.kind === 'project' ? api.projectVariables : api.groupVariables).remove(owner.id, key, filter);
  });
  if (flags.json) return writeJson(io.stdout, { key, deleted: true });
  io.stdout.write(`Deleted ${key}.\n`);
}
