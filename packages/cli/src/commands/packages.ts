/**
 * `forgelet packages push|list`: a project's NuGet feed on a running server. `push` checks the
 * `.nupkg` locally (its nuspec names the package), then streams it to the feed's publish
 * endpoint (`PUT /projects/:id/packages/nuget`, multipart `package`) with a progress bar; a
 * `.snupkg` goes to `…/nuget/symbolpackage`.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { NugetUploadResult } from '@forgelet/client';
import type { PackageEntity } from '@forgelet/core';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { readNuspecXml } from '../nupkg.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, ProgressLine, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  name?: string;
  type?: string;
  sort?: string;
}

export function registerPackageCommands(program: Command, io: CliIo): void {
  const packages = program.command('packages').description("a project's package feed (NuGet) on a running server");
  remoteOptions(packages.command('push <project> <file>'))
    .description('publish a .nupkg (or a .snupkg symbol package) to the project feed (Developer)')
    .action((project: string, file: string, flags: Flags) => push(project, file, flags, io));
  pagingOptions(remoteOptions(packages.command('list <project>')))
    .description("list a project's packages (oldest first)")
    .option('--name <name>', 'only packages whose name contains this')
    .option('--type <type>', 'package type, e.g. nuget')
    .option('--sort <order>', 'asc or desc by creation', 'asc')
    .action((project: string, flags: ListFlags) => list(project, flags, io));
}

async function packageIdentity(file: string): Promise<{ id: string; version: string }> {
  const xml = await readNuspecXml(file);
  const { parseNuspec } = await import('@forgelet/core');
  try {
    const meta = parseNuspec(xml);
    return { id: meta.id, version: meta.version };
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
}

async function push(project: string, file: string, flags: Flags, io: CliIo): Promise<void> {
  const symbols = /\.snupkg$/i.test(file);
  if (!symbols && !/\.nupkg$/i.test(file)) throw new UsageError(`the file must be a .nupkg or .snupkg, got "${file}"`);
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`);
    size = info.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const pkg = await packageIdentity(file);
  const remote = resolveRemote(flags, io.env);
  const progress = await ProgressLine.open(io.stderr, isLive(io.stderr, flags.json), `Pushing ${basename(file)}`, size);
  const params = { onProgress: (sent: number) => progress.update(sent) };
  let answer: NugetUploadResult;
  try {
    answer = await call(remote, ({ nugetFeed }) =>
      symbols ? nugetFeed.uploadSymbolPackage(project, { path: file }, params) : nugetFeed.uploadPackageFile(project, { path: file }, params),
    );
  } catch (err) {
    progress.abort();
    throw err;
  }
  progress.finish(size);
  const message = answer.message ?? String(answer.status);
  if (flags.json) return writeJson(io.stdout, { project, name: pkg.id, version: pkg.version, file: basename(file), size, symbols, status: answer.status, message });
  io.stdout.write(`Pushed ${symbols ? 'symbols of ' : ''}${pkg.id} ${pkg.version} to ${project} (${message}).\n`);
}

async function list(project: string, flags: ListFlags, io: CliIo): Promise<void> {
  if (flags.sort !== undefined && !['asc', 'desc'].includes(flags.sort)) throw new UsageError(`--sort must be asc or desc, got "${flags.sort}"`);
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading packages', () =>
    call(remote, (api) =>
      fetchListing<PackageEntity>(
        api.packages.all(project, {
          per_page: paging.perPage,
          sort: (flags.sort ?? 'asc') as 'asc' | 'desc',
          ...(flags.name !== undefined && { package_name: flags.name }),
          ...(flags.type !== undefined && { package_type: flags.type as never }),
        }),
        paging,
      ),
    ),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No packages.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((p) => [String(p.id), p.name, p.version, p.package_type, p.status === 'default' ? p.status : { text: p.status, color: 'yellow' }, p.created_at]);
  io.stdout.write(renderTable(['ID', 'NAME', 'VERSION', 'TYPE', 'STATUS', 'CREATED'], rows, io.stdout.columns) + footer);
}
