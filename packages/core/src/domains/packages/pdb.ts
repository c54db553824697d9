/**
 * Portable PDB identity, as GitLab's ExtractSignatureAndChecksumService computes it: the
 * 20-byte PDB id follows the `#Blob` stream header in the first 256 bytes; the signature is
 * its GUID part in the symbol-server key form (first three fields byte-reversed) plus
 * `FFFFFFFF`; the checksum is the SHA-256 of the file with the id zeroed. The file is read
 * as a stream; only its first 16 KB are held.
 */
import { createHash } from 'node:crypto';

const GUID_CHUNK = 256;
const FIRST_CHUNK = 16 * 1024;
const ID_START = 7;
const ID_LENGTH = 20;

export interface PdbIdentity {
  signature: string;
  checksum: string;
  size: number;
}

function signatureOf(id: Buffer): string {
  const hex = [...id.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0'));
  const fields = [hex.slice(0, 4), hex.slice(4, 6), hex.slice(6, 8)].map((f) => f.reverse().join(''));
  return `${fields.join('')}${hex.slice(8, 16).join('')}FFFFFFFF`;
}

/** The signature and checksum of a `.pdb`; null when it has no PDB id (not a portable PDB). */
export async function pdbIdentity(stream: AsyncIterable<Uint8Array>): Promise<PdbIdentity | null> {
  const hash = createHash('sha256');
  let head: Buffer | null = Buffer.alloc(0);
  let identity: { id: Buffer } | null = null;
  let size = 0;
  const takeHead = (): boolean => {
    const first = head!;
    head = null;
    const at = first.subarray(0, GUID_CHUNK).indexOf('Blob');
    if (at < 0 || first.length < at + ID_START + ID_LENGTH) return false;
    const id = Buffer.from(first.subarray(at + ID_START, at + ID_START + ID_LENGTH));
    const chunk = first.subarray(0, FIRST_CHUNK);
    const where = chunk.indexOf(id);
    if (where >= 0) chunk.fill(0, where, where + ID_LENGTH);
    hash.update(first);
    identity = { id };
    return true;
  };
  for await (const data of stream) {
    size += data.length;
    if (head) {
      head = Buffer.concat([head, data]);
      if (head.length >= FIRST_CHUNK && !takeHead()) return null;
    } else hash.update(data);
  }
  if (head && !takeHead()) return null;
  if (!identity) return null;
  return { signature: signatureOf((identity as { id: Buffer }).id), checksum: hash.digest('hex'), size };
}
