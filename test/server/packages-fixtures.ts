/**
 * Package archives for the feed tests: `.nupkg`/`.snupkg` zips built in memory with yazl (a
 * nuspec, the OPC parts NuGet writes, a payload), synthetic portable PDBs, multipart bodies
 * and Basic-auth uploads.
 */
import { createHash, randomBytes } from 'node:crypto';
import yazl from 'yazl';
import { chunked, exchangeAndReuse, requestHead } from '../support/raw-http.js';
import type { ForgeletHttp } from '../support/server.js';
import { rawRequest, type RawResponse } from './http.js';

export interface NuspecOptions {
  id: string;
  version: string;
  authors?: string;
  description?: string;
  summary?: string;
  title?: string;
  tags?: string;
  projectUrl?: string;
  iconUrl?: string;
  licenseUrl?: string;
  /** `null` target framework: dependencies outside any group. */
  groups?: { targetFramework: string | null; dependencies: { id: string; version?: string }[] }[];
  /** Extra raw XML inside `<metadata>`. */
  extra?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function nuspecXml(o: NuspecOptions): string {
  const el = (name: string, v: string | undefined) => (v === undefined ? '' : `    <${name}>${esc(v)}</${name}>\n`);
  let deps = '';
  if (o.groups) {
    const depXml = (d: { id: string; version?: string }) => `<dependency id="${esc(d.id)}"${d.version ? ` version="${esc(d.version)}"` : ''} />`;
    const loose = o.groups.filter((g) => g.targetFramework === null).flatMap((g) => g.dependencies.map(depXml));
    const grouped = o.groups
      .filter((g) => g.targetFramework !== null)
      .map((g) => `<group targetFramework="${esc(g.targetFramework!)}">${g.dependencies.map(depXml).join('')}</group>`);
    deps = `    <dependencies>${loose.join('')}${grouped.join('')}</dependencies>\n`;
  }
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">\n  <metadata>\n` +
    el('id', o.id) +
    el('version', o.version) +
    el('title', o.title) +
    el('authors', o.authors ?? 'Forgelet Tests') +
    el('description', o.description ?? `The ${o.id} package`) +
    el('summary', o.summary) +
    el('tags', o.tags) +
    el('projectUrl', o.projectUrl) +
    el('iconUrl', o.iconUrl) +
    el('licenseUrl', o.licenseUrl) +
    deps +
    (o.extra ?? '') +
    `  </metadata>\n</package>\n`
  );
}

export function zip(files: Record<string, string | Buffer>): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) z.addBuffer(Buffer.from(content), name, { mtime: new Date('2024-01-01T00:00:00Z') });
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />' +
  '<Default Extension="nuspec" ContentType="application/octet" /><Default Extension="dll" ContentType="application/octet" />' +
  '<Default Extension="pdb" ContentType="application/octet" /></Types>';

/** The OPC relationship NuGet 2.x follows to find the manifest. */
const rels = (nuspec: string) =>
  '<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  `<Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/${nuspec}" Id="R0" /></Relationships>`;

/** A package archive: OPC parts, the nuspec at the root, a payload (or `payloadBytes` of noise). */
export function nupkg(o: NuspecOptions, options: { payload?: Buffer; nuspecName?: string } = {}): Promise<Buffer> {
  const nuspec = options.nuspecName ?? `${o.id}.nuspec`;
  return zip({
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': rels(nuspec),
    [nuspec]: nuspecXml(o),
    [`lib/net6.0/${o.id}.dll`]: options.payload ?? Buffer.from(`assembly of ${o.id} ${o.version}`),
  });
}

/**
 * A synthetic portable PDB: the `BSJB` metadata root, stream headers ending with `#Blob`,
 * then the 20-byte PDB id (16-byte GUID + 4-byte stamp), then filler up to `size` bytes.
 */
export function portablePdb(guid: Buffer, stamp: Buffer, size = 20_000, seed = 1): Buffer {
  const header = Buffer.concat([
    Buffer.from('BSJB', 'latin1'),
    Buffer.from([1, 0, 1, 0, 0, 0, 0, 0, 12, 0, 0, 0]),
    Buffer.from('PDB v1.0\0\0\0\0', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from([0x6c, 0, 0, 0, 0x20, 0, 0, 0]),
    Buffer.from('#Pdb\0\0\0\0', 'latin1'),
    Buffer.from([0x8c, 0, 0, 0, 0x10, 0, 0, 0]),
    Buffer.from('#Blob\0\0\0', 'latin1'),
  ]);
  const id = Buffer.concat([guid, stamp]);
  const fill = Buffer.alloc(Math.max(0, size - header.length - id.length));
  for (let i = 0; i < fill.length; i++) fill[i] = (i * 31 + seed * 7) & 0xff;
  return Buffer.concat([header, id, fill]);
}

/** GitLab's signature of a PDB id's GUID: fields 1-3 byte-reversed, then bytes 8-15, then FFFFFFFF. */
export function expectedSignature(guid: Buffer): string {
  const hex = [...guid].map((b) => b.toString(16).padStart(2, '0'));
  return `${hex.slice(0, 4).reverse().join('')}${hex.slice(4, 6).reverse().join('')}${hex.slice(6, 8).reverse().join('')}${hex.slice(8).join('')}FFFFFFFF`;
}

/** SHA-256 of the file with its PDB id (located after `#Blob\0\0\0`) zeroed. */
export function expectedChecksum(pdb: Buffer): string {
  const copy = Buffer.from(pdb);
  const at = copy.indexOf('Blob') + 7;
  copy.fill(0, at, at + 20);
  return createHash('sha256').update(copy).digest('hex');
}

export function snupkg(o: NuspecOptions, pdbs: Record<string, Buffer>): Promise<Buffer> {
  return zip({
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': rels(`${o.id}.nuspec`),
    [`${o.id}.nuspec`]: nuspecXml({ ...o, extra: '    <packageTypes><packageType name="SymbolsPackage" /></packageTypes>\n' }),
    ...pdbs,
  });
}

/** A well-formed multipart body with one file part and optional text fields. */
export function multipart(file: Buffer, options: { field?: string; filename?: string; fields?: Record<string, string> } = {}): { body: Buffer; contentType: string } {
  const boundary = `----forgelet${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(options.fields ?? {})) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'package'}"; filename="${options.filename ?? 'package.nupkg'}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function basic(username: string, token: string): string {
  return `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`;
}

/** `PUT /api/v4<path>` with the archive as multipart `package` and the given credentials header(s). */
export function putPackage(f: ForgeletHttp, path: string, file: Buffer, headers: Record<string, string>, options: Parameters<typeof multipart>[1] = {}): Promise<RawResponse> {
  const { body, contentType } = multipart(file, options);
  return rawRequest(f.url, 'PUT', `/api/v4${path}`, { headers: { ...headers, 'Content-Type': contentType }, body });
}

/**
 * A NuGet push of `size` random bytes, chunked as NuGet 5.8 sends it, on a connection of its
 * own; the answer and whether the connection could be used again (support/raw-http.ts).
 */
export function pushChunked(url: string, projectId: number, token: string, size: number): ReturnType<typeof exchangeAndReuse> {
  const { body, contentType } = multipart(randomBytes(size), { field: 'package', filename: 'package.nupkg' });
  const head = requestHead('PUT', `/api/v4/projects/${projectId}/packages/nuget`, { 'PRIVATE-TOKEN': token, 'Content-Type': contentType, 'Transfer-Encoding': 'chunked' });
  return exchangeAndReuse(url, head, chunked(body, 16 * 1024));
}

/** GET `/api/v4<path>` with optional headers, body as a Buffer. */
export async function getRaw(
  f: ForgeletHttp,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer; text: string; json: any; body: any }> {
  const res = await fetch(`${f.url}/api/v4${path}`, { headers, redirect: 'manual' });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: any;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, bytes, text, json, body: json ?? text };
}
