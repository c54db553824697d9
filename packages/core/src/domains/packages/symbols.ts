/**
 * The symbol server: `GET <prefix>/symbolfiles/:file_name/:signature/:file_name` with a
 * `Symbolchecksum: SHA256:<hex>` header (several may be listed). No credentials: the checksum
 * is what a debugger proves it knows. The `.pdb` is streamed out of its symbol package.
 */
import type { Readable } from 'node:stream';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { openZipEntry } from '../artifacts/index.js';
import { existingGroup, existingProject } from './feed-access.js';
import type { FeedOwner } from './feed.js';
import { selectSettingsRow, settingsForProject, settingsOf } from './packages.queries.js';
import { traversalIds } from '../../access/policy.js';

const CHECKSUM_RE = /SHA256:([a-f0-9]{64})/gi;

export interface SymbolDownload {
  body: Readable;
  size: number;
  fileName: string;
}

export function checksumsOf(header: string | undefined): string[] | null {
  if (header === undefined || header.trim() === '') return null;
  return [...header.matchAll(CHECKSUM_RE)].map((m) => m[1]!.toLowerCase());
}

export async function downloadSymbolFile(
  ctx: Ctx,
  owner: FeedOwner,
  ref: string,
  input: { file_name: string; signature: string },
  headers: Record<string, string | undefined>,
): Promise<SymbolDownload> {
  let projectFilter: { projectId: number } | { traversal: string };
  let enabled: boolean;
  if (owner === 'projects') {
    const project = await existingProject(ctx, ref);
    projectFilter = { projectId: project.id };
    enabled = (await settingsForProject(ctx, project.namespace_id)).nuget_symbol_server_enabled;
  } else {
    const group = await existingGroup(ctx, ref);
    projectFilter = { traversal: group.traversal };
    const rows = await Promise.all(traversalIds(group.traversal).reverse().map((id) => selectSettingsRow(ctx.db, id)));
    enabled = settingsOf(rows.find((r) => r !== undefined)).nuget_symbol_server_enabled;
  }
  if (!enabled) throw new ForbiddenError();
  const checksums = checksumsOf(headers.symbolchecksum);
  if (checksums === null) throw new BadRequestError('Missing checksum header');
  if (!checksums.length) throw new NotFoundError('Symbol');

  let q = ctx.db
    .selectFrom('package_symbols as s')
    .innerJoin('packages as p', 'p.id', 's.package_id')
    .innerJoin('package_files as f', 'f.id', 's.package_file_id')
    .select(['s.file_name', 's.size', 's.compressed_size', 's.compression_method', 's.local_header_offset', 'f.blob_key'])
    .where('s.lower_signature', '=', input.signature.toLowerCase())
    .where('s.file_name', '=', input.file_name.toLowerCase())
    .where('s.file_sha256', 'in', checksums);
  if ('projectId' in projectFilter) q = q.where('p.project_id', '=', projectFilter.projectId);
  else {
    const prefix = `${projectFilter.traversal}%`;
    q = q.where('p.project_id', 'in', (eb) =>
      eb.selectFrom('projects as pr').innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id').select('pr.id').where('ns.traversal', 'like', prefix),
    );
  }
  const symbol = await q.orderBy('s.id', 'desc').executeTakeFirst();
  if (!symbol) throw new NotFoundError('Symbol');
  const body = await openZipEntry(ctx.blobs, symbol.blob_key, {
    local_header_offset: Number(symbol.local_header_offset),
    compressed_size: Number(symbol.compressed_size),
    compression_method: symbol.compression_method,
    size: Number(symbol.size),
  });
  return { body, size: Number(symbol.size), fileName: symbol.file_name };
}
