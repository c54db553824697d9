/**
 * Content types of single files served out of an archive, as GitLab Workhorse sets them:
 *
 *  - by job id (`legacy_send_artifacts_entry`): from the file name's extension (Go's
 *    `mime.TypeByExtension`, text types with `charset=utf-8`), else application/octet-stream;
 *  - by ref (`send_artifacts_entry` + content detection): from the first 512 bytes (Go's
 *    `http.DetectContentType`); every text type becomes `text/plain; charset=utf-8` so HTML or
 *    scripts never render, SVG stays image/svg+xml, and an application/* detection yields to a
 *    more precise application/* type of the extension.
 */
import { posix } from 'node:path';

const TEXT_PLAIN = 'text/plain; charset=utf-8';
const OCTET_STREAM = 'application/octet-stream';

/** Go's built-in table plus the common entries of a mime.types file. */
const BY_EXTENSION: Record<string, string> = {
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
  '.css': 'text/css; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.gif': 'image/gif',
  '.gz': 'application/gzip',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.ico': 'image/vnd.microsoft.icon',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.mp4': 'video/mp4',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.tar': 'application/x-tar',
  '.text': TEXT_PLAIN,
  '.txt': TEXT_PLAIN,
  '.wasm': 'application/wasm',
  '.webm': 'video/webm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
  '.zip': 'application/zip',
};

/** The content type of a file name's extension (case-insensitive), or application/octet-stream. */
export function contentTypeByExtension(fileName: string): string {
  return BY_EXTENSION[posix.extname(fileName).toLowerCase()] ?? OCTET_STREAM;
}

/** Byte signatures of http.DetectContentType that matter once text collapses to text/plain. */
const SIGNATURES: { prefix: number[]; type: string }[] = [
  { prefix: [0x25, 0x50, 0x44, 0x46, 0x2d], type: 'application/pdf' }, // %PDF-
  { prefix: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], type: 'image/png' },
  { prefix: [0xff, 0xd8, 0xff], type: 'image/jpeg' },
  { prefix: [0x47, 0x49, 0x46, 0x38, 0x37, 0x61], type: 'image/gif' }, // GIF87a
  { prefix: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], type: 'image/gif' }, // GIF89a
  { prefix: [0x42, 0x4d], type: 'image/bmp' },
  { prefix: [0x00, 0x00, 0x01, 0x00], type: 'image/x-icon' },
  { prefix: [0x50, 0x4b, 0x03, 0x04], type: 'application/zip' },
  { prefix: [0x1f, 0x8b, 0x08], type: 'application/x-gzip' },
  { prefix: [0x52, 0x61, 0x72, 0x20, 0x1a, 0x07, 0x00], type: 'application/x-rar-compressed' },
  { prefix: [0x00, 0x61, 0x73, 0x6d], type: 'application/wasm' },
  { prefix: [0x1a, 0x45, 0xdf, 0xa3], type: 'video/webm' },
  { prefix: [0x4f, 0x67, 0x67, 0x53, 0x00], type: 'application/ogg' },
];

function startsWith(data: Buffer, prefix: number[]): boolean {
  return data.length >= prefix.length && prefix.every((b, i) => data[i] === b);
}

/** WHATWG's "binary data byte": control characters other than tab, newlines, form feed, escape. */
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

/** Workhorse's svg.Is: an `<svg` root after an optional XML declaration, comments and a doctype. */
function isSvg(data: Buffer): boolean {
  let text = data.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  for (;;) {
    const before = text;
    text = text.replace(/^<\?xml[\s\S]*?\?>\s*/i, '').replace(/^<!--[\s\S]*?-->\s*/, '').replace(/^<!DOCTYPE[^>]*>\s*/i, '');
    if (text === before) break;
  }
  return /^<svg[\s>]/i.test(text);
}

/** A simplified http.DetectContentType over the first bytes of a file. */
function detect(head: Buffer): string {
  const data = head.subarray(0, 512);
  if (data.length === 0) return TEXT_PLAIN;
  if (startsWith(data, [0xfe, 0xff]) || startsWith(data, [0xff, 0xfe]) || startsWith(data, [0xef, 0xbb, 0xbf])) return TEXT_PLAIN;
  for (const s of SIGNATURES) if (startsWith(data, s.prefix)) return s.type;
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (data.length >= 12 && data.toString('latin1', 4, 8) === 'ftyp') return 'video/mp4';
  return data.some(isBinaryByte) ? OCTET_STREAM : TEXT_PLAIN;
}

/** The content type Workhorse sends for a file served by ref, from its first bytes and name. */
export function detectedContentType(head: Buffer, fileName: string): string {
  if (isSvg(head.subarray(0, 512))) return 'image/svg+xml';
  const detected = detect(head);
  if (detected.startsWith('text/')) return TEXT_PLAIN;
  // The disposition is an attachment: a precise application/* type of the name wins.
  const byName = contentTypeByExtension(fileName);
  if (detected.startsWith('application/') && byName.startsWith('application/') && byName !== OCTET_STREAM) return byName;
  return detected;
}

/**
 * `attachment; filename="<base name>"` with quotes escaped, as Workhorse writes it. A name
 * beyond Latin-1 goes out as its UTF-8 bytes (node writes header text as Latin-1).
 */
export function attachmentDisposition(path: string): string {
  const base = posix.basename(path).replace(/[\x00-\x1f\x7f]/g, '_').replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return Buffer.from(`attachment; filename="${base}"`, 'utf8').toString('latin1');
}
