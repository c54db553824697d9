/**
 * The key file of a data directory (`<data>/secret.key`): one base64 32-byte key per line, the
 * first seals new secrets, every line opens them (`#` comments and blank lines ignored; a file
 * of one key, as earlier versions wrote, is a ring of one). `forgelet secret-key rotate`
 * rewrites it with a new first line; running processes notice on their next seal (a stat per
 * seal) or when they meet a secret sealed with a key they do not hold.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { KeySource } from '@forgelet/core';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A key file that holds no usable key. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

/** The keys of a key file's text, the sealing one first; throws naming `where` on anything else. */
export function parseKeyFile(text: string, where: string): Buffer[] {
  const keys: Buffer[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const key = Buffer.from(line, 'base64');
    if (!BASE64.test(line) || key.length !== 32) throw new KeyFileError(`${where}:${i + 1} is not a base64 32-byte key`);
    keys.push(key);
  }
  if (!keys.length) throw new KeyFileError(`${where} holds no key`);
  return keys;
}

export function formatKeyFile(keys: Buffer[]): string {
  return [
    '# Forgelet secret keys (base64, 32 bytes): the first line seals new secrets, every line opens them.',
    '# Rotate with `forgelet secret-key rotate`; keep this file private (mode 0600).',
    ...keys.map((k) => k.toString('base64')),
    '',
  ].join('\n');
}

export function readKeyFile(file: string): Buffer[] {
  return parseKeyFile(readFileSync(file, 'utf8'), file);
}

/** Writes `text` to a new temporary file beside `file` (mode 0600, flushed to disk) and returns its path. */
function writeTemp(file: string, text: string): string {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Replaces the key file in one step: a reader sees the old keys or the new ones, never a part. */
export function writeKeyFile(file: string, keys: Buffer[]): void {
  const temp = writeTemp(file, formatKeyFile(keys));
  try {
    renameSync(temp, file);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
}

/**
 * The key file's keys, creating the file with one new key when there is none. Several
 * processes starting at once on a new data directory agree on one key: each writes a whole
 * file aside and links it into place, which succeeds for one of them; the others read it.
 */
export function loadOrCreateKeyFile(file: string): Buffer[] {
  try {
    return readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const temp = writeTemp(file, randomBytes(32).toString('base64'));
  try {
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
  return readKeyFile(file);
}

/** The key file as a key source that follows rewrites (rotations) by other processes. */
export function keyFileSource(file: string): KeySource {
  let seen = '';
  const stamp = () => {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  };
  return {
    read() {
      seen = stamp();
      return readKeyFile(file);
    },
    changed: () => stamp() !== seen,
    describe: () => file,
  };
}
